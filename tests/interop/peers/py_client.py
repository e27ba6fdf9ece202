"""Drive an MCP server with the official Python SDK's client; print what it saw as JSON.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode 2026-07-28 \\
        --call add '{"a": 2, "b": 3}' -- COMMAND [ARG ...]       # a stdio server
    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode auto \\
        --url http://127.0.0.1:PORT/mcp                          # a Streamable HTTP server

``--mode`` is the SDK's ``Client(mode=...)``: ``legacy`` (initialize handshake), ``auto``
(probe ``server/discover``, fall back to initialize) or a modern version such as
``2026-07-28`` (stateless, no probe). The report on stdout is one JSON object:
``{"protocolVersion", "serverInfo", "capabilities", "tools", "prompts", "resources",
"calls": [{"name", "arguments", "result"}]}`` (a list the server refused reads
``{"error": "..."}``); an error exits 1 with the traceback on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


def _dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _listed(fetch: Any, field: str, key: str) -> Any:
    """The names (or URIs) of one list, or ``{"error": ...}`` when the server refused it."""
    try:
        result = await fetch()
    except Exception as exc:  # reported, not raised: the server may lack the feature
        return {"error": f"{type(exc).__name__}: {exc}"}
    return [str(getattr(item, key)) for item in getattr(result, field)]


async def drive(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        target: Any = args.url
    else:
        if not args.command:
            raise SystemExit("give --url or a stdio server command after --")
        target = StdioServerParameters(command=args.command[0], args=args.command[1:])
    report: dict[str, Any] = {"calls": []}
    async with Client(target, mode=args.mode) as client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = _dump(client.server_info)
        report["capabilities"] = _dump(client.server_capabilities)
        caps = client.server_capabilities
        # A modern version pin without a prior discover knows no capabilities: try them all.
        unknown = caps.tools is None and caps.prompts is None and caps.resources is None
        if unknown or caps.tools is not None:
            report["tools"] = await _listed(lambda: client.list_tools(), "tools", "name")
        if unknown or caps.prompts is not None:
            report["prompts"] = await _listed(lambda: client.list_prompts(), "prompts", "name")
        if unknown or caps.resources is not None:
            report["resources"] = await _listed(lambda: client.list_resources(), "resources", "uri")
        for name, arguments in args.call:
            parsed = json.loads(arguments)
            result = await client.call_tool(name, parsed)
            report["calls"].append({"name": name, "arguments": parsed, "result": _dump(result)})
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--url")
    parser.add_argument(
        "--call", nargs=2, action="append", default=[], metavar=("TOOL", "JSON_ARGUMENTS")
    )
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    report = asyncio.run(drive(args))
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
