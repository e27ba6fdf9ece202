"""A change written straight to the listen streams over HTTP (the relay's turn writes each
stream's frame to its connection, no wake-up of the listen handler or the stream's writer):
the frames are the handler's, in order, a slow reader holds up no one else, listeners that
go away mid-fan-out cost the others nothing, and a listener hears only what it may see."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from mcpkit import Client, Server
from mcpkit.bus import FAN_OUT_SLICE, BusEvent, Subscription, event_notification
from mcpkit.envelope import SUBSCRIPTION_ID_KEY
from mcpkit.server.subscriptions import frame_parts
from mcpkit.transports.http import running
from mcpkit.transports.http.modern_server import ModernRequestTransport, _stream_frames
from mcpkit.transports.http.sse import SSEDecoder
from tests.http.modern import headers
from tests.modern.listen_app import make_app
from tests.modern.listen_peer import listen_request
from tests.security.tenants import resource_server
from tests.server.test_visibility import visible_server

UPDATED = "notifications/resources/updated"


# -- the frame, encoded once per change --------------------------------------------------------


@pytest.mark.parametrize("rid", [1, 0, -7, 2**40, "a", 'quote " and \\ back', "ü ✓", ""])
@pytest.mark.parametrize(
    "event",
    [
        BusEvent.list_changed("tools"),
        BusEvent.list_changed("prompts", audience="abc"),
        BusEvent.resource_updated("file:///x.txt"),
        BusEvent.resource_updated('note://"\x00subscription-id\x00"'),  # the mark itself
        BusEvent.resource_updated("ü://\u2028/\n"),
    ],
)
def test_a_streams_frame_is_the_handlers_encoding(rid: str | int, event: BusEvent) -> None:
    before, after = frame_parts(event)
    assert before + orjson.dumps(rid) + after == orjson.dumps(event_notification(rid, event))


# -- the transport's direct path, unit ---------------------------------------------------------


class Connection:
    """An ASGI ``send`` recording bodies; while ``held`` is set, a body waits for it to be
    cleared (the server's flow control holding the write back)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.held: asyncio.Event | None = None
        self.waiting = 0

    async def send(self, message: Any) -> None:
        if message["type"] != "http.response.body":
            return
        held = self.held
        if held is not None:
            self.waiting += 1
            await held.wait()
        self.bodies.append(message["body"])

    def messages(self) -> list[Any]:
        events = SSEDecoder().feed(b"".join(self.bodies))
        return [orjson.loads(e.data) for e in events if e.data]


async def until(condition: Any) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_a_held_back_write_keeps_its_place_before_what_follows() -> None:
    transport = ModernRequestTransport(5)
    connection = Connection()
    app = SimpleNamespace(options=SimpleNamespace(keepalive_interval=60.0))
    transport.write({"jsonrpc": "2.0", "method": "first"}, 5)
    writer = asyncio.create_task(_stream_frames(app, transport, connection.send))  # type: ignore[arg-type]
    await until(lambda: transport.idle is not None)
    assert transport.push_frame(b'{"n":1}')  # sent on the spot
    assert len(connection.bodies) == 2
    connection.held = asyncio.Event()
    assert transport.push_frame(b'{"n":2}')  # its send waits (a task finishes it)
    assert transport.sending is not None and transport.idle is None
    for n in (3, 4):
        assert transport.push_frame(b'{"n":%d}' % n)  # queued for the writer
    await until(lambda: connection.waiting == 1)
    await asyncio.sleep(0.01)
    assert len(connection.bodies) == 2  # nothing overtook the held write
    connection.held.set()
    connection.held = None
    await until(lambda: transport.idle is not None)
    transport.write({"jsonrpc": "2.0", "id": 5, "result": {}})
    await asyncio.wait_for(writer, 5)
    assert [m.get("n", m.get("method", m.get("id"))) for m in connection.messages()] == [
        "first",
        1,
        2,
        3,
        4,
        5,
    ]


async def test_a_write_that_fails_ends_the_stream() -> None:
    transport = ModernRequestTransport(5)
    transport.idle = failing_send
    assert transport.push_frame(b"{}")
    assert transport.closed


async def failing_send(message: Any) -> None:
    raise OSError("gone")


async def test_a_stream_held_back_refuses_until_drained() -> None:
    transport = ModernRequestTransport(5, max_buffer=100)
    assert transport.push_frame(b"x" * 60)  # queued: no writer yet
    assert transport.writing_paused
    assert not transport.push_frame(b"y")  # the caller keeps it
    assert transport.take() == [b"x" * 60]
    assert transport.push_frame(b"y")


def test_a_busy_subscriber_gets_its_events_queued_in_order() -> None:
    closed: list[Subscription] = []
    sub = Subscription(lambda e: True, 10, closed.append)
    direct: list[BusEvent] = []
    sub.direct = lambda e: direct.append(e) or True  # type: ignore[func-returns-value]
    a, b, c = (BusEvent.resource_updated(f"x://{i}") for i in range(3))
    sub._offer(a)
    assert direct == [a]
    sub.direct = lambda e: False  # busy: queued
    sub._offer(b)
    sub.direct = lambda e: direct.append(e) or True  # type: ignore[func-returns-value]
    sub._offer(c)  # b still waits: c queues behind it
    assert direct == [a]
    assert list(sub._pending) == [b, c]


# -- over HTTP ---------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def served(
    app: Server, server: Any = "uvicorn", **options: Any
) -> AsyncIterator[tuple[str, int]]:
    async with running(app.http_app(**options), server=server) as base:
        host, port = base.split("://", 1)[1].rsplit(":", 1)
        yield host, int(port)


