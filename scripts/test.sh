#!/usr/bin/env bash
# The whole test suite: lint, types, tests. Creates .venv and installs what it needs.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

echo "==> ruff"
ruff check .
ruff format --check src tests

echo "==> mypy --strict src"
mypy

echo "==> pytest"
set +e
python -m pytest -q "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

echo "==> official MCP conformance suite"
bash scripts/conformance.sh
