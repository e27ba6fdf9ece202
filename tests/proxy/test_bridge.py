"""The proxy between eras: an mcpkit fixture server of one era only (tests/proxy/
fixture_server.py, over stdio) served to clients of the other. A 2026-07-28 client of a
handshake-era upstream answers the upstream's live requests as MRTR rounds; a handshake-era
client of a 2026-07-28 upstream answers the upstream's input requests as live requests.
Errors keep their codes, progress and logs come through, cancellation reaches upstream."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.client import ClientHooks
from mcpkit.errors import ConnectionClosed, RequestTimeout
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.proxy.conftest import fixture_command, start_proxy

#: (upstream era, client era): every pairing, the two bridges among them.
PAIRS = [
    ("legacy", "2026-07-28"),
    ("modern", "legacy"),
    ("legacy", "legacy"),
    ("modern", "2026-07-28"),
]


class Recorder:
    """The client's handlers and hooks, recording what reached it and how."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.logs: list[Any] = []
        self.progress: list[float] = []
        self.wire: list[Any] = []

    async def elicit(self, params: Any, ctx: Any) -> Any:
        mode = getattr(params, "mode", "form") or "form"
        self.asked.append(("elicitation", mode))
        if mode == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(self, params: Any, ctx: Any) -> Any:
        self.asked.append(("sampling", "-"))
        return {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "m"}

    def trace(self, direction: str, message: Any) -> None:
        if direction == "recv":
            self.wire.append(message)

    def client(self, target: Any, era: str, **options: Any) -> Client:
        self.elicit.__func__.supports_url = True  # type: ignore[attr-defined]
        return Client(
            target,
            era=era,  # type: ignore[arg-type]
            elicitation_handler=self.elicit,
            sampling_handler=self.sample,
            roots=[{"uri": "file:///bridge/root", "name": "root"}],
            on_log=lambda p: self.logs.append(p.data),
            hooks=ClientHooks(on_progress=lambda p, t, m: self.progress.append(p)),
            tracer=self.trace,
            **options,
        )

    def live_requests(self) -> list[str]:
        """Methods of the requests the server sent the client (handshake era)."""
        return [m["method"] for m in self.wire if "method" in m and "id" in m]

    def input_rounds(self) -> int:
        """``InputRequiredResult`` answers the client got (2026-07-28)."""
        return sum(
            1
            for m in self.wire
            if isinstance(m.get("result"), dict)
            and m["result"].get("resultType") == "input_required"
        )


@pytest.mark.parametrize(("upstream", "era"), PAIRS)
async def test_questions_cross_the_bridge(upstream: str, era: str) -> None:
    proxy = ProxyServer(fixture_command(upstream))
    rec = Recorder()
    async with rec.client(proxy, era) as client:
        assert client.modern is (era != "legacy")
        assert client.server_info.name == f"fixture-{upstream}"
        assert client.instructions == f"The {upstream} fixture."
        assert proxy.upstream_modern is (upstream == "modern")
        greet = await client.call_tool("greet")
        assert greet.content[0].text == "hello Ada"
        visit = await client.call_tool("visit")
        assert visit.content[0].text == "visit: accept"
        sampled = await client.call_tool("ask_model", {"question": "6 x 7?"})
        assert sampled.content[0].text == "model said: 42"
        roots = await client.call_tool("show_roots")
        assert roots.structured_content == {"result": ["file:///bridge/root"]}
        counted = await client.call_tool("count", {"n": 3})
        assert counted.content[0].text == "counted 3"
    assert ("elicitation", "form") in rec.asked
    assert ("elicitation", "url") in rec.asked
    assert ("sampling", "-") in rec.asked
    assert rec.progress == [1, 2, 3]
    assert "asking for a name" in rec.logs
    if era == "legacy":  # the questions came as live requests ...
        assert {"elicitation/create", "sampling/createMessage", "roots/list"} <= set(
            rec.live_requests()
        )
        assert rec.input_rounds() == 0
    else:  # ... or as MRTR rounds: the stateless client never gets a request
        assert rec.live_requests() == []
        assert rec.input_rounds() >= 4


@pytest.mark.parametrize(("upstream", "era"), PAIRS[:2])
async def test_errors_keep_their_codes(upstream: str, era: str) -> None:
    proxy = ProxyServer(fixture_command(upstream))
    async with Client(proxy, era=era) as client:  # type: ignore[arg-type]
        with pytest.raises(McpError) as failed:
            await client.call_tool("fail")
        assert (failed.value.code, failed.value.message) == (-32099, "fixture failure")
        assert failed.value.data == {"why": "asked to"}
        with pytest.raises(McpError) as unknown:
            await client.read_resource("fixture://nothing-here")
        async with Client(fixture_command(upstream)) as direct:  # in its own era
            with pytest.raises(McpError) as directly:
                await direct.read_resource("fixture://nothing-here")
        assert unknown.value.code == directly.value.code
        assert unknown.value.message == directly.value.message
        # the session goes on
        assert (await client.call_tool("count", {"n": 1})).content[0].text == "counted 1"


@pytest.mark.parametrize(("upstream", "era"), PAIRS[:3])
async def test_cancellation_reaches_upstream(upstream: str, era: str, tmp_path: Path) -> None:
    mark = tmp_path / "cancelled"
    proxy = ProxyServer(fixture_command(upstream, str(mark)))
    async with Client(proxy, era=era) as client:  # type: ignore[arg-type]
        with pytest.raises(RequestTimeout):
            await client.call_tool("wait_forever", timeout=0.5)
        for _ in range(400):  # the fixture marks the cancellation it got (20 s at most)
            if mark.exists():
                break
            await asyncio.sleep(0.05)
        assert mark.read_text() == "cancelled"
        assert (await client.call_tool("count", {"n": 1})).content[0].text == "counted 1"


