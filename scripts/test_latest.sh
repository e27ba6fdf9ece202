#!/usr/bin/env bash
# Not part of CI's verdict: lint, types and the tests against the newest releases that
# pyproject.toml's ranges admit (no lock), in .venv-latest. A failure here that
# scripts/test.sh does not show means a new release of a dependency changes something: fix
# mcpkit for it, then move the locks (bash scripts/lock.sh --upgrade) and commit them.
# The peers (official SDKs, conformance suite) stay as locked; pytest arguments pass through.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv-latest"
[ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
echo "==> newest releases into .venv-latest"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade --upgrade-strategy eager \
    -e ".[dev,http,cli,auth,redis,otel,metrics]" || exit 1
export PATH="$VENV/bin:$PATH"
bash scripts/peers.sh >/dev/null || exit 1
failed=()
echo "==> ruff check";  ruff check . || failed+=(ruff)
echo "==> mypy --strict"; mypy || failed+=(mypy)
echo "==> pytest"; python -m pytest -q -p no:cacheprovider "$@" || failed+=(pytest)
echo "==> what differs from the lock"
"$VENV/bin/python" -m pip freeze --exclude-editable | sort >"$VENV/freeze.txt"
grep -E '^[A-Za-z0-9_.-]+==' locks/dev.txt | sed 's/ .*//; s/;.*//' | sort >"$VENV/locked.txt"
diff "$VENV/locked.txt" "$VENV/freeze.txt" | grep '^[<>]' || echo "(nothing: the lock is current)"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "FAILED against the newest releases: ${failed[*]}"
    exit 1
fi
echo "The newest releases pass."
