# Sourced by the other scripts: make .venv (once) and install mcpkit with what the tests need.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"
STAMP="$VENV/.installed"
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating virtualenv in .venv"
    if ! "$PY" -m venv "$VENV"; then
        # Debian/Ubuntu without the python3-venv package have no ensurepip: make the venv
        # without pip and let the system's pip put pip into it.
        echo "==> retrying without ensurepip (pip installs pip into .venv)"
        rm -rf "$VENV"
        "$PY" -m venv --without-pip "$VENV"
        "$PY" -m pip --python "$VENV/bin/python" install --quiet pip
    fi
fi
# Install from the lock (locks/dev.txt: exact versions with hashes, scripts/lock.sh writes
# it), then mcpkit itself without resolving anything again. Reinstall when the lock or
# pyproject.toml changed since the last install.
LOCK="$ROOT/locks/dev.txt"
if [ ! -f "$STAMP" ] || [ "$LOCK" -nt "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    echo "==> installing mcpkit's test environment from locks/dev.txt"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
        -r "$LOCK"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        --no-build-isolation -e .
    touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
# The bytecode of mcpkit itself, as pip writes it for an installed package: every server the
# tests and benchmarks spawn would otherwise compile it again when PYTHONDONTWRITEBYTECODE
# is set.
"$VENV/bin/python" -m compileall -q -j 0 src/mcpkit >/dev/null
