#!/usr/bin/env bash
# The whole test suite: lint, types, tests, the official conformance suite and a benchmark
# smoke run. Creates .venv and installs what it needs. Every stage runs; the exit status is
# non-zero if any stage failed, and the stages that failed are named at the end.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
set +e
failed=()

stage() {
    local name="$1"
    shift
    echo
    echo "==> $name"
    "$@"
    local status=$?
    if [ "$status" -ne 0 ]; then
        failed+=("$name (exit $status)")
    fi
    return 0
}

pytest_stage() {
    python -m pytest -q "$@"
    local status=$?
    if [ "$status" -eq 5 ]; then
        echo "pytest collected no tests: that is a failure" >&2
        return 1
    fi
    return "$status"
}

stage "ruff check" ruff check .
stage "ruff format" ruff format --check src tests
stage "mypy --strict src" mypy
# The layers of pyproject.toml [tool.importlinter] over every import (tests/test_layers.py
# also bounds the import cycles).
stage "import layers (lint-imports)" lint-imports --no-cache
# The official SDKs the interop tests (tests/interop) run against, in .cache/peers.
stage "interop peers" bash scripts/peers.sh
# redis-server, nginx and chromium for the scale-out and browser tests (Debian packages).
stage "system packages" bash scripts/system_packages.sh
stage "pytest" pytest_stage "$@"
# Published servers run as published and unchanged on mcpkit, compared through the official
# client: the representative part of tests/compat/corpus/servers.tsv (each in its own
# virtualenv under .cache/compat-corpus, cached; the whole corpus: scripts/compat_corpus.sh).
stage "compat corpus (its CI part)" bash scripts/compat_corpus.sh --ci
# The HTTP tests again with granian serving (server="granian"; uvicorn is the default).
# Deselected: the 408 for a head that stops arriving (granian closes without an answer) and
# the message when uvicorn is missing (about uvicorn itself); see docs/transports.md.
stage "pytest, HTTP under granian" env MCPKIT_HTTP_SERVER=granian python -m pytest -q \
    -p no:cacheprovider tests/http tests/modern \
    --deselect tests/http/test_http_limits.py::test_a_request_head_that_stops_arriving_gets_408_and_is_closed \
    --deselect tests/http/test_http_extra.py::test_serving_http_without_uvicorn_names_the_extra
# One tiny round of every benchmark workload: mcpkit must start and answer every call
# right (timings are never checked).
stage "benchmark smoke run" python bench/run.py --smoke
stage "official MCP conformance suite" bash scripts/conformance.sh
# The documentation site (mkdocs.yml: the guide and the API reference from the docstrings),
# every warning an error.
stage "docs site (mkdocs --strict)" env NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet

echo
if [ "${#failed[@]}" -ne 0 ]; then
    echo "FAILED stages:"
    printf '  - %s\n' "${failed[@]}"
    exit 1
fi
echo "All stages passed."
