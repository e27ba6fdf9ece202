"""``app.mount(child, prefix=...)``: every feature of the mounted server through the parent,
in memory, over stdio and over Streamable HTTP, on both protocol eras, every message checked
against the official schema of its revision."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.client import StdioOptions
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from mcpkit.types import CreateMessageResult, ElicitResult, TextContent
from tests.compose.apps import build_gateway, build_weather
from tests.conftest import server_env
from tests.wire import WireChecker

APPS = Path(__file__).parent / "apps.py"
ROOTS = [{"uri": "file:///work", "name": "work"}]
README = "weather+file:///readme.txt"


async def sample(params: Any, ctx: Any) -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant", content=TextContent(text="calm"), model="m", stop_reason="endTurn"
    )


async def elicit(params: Any, ctx: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "Ada"})


def text(result: Any) -> str:
    return str(result.content[0].text)


class Logs:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    def __call__(self, params: Any) -> None:
        self.messages.append(params.data)


def client(target: Any, era: str, logs: Logs, tracer: Any = None, **options: Any) -> Client:
    return Client(
        target,
        era=era,  # type: ignore[arg-type]
        sampling_handler=sample,
        elicitation_handler=elicit,
        roots=ROOTS,
        on_log=logs,
        tracer=tracer,
        timeout=20,
        **options,
    )


async def next_event(events: Any, want: Callable[[Any], bool]) -> Any:
    async with asyncio.timeout(15):
        async for event in events:
            if want(event):
                return event
    raise AssertionError("the listen stream ended")


async def exercise(c: Client, logs: Logs, *, updates: bool = True) -> None:
    """Every feature of the child, through the parent (``updates``: resource updates too)."""
    tools = {t.name: t for t in await c.list_tools()}
    assert {"own", "weather_forecast", "weather_greet", "weather_summarize"} <= set(tools)
    assert tools["weather_forecast"].description == "Forecast for a city."
    assert text(await c.call_tool("own")) == "own"

    progress: list[tuple[float, float | None, str | None]] = []
    result = await c.call_tool(
        "weather_forecast",
        {"city": "Oslo"},
        on_progress=lambda p, t, m: progress.append((p, t, m)),
    )
    assert text(result) == "sunny in Oslo, in celsius"  # the child's lifespan state
    assert progress == [(0.5, 1, "halfway")]
    assert "forecasting Oslo" in logs.messages
    assert text(await c.call_tool("weather_greet")) == "hello Ada"  # elicitation
    assert text(await c.call_tool("weather_summarize")) == "llm: calm"  # sampling
    assert text(await c.call_tool("weather_where")) == "file:///work"  # roots
    assert text(await c.call_tool("weather_readme")) == "the readme"  # the child's own URI
    linked = await c.call_tool("weather_link")
    assert [str(b.uri) for b in linked.content] == [README, "https://example.com/x"]  # type: ignore[union-attr]
    with pytest.raises(McpError, match="Unknown tool: weather_nothing") as err:
        await c.call_tool("weather_nothing")
    assert err.value.code == -32602

    assert [str(r.uri) for r in await c.list_resources()] == [README]
    assert [t.uri_template for t in await c.list_resource_templates()] == [
        "weather+weather://{city}/now"
    ]
    read = await c.read_resource("weather+weather://oslo/now")
    assert [(str(x.uri), x.text) for x in read.contents] == [  # type: ignore[union-attr]
        ("weather+weather://oslo/now", "now in oslo")
    ]
    assert (await c.read_resource(README)).contents[0].text == "the readme"  # type: ignore[union-attr]
    with pytest.raises(McpError) as err:
        await c.read_resource("weather+file:///missing")
    assert err.value.data == {"uri": "weather+file:///missing"}

    assert [p.name for p in await c.list_prompts()] == ["weather_ask"]
    prompt = await c.get_prompt("weather_ask", {"city": "Oslo"})
    assert prompt.messages[0].content.text == "What is the weather in Oslo? (short)"  # type: ignore[union-attr]
    done = await c.complete({"type": "ref/prompt", "name": "weather_ask"}, "city", "Os")
    assert done.completion.values == ["Oslo", "Osaka"]
    done = await c.complete("weather+weather://{city}/now", "city", "ber")
    assert done.completion.values == ["berlin", "bern"]

    # Live: what the child registers later appears, with its list change and updates.
    async with c.listen(tools=True, resources=[README]) as events:
        assert text(await c.call_tool("weather_grow", {"name": "extra"})) == "added"
        await next_event(events, lambda e: e.method == "notifications/tools/list_changed")
        assert "weather_extra" in {t.name for t in await c.list_tools()}
        assert text(await c.call_tool("weather_extra")) == "extra here"
        assert text(await c.call_tool("weather_touch")) == "touched"
        if updates:
            event = await next_event(
                events, lambda e: e.method == "notifications/resources/updated"
            )
            assert event.uri == README
        assert text(await c.call_tool("weather_grow", {"name": "extra"})) == "removed"
        await next_event(events, lambda e: e.method == "notifications/tools/list_changed")
        assert "weather_extra" not in {t.name for t in await c.list_tools()}


ERAS = ["legacy", "2026-07-28"]


@pytest.mark.parametrize("era", ERAS)
async def test_mounted_in_memory(era: str, wire: Callable[..., WireChecker]) -> None:
    events: list[str] = []
    gateway, _ = build_gateway(events)
    logs = Logs()
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    async with client(gateway, era, logs, tracer=checker) as c:
        assert events == ["weather up"]  # the child's lifespan is entered with the parent's
        assert c.server_capabilities.prompts is not None  # the parent has none of its own
        await exercise(c, logs)
    assert events == ["weather up", "weather down"]
    calls = checker.sent("tools/call")
    answered = [m for m in calls if "inputResponses" in m["params"]]
    if era == "legacy":  # live requests to the client: no rounds
        assert not answered and checker.received("elicitation/create")
    else:  # MRTR rounds: the mounted tool's questions came back in InputRequiredResults
        assert {m["params"]["name"] for m in answered} == {
            "weather_greet",
            "weather_summarize",
            "weather_where",
        }


@pytest.mark.parametrize("era", ERAS)
async def test_mounted_over_stdio(era: str, wire: Callable[..., WireChecker]) -> None:
    logs = Logs()
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    target = [sys.executable, str(APPS)]
    async with client(
        target, era, logs, tracer=checker, connection=StdioOptions(env=server_env())
    ) as c:
        await exercise(c, logs)


@contextlib.asynccontextmanager
async def served(app: Server[Any]) -> AsyncIterator[str]:
    asgi = app.http_app()
    async with running(asgi) as base:
        yield base + "/mcp"


@pytest.mark.parametrize("era", ERAS)
async def test_mounted_over_http(era: str, wire: Callable[..., WireChecker]) -> None:
    events: list[str] = []
    gateway, _ = build_gateway(events)
    logs = Logs()
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    async with served(gateway) as url, client(url, era, logs, tracer=checker) as c:
        assert events == ["weather up"]
        await exercise(c, logs)
    assert events == ["weather up", "weather down"]


@pytest.mark.parametrize("era", ERAS)
async def test_mounted_proxy(era: str, wire: Callable[..., WireChecker]) -> None:
    """A proxy (here of an in-process server) mounts like any server: a remote server's
    features under a namespace, its resource updates included (a 2026-07-28 client's
    listen stream subscribes to them upstream while it is open)."""
    events: list[str] = []
    gateway: Server[Any] = Server("gateway")
    gateway.add_tool(lambda: "own", name="own")
    gateway.mount(ProxyServer(build_weather(events)), prefix="weather")
    logs = Logs()
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    async with client(gateway, era, logs, tracer=checker) as c:
        await exercise(c, logs)
