"""Server test code in the official SDK 1.x's style printing what
``create_connected_server_and_client_session`` answers: the ``initialize`` result, the
listed tools, resources, templates and prompts, a tool's result with a resource link, a
prompt, a read. Runs unchanged on ``mcp`` 1.x and on mcpkit (``python -m mcpkit.compat``);
``tests/compat/test_client_printed.py`` compares what each prints."""

import anyio
import mcp.types as types
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session

app = FastMCP("v1-printed", instructions="Print me.")


@app.tool(title="Add")
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
def link(name: str) -> types.CallToolResult:
    """Link to a note."""
    note = types.ResourceLink(
        type="resource_link", name=name, uri=f"notes://{name}", mimeType="text/plain"
    )
    return types.CallToolResult(content=[note])


@app.resource("notes://index", title="Index", mime_type="text/plain")
def index() -> str:
    """All notes."""
    return "a, b"


@app.resource("greet://{name}")
def greet(name: str) -> str:
    """Greet."""
    return f"Hello, {name}!"


@app.prompt(title="Review")
def review(code: str, style: str = "short") -> str:
    """Review code."""
    return f"Review: {code}"


async def main():
    async with create_connected_server_and_client_session(app) as session:
        init = await session.initialize()
        print(init.serverInfo)
        print(init.capabilities)
        for tool in (await session.list_tools()).tools:
            print(tool)
        print((await session.list_resources()).resources)
        print((await session.list_resource_templates()).resourceTemplates)
        print((await session.list_prompts()).prompts)
        print(await session.call_tool("link", {"name": "a"}))
        print(await session.call_tool("add", {"a": 1}))
        print(await session.get_prompt("review", {"code": "x"}))
        print(await session.read_resource("greet://Ada"))


anyio.run(main)