class Listen:
    """One listen POST read straight off its socket: the messages decoded so far."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = SSEDecoder()
        self.messages: list[Any] = []
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        rid: Any,
        *,
        rcvbuf: int | None = None,
        extra: dict[str, str] | None = None,
        **filters: Any,
    ) -> Listen:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
        body = orjson.dumps(listen_request(rid, **filters))
        head = ["POST /mcp HTTP/1.1", f"Host: {host}:{port}"]
        head += [f"{k}: {v}" for k, v in headers("subscriptions/listen").items()]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        head += [f"Content-Length: {len(body)}", "", ""]
        writer.write("\r\n".join(head).encode() + body)
        listen = cls(reader, writer)
        status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 200"), status
        while (await reader.readline()) != b"\r\n":
            pass
        return listen

    async def next_chunk(self) -> bool:
        size_line = await self.reader.readline()
        if not size_line:
            return False
        size = int(size_line.split(b";")[0], 16)
        data = await self.reader.readexactly(size + 2)
        if size == 0:
            return False
        for event in self.decoder.feed(data[:-2]):
            if event.data:
                self.messages.append(orjson.loads(event.data))
        return True

    async def until(self, count: int) -> list[Any]:
        """The first ``count`` messages (acknowledgment included)."""
        while len(self.messages) < count:
            assert await asyncio.wait_for(self.next_chunk(), 10), "the stream ended"
        return self.messages[:count]

    def read_on(self) -> None:
        async def forever() -> None:
            while await self.next_chunk():
                pass

        self.task = asyncio.get_running_loop().create_task(forever())

    async def close(self, abort: bool = False) -> None:
        if self.task is not None:
            self.task.cancel()
        if abort:
            self.writer.transport.abort()
        else:
            self.writer.close()

    def notifications(self) -> list[Any]:
        return [m for m in self.messages if m.get("method") not in (None, ACK)]


ACK = "notifications/subscriptions/acknowledged"


def sent(message: Any) -> Any:
    """A notification as the test compares it: its method and uri, if any."""
    return (message["method"], message["params"].get("uri"))


def directly_fed(app: Server) -> int:
    """How many of ``app``'s listen streams take their events on the direct path."""
    return sum(sub.direct is not None for sub in app.relay.local._subs)


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
async def test_several_changes_reach_a_listener_in_order(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    through_session: list[str] = []
    write = ModernRequestTransport.write

    def spied(self: ModernRequestTransport, message: Any, related: Any = None) -> None:
        through_session.append(message.get("method", "response"))
        write(self, message, related)

    monkeypatch.setattr(ModernRequestTransport, "write", spied)
    app = make_app()
    async with served(app, server) as (host, port):
        listen = await Listen.open(
            host, port, "L1", toolsListChanged=True, promptsListChanged=True,
            resourcesListChanged=True, resourceSubscriptions=["test://watched"],
        )  # fmt: skip
        ack = (await listen.until(1))[0]
        assert ack["method"] == ACK
        await until(lambda: directly_fed(app) == 1)
        events = [BusEvent.list_changed("tools"), BusEvent.list_changed("prompts")]
        events += [BusEvent.resource_updated(f"test://watched/{i}") for i in range(40)]
        events.append(BusEvent.list_changed("resources"))
        for i, event in enumerate(events):  # some in one turn, some turns apart
            app.relay.publish(event)
            if i % 7 == 0:
                await asyncio.sleep(0)
        messages = await listen.until(1 + len(events))
        assert [sent(m) for m in messages[1:]] == [(e.method, e.uri) for e in events]
        for m in messages[1:]:
            assert m["params"]["_meta"] == {SUBSCRIPTION_ID_KEY: "L1"}
        # Only the acknowledgment went through the listen handler's session: every change
        # was written by the relay's turn (no wake-up of the handler).
        assert through_session == [ACK]
        await listen.close()


async def test_changes_in_one_turn_reach_every_slice_of_listeners_in_order() -> None:
    app = make_app()
    count = 2 * FAN_OUT_SLICE + 5  # the relay hands a change out in three slices
    kinds = ["tools", "prompts", "tools", "prompts"]
    async with served(app) as (host, port):
        streams: list[tuple[Any, Listen, list[str]]] = []
        for k in range(count):
            both = await Listen.open(host, port, k, toolsListChanged=True, promptsListChanged=True)
            streams.append((k, both, kinds))
        tools = await Listen.open(host, port, "tools-only", toolsListChanged=True)
        streams.append(("tools-only", tools, ["tools", "tools"]))
        for _, listen, _ in streams:
            await listen.until(1)
        await until(lambda: directly_fed(app) == count + 1)
        for kind in kinds:  # one turn: each waits for the one before to reach every stream
            app.relay.publish(BusEvent.list_changed(kind))  # type: ignore[arg-type]
        for rid, listen, wanted in streams:
            messages = (await listen.until(1 + len(wanted)))[1:]
            assert [m["method"] for m in messages] == [
                f"notifications/{kind}/list_changed" for kind in wanted
            ], rid
            assert {m["params"]["_meta"][SUBSCRIPTION_ID_KEY] for m in messages} == {rid}
            await listen.close()


async def test_a_slow_listener_does_not_hold_up_the_others() -> None:
    app = make_app()
    uris = [f"test://watched/{i:05d}/" + "p" * 4000 for i in range(4000)]
    # A small buffer per stream: the slow one is soon held back, then dropped.
    async with served(app, max_stream_buffer=64 * 1024) as (host, port):
        filters = {"resourceSubscriptions": ["test://watched"]}
        slow = await Listen.open(host, port, "slow", rcvbuf=4096, **filters)
        fast = await Listen.open(host, port, "fast", **filters)
        await slow.until(1)
        await fast.until(1)
        await until(lambda: directly_fed(app) == 2)
        fast.read_on()
        # The slow one reads nothing more: its socket, then its server buffers fill up.
        for i, uri in enumerate(uris):
            app.notify_resource_updated(uri)
            if i % 20 == 0:
                await asyncio.sleep(0)
        await until_messages(fast, 1 + len(uris))
        assert [m["params"]["uri"] for m in fast.notifications()] == uris
        # Now it reads: what it got is a prefix of the changes, in order, then (if it fell
        # too far behind) the closing result; never a gap, a reordering or a duplicate.
        slow.read_on()
        await until_ended_or(slow, 1 + len(uris))
        heard = [m["params"]["uri"] for m in slow.notifications()]
        assert heard == uris[: len(heard)]
        if len(heard) < len(uris):
            assert slow.messages[-1]["result"]["resultType"] == "complete"
        await slow.close()
        await fast.close()


async def until_messages(listen: Listen, count: int) -> None:
    for _ in range(2000):
        if len(listen.messages) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(listen.messages)} of {count} messages")


