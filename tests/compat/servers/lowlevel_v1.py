"""A server on the official SDK 1.x's low-level ``Server``: handlers registered by its
decorators, the request reached through ``server.request_context``, run on stdio with
``InitializationOptions``. Runs unchanged on ``mcp`` 1.x and on mcpkit
(``python -m mcpkit.compat``)."""

import asyncio
import base64
import json

import mcp.server.stdio
import mcp.types as types
from mcp.server import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

server = Server("lowlevel-v1")
notes: dict[str, str] = {"first": "hello", "second": "world"}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@server.list_resources()
async def list_resources() -> list[types.Resource]:
    listed = [
        types.Resource(
            uri=AnyUrl(f"note://internal/{name}"),
            name=f"Note: {name}",
            description=f"A note named {name}",
            mimeType="text/plain",
        )
        for name in notes
    ]
    listed.append(types.Resource(uri=AnyUrl("data://pixel"), name="pixel", mimeType="image/png"))
    return listed


@server.list_resource_templates()
async def list_templates() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate(uriTemplate="note://internal/{name}", name="note")]


@server.read_resource()
async def read_resource(uri: AnyUrl):
    if uri.scheme == "data":
        return [ReadResourceContents(content=PNG, mime_type="image/png")]
    if uri.scheme != "note":
        raise ValueError(f"Unsupported URI scheme: {uri.scheme}")
    name = (uri.path or "").lstrip("/")
    if name in notes:
        return [ReadResourceContents(content=notes[name], mime_type="text/plain")]
    raise ValueError(f"Note not found: {name}")


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [
        types.Prompt(
            name="summarize",
            description="Summarize the notes",
            arguments=[types.PromptArgument(name="style", description="brief or long")],
        )
    ]


@server.get_prompt()
async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
    if name != "summarize":
        raise ValueError(f"Unknown prompt: {name}")
    style = (arguments or {}).get("style", "brief")
    return types.GetPromptResult(
        description="Summarize",
        messages=[
            types.PromptMessage(
                role="user",
                content=types.TextContent(type="text", text=f"{style}: {json.dumps(notes)}"),
            ),
            types.PromptMessage(
                role="assistant",
                content=types.EmbeddedResource(
                    type="resource",
                    resource=types.TextResourceContents(
                        uri=AnyUrl("note://internal/first"),
                        text=notes["first"],
                        mimeType="text/plain",
                    ),
                ),
            ),
        ],
    )


@server.completion()
async def complete(ref, argument, context):
    if argument.name == "style":
        return types.Completion(
            values=[s for s in ("brief", "long") if s.startswith(argument.value)]
        )
    return None


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    obj = {"type": "object", "properties": {}}
    return [
        types.Tool(
            name="add-note",
            description="Add a note",
            inputSchema={
                "type": "object",
                "properties": {"name": {"type": "string"}, "content": {"type": "string"}},
                "required": ["name", "content"],
            },
            annotations=types.ToolAnnotations(title="Add a note", destructiveHint=False),
        ),
        types.Tool(
            name="stats",
            description="How many notes",
            inputSchema=obj,
            outputSchema={
                "type": "object",
                "properties": {"count": {"type": "integer"}},
                "required": ["count"],
            },
        ),
        types.Tool(
            name="bad-stats",
            description="Wrong output",
            inputSchema=obj,
            outputSchema={"type": "object", "properties": {"count": {"type": "integer"}}},
        ),
        types.Tool(name="both", description="Text and structure", inputSchema=obj),
        types.Tool(name="picture", description="An image", inputSchema=obj),
        types.Tool(name="direct", description="A CallToolResult", inputSchema=obj),
        types.Tool(name="slow", description="Progress and logs", inputSchema=obj),
        types.Tool(name="protocol-error", description="An McpError", inputSchema=obj),
        types.Tool(name="boom", description="Fails", inputSchema=obj),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.ContentBlock] | dict:  # type: ignore[type-arg]
    ctx = server.request_context
    if name == "add-note":
        notes[arguments["name"]] = arguments["content"]
        await ctx.session.send_resource_list_changed()
        return [types.TextContent(type="text", text=f"Added note '{arguments['name']}'")]
    if name == "stats":
        return {"count": len(notes)}
    if name == "bad-stats":
        return {"count": "many"}
    if name == "both":
        return ([types.TextContent(type="text", text="two notes")], {"count": len(notes)})
    if name == "picture":
        return [
            types.ImageContent(
                type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png"
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri=AnyUrl("note://internal/first"), text="hello"
                ),
            ),
        ]
    if name == "direct":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="as it is")], isError=True
        )
    if name == "slow":
        token = ctx.meta.progressToken if ctx.meta else None
        for step in (1, 2):
            if token is not None:
                await ctx.session.send_progress_notification(token, step, 2, message=f"step {step}")
        await ctx.session.send_log_message(level="info", data={"done": True}, logger="notes")
        return [types.TextContent(type="text", text="slow done")]
    if name == "protocol-error":
        raise McpError(types.ErrorData(code=-32001, message="refused here"))
    raise ValueError(f"Unknown tool: {name}")


async def main() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream,
            write_stream,
            InitializationOptions(
                server_name="lowlevel-v1",
                server_version="0.1.0",
                capabilities=server.get_capabilities(
                    notification_options=NotificationOptions(resources_changed=True),
                    experimental_capabilities={},
                ),
                instructions="Notes, kept in memory.",
            ),
        )


if __name__ == "__main__":
    asyncio.run(main())
