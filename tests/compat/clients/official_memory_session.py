"""Server test code in the official SDK 1.x's style: ``mcp.shared.memory``'s
``create_connected_server_and_client_session`` connected to a low-level ``Server`` (the
notes server of ``servers/lowlevel_v1.py``) and to a 1.x ``FastMCP``, with the client's
callbacks; prints what each request returned (or raised), one JSON line each. Runs
unchanged on ``mcp`` 1.x and on mcpkit (``python -m mcpkit.compat``)."""

import asyncio
import json
import sys
from pathlib import Path

import mcp.types as types
from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.exceptions import McpError
from mcp.shared.memory import create_connected_server_and_client_session

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "servers"))
from lowlevel_v1 import server as lowlevel

app = FastMCP("memory-fastmcp")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
async def ask(ctx: Context) -> str:
    """Samples, lists the roots and logs."""
    await ctx.info("asking")
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))],
        max_tokens=5,
    )
    roots = await ctx.session.list_roots()
    return f"{sampled.content.text} / {[str(r.uri) for r in roots.roots]}"


@app.resource("greet://{name}")
def greet(name: str) -> str:
    return f"Hello, {name}!"


@app.prompt()
def review(code: str) -> str:
    return f"Review: {code}"


def show(label, value):
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    print(json.dumps({label: value}, sort_keys=True))


async def attempt(label, call):
    try:
        show(label, await call)
    except McpError as exc:
        show(label, {"McpError": [exc.error.code, exc.error.message]})


async def sampling(context, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="sampled"),
        model="test-model",
    )


async def roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


async def main():
    logs = []

    async def log(params):
        logs.append(params.model_dump(mode="json", exclude_none=True))

    async with create_connected_server_and_client_session(lowlevel) as client:
        init = await client.initialize()
        show("capabilities", init.capabilities)
        show("tools", await client.list_tools())
        await attempt("stats", client.call_tool("stats", {}))
        await attempt("add-note", client.call_tool("add-note", {"name": "x", "content": "y"}))
        await attempt("bad input", client.call_tool("add-note", {"name": "x"}))
        await attempt("protocol-error", client.call_tool("protocol-error", {}))
        await attempt("read", client.read_resource("note://internal/x"))
        await attempt("read missing", client.read_resource("note://internal/none"))
        show("prompts", await client.list_prompts())
        await attempt("get", client.get_prompt("summarize", {"style": "brief"}))
        await attempt(
            "complete",
            client.complete(
                types.PromptReference(type="ref/prompt", name="summarize"),
                {"name": "style", "value": "l"},
            ),
        )
        show("templates", await client.list_resource_templates())
        show("ping", await client.send_ping())
    async with create_connected_server_and_client_session(
        app,
        sampling_callback=sampling,
        list_roots_callback=roots,
        logging_callback=log,
    ) as client:
        show("tools", await client.list_tools())
        result = await client.call_tool("add", {"a": 1, "b": 2})
        print(json.dumps({"add": [result.content[0].text, result.structuredContent]}))
        await attempt("ask", client.call_tool("ask", {}))
        await attempt("greet", client.read_resource("greet://ada"))
        await attempt("review", client.get_prompt("review", {"code": "x = 1"}))
        await attempt("unknown", client.call_tool("nope", {}))
    show("logs", logs)


asyncio.run(main())
