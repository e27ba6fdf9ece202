#!/usr/bin/env bash
# Installs the interoperability peers into .cache/peers from the locks (locks/peer-*.txt,
# locks/node/peers), idempotently (a second run only checks them):
#   .cache/peers/py     a venv with the official Python SDK (PyPI `mcp`, 2.x: both eras)
#   .cache/peers/fastmcp  a venv with `fastmcp` (4.x), for the compat tests (tests/compat)
#   .cache/peers/fastmcp-tasks  a venv with `fastmcp` and `fastmcp-tasks` (its background
#                       tasks), for the compat tests of fastmcp's task examples
#   .cache/peers/mcp1   a venv with the official SDK's last 1.x (`mcp` 1.x: FastMCP, the
#                       low-level server's decorators), for the compat tests
#   .cache/peers/node   the official TypeScript SDK v2 (`@modelcontextprotocol/client`,
#                       `@modelcontextprotocol/server`: the 2026-07-28 era), the Inspector and
#                       the reference server `@modelcontextprotocol/server-everything` (the
#                       proxy tests) and `@modelcontextprotocol/ext-apps` (its JSON Schemas
#                       check the MCP Apps metadata, tests/apps) and
#                       `@modelcontextprotocol/ext-tasks` (the TypeScript tasks client of the
#                       scale-out tours) and `oidc-provider` (a certified OpenID provider:
#                       the upstream of the OAuth proxy tests), run with the Node 22 of
#                       .cache/node22 (installed here when missing)
# tests/interop/conftest.py finds them there. Prints the installed versions.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The Python peers are pinned in locks/peer-mcp.in and locks/peer-fastmcp.in; the Node peers
# here (used when locks/node/peers is written anew).
NODE_PEERS=("@modelcontextprotocol/client@2.4.0" "@modelcontextprotocol/server@2.4.0"
            "@modelcontextprotocol/inspector@2.12.0"
            "@modelcontextprotocol/server-everything@2026.8.31"
            "@modelcontextprotocol/ext-apps@2.0.4"
            "@modelcontextprotocol/ext-tasks@0.2.2"
            "oidc-provider@9.13.3")
PEERS="$ROOT/.cache/peers"
PYVENV="$PEERS/py"
NODEDIR="$PEERS/node"
mkdir -p "$PEERS"

source "$ROOT/scripts/_node22.sh"

# py_locked DIR LOCK: a venv in DIR with exactly what locks/LOCK.txt records.
py_locked() {
    local venv="$1" lock="$ROOT/locks/$2.txt"
    local stamp="$venv/.locked"
    if [ -f "$stamp" ] && cmp -s "$lock" "$stamp"; then
        return 0
    fi
    echo "==> installing locks/$2.txt into ${venv#"$ROOT"/}"
    if [ ! -x "$venv/bin/python" ]; then
        "${PYTHON:-python3}" -m venv "$venv"
    fi
    # uv (from the test environment's lock) when there: pip refuses some hashed locks whose
    # requirements carry extras (fastmcp-tasks' pydocket), and uv is faster.
    if [ -x "$ROOT/.venv/bin/uv" ]; then
        "$ROOT/.venv/bin/uv" pip install --quiet --python "$venv/bin/python" --require-hashes \
            -r "$lock"
    else
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
            -r "$lock"
    fi
    cp "$lock" "$stamp"
}

# --- the Python SDK and fastmcp (locks/peer-mcp.txt, locks/peer-fastmcp.txt) ---
py_locked "$PYVENV" peer-mcp
FASTVENV="$PEERS/fastmcp"
py_locked "$FASTVENV" peer-fastmcp
py_locked "$PEERS/fastmcp-tasks" peer-fastmcp-tasks
MCP1VENV="$PEERS/mcp1"
py_locked "$MCP1VENV" peer-mcp1

# --- the TypeScript SDK v2, the Inspector and the rest (locks/node/peers) ---
PATH="$(dirname "$NODE22"):$PATH" npm_locked peers "$NODEDIR" "${NODE_PEERS[@]}"

# --- what is there ---
echo "python peer: $("$PYVENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))')"
echo "python peer: $("$FASTVENV/bin/python" -c 'import importlib.metadata as m; print("fastmcp", m.version("fastmcp"))')"
echo "python peer: $("$PEERS/fastmcp-tasks/bin/python" -c 'import importlib.metadata as m; print("fastmcp", m.version("fastmcp"), "fastmcp-tasks", m.version("fastmcp-tasks"))')"
echo "python peer: $("$MCP1VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))')"
for pkg in client server inspector server-everything ext-tasks; do
    manifest="$NODEDIR/node_modules/@modelcontextprotocol/$pkg/package.json"
    echo "node peer: @modelcontextprotocol/$pkg $("$NODE22" -p "require('$manifest').version")"
done
echo "node peer: oidc-provider $("$NODE22" -p "require('$NODEDIR/node_modules/oidc-provider/package.json').version")"
echo "node: $NODE22 ($("$NODE22" --version))"
