"""fastmcp's providers: a ``Provider`` subclass serving tools (a ``Tool`` subclass with
``run``, a function tool), resources, a template and a prompt at request time; a
``LocalProvider`` with its own decorators; a second provider added later; names the
server itself or an earlier provider already serves; a ``Tool`` object given to
``add_tool``."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.prompts import Prompt
from fastmcp.resources import (
    BinaryResource,
    DirectoryResource,
    FileResource,
    Resource,
    ResourceTemplate,
    TextResource,
)
from fastmcp.server.providers import LocalProvider, Provider
from fastmcp.tools import Tool, ToolResult

CALLS = {"count": 0}


class Counter(Tool):
    """Counts its calls; ``step`` is a field of the subclass."""

    step: int = 1

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        if arguments.get("fail"):
            raise ToolError("asked to fail")
        CALLS["count"] += arguments.get("by", self.step)
        return ToolResult(structured_content={"count": CALLS["count"]})


class Plain(Tool):
    async def run(self, arguments: dict[str, Any]) -> Any:
        return {"echo": arguments}


class Note(Resource):
    text: str

    async def read(self) -> str:
        return self.text


class Page(ResourceTemplate):
    async def create_resource(self, uri: str, params: dict[str, Any]) -> Resource:
        if params["n"] == "0":
            raise ValueError("no page zero")
        return Note(uri=uri, name=f"page {params['n']}", text=f"page {params['n']}")


class Unreadable(ResourceTemplate):
    """Implements neither create_resource nor a read fastmcp calls."""

    async def read(self, arguments: dict[str, Any]) -> str:
        return "never read"


def shout(text: str) -> str:
    """Shout the text back."""
    return text.upper()


def ask(topic: str) -> str:
    """Ask about a topic."""
    return f"Tell me about {topic}."


class Live(Provider):
    """Components made anew on every request; its lifespan opens and closes with the
    server's."""

    def __init__(self) -> None:
        super().__init__()
        self.state = "closed"

    @asynccontextmanager
    async def lifespan(self):
        self.state = "open"
        try:
            yield
        finally:
            self.state = "closed"

    async def _list_tools(self) -> list[Tool]:
        schema = {"type": "object", "properties": {"by": {"type": "integer"}}}
        return [
            Counter(name="counter", description="Count calls", parameters=schema),
            Plain(name="plain", parameters={"type": "object"}, tags={"b", "a"}),
            Tool.from_function(shout, name="shout"),
            Plain(name="greet", description="shadowed", parameters={"type": "object"}),
            Plain(name="secret", parameters={"type": "object"}, tags={"internal"}),
            Plain(name=f"state_{self.state}", parameters={"type": "object"}),
        ]

    async def _list_resources(self) -> list[Resource]:
        return [
            Note(uri="note://hidden", name="hidden", text="no", tags={"internal"}),
            Note(uri="note://one", name="one", text="first note"),
            Note(uri="note://two", name="two", text="second", mime_type="text/markdown"),
        ]

    async def _list_resource_templates(self) -> list[ResourceTemplate]:
        return [
            Page(
                uri_template="page://{n}",
                name="page",
                description="A page by number",
                parameters={"type": "object", "properties": {"n": {"type": "string"}}},
            ),
            Unreadable(uri_template="raw://{x}", name="raw", parameters={}),
        ]

    async def _list_prompts(self) -> list[Prompt]:
        return [Prompt.from_function(ask, name="ask")]


local = LocalProvider()


@local.tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


@local.tool(name="shout", description="Never served: an earlier provider has it")
def other_shout(text: str) -> str:
    return text


@local.tool
async def whoami(ctx: Context) -> dict[str, Any]:
    """The server and lifespan a provider's tool sees."""
    await ctx.info("asked")
    return {"server": ctx.fastmcp.name, "lifespan": ctx.request_context.lifespan_context}


@local.resource("data://local")
def local_data() -> dict[str, int]:
    """Local data."""
    return {"a": 1}


@local.prompt
def hello(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


@asynccontextmanager
async def lifespan(server: FastMCP):
    yield {"db": "open"}


mcp = FastMCP("providers", providers=[Live()], lifespan=lifespan)


@mcp.tool
def greet(name: str) -> str:
    """The server's own tool."""
    return f"Hi {name}"


mcp.add_provider(local)
mcp.disable(tags={"internal"})

HERE = Path(__file__).resolve().parent
mcp.add_resource(TextResource(uri="text://hello", name="hello", text="Hello", tags={"t"}))
mcp.add_resource(BinaryResource(uri="bin://data", name="data", data=b"\x00\x01"))
mcp.add_resource(FileResource(uri="file:///self", name="self", path=HERE / "lowlevel_v1.py"))
mcp.add_resource(FileResource(uri="file:///gone", name="gone", path=HERE / "no-such-file.txt"))
mcp.add_resource(
    DirectoryResource(uri="dir://servers", name="servers", path=HERE, pattern="fastmcp_p*.py")
)
mcp.add_tool(
    Plain(
        name="object_tool",
        description="A Tool object given to add_tool",
        parameters={"type": "object", "properties": {}},
    )
)

if __name__ == "__main__":
    mcp.run()
