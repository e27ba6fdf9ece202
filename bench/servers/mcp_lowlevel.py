"""The official `mcp` SDK (2.x), low-level `Server` with on_list_tools/on_call_tool handlers
(and on_list_resources/on_read_resource for the 1 MiB resource of payload.py).

Usage: python mcp_lowlevel.py stdio [--tools N]
       python mcp_lowlevel.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from payload import LARGE_TEXT, LARGE_TOOL, LARGE_URI

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}


def build(n_tools: int) -> Server[Any]:
    names = ["echo", *(f"tool_{i}" for i in range(n_tools))]
    tools = [types.Tool(name=n, description="Echo the text.", input_schema=SCHEMA) for n in names]
    tools.append(
        types.Tool(name=LARGE_TOOL, description="1 MiB of text.", input_schema={"type": "object"})
    )
    known = set(names)
    resources = [types.Resource(uri=LARGE_URI, name="large", mime_type="text/plain")]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name == LARGE_TOOL:
            return types.CallToolResult(content=[types.TextContent(type="text", text=LARGE_TEXT)])
        text = (params.arguments or {}).get("text")
        if params.name not in known or not isinstance(text, str):
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="bad call")], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != LARGE_URI:
            raise ValueError(f"unknown resource {params.uri}")
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=LARGE_URI, mime_type="text/plain", text=LARGE_TEXT)
            ]
        )

    return Server(
        "bench",
        version="1.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def run_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def run_http(server: Server[Any], port: int, stateless: bool, json_response: bool) -> None:
    import uvicorn

    app = server.streamable_http_app(
        json_response=json_response, stateless_http=stateless, host="127.0.0.1"
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await uvicorn.Server(config).serve()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    args = parser.parse_args()
    server = build(args.tools)
    if args.transport == "stdio":
        anyio.run(run_stdio, server)
    else:
        anyio.run(run_http, server, args.port, args.stateless, args.json_response)


if __name__ == "__main__":
    main()
