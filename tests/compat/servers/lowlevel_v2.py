"""A server on the official SDK 2.x's low-level ``Server``: handlers given to the
constructor (``on_list_tools=``, ``on_call_tool=``, ...), each ``async (ctx, params)``
returning the result model, run on stdio. Runs unchanged on ``mcp`` 2.x and on mcpkit
(``python -m mcpkit.compat``)."""

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server


@contextlib.asynccontextmanager
async def lifespan(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
    yield {"unit": "celsius"}


TOOLS = [
    types.Tool(
        name="convert",
        description="Convert a temperature",
        input_schema={
            "type": "object",
            "properties": {"value": {"type": "number"}},
            "required": ["value"],
        },
        output_schema={
            "type": "object",
            "properties": {"value": {"type": "number"}, "unit": {"type": "string"}},
        },
    ),
    types.Tool(name="log", description="Logs", input_schema={"type": "object"}),
    types.Tool(name="crash", description="Raises", input_schema={"type": "object"}),
]


async def list_tools(
    ctx: ServerRequestContext[dict[str, Any]], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(
    ctx: ServerRequestContext[dict[str, Any]], params: types.CallToolRequestParams
) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "convert":
        value = args["value"] * 9 / 5 + 32
        out = {"value": value, "unit": "fahrenheit", "from": ctx.lifespan_context["unit"]}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{value} F")],
            structured_content=out,
        )
    if params.name == "log":
        await ctx.session.send_log_message(level="warning", data="careful", logger="v2")
        return types.CallToolResult(content=[types.TextContent(type="text", text="logged")])
    if params.name == "crash":
        raise RuntimeError("secret detail")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"Unknown tool {params.name}")],
        is_error=True,
    )


async def list_resources(
    ctx: ServerRequestContext[dict[str, Any]], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(uri="memo://today", name="today", mime_type="text/plain")]
    )


async def read_resource(
    ctx: ServerRequestContext[dict[str, Any]], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    if str(params.uri) != "memo://today":
        raise ValueError("no such memo")
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text="sunny", mime_type="text/plain")]
    )


async def list_prompts(
    ctx: ServerRequestContext[dict[str, Any]], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name="greet",
                arguments=[types.PromptArgument(name="who", required=True)],
            )
        ]
    )


async def get_prompt(
    ctx: ServerRequestContext[dict[str, Any]], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    who = (params.arguments or {}).get("who", "you")
    return types.GetPromptResult(
        messages=[
            types.PromptMessage(
                role="user", content=types.TextContent(type="text", text=f"Hi {who}")
            )
        ]
    )


server = Server(
    "lowlevel-v2",
    version="2.0.0",
    instructions="Temperatures.",
    lifespan=lifespan,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
