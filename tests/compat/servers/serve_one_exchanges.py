"""The ``serve_one`` story's ``handle_one`` (``Connection.from_envelope`` + ``serve_one``)
driven directly, one line of JSON per exchange: the raw result dict, or what was raised.
Run with the story's folder on the path, on the SDK or on mcpkit."""

import json

import anyio
import mcp.types as types
from mcp.types.version import LATEST_MODERN_VERSION
from stories.serve_one.server import build_server, handle_one

META = {
    types.PROTOCOL_VERSION_META_KEY: LATEST_MODERN_VERSION,
    types.CLIENT_INFO_META_KEY: {"name": "probe", "version": "0"},
    types.CLIENT_CAPABILITIES_META_KEY: {},
}
EXCHANGES = [
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": META}),
    ("tools/call", {"name": "add", "arguments": {"a": -7, "b": 3}, "_meta": META}),
    ("tools/list", {"_meta": META}),
    ("prompts/list", {"_meta": META}),
    ("resources/read", {"uri": "file:///x", "_meta": META}),
    ("ping", {"_meta": META}),
    ("tools/call", {"name": "other", "arguments": {}, "_meta": META}),
    ("tools/call", {"name": "add", "arguments": {"a": 1}, "_meta": META}),
]


async def main() -> None:
    server = build_server()
    async with server.lifespan(server) as state:
        for method, params in EXCHANGES:
            try:
                out = await handle_one(server, method, params, lifespan_state=state)
            except Exception as exc:
                error = getattr(exc, "error", None)
                out = {
                    "raised": "MCPError" if error is not None else type(exc).__name__,
                    "code": getattr(error, "code", None),
                    "message": str(exc),
                    "data": getattr(error, "data", None),
                }
            print(method, json.dumps(out, sort_keys=True), flush=True)


anyio.run(main)
