"""The compat adapters in process (what the comparison tests do not reach): subscripted
Context annotations, ctx.session's requests, sync handlers, argument errors, fastmcp's
http_app mounted with its lifespan, the settings refused or ignored."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.routing import Mount

from mcpkit import Client
from mcpkit.compat.fastmcp import Context as FastContext
from mcpkit.compat.fastmcp import FastMCP
from mcpkit.compat.mcp.server.mcpserver import Context, Image, MCPServer
from mcpkit.compat.mcp.server.mcpserver.exceptions import ToolError
from mcpkit.compat.mcp.types import TextContent
from mcpkit.transports.http import running

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e1a0b10000000049454e44ae426082"
)


class Answer(BaseModel):
    ok: bool


async def test_session_requests_and_subscripted_context() -> None:
    mcp: MCPServer[Any] = MCPServer("adapters")

    @mcp.tool()
    async def roots(ctx: Context[Any, dict[str, Any]]) -> list[str]:
        listed = await ctx.session.list_roots()
        return [str(r.uri) for r in listed.roots]

    @mcp.tool()
    async def form(ctx: Context) -> str:
        answer = await ctx.session.elicit_form(
            "ok?", {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        )
        return f"{answer.action} {answer.content}"

    @mcp.tool()
    async def url(ctx: Context) -> str:
        answer = await ctx.elicit_url("go", "https://example.com/x", "e-1")
        return answer.action

    @mcp.tool()
    def sync_ctx(ctx: Context) -> str:
        return f"{ctx.request_context.lifespan_context} {ctx.protocol_version is not None}"

    @mcp.tool()
    def refuse() -> str:
        raise ToolError("no, because")

    async def elicit(params: Any, ctx: Any) -> Any:
        if getattr(params, "url", None):
            return "accept"
        return {"action": "accept", "content": {"ok": True}}

    elicit.supports_url = True  # type: ignore[attr-defined]
    # ctx.session's requests are the handshake era's
    async with Client(
        mcp.native, roots=["file:///work"], elicitation_handler=elicit, era="legacy"
    ) as client:
        assert (await client.call_tool("roots")).structured_content == {"result": ["file:///work"]}
        assert (await client.call_tool("form")).content[0].text == "accept {'ok': True}"
        assert (await client.call_tool("url")).content[0].text == "accept"
        assert (await client.call_tool("sync_ctx")).content[0].text == "{} True"
        refused = await client.call_tool("refuse")
        assert refused.is_error
        assert refused.content[0].text == "Error executing tool refuse: no, because"
        # An argument the function does not take is dropped, as the official SDK does.
        extra = await client.call_tool("roots", {"unknown": 1})
        assert not extra.is_error and extra.structured_content == {"result": ["file:///work"]}


async def test_images_by_path_and_content_models(tmp_path: Path) -> None:
    picture = tmp_path / "chart.webp"
    picture.write_bytes(PNG)
    mcp: MCPServer[Any] = MCPServer("media")

    @mcp.tool()
    def chart() -> Image:
        return Image(path=picture)

    @mcp.tool()
    def blocks():  # type: ignore[no-untyped-def]
        return [TextContent(type="text", text="a"), {"not": "content"}]

    async with Client(mcp.native) as client:
        block = (await client.call_tool("chart")).content[0]
        assert (block.type, block.mime_type) == ("image", "image/webp")
        texts = [b.text for b in (await client.call_tool("blocks")).content]
        assert texts == ["a", '{\n  "not": "content"\n}']  # a dict is JSON, not content
    assert Image(data=PNG, format="JPEG").mime_type == "image/jpeg"
    with pytest.raises(ValueError):
        Image()


async def test_fastmcp_http_app_mounted_with_its_lifespan() -> None:
    entered: list[str] = []

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def life(server: FastMCP) -> Any:
        entered.append(server.name)
        yield {"db": "open"}

    mcp = FastMCP("web", lifespan=life)

    @mcp.tool
    def state(ctx: FastContext) -> str:
        return str(ctx.lifespan_context["db"])

    asgi = mcp.http_app(path="/mcp")
    web = Starlette(routes=[Mount("/srv", app=asgi)], lifespan=asgi.lifespan)
    async with running(web) as base:
        async with Client(f"{base}/srv/mcp") as client:
            result = await client.call_tool("state")
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{base}/srv/elsewhere")).status_code == 404
    assert entered == ["web"]
    assert result.structured_content == {"result": "open"}
    assert result.meta is not None and result.meta["fastmcp"] == {"wrap_result": True}


def test_refused_and_ignored_settings() -> None:
    with pytest.raises(ValueError, match="Must specify either auth_server_provider"):
        MCPServer("x", auth=object())  # as the SDK: settings need a verifier or a provider
    mcp: MCPServer[Any] = MCPServer("x", log_level="WARNING", dependencies=["pandas"])
    assert mcp.settings == {"log_level": "WARNING", "dependencies": ["pandas"]}
    with pytest.raises(RuntimeError, match="streamable_http_app"):
        mcp.session_manager
    with pytest.raises(ValueError, match="Unknown transport"):
        mcp.run("carrier-pigeon")
    with pytest.raises(TypeError):
        mcp.resource(lambda: "x")  # type: ignore[arg-type]


async def test_direct_calls_in_process() -> None:
    mcp: MCPServer[Any] = MCPServer("direct")

    @mcp.tool()
    def double(x: int) -> int:
        return 2 * x

    assert [t.name for t in await mcp.list_tools()] == ["double"]
    assert (await mcp.call_tool("double", {"x": 4})).structured_content == {"result": 8}
    mcp.remove_tool("double")
    assert await mcp.list_tools() == []
    await asyncio.sleep(0)


async def test_fastmcp_surface_servers_import() -> None:
    """The fastmcp names published servers import: ``FastMCP[...]``, ``fastmcp.settings``,
    ``Tool.from_function``, ``Prompt.from_function``, ``ToolResult``, ``get_context``,
    ``mount`` and ``Image.to_data_uri``."""
    from mcpkit.compat import fastmcp as compat_fastmcp
    from mcpkit.compat.fastmcp.prompts import Prompt
    from mcpkit.compat.fastmcp.server.context import Context as ServerContext
    from mcpkit.compat.fastmcp.server.dependencies import get_context
    from mcpkit.compat.fastmcp.tools import Tool, ToolResult

    assert FastMCP[dict[str, Any]] is FastMCP
    assert ServerContext is FastContext
    assert compat_fastmcp.settings.log_level == "INFO"
    compat_fastmcp.settings.port = 9000  # servers change them
    assert compat_fastmcp.settings.port == 9000
    assert Image(data=PNG, format="png").to_data_uri().startswith("data:image/png;base64,iVBOR")

    mcp = FastMCP("surface")

    def shout(text: str) -> str:
        return text.upper()

    def ask(topic: str) -> str:
        return f"about {topic}"

    @mcp.tool
    def chosen() -> ToolResult:
        return ToolResult(content="shown", structured_content={"hidden": 1})

    @mcp.tool
    def who() -> str:
        return get_context().fastmcp.name

    mcp.add_tool(Tool.from_function(shout, name="loud"))
    mcp.add_prompt(Prompt.from_function(ask, name="question"))
    child = FastMCP("child")

    @child.tool
    def ping() -> str:
        return "pong"

    mcp.mount(child, prefix="kid")
    async with Client(mcp.native) as client:
        assert (await client.call_tool("loud", {"text": "hi"})).structured_content == {
            "result": "HI"
        }
        result = await client.call_tool("chosen")
        assert result.content[0].text == "shown"
        assert result.structured_content == {"hidden": 1}
        assert (await client.call_tool("who")).structured_content == {"result": "surface"}
        assert (await client.call_tool("kid_ping")).content[0].text == "pong"
        prompt = await client.get_prompt("question", {"topic": "x"})
        assert prompt.messages[0].content.text == "about x"
    with pytest.raises(RuntimeError, match="No active context"):
        get_context()


def test_docstring_sections_without_griffe() -> None:
    """The Google-style reader used when griffe is not installed gives what griffe does."""
    from mcpkit.compat.fastmcp.docstrings import _google, parse_docstring

    def forecast(city: str, days: int) -> str:
        """Forecast for a city.

        More words.

        Args:
            city: The city name
                on two lines.
            days (int): How many days.

        Returns:
            The forecast.
        """
        return city

    import inspect

    ours = _google(inspect.getdoc(forecast) or "")
    assert ours.description == "Forecast for a city.\n\nMore words."
    assert ours.parameters == {"city": "The city name\non two lines.", "days": "How many days."}
    assert parse_docstring(forecast) == ours  # griffe (installed here) agrees


async def test_mcpserver_middleware_2x() -> None:
    """2.x middleware (``MCPServer(middleware=[...])`` and ``server.middleware.append``):
    ``async (ctx, call_next)`` sees the method and params, may refuse with ``MCPError`` or
    pass on; as the official reference servers use it."""
    from mcpkit.compat.mcp.server.context import ServerRequestContext
    from mcpkit.compat.mcp.shared.exceptions import MCPError

    seen: list[str] = []

    async def record(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    mcp: MCPServer[Any] = MCPServer("mw", middleware=[record])

    @mcp.tool()
    def known() -> str:
        return "yes"

    async def reject_unknown(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        if ctx.method == "tools/call" and ctx.params is not None:
            name = ctx.params.get("name")
            if name not in {t.name for t in await mcp.list_tools()}:
                raise MCPError(-32602, f"Unknown tool: {name}")
        return await call_next(ctx)

    mcp.middleware.append(reject_unknown)
    async with Client(mcp.native) as client:
        assert (await client.call_tool("known")).structured_content == {"result": "yes"}
        with pytest.raises(Exception, match="Unknown tool: other") as refused:
            await client.call_tool("other")
    assert getattr(refused.value, "code", None) == -32602
    assert seen.count("tools/call") == 2 and len(mcp.middleware) == 2


async def test_url_elicitation_required_is_a_protocol_error() -> None:
    """``UrlElicitationRequiredError`` raised by a tool (high-level or 1.x low-level) is
    the JSON-RPC error -32042 with the elicitations as data, not an error result."""
    from mcpkit.compat.mcp.server.lowlevel import Server as LowServer
    from mcpkit.compat.mcp.shared.exceptions import McpError, UrlElicitationRequiredError
    from mcpkit.compat.mcp.types import ElicitRequestURLParams, ErrorData, Tool

    needed = ElicitRequestURLParams(
        mode="url", message="Sign in", url="https://example.com/auth", elicitation_id="e-1"
    )
    mcp: MCPServer[Any] = MCPServer("url")

    @mcp.tool()
    def files() -> str:
        raise UrlElicitationRequiredError([needed])

    low: LowServer[Any, Any] = LowServer("low")

    @low.list_tools()
    async def tools() -> list[Tool]:
        return [Tool(name="files", inputSchema={"type": "object"})]

    @low.call_tool()
    async def call(name: str, arguments: dict[str, Any]) -> list[Any]:
        raise UrlElicitationRequiredError([needed])

    for native in (mcp.native, low.native):
        async with Client(native) as client:
            with pytest.raises(Exception, match="URL elicitation required") as raised:
                await client.call_tool("files")
        assert getattr(raised.value, "code", None) == -32042
        data = getattr(raised.value, "data", None)
        assert data["elicitations"][0]["elicitationId"] == "e-1"
    one = McpError(ErrorData(code=-32001, message="1.x spelling"))
    assert (one.code, one.message, str(one)) == (-32001, "1.x spelling", "1.x spelling")
    assert McpError(-32002, "2.x spelling", {"uri": "x"}).error.data == {"uri": "x"}
    assert McpError(code=-32602, message="by keyword").code == -32602


def test_tool_manager_read_only_view() -> None:
    """``server._tool_manager`` reads as the official SDK's (``list_tools``, ``get_tool``,
    ``_tools``: the listed schemas, the server's own function); changing a tool through it
    raises instead of being ignored."""
    server = MCPServer("view")

    @server.tool(title="Adder")
    async def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    manager = server._tool_manager
    (tool,) = manager.list_tools()
    assert tool is not None and manager.get_tool("nope") is None
    assert list(manager._tools) == ["add"]
    listed = server.native.tools.tools["add"].definition
    assert (tool.name, tool.title, tool.description) == ("add", "Adder", "Add.")
    assert tool.parameters == listed["inputSchema"] and tool.parameters["title"] == "addArguments"
    assert tool.output_schema == listed["outputSchema"]
    assert tool.fn is add and tool.is_async
    tool.parameters["properties"].clear()  # a copy: the listing keeps its schema
    assert listed["inputSchema"]["properties"]
    with pytest.raises(AttributeError, match="read-only view"):
        tool.fn_metadata
    with pytest.raises(AttributeError, match="cannot set 'description'"):
        tool.description = "changed"
    # The listed input schema can be replaced, as the SDK's Tool.parameters (the everything
    # server's JSON Schema 2020-12 tool); the arguments are still checked by the function.
    manager._tools["add"].parameters = {"type": "object", "$defs": {}}
    assert server.native.tools.tools["add"].definition["inputSchema"] == {
        "type": "object",
        "$defs": {},
    }


def test_direct_listing_methods() -> None:
    """``list_tools``, ``list_prompts``, ``list_resources`` and ``list_resource_templates``
    in process (a middleware checking a name against them, as the reference fetch server's
    does)."""
    server = MCPServer("direct")

    @server.tool()
    def ping() -> str:
        return "pong"

    @server.prompt()
    def greet(who: str) -> str:
        return f"hi {who}"

    @server.resource("memo://today")
    def today() -> str:
        return "sun"

    @server.resource("memo://{day}")
    def day(day: str) -> str:
        return day

    async def listed() -> list[list[str]]:
        return [
            [t.name for t in await server.list_tools()],
            [p.name for p in await server.list_prompts()],
            [r.uri for r in await server.list_resources()],
            [t.uri_template for t in await server.list_resource_templates()],
        ]

    assert asyncio.run(listed()) == [["ping"], ["greet"], ["memo://today"], ["memo://{day}"]]


def test_tool_schemas_are_dicts() -> None:
    """``mcp.types.Tool``'s schemas stay the dicts given, as the official SDK's do (a
    server validates arguments against ``tool.input_schema`` with jsonschema)."""
    from mcpkit.compat.mcp import types
    from mcpkit.types import Tool as NativeTool

    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    tool = types.Tool(name="t", input_schema=schema, outputSchema={"type": "object"})
    assert tool.input_schema == schema and isinstance(tool.input_schema, dict)
    assert tool.output_schema == {"type": "object"}
    assert isinstance(tool, NativeTool)
    assert isinstance(NativeTool.from_wire(tool.to_wire()), types.Tool)
    assert tool.to_wire()["inputSchema"] == schema


async def test_fastmcp_mount_spellings_visibility_and_state() -> None:
    """fastmcp 2.x's mount spellings, names given to disable/enable, the criteria refused,
    the state's request scope, and the names that load but are not served."""
    from mcpkit.compat.fastmcp import Client as FastClient

    mcp = FastMCP("parent")
    kid, old = FastMCP("kid"), FastMCP("old")

    @kid.resource("data://{key}/v")
    def value(key: str) -> str:
        return key

    @kid.prompt
    def hint(topic: str) -> str:
        return f"hint {topic}"

    @old.tool
    def ping() -> str:
        return "pong"

    @mcp.tool
    async def keep(ctx: FastContext) -> str:
        with pytest.raises(TypeError, match="not serializable"):
            await ctx.set_state("lock", asyncio.Lock())
        lock = asyncio.Lock()
        await ctx.set_state("lock", lock, serializable=False)
        assert await ctx.get_state("lock") is lock  # this request only
        await ctx.set_state("n", (1, 2))
        return str(await ctx.get_state("n"))

    @mcp.tool
    async def later(ctx: FastContext) -> str:
        return f"{await ctx.get_state('lock')} {await ctx.get_state('n')}"

    mcp.mount(kid, prefix="k")  # 2.x keyword
    mcp.mount("o", old)  # 2.x order
    with pytest.raises(ValueError, match="onto itself"):
        mcp.mount(mcp)
    with pytest.raises(TypeError, match="tool_names"):
        mcp.mount(FastMCP("x"), namespace="x", tool_names=["a"])
    with pytest.raises(NotImplementedError, match="keys"):
        mcp.disable(keys={"tool:keep@1"})
    with pytest.raises(NotImplementedError):
        mcp.add_transform(object())
    async with FastClient(mcp) as fast:
        assert (await fast.call_tool("o_ping")).data == "pong"
    async with Client(mcp.native, era="legacy") as client:
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == ["data://k/{key}/v"]
        read = await client.read_resource("data://k/abc/v")
        assert read.contents[0].text == "abc"  # type: ignore[union-attr]
        assert [p.name for p in await client.list_prompts()] == ["k_hint"]
        assert (await client.call_tool("o_ping")).content[0].text == "pong"  # type: ignore[union-attr]
        assert (await client.call_tool("keep")).content[0].text == "[1, 2]"  # type: ignore[union-attr]
        assert (await client.call_tool("later")).content[0].text == "None [1, 2]"  # type: ignore[union-attr]
        mcp.disable(names={"keep"})
        assert "keep" not in [t.name for t in await client.list_tools()]
        mcp.enable(names={"keep"}, components={"tool"})
        assert "keep" in [t.name for t in await client.list_tools()]


def test_transforms_over_a_server_take_a_fastmcp_one() -> None:
    """``PromptsAsTools``/``ResourcesAsTools`` take a FastMCP (a subclass too) and refuse
    another server with fastmcp's TypeError."""
    from mcpkit.compat.fastmcp.server.transforms import PromptsAsTools, ResourcesAsTools

    class Mine(FastMCP):
        pass

    mcp = Mine("mine")
    assert PromptsAsTools(mcp)._server is mcp
    assert ResourcesAsTools(mcp)._server is mcp
    with pytest.raises(TypeError, match=r"requires a FastMCP server instance, not a MCPServer"):
        PromptsAsTools(MCPServer("other"))
