#!/usr/bin/env bash
# The official MCP conformance suite against mcpkit, both protocol eras, on Node 22:
#   2025-11-25  server leg + client leg (the handshake era)
#   2026-07-28  server leg + client leg (the stateless era; the server leg also runs the
#               not-scored scenarios, among them the tasks extension's tasks-*)
# All server legs run against one fixture server (examples/conformance/everything_server.py
# serves both eras on one URL); the client legs spawn examples/conformance/client.py.
# The proxy legs run each revision's server scenarios once more against `mcpkit proxy` in
# front of the same fixture server over stdio (published over HTTP; the proxy speaks
# 2026-07-28 to it, so the 2025-11-25 scenarios cross the era bridge); they are judged
# as proxy-<revision>, beside the same client leg.
# The authorization-server leg runs the suite's authorization-server scenarios against
# mcpkit's embedded authorization server (scripts/conformance_as.py); any failed check fails.
# Installs Node 22 and the pinned suite into .cache/ on first use.
#
# Usage: scripts/conformance.sh [2025-11-25|2026-07-28 ...]   (default: both)
#
# Exits non-zero on any failed check outside the expected-failures file of its revision
# (scripts/conformance-expected-failures.txt for 2025-11-25, which is empty, and
# scripts/conformance-expected-failures-2026.txt), or on an entry there that passes now.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
source "$ROOT/scripts/_node22.sh"

SUITE_VERSION="0.2.0-alpha.12"
CACHE="$ROOT/.cache"
SUITE="$CACHE/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
REVISIONS=("$@")
[ ${#REVISIONS[@]} -gt 0 ] || REVISIONS=(2025-11-25 2026-07-28)
for rev in "${REVISIONS[@]}"; do
    case "$rev" in
        2025-11-25 | 2026-07-28) ;;
        *) echo "usage: $0 [2025-11-25|2026-07-28 ...]" >&2; exit 2 ;;
    esac
done

PATH="$(dirname "$NODE22"):$PATH" npm_locked conformance "$CACHE/conformance" \
    "@modelcontextprotocol/conformance@$SUITE_VERSION"
CONF=("$NODE22" "$SUITE")
"${CONF[@]}" --version

OUT="$(mktemp -d "${TMPDIR:-/tmp}/mcpkit-conformance.XXXXXX")"
SERVER_PID=""
PROXY_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$PROXY_PID" ]; then kill "$PROXY_PID" 2>/dev/null || true; wait "$PROXY_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

PORT="$(python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "==> fixture server: examples/conformance/everything_server.py on port $PORT"
python examples/conformance/everything_server.py --transport http --port "$PORT" \
    >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
if ! python - "$PORT" <<'PY'
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
then
    tail -n 30 "$OUT/server.log"
    exit 1
fi

# One leg: `leg REVISION server|client`. Each leg is bounded (scenarios have their own 30 s
# timeouts; this catches a hung harness). The exit codes of the legs are not used: the report
# judges every scenario from its checks.
leg() {
    local rev="$1" role="$2" start=$SECONDS
    mkdir -p "$OUT/$rev"
    if [ "$role" = server ]; then
        timeout 600 "${CONF[@]}" server --url "http://localhost:$PORT/mcp" --requirements "$rev" \
            -o "$OUT/$rev/server" >"$OUT/$rev/server-leg.txt" 2>&1 || true
    else
        timeout 600 "${CONF[@]}" client \
            --command "$ROOT/.venv/bin/python $ROOT/examples/conformance/client.py" \
            --requirements "$rev" -o "$OUT/$rev/client" >"$OUT/$rev/client-leg.txt" 2>&1 || true
    fi
    echo "$rev $role leg: $((SECONDS - start)) s" | tee -a "$OUT/timings.txt"
}

REPORT_ARGS=()
for rev in "${REVISIONS[@]}"; do
    echo "==> $rev: server leg, then client leg"
    mkdir -p "$OUT/$rev"
    "${CONF[@]}" list --requirements "$rev" >"$OUT/$rev/scenarios.txt"
    leg "$rev" server
    leg "$rev" client
    if [ "$rev" = 2025-11-25 ]; then
        REPORT_ARGS+=("$OUT/$rev" scripts/conformance-expected-failures.txt)
    else
        REPORT_ARGS+=("$OUT/$rev" scripts/conformance-expected-failures-2026.txt)
    fi
done

PROXY_PORT="$(python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "==> mcpkit proxy in front of the fixture server (stdio) on port $PROXY_PORT"
python -m mcpkit proxy "$ROOT/.venv/bin/python $ROOT/examples/conformance/everything_server.py --transport stdio" \
    --transport http --port "$PROXY_PORT" >"$OUT/proxy.log" 2>&1 &
PROXY_PID=$!
if ! python - "$PROXY_PORT" <<'PY'
import socket, sys, time
deadline = time.time() + 30
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("mcpkit proxy did not start")
PY
then
    tail -n 30 "$OUT/proxy.log"
    exit 1
fi
for rev in "${REVISIONS[@]}"; do
    echo "==> $rev: server leg through mcpkit proxy"
    start=$SECONDS
    mkdir -p "$OUT/proxy-$rev"
    cp "$OUT/$rev/scenarios.txt" "$OUT/proxy-$rev/scenarios.txt"
    ln -sfn "../$rev/client" "$OUT/proxy-$rev/client"  # judged beside the same client leg
    timeout 600 "${CONF[@]}" server --url "http://localhost:$PROXY_PORT/mcp" --requirements "$rev" \
        -o "$OUT/proxy-$rev/server" >"$OUT/proxy-$rev/server-leg.txt" 2>&1 || true
    echo "$rev proxy server leg: $((SECONDS - start)) s" | tee -a "$OUT/timings.txt"
    if [ "$rev" = 2025-11-25 ]; then
        REPORT_ARGS+=("$OUT/proxy-$rev" scripts/conformance-expected-failures.txt)
    else
        REPORT_ARGS+=("$OUT/proxy-$rev" scripts/conformance-expected-failures-2026.txt)
    fi
done
cleanup
SERVER_PID=""
PROXY_PID=""

echo "==> authorization-server scenarios against mcpkit's embedded authorization server"
AS_FAILED=""
timeout 600 python scripts/conformance_as.py "${CONF[@]}" "$OUT/authorization-server" \
    >"$OUT/authorization-server.txt" 2>&1 || AS_FAILED=1
tail -n 4 "$OUT/authorization-server.txt"

echo "==> results in $OUT"
if ! python scripts/conformance_report.py "${REPORT_ARGS[@]}"; then
    echo "--- last lines of the fixture server's log ($OUT/server.log):"
    tail -n 30 "$OUT/server.log"
    echo "--- last lines of the proxy's log ($OUT/proxy.log):"
    tail -n 30 "$OUT/proxy.log"
    exit 1
fi
if [ -n "$AS_FAILED" ]; then
    echo "the authorization-server scenarios failed: see $OUT/authorization-server.txt"
    exit 1
fi