async def test_each_handshake_client_has_its_own_upstream_session() -> None:
    proxy = ProxyServer(fixture_command("legacy"))
    async with proxy.running():
        quiet, chatty = Recorder(), Recorder()
        first = quiet.client(proxy, "legacy")
        second = chatty.client(proxy, "legacy")
        async with first, second:
            assert len(proxy.session_upstreams) == 2
            await first.set_logging_level("error")  # its own upstream session's level
            for client in (first, second):
                assert (await client.call_tool("greet")).content[0].text == "hello Ada"
            assert quiet.logs == [] and chatty.logs == ["asking for a name"]
            upstreams = list(proxy.session_upstreams.values())
            assert upstreams[0] is not upstreams[1]
            assert all(u.connected for u in upstreams)
            await first.close()
            for _ in range(200):
                if len(proxy.session_upstreams) == 1:
                    break
                await asyncio.sleep(0.05)
            assert len(proxy.session_upstreams) == 1
            assert (await second.call_tool("count", {"n": 1})).content[0].text == "counted 1"
        for _ in range(200):
            if not any(u.connected for u in upstreams):
                break
            await asyncio.sleep(0.05)
        assert not any(u.connected for u in upstreams)  # closed with their clients


@pytest.mark.parametrize(("upstream", "era"), PAIRS)
async def test_changes_and_pages_come_through(upstream: str, era: str) -> None:
    proxy = ProxyServer(fixture_command(upstream))
    changed: asyncio.Queue[str] = asyncio.Queue()
    updated: asyncio.Queue[str] = asyncio.Queue()
    async with Client(
        proxy,
        era=era,  # type: ignore[arg-type]
        hooks=ClientHooks(
            on_list_changed=changed.put_nowait, on_resource_updated=updated.put_nowait
        ),
    ) as client:
        first = await client.list_tools_page()
        assert len(first.tools) == 2 and first.next_cursor  # the upstream's pages, as they are
        before = [t.name for t in await client.list_tools()]
        await client.subscribe_resource("fixture://greeting")
        await client.call_tool("add_tool", {"name": "later"})
        assert await asyncio.wait_for(changed.get(), 20) == "tools"
        after = [t.name for t in await client.list_tools(cache="refresh")]
        assert after == [*before, "later"]
        await client.call_tool("touch")
        assert await asyncio.wait_for(updated.get(), 20) == "fixture://greeting"


async def test_mcpkit_proxy_over_http_bridges_both_ways(tmp_path: Path) -> None:
    with start_proxy([fixture_command("legacy"), "--transport", "http"]) as url:
        rec = Recorder()
        async with rec.client(url, "2026-07-28") as client:
            assert client.modern and client.server_info.name == "fixture-legacy"
            assert (await client.call_tool("greet")).content[0].text == "hello Ada"
        assert rec.input_rounds() == 1 and rec.live_requests() == []
        rec = Recorder()
        async with rec.client(url, "legacy") as client:
            assert (await client.call_tool("greet")).content[0].text == "hello Ada"
        assert "elicitation/create" in rec.live_requests()
    # and back: a 2026-07-28 upstream over HTTP, offered over stdio by mcpkit proxy
    upstream = ProxyServer(fixture_command("modern"))
    async with upstream.running(), running(upstream.http_app()) as base:
        command = shlex.join([sys.executable, "-m", "mcpkit", "proxy", f"{base}/mcp"])
        rec = Recorder()
        async with rec.client(command, "legacy") as client:
            assert client.server_info.name == "fixture-modern"
            assert (await client.call_tool("greet")).content[0].text == "hello Ada"
        assert "elicitation/create" in rec.live_requests()


async def test_an_upstream_that_dies() -> None:
    proxy = ProxyServer(fixture_command("legacy"))
    async with proxy.running():
        # a handshake-era client's own upstream session dies: that client's session ends
        async with Client(proxy, era="legacy") as client:
            with pytest.raises((McpError, ConnectionClosed)):
                await client.call_tool("crash")
            for _ in range(200):
                if not client.connected:
                    break
                await asyncio.sleep(0.05)
            assert not client.connected
        # the shared connection dies: the next request opens it again
        async with Client(proxy, era="2026-07-28") as modern:
            with pytest.raises(McpError) as lost:
                await modern.call_tool("crash")
            assert lost.value.code == -32603
            assert (await modern.call_tool("count", {"n": 1})).content[0].text == "counted 1"


async def test_the_proxys_middleware_runs_around_what_it_forwards() -> None:
    seen: list[str] = []

    async def record(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    proxy = ProxyServer(fixture_command("modern"), middleware=[record])
    async with Client(proxy, era="2026-07-28") as client:
        assert (await client.call_tool("count", {"n": 1})).content[0].text == "counted 1"
    assert "tools/call" in seen and "server/discover" in seen


async def test_a_config_entry_and_a_server_as_targets() -> None:
    from tests.proxy.conftest import FIXTURE

    entry = {"command": sys.executable, "args": [str(FIXTURE), "legacy"], "env": {"X": "1"}}
    async with Client(ProxyServer(entry, name="renamed"), era="legacy") as client:
        assert client.server_info.name == "renamed"
        assert (await client.call_tool("count", {"n": 2})).content[0].text == "counted 2"
    inner = Server("inner")

    @inner.tool()
    def hello() -> str:
        return "hello from inside"

    async with Client(ProxyServer(ProxyServer(inner))) as client:  # a proxy of a proxy
        assert client.server_info.name == "inner"
        assert (await client.call_tool("hello")).content[0].text == "hello from inside"
