"""Tool transforms on a proxy: a new tool made from an upstream tool (renamed, an argument
hidden with a fixed value, the call wrapped) is listed and called through the proxy in both
eras, of an upstream of either era in memory or over HTTP; a transform that does not fit
the upstream fails the proxy's start; tool search finds the new tool."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from mcpkit import Client, Context, McpError, Server
from mcpkit.proxy import ProxyServer
from mcpkit.server import ToolSearch
from mcpkit.server.transforms import ArgTransform, CallNext, ToolResult
from tests.server.middleware.helpers import IDS, WAYS, connect


def greeter() -> Server[Any]:
    app: Server[Any] = Server("up")
    calls: list[dict[str, Any]] = []

    @app.tool()
    def greet(name: str, greeting: str = "hello", punct: str = ".") -> str:
        """Greet someone."""
        calls.append({"name": name, "greeting": greeting, "punct": punct})
        return f"{greeting} {name}{punct}"

    @app.tool()
    def other() -> str:
        """Something else."""
        return "other"

    app.calls = calls  # type: ignore[attr-defined]
    return app


class Name(BaseModel):
    name: str


def asker(**options: Any) -> Server[Any]:
    app: Server[Any] = Server("up", **options)

    @app.tool()
    async def greet(ctx: Context, greeting: str = "hello") -> str:
        answer = await ctx.elicit("Your name?", Name)
        assert answer.data is not None
        return f"{greeting} {answer.data.name}"

    return app


async def shout(arguments: dict[str, Any], call_next: CallNext) -> ToolResult:
    result = await call_next({**arguments, "who": arguments["who"].upper()})
    return ToolResult({**result, "content": [{"type": "text", "text": result.text + "!"}]})


def transformed(up: Any, **options: Any) -> ProxyServer:
    proxy = ProxyServer(up, name="px", **options)
    proxy.transform_tool(
        "greet",
        name="hi",
        description="Say hi.",
        args={
            "name": ArgTransform(name="who", description="Whom to greet"),
            "greeting": ArgTransform(default="hi", hide=True),
        },
        wrap=shout,
        keep_original=False,
    )
    return proxy


@pytest.mark.parametrize("upstream_era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_a_transformed_upstream_tool_is_listed_and_called(
    transport: str, era: str, upstream_era: str
) -> None:
    up = greeter()
    proxy = transformed(up, era=upstream_era)
    async with connect(proxy, transport, era) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert sorted(tools) == ["hi", "other"]  # the original is left out
        hi = tools["hi"]
        assert hi.description == "Say hi."
        schema = hi.input_schema.model_dump(by_alias=True, exclude_none=True)
        assert set(schema["properties"]) == {"who", "punct"}
        assert schema["properties"]["who"]["description"] == "Whom to greet"
        assert schema["required"] == ["who"]
        result = await client.call_tool("hi", {"who": "bob"})
        assert result.content[0].text == "hi BOB.!"  # type: ignore[union-attr]
        assert up.calls[-1] == {"name": "BOB", "greeting": "hi", "punct": "."}
        result = await client.call_tool("hi", {"who": "ann", "punct": "?"})
        assert result.content[0].text == "hi ANN?!"  # type: ignore[union-attr]
        # the hidden argument is not the client's to send; the schema refuses it
        result = await client.call_tool("hi", {"who": "eve", "greeting": "bye"})
        assert result.is_error
        assert len(up.calls) == 2
        with pytest.raises(McpError, match="Unknown tool: greet") as caught:
            await client.call_tool("greet", {"name": "bob"})
        assert caught.value.code == -32602
        assert (await client.call_tool("other", {})).content[0].text == "other"  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_an_http_upstream_keeps_its_original_when_asked(era: str) -> None:
    from mcpkit.transports.http import running

    up = greeter()
    asgi = up.http_app()
    async with running(asgi) as base:
        proxy = ProxyServer(f"{base}/mcp", era=era)
        proxy.transform_tool(
            "greet", name="bonjour", args={"greeting": ArgTransform(default="bonjour")}
        )
        async with connect(proxy, "memory", era) as client:
            names = [t.name for t in await client.list_tools()]
            assert names.index("bonjour") == names.index("greet") + 1
            result = await client.call_tool("bonjour", {"name": "Zoé"})
            assert result.content[0].text == "bonjour Zoé."  # type: ignore[union-attr]
            result = await client.call_tool("greet", {"name": "Zoé"})
            assert result.content[0].text == "hello Zoé."  # type: ignore[union-attr]
    await asgi.aclose()


async def test_a_transform_that_does_not_fit_fails_the_start() -> None:
    proxy = ProxyServer(greeter())
    proxy.transform_tool("nope", name="x")
    with pytest.raises(ValueError, match="upstream has no tool named 'nope'"):
        async with proxy.running():
            pass
    proxy = ProxyServer(greeter())
    proxy.transform_tool("greet", name="x", args={"nope": ArgTransform(hide=True)})
    with pytest.raises(ValueError, match="no argument"):
        async with proxy.running():
            pass
    with pytest.raises(ValueError, match="name of its own"):
        ProxyServer(greeter()).transform_tool("greet")


async def test_a_transform_made_while_the_proxy_runs() -> None:
    proxy = ProxyServer(greeter())
    async with proxy.running():
        entry = proxy.transform_tool(
            "greet", name="hey", args={"greeting": ArgTransform(default="hey")}
        )
        assert entry is not None and entry.definition["name"] == "hey"
        with pytest.raises(ValueError, match="no tool named 'nope'"):
            proxy.transform_tool("nope", name="x")
        assert "x" not in proxy.transforms.specs
        async with connect(proxy, "memory", "2026-07-28") as client:
            result = await client.call_tool("hey", {"name": "al"})
            assert result.content[0].text == "hey al."  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_tool_search_on_a_proxy_finds_transformed_tools(era: str) -> None:
    proxy = transformed(greeter(), tool_search=ToolSearch(pinned=["other"]))
    async with connect(proxy, "memory", era) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["other", "search_tools"]
        result = await client.call_tool("search_tools", {"query": "say hi"})
        found = [t["name"] for t in result.structured_content["tools"]]  # type: ignore[index]
        assert found[0] == "hi" and "greet" not in found
        result = await client.call_tool("hi", {"who": "jo"})
        assert result.content[0].text == "hi JO.!"  # type: ignore[union-attr]


async def test_a_transform_follows_the_upstreams_tool_list(
    caplog: pytest.LogCaptureFixture,
) -> None:
    up = greeter()
    proxy = transformed(up)
    async with proxy.running():
        async with connect(proxy, "memory", "legacy") as client:
            assert sorted(t.name for t in await client.list_tools()) == ["hi", "other"]
            up.remove_tool("greet")
            await proxy._prime_tools()  # what the upstream's list change starts
            assert "dropped" in caplog.text
            assert [t.name for t in await client.list_tools()] == ["other"]
            with pytest.raises(McpError, match="Unknown tool: hi"):
                await client.call_tool("hi", {"who": "x"})

            @up.tool()
            def greet(name: str, greeting: str = "hello", punct: str = ".") -> str:
                return f"{greeting}, {name}{punct}"

            await proxy._prime_tools()
            assert sorted(t.name for t in await client.list_tools()) == ["hi", "other"]
            result = await client.call_tool("hi", {"who": "al"})
            assert result.content[0].text == "hi, AL.!"  # type: ignore[union-attr]


@pytest.mark.parametrize("upstream_era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_the_upstreams_questions_reach_the_client(era: str, upstream_era: str) -> None:
    up = asker(modern_versions=() if upstream_era == "legacy" else None)

    async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async def exclaim(arguments: dict[str, Any], call_next: CallNext) -> str:
        return (await call_next(arguments)).text + "!"

    proxy = ProxyServer(up)
    proxy.transform_tool(
        "greet", name="hi", args={"greeting": ArgTransform(default="hi", hide=True)}, wrap=exclaim
    )
    async with Client(proxy, era=era, elicitation_handler=elicit) as client:  # type: ignore[arg-type]
        result = await client.call_tool("hi")
        assert result.content[0].text == "hi Ada!"  # type: ignore[union-attr]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_a_mounted_proxy_serves_its_transforms(transport: str, era: str) -> None:
    gateway: Server[Any] = Server("gateway")
    gateway.mount(transformed(greeter()), prefix="px")
    async with connect(gateway, transport, era) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["px_hi", "px_other"]
        result = await client.call_tool("px_hi", {"who": "kim"})
        assert result.content[0].text == "hi KIM.!"  # type: ignore[union-attr]
