#!/usr/bin/env bash
# Installs the interoperability peers into .cache/peers, pinned and idempotently (a second run
# only checks them):
#   .cache/peers/py     a venv with the official Python SDK (PyPI `mcp`, 2.x: both eras)
#   .cache/peers/fastmcp  a venv with `fastmcp` (4.x), for the compat tests (tests/compat)
#   .cache/peers/node   the official TypeScript SDK v2 (`@modelcontextprotocol/client`,
#                       `@modelcontextprotocol/server`: the 2026-07-28 era), the Inspector and
#                       the reference server `@modelcontextprotocol/server-everything` (the
#                       proxy tests) and `@modelcontextprotocol/ext-apps` (its JSON Schemas
#                       check the MCP Apps metadata, tests/apps) and
#                       `@modelcontextprotocol/ext-tasks` (the TypeScript tasks client of the
#                       scale-out tours), run with the Node 22 of .cache/node22 (installed
#                       here when missing)
# tests/interop/conftest.py finds them there. Prints the installed versions.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PY_PEERS=("mcp==2.3.0")
FASTMCP_PEERS=("fastmcp==4.2.3")
NODE_PEERS=("@modelcontextprotocol/client@2.4.0" "@modelcontextprotocol/server@2.4.0"
            "@modelcontextprotocol/inspector@2.12.0"
            "@modelcontextprotocol/server-everything@2026.8.31"
            "@modelcontextprotocol/ext-apps@2.0.4"
            "@modelcontextprotocol/ext-tasks@0.2.2")
PEERS="$ROOT/.cache/peers"
PYVENV="$PEERS/py"
NODEDIR="$PEERS/node"
mkdir -p "$PEERS"

source "$ROOT/scripts/_node22.sh"

# --- the Python SDK ---
py_stamp="$PYVENV/.peers-ready"
if [ ! -f "$py_stamp" ] || [ "$(cat "$py_stamp")" != "${PY_PEERS[*]}" ]; then
    echo "==> installing ${PY_PEERS[*]} into .cache/peers/py"
    if [ ! -x "$PYVENV/bin/python" ]; then
        "${PYTHON:-python3}" -m venv "$PYVENV"
    fi
    "$PYVENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PEERS[@]}"
    echo "${PY_PEERS[*]}" >"$py_stamp"
fi

# --- fastmcp ---
FASTVENV="$PEERS/fastmcp"
fast_stamp="$FASTVENV/.peers-ready"
if [ ! -f "$fast_stamp" ] || [ "$(cat "$fast_stamp")" != "${FASTMCP_PEERS[*]}" ]; then
    echo "==> installing ${FASTMCP_PEERS[*]} into .cache/peers/fastmcp"
    if [ ! -x "$FASTVENV/bin/python" ]; then
        "${PYTHON:-python3}" -m venv "$FASTVENV"
    fi
    "$FASTVENV/bin/python" -m pip install --quiet --disable-pip-version-check "${FASTMCP_PEERS[@]}"
    echo "${FASTMCP_PEERS[*]}" >"$fast_stamp"
fi

# --- the TypeScript SDK v2 and the Inspector ---
node_stamp="$NODEDIR/.peers-ready"
if [ ! -f "$node_stamp" ] || [ "$(cat "$node_stamp")" != "${NODE_PEERS[*]}" ]; then
    echo "==> installing ${NODE_PEERS[*]} into .cache/peers/node"
    mkdir -p "$NODEDIR"
    (cd "$NODEDIR" && { [ -f package.json ] || "${NPM[@]}" init -y >/dev/null; } \
        && PATH="$(dirname "$NODE22"):$PATH" "${NPM[@]}" install --no-audit --no-fund --silent \
            "${NODE_PEERS[@]}")
    echo "${NODE_PEERS[*]}" >"$node_stamp"
fi

# --- what is there ---
echo "python peer: $("$PYVENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))')"
echo "python peer: $("$FASTVENV/bin/python" -c 'import importlib.metadata as m; print("fastmcp", m.version("fastmcp"))')"
for pkg in client server inspector server-everything ext-tasks; do
    manifest="$NODEDIR/node_modules/@modelcontextprotocol/$pkg/package.json"
    echo "node peer: @modelcontextprotocol/$pkg $("$NODE22" -p "require('$manifest').version")"
done
echo "node: $NODE22 ($("$NODE22" --version))"
