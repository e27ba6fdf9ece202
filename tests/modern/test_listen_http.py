"""``subscriptions/listen`` over Streamable HTTP: the listen POST's answer is an SSE stream
that starts with the acknowledgment, carries the changes its filter asked for as they
happen (registration, ``notify_list_changed``, ``notify_resource_updated``), keeps quiet
connections alive with comments, ends when the client disconnects, and answers the
closing result when the server ends it. The client side of every stream is checked
against the 2026-07-28 schema here; the server side by the app's session tracers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson

from mcpkit import Server
from mcpkit.envelope import SERVER_INFO_KEY, SUBSCRIPTION_ID_KEY
from mcpkit.transports.http import running, sse
from mcpkit.transports.http.sse import SSEDecoder
from tests.http.modern import headers, serve
from tests.modern.listen_app import make_app
from tests.modern.listen_peer import (
    ACK,
    PROMPTS_CHANGED,
    TOOLS_CHANGED,
    UPDATED,
    V,
    listen_request,
    request,
)
from tests.wire import WireChecker

Wire = Callable[..., WireChecker]


class ListenStream:
    """The client end of one listen POST: its messages one at a time, and its raw bytes
    (read by a task of its own, so a test may wait with a timeout)."""

    def __init__(self, response: httpx.Response, checker: WireChecker) -> None:
        self.response = response
        self.checker = checker
        self.raw = b""
        self.grew = asyncio.Event()
        self._messages: asyncio.Queue[Any] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        decoder = SSEDecoder()
        try:
            async for chunk in self.response.aiter_bytes():
                self.raw += chunk
                self.grew.set()
                for event in decoder.feed(chunk):
                    if event.data:
                        message = orjson.loads(event.data)
                        self.checker("recv", message)
                        self._messages.put_nowait(message)
        finally:
            self._messages.put_nowait(None)  # the end of the stream

    async def next(self, timeout: float = 10) -> Any:
        """The next message; None once the stream ended."""
        return await asyncio.wait_for(self._messages.get(), timeout)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await self._reader


@contextlib.asynccontextmanager
async def listening(
    http: httpx.AsyncClient, url: str, wire: Wire, rid: Any, **notifications: Any
) -> AsyncIterator[ListenStream]:
    checker = wire(V)
    body = listen_request(rid, **notifications)
    checker("send", body)
    async with http.stream(
        "POST", url, json=body, headers=headers("subscriptions/listen")
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        stream = ListenStream(response, checker)
        try:
            yield stream
        finally:
            await stream.close()


async def call(http: httpx.AsyncClient, url: str, rid: int, tool: str, **arguments: Any) -> Any:
    body = request(rid, "tools/call", name=tool, arguments=arguments)
    r = await http.post(url, json=body, headers=headers("tools/call", tool))
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["resultType"] == "complete"
    return result


async def test_a_listen_stream_over_http(wire: Wire) -> None:
    app = make_app()
    async with serve(wire, app) as s, httpx.AsyncClient(timeout=10) as http:
        async with listening(
            http,
            s.url,
            wire,
            1,
            toolsListChanged=True,
            promptsListChanged=True,
            resourceSubscriptions=["test://watched"],
        ) as stream:
            ack = await stream.next()
            assert ack["method"] == ACK
            assert ack["params"] == {
                "_meta": {SUBSCRIPTION_ID_KEY: 1},
                "notifications": {
                    "toolsListChanged": True,
                    "promptsListChanged": True,
                    "resourceSubscriptions": ["test://watched"],
                },
            }
            await call(http, s.url, 2, "add_tool", name="fresh")  # a registration
            assert (await stream.next())["method"] == TOOLS_CHANGED
            await call(http, s.url, 3, "announce", kind="prompts")  # an announcement
            assert (await stream.next())["method"] == PROMPTS_CHANGED
            await call(http, s.url, 4, "touch", uri="test://elsewhere")
            await call(http, s.url, 5, "announce", kind="resources")  # not asked for
            await call(http, s.url, 6, "touch", uri="test://watched")  # a resource update
            updated = await stream.next()
            assert updated["method"] == UPDATED
            assert updated["params"] == {
                "_meta": {SUBSCRIPTION_ID_KEY: 1},
                "uri": "test://watched",
            }
            r = await http.post(s.url, json=request(7, "tools/list"), headers=headers("tools/list"))
            assert "fresh" in [t["name"] for t in r.json()["result"]["tools"]]
        assert b"\nid:" not in b"\n" + stream.raw  # the modern wire has no event ids


async def test_two_listens_and_their_filters_over_http(wire: Wire) -> None:
    async with serve(wire, make_app()) as s, httpx.AsyncClient(timeout=10) as http:
        async with (
            listening(http, s.url, wire, "p", promptsListChanged=True) as prompts,
            listening(http, s.url, wire, "t", toolsListChanged=True) as tools,
        ):
            assert (await prompts.next())["method"] == ACK
            assert (await tools.next())["method"] == ACK
            await call(http, s.url, 1, "add_tool", name="one")
            note = await tools.next()
            assert note["method"] == TOOLS_CHANGED
            assert note["params"]["_meta"] == {SUBSCRIPTION_ID_KEY: "t"}
            await call(http, s.url, 2, "add_prompt", name="two")
            # The prompts stream's next frame is the later prompts change: it never got the
            # tools change published before it.
            note = await prompts.next()
            assert note["method"] == PROMPTS_CHANGED
            assert note["params"]["_meta"] == {SUBSCRIPTION_ID_KEY: "p"}


async def test_keep_alives_and_a_disconnect_end_the_listen(wire: Wire) -> None:
    app = make_app()
    async with (
        serve(wire, app, keepalive_interval=0.1) as s,
        httpx.AsyncClient(timeout=10) as http,
    ):
        async with listening(http, s.url, wire, 1, toolsListChanged=True) as stream:
            assert (await stream.next())["method"] == ACK
            assert len(app.relay.local) == 1
            async with asyncio.timeout(5):
                while sse.KEEPALIVE not in stream.raw:
                    stream.grew.clear()
                    await stream.grew.wait()
        # The client closed the stream: the listen ends (its subscription is gone).
        async with asyncio.timeout(5):
            while len(app.relay.local):  # noqa: ASYNC110 (the server side has no event to await)
                await asyncio.sleep(0.02)
        app.notify_list_changed("tools")
        async with listening(http, s.url, wire, 2, toolsListChanged=True) as again:
            assert (await again.next())["method"] == ACK
            app.notify_list_changed("tools")
            assert (await again.next())["method"] == TOOLS_CHANGED


async def test_the_server_ends_a_listen_gracefully_over_http(wire: Wire) -> None:
    app = make_app()
    async with serve(wire, app) as s, httpx.AsyncClient(timeout=10) as http:
        async with listening(http, s.url, wire, "bye", toolsListChanged=True) as stream:
            assert (await stream.next())["method"] == ACK
            await app.end_listens()
            closing = await stream.next()
            assert closing["id"] == "bye"
            assert closing["result"]["resultType"] == "complete"
            assert closing["result"]["_meta"][SUBSCRIPTION_ID_KEY] == "bye"
            assert closing["result"]["_meta"][SERVER_INFO_KEY]["name"] == "listen-test"
            assert await stream.next() is None  # the response is the last thing on the stream


async def test_only_declared_capabilities_are_honoured_over_http(wire: Wire) -> None:
    app = Server("prompts-only")
    app.prompt(name="p", description="A prompt.")(lambda: "p")
    async with serve(wire, app) as s, httpx.AsyncClient(timeout=10) as http:
        async with listening(
            http, s.url, wire, 1, toolsListChanged=True, promptsListChanged=True
        ) as stream:
            ack = await stream.next()
            assert ack["params"]["notifications"] == {"promptsListChanged": True}
            app.notify_list_changed("tools")
            app.notify_list_changed("prompts")
            assert (await stream.next())["method"] == PROMPTS_CHANGED


async def test_shutdown_ends_listens_with_their_closing_result(wire: Wire) -> None:
    app = make_app()
    http_app = app.http_app()  # the Server's app: its shutdown ends listens first
    async with running(http_app) as base, httpx.AsyncClient(timeout=10) as http:
        url = base + http_app.path
        async with (
            listening(http, url, wire, 1, toolsListChanged=True) as first,
            listening(http, url, wire, 2, promptsListChanged=True) as second,
        ):
            assert (await first.next())["method"] == ACK
            assert (await second.next())["method"] == ACK
            http_app.close_streams()  # what a SIGTERM or the ASGI server's shutdown does
            for rid, stream in ((1, first), (2, second)):
                closing = await stream.next()
                assert closing["id"] == rid and closing["result"]["resultType"] == "complete"
                assert closing["result"]["_meta"][SUBSCRIPTION_ID_KEY] == rid
                assert await stream.next() is None
