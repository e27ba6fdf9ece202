#!/usr/bin/env bash
# Regenerates the lock files the tests, CI and benchmarks install from (locks/). The library's
# own requirements stay ranges in pyproject.toml; these files pin the exact versions (with
# hashes) every test run uses, so a release of any dependency cannot change a test run until
# someone runs this script and commits the result.
#
#   locks/dev.txt          mcpkit's test environment (.venv): every extra, the dev tools,
#                          pip and the build backend
#   locks/peer-mcp.txt     the official Python SDK peer (.cache/peers/py)
#   locks/peer-fastmcp.txt the fastmcp peer (.cache/peers/fastmcp)
#   locks/peer-fastmcp-tasks.txt fastmcp with fastmcp-tasks (.cache/peers/fastmcp-tasks)
#   locks/peer-mcp1.txt    the official Python SDK's last 1.x (.cache/peers/mcp1), for tests/compat
#   locks/bench-ref.txt    the benchmark's reference SDKs (bench/.venv-ref)
#   locks/node/*/          package.json + package-lock.json of each Node tree (npm ci)
#
# Usage: scripts/lock.sh [--upgrade]   (--upgrade: newest versions within the ranges)
# Node trees are re-locked by deleting locks/node/<tree>/package-lock.json and running
# the script that installs the tree (it writes the new lock back).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
UV_VERSION="0.13.8"
TOOLS="$ROOT/.cache/tools"
if [ ! -x "$TOOLS/bin/uv" ] || [ "$("$TOOLS/bin/uv" --version | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    "${PYTHON:-python3}" -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet "uv==$UV_VERSION"
fi
UV=("$TOOLS/bin/uv" pip compile --universal --python-version 3.11 --generate-hashes --no-header
    --constraint locks/constraints.txt
    --quiet)
[ "${1:-}" = "--upgrade" ] && UV+=(--upgrade)
"${UV[@]}" pyproject.toml locks/build.in --extra dev --extra http --extra cli --extra auth \
    --extra redis --extra otel --extra metrics --extra docs --extra skills --extra granian \
    -o locks/dev.txt
for lock in peer-mcp peer-fastmcp peer-fastmcp-tasks peer-mcp1 bench-ref; do
    "${UV[@]}" "locks/$lock.in" -o "locks/$lock.txt"
done
# The compat corpus's CI part (tests/compat/corpus/servers.tsv, "yes" in the last column):
# each published server with mcpkit's own requirements and the build backend, one lock each.
mkdir -p locks/corpus
while IFS=$'\t' read -r name req _style _command in_ci; do
    case "$name" in ''|'#'*) continue ;; esac
    [ "$in_ci" = "yes" ] || continue
    printf '%s\n' $req >"locks/corpus/$name.in"
    "${UV[@]}" pyproject.toml locks/build.in "locks/corpus/$name.in" -o "locks/corpus/$name.txt"
done <tests/compat/corpus/servers.tsv
echo "locks written: $(ls locks/*.txt locks/corpus/*.txt | tr '\n' ' ')"
