"""The protocol core on its own: a server and a client talking in memory and over stdio.

    python examples/lowlevel_demo.py            # run the demo
    python examples/lowlevel_demo.py --serve    # just the server, on stdio

The handlers here are raw JSON-RPC handlers on the session engine; the decorator API
(``mcpkit.Server``) builds on exactly this.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcpkit.errors import McpError
from mcpkit.session import ClientSession, RequestContext, ServerSession
from mcpkit.transports import MemoryTransport, StdioClientTransport, StdioServerTransport

ECHO_TOOL = {
    "name": "echo",
    "description": "Echo the text back, reporting progress on the way.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


async def list_tools(params: dict[str, Any] | None, ctx: RequestContext) -> dict[str, Any]:
    return {"tools": [ECHO_TOOL]}


async def call_tool(params: dict[str, Any] | None, ctx: RequestContext) -> dict[str, Any]:
    params = params or {}
    if params.get("name") != "echo":
        raise McpError(-32602, f"Unknown tool: {params.get('name')}")
    text = (params.get("arguments") or {}).get("text")
    if not isinstance(text, str):
        return {"content": [{"type": "text", "text": "'text' must be a string"}], "isError": True}
    for step in (1, 2, 3):
        await ctx.progress(step, 3, f"step {step} of 3")
        await asyncio.sleep(0.01)
    return {"content": [{"type": "text", "text": text}]}


def make_server(transport: Any) -> ServerSession:
    session = ServerSession(
        transport,
        server_info={"name": "lowlevel-demo", "version": "1.0.0"},
        capabilities={"tools": {}},
        instructions="Call 'echo' to hear yourself.",
    )
    session.set_request_handler("tools/list", list_tools)
    session.set_request_handler("tools/call", call_tool)
    return session


async def exercise(client: ClientSession, label: str) -> None:
    init = await client.initialize({"name": "demo-client", "version": "1.0.0"})
    info = init["serverInfo"]
    print(
        f"[{label}] connected to {info['name']} {info['version']}, "
        f"protocol {init['protocolVersion']}"
    )
    await client.ping()
    tools = await client.request("tools/list", {})
    print(f"[{label}] tools: {', '.join(t['name'] for t in tools['tools'])}")

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        print(f"[{label}]   progress {progress}/{total}: {message}")

    result = await client.request(
        "tools/call",
        {"name": "echo", "arguments": {"text": "hello, MCP"}},
        on_progress=on_progress,
        timeout=10,
    )
    print(f"[{label}] echo -> {result['content'][0]['text']!r}")
    try:
        await client.request("tools/call", {"name": "nope", "arguments": {}})
    except McpError as exc:
        print(f"[{label}] unknown tool -> error {exc.code}: {exc.message}")


async def demo() -> None:
    client_end, server_end = MemoryTransport.pair()
    server = make_server(server_end)
    await server.start()
    client = ClientSession(client_end)
    await client.start()
    await exercise(client, "memory")
    await client.close()

    transport = StdioClientTransport(sys.executable, [__file__, "--serve"])
    client = ClientSession(transport)
    await client.start()
    await exercise(client, "stdio")
    await client.close()
    print(f"[stdio] server process exited with code {transport.returncode}")


async def serve() -> None:
    session = make_server(StdioServerTransport())
    await session.start()
    await session.wait_closed()


if __name__ == "__main__":
    asyncio.run(serve() if "--serve" in sys.argv else demo())
