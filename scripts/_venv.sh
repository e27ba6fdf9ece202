# Sourced by the other scripts: make .venv (once) and install mcpkit with what the tests need.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"
STAMP="$VENV/.installed"
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating virtualenv in .venv"
    "$PY" -m venv "$VENV"
fi
# Reinstall when pyproject.toml changed since the last install.
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    echo "==> installing mcpkit and its test dependencies"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e ".[dev,http,cli,auth]"
    touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
