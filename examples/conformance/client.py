"""The client program of the official MCP conformance suite, in mcpkit.

The suite starts a mock server per scenario and runs this program with the server URL as the
last argument; the scenario name is in ``MCP_CONFORMANCE_SCENARIO``. Each scenario is a few
lines of ordinary :class:`mcpkit.Client` use. An unknown scenario exits with status 1.

    MCP_CONFORMANCE_SCENARIO=tools_call python examples/conformance/client.py http://localhost:3000/mcp
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcpkit import Client

CLIENT_INFO = {"name": "mcpkit-conformance-client", "version": "1.0.0"}

Scenario = Callable[[str], Awaitable[None]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str) -> Callable[[Scenario], Scenario]:
    def register(fn: Scenario) -> Scenario:
        SCENARIOS[name] = fn
        return fn

    return register


@scenario("initialize")
async def initialize(url: str) -> None:
    """Connect (initialize + initialized), look around, disconnect."""
    async with Client(url, client_info=CLIENT_INFO) as client:
        await client.list_tools()


@scenario("tools_call")
async def tools_call(url: str) -> None:
    """List the tools and call ``add_numbers``."""
    async with Client(url, client_info=CLIENT_INFO) as client:
        tools = {tool.name for tool in await client.list_tools()}
        if "add_numbers" not in tools:
            raise RuntimeError(f"add_numbers is not among the server's tools: {sorted(tools)}")
        result = await client.call_tool("add_numbers", {"a": 5, "b": 3})
        print(result.content)


@scenario("elicitation-sep1034-client-defaults")
async def elicitation_defaults(url: str) -> None:
    """Accept an elicitation without filling anything in: mcpkit applies the schema's
    defaults (SEP-1034) to the fields the user left out."""

    def accept_defaults(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {}}

    async with Client(url, client_info=CLIENT_INFO, elicitation_handler=accept_defaults) as client:
        await client.list_tools()
        result = await client.call_tool("test_client_elicitation_defaults", {})
        print(result.content)


@scenario("sse-retry")
async def sse_retry(url: str) -> None:
    """Call a tool whose SSE stream the server cuts before the result: mcpkit waits for the
    ``retry`` delay and resumes the stream with ``Last-Event-ID``."""
    async with Client(url, client_info=CLIENT_INFO) as client:
        await client.list_tools()
        result = await client.call_tool("test_reconnection", {})
        print(result.content)


@scenario("json-schema-2020-12-preservation")
async def json_schema_preservation(url: str) -> None:
    """Echo the input schema of ``json_schema_2020_12_tool`` back, exactly as received."""
    async with Client(url, client_info=CLIENT_INFO) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        schema = tools["json_schema_2020_12_tool"].input_schema
        result = await client.call_tool("json_schema_echo", {"schema": schema})
        print(result.content)


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    run = SCENARIOS.get(name)
    if run is None or len(sys.argv) < 2:
        print(f"Unknown scenario {name!r} (known: {', '.join(SCENARIOS)})", file=sys.stderr)
        return 1
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if context:
        print(f"context: {context}", file=sys.stderr)
    asyncio.run(run(sys.argv[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