async def until_ended_or(listen: Listen, count: int) -> None:
    for _ in range(2000):
        done = listen.task is not None and listen.task.done()
        if done or len(listen.messages) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(listen.messages)} of {count} messages, still open")


async def test_listeners_that_go_away_mid_fan_out_cost_the_others_nothing() -> None:
    app = make_app()
    async with served(app) as (host, port):
        listens = [
            await Listen.open(host, port, k, toolsListChanged=True, promptsListChanged=True)
            for k in range(20)
        ]
        for listen in listens:
            await listen.until(1)
        await until(lambda: directly_fed(app) == 20)
        gone, staying = listens[::2], listens[1::2]
        for listen in gone:
            await listen.close(abort=True)  # reset, not read: the server learns as it writes
        app.notify_list_changed("tools")
        await asyncio.sleep(0)
        app.notify_list_changed("prompts")
        for listen in staying:
            messages = await listen.until(3)
            assert [m["method"] for m in messages[1:]] == [
                "notifications/tools/list_changed",
                "notifications/prompts/list_changed",
            ]
        for _ in range(1000):  # the streams of the gone ones end, their subscriptions too
            if len(app.relay.local) == len(staying):
                break
            await asyncio.sleep(0.01)
        assert len(app.relay.local) == len(staying)
        app.notify_list_changed("tools")
        for listen in staying:
            assert (await listen.until(4))[3]["method"] == "notifications/tools/list_changed"
            await listen.close()


async def test_a_listener_hears_only_what_its_principal_may_on_the_direct_path() -> None:
    app = visible_server(auth=resource_server())
    alice = {"Authorization": "Bearer alice-token"}
    mallory = {"Authorization": "Bearer mallory-token"}
    lists = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
    async with served(app) as (host, port):
        heard_alice = await Listen.open(host, port, "a", extra=alice, **lists)
        heard_mallory = await Listen.open(host, port, "m", extra=mallory, **lists)
        await heard_alice.until(1)
        await heard_mallory.until(1)
        await until(lambda: directly_fed(app) == 2)
        url = f"http://{host}:{port}/mcp"
        async with Client(url, era="2026-07-28", headers=alice) as acting:
            await acting.call_tool("hide", {"names": ["status"]})
        # Alice's own change: her stream hears the three lists; Mallory's nothing of it,
        # so a change announced to everyone after it is the first thing he hears.
        assert {m["method"] for m in (await heard_alice.until(4))[1:]} == {
            f"notifications/{k}/list_changed" for k in ("tools", "prompts", "resources")
        }
        app.notify_list_changed("prompts")
        assert (await heard_mallory.until(2))[1]["method"] == ("notifications/prompts/list_changed")
        await heard_alice.close()
        await heard_mallory.close()
