"""The answer to a modern POST: JSON, or an SSE stream committed only once something is
streamed before the result; no event ids, X-Accel-Buffering, keep-alives, disconnect
cancellation, JSON-response mode, and 405 for a modern GET or DELETE."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import orjson
import pytest

from mcpkit.errors import McpError
from tests.http import modern
from tests.http.modern import call, events_of, headers, messages_of, request, serve
from tests.wire import WireChecker

PROGRESS = {"progressToken": "tok"}


async def test_progress_commits_to_an_sse_stream(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            s.url,
            json=call(1, "progress", {"steps": 3}, **PROGRESS),
            headers=headers("tools/call", "progress"),
        )
        assert r.status_code == 200
        assert r.headers["content-type"] == "text/event-stream"
        assert r.headers["x-accel-buffering"] == "no"
        assert "mcp-session-id" not in r.headers
        events = events_of(r.content)
        assert all(e.id is None for e in events) and b"\nid:" not in b"\n" + r.content
        messages = messages_of(r.content)
        notes, final = messages[:-1], messages[-1]
        assert [n["method"] for n in notes] == ["notifications/progress"] * 3
        assert [n["params"]["progress"] for n in notes] == [1, 2, 3]
        assert all(n["params"]["progressToken"] == "tok" for n in notes)
        assert final["id"] == 1 and final["result"]["resultType"] == "complete"
        assert final["result"]["content"][0]["text"] == "done"


async def test_a_quick_result_is_plain_json(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            s.url, json=call(1, "echo", {"text": "x"}), headers=headers("tools/call", "echo")
        )
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert int(r.headers["content-length"]) == len(r.content)
        assert r.json()["result"] == {
            **r.json()["result"],
            "resultType": "complete",
            "content": [{"type": "text", "text": "x"}],
        }


async def test_logs_only_with_a_log_level(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(s.url, json=call(1, "chatty"), headers=headers("tools/call", "chatty"))
        assert r.headers["content-type"] == "application/json"
        assert r.json()["result"]["content"][0]["text"] == "said"
        body = call(2, "chatty", **{"io.modelcontextprotocol/logLevel": "info"})
        r = await http.post(s.url, json=body, headers=headers("tools/call", "chatty"))
        assert r.headers["content-type"] == "text/event-stream"
        messages = messages_of(r.content)
        assert [m.get("method") for m in messages] == ["notifications/message"] * 2 + [None]
        assert [m["params"]["data"] for m in messages[:2]] == ["one", "two"]


async def test_early_errors_keep_their_status_in_sse_mode(
    wire: Callable[..., WireChecker],
) -> None:
    async with serve(wire, check_received=False) as s, httpx.AsyncClient(timeout=10) as http:
        # an error from the handler before anything was streamed: JSON with its status
        r = await http.post(
            s.url, json=call(1, "no_such_tool"), headers=headers("tools/call", "no_such_tool")
        )
        assert r.status_code == 400 and r.headers["content-type"] == "application/json"
        assert r.json()["error"]["code"] == -32602 and r.json()["id"] == 1
        r = await http.post(s.url, json=request(2, "nope/nope"), headers=headers("nope/nope"))
        assert r.status_code == 404 and r.headers["content-type"] == "application/json"


async def test_keepalive_on_a_quiet_stream(wire: Callable[..., WireChecker]) -> None:
    async with (
        serve(wire, keepalive_interval=0.15) as s,
        httpx.AsyncClient(timeout=10) as http,
    ):
        r = await http.post(
            s.url, json=call(1, "slow", {"seconds": 0.6}), headers=headers("tools/call", "slow")
        )
        assert r.headers["content-type"] == "text/event-stream"
        assert r.content.count(b": keep-alive") >= 2
        assert messages_of(r.content)[-1]["result"]["content"][0]["text"] == "slept"


async def _disconnect_cancels(url: str, hdrs: dict[str, str]) -> None:
    modern.SLOW_EVENTS.clear()
    async with httpx.AsyncClient(timeout=10) as http:
        task = asyncio.create_task(
            http.post(url, json=call(1, "slow", {"seconds": 30}), headers=hdrs)
        )
        for _ in range(200):
            if modern.SLOW_EVENTS:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # past the quick-answer window: a watcher is listening
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    for _ in range(300):
        if "cancelled" in modern.SLOW_EVENTS:
            break
        await asyncio.sleep(0.01)
    assert modern.SLOW_EVENTS == ["started", "cancelled"]


async def test_disconnect_cancels_the_request(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s:
        await _disconnect_cancels(s.url, headers("tools/call", "slow"))  # not yet committed
    async with serve(wire, keepalive_interval=0.05) as s:
        await _disconnect_cancels(s.url, headers("tools/call", "slow"))  # an SSE stream
    async with serve(wire, json_response=True) as s:
        await _disconnect_cancels(s.url, headers("tools/call", "slow"))  # JSON mode


async def test_json_response_mode(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire, json_response=True) as s, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            s.url,
            json=call(1, "progress", {"steps": 2}, **PROGRESS),
            headers=headers("tools/call", "progress"),
        )
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert r.json()["result"]["content"][0]["text"] == "done"
        # JSON alone is acceptable in this mode
        r = await http.post(
            s.url,
            json=request(2, "tools/list"),
            headers={**headers("tools/list"), "accept": "application/json"},
        )
        assert [t["name"] for t in r.json()["result"]["tools"]][:2] == ["echo", "progress"]


async def test_modern_get_and_delete_are_405(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s, httpx.AsyncClient(timeout=10) as http:
        for method in ("GET", "DELETE"):
            r = await http.request(
                method,
                s.url,
                headers={"accept": "text/event-stream", "mcp-protocol-version": "2026-07-28"},
            )
            assert r.status_code == 405 and r.headers["allow"] == "POST"
        # without a version header a GET stays on the legacy path (no session: 400)
        r = await http.get(s.url, headers={"accept": "text/event-stream"})
        assert r.status_code == 400


async def test_requests_written_by_a_session_never_reach_the_stream() -> None:
    from mcpkit.transports.http.modern_server import ModernRequestTransport

    transport = ModernRequestTransport(1)
    with pytest.raises(McpError) as failed:
        transport.write(
            {"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": {}}, 1
        )
    assert failed.value.code == -32600
    transport.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, None)
    assert not transport.frames and transport.response is None
    transport.write({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, 1)
    transport.write({"jsonrpc": "2.0", "id": 1, "result": {}}, 1)
    transport.write({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, 1)
    assert len(transport.frames) == 1 and orjson.loads(transport.response or b"")["id"] == 1


async def test_shutdown_ends_an_open_stream(wire: Callable[..., WireChecker]) -> None:
    from mcpkit import Server
    from mcpkit.server.context import Context

    server = Server("forever")
    ended: list[str] = []

    @server.tool()
    async def forever(ctx: Context) -> str:
        """Say something, then wait for ever."""
        await ctx.info("listening")
        try:
            await asyncio.sleep(60)
        finally:
            ended.append("handler")
        return "never"

    body = call(1, "forever", **{"io.modelcontextprotocol/logLevel": "info"})
    async with serve(wire, server) as s, httpx.AsyncClient(timeout=10) as http:
        async with http.stream(
            "POST", s.url, json=body, headers=headers("tools/call", "forever")
        ) as r:
            assert r.headers["content-type"] == "text/event-stream"
            chunks = r.aiter_bytes()
            first = await asyncio.wait_for(anext(chunks), 5)
            assert b"notifications/message" in first
            assert len(s.app.modern_streams) == 1
            s.app.close_streams()
            rest = b""
            async with asyncio.timeout(5):
                async for chunk in chunks:
                    rest += chunk
            assert b'"result"' not in rest  # ended without an answer: the request is over
        for _ in range(200):
            if ended:
                break
            await asyncio.sleep(0.01)
        assert ended == ["handler"] and not s.app.modern_streams


async def test_a_raw_server_request_fails_its_caller_at_once(
    wire: Callable[..., WireChecker],
) -> None:
    from mcpkit import Server
    from mcpkit.server.context import Context

    server = Server("raw-request")

    @server.tool()
    async def ask_raw(ctx: Context) -> str:
        """Send a roots/list request the handshake-era way."""
        try:
            await ctx.session.request("roots/list", {}, timeout=30)
        except McpError as exc:
            return f"refused {exc.code}"
        return "answered"

    async with serve(wire, server) as s, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            s.url, json=call(1, "ask_raw"), headers=headers("tools/call", "ask_raw")
        )
        assert r.headers["content-type"] == "application/json"
        assert "refused -32600" in r.json()["result"]["content"][0]["text"]


async def test_a_client_taking_only_sse_gets_sse(wire: Callable[..., WireChecker]) -> None:
    for options in ({}, {"json_response": True}):
        async with serve(wire, **options) as s, httpx.AsyncClient(timeout=10) as http:
            only_sse = {**headers("tools/call", "echo"), "accept": "text/event-stream"}
            r = await http.post(s.url, json=call(1, "echo", {"text": "s"}), headers=only_sse)
            assert r.status_code == 200 and r.headers["content-type"] == "text/event-stream"
            (answer,) = messages_of(r.content)
            assert answer["id"] == 1 and answer["result"]["content"][0]["text"] == "s"
            # an error keeps its status (a JSON body)
            r = await http.post(
                s.url, json=call(2, "nope"), headers={**only_sse, "mcp-name": "nope"}
            )
            assert r.status_code == 400 and r.json()["id"] == 2
