"""A request stream produced on replica A, dropped and resumed with ``Last-Event-ID`` on
replica B while A keeps producing (no pause between events): B reads the event log and
then hears the rest live (A publishes once B marks the stream followed), and the client
gets every event exactly once, in order. Also the follow mark's lifetime: it lives in the
session hash while the stream is followed and goes with the stream's end (or the session),
and a caller who does not own the session cannot write it. Two replicas in this process
on a redis-server of its own."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from mcpkit import Context, Server
from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.scaleout.broadcasts import HEADERS, VERSION, sse_events
from tests.scaleout.cluster import STORE_SECRET, Redis, free_port
from tests.scaleout.inprocess import replicas_in_process

COUNT = 150
#: The gates ``gated`` calls wait on (by name), set by the tests.
GATES: dict[str, asyncio.Event] = {}


def make(backend: RedisBackend) -> Server[Any]:
    app: Server[Any] = Server("race", store=backend)

    @app.tool()
    async def burst(count: int, ctx: Context) -> str:
        """``count`` progress notifications with no pause between them."""
        for i in range(1, count + 1):
            await ctx.progress(i, count)
            await asyncio.sleep(0)
        return f"burst {count}"

    @app.tool()
    async def paced(count: int, delay: float, ctx: Context) -> str:
        """``count`` progress notifications, ``delay`` seconds apart."""
        for i in range(1, count + 1):
            await ctx.progress(i, count)
            await asyncio.sleep(delay)
        return f"paced {count}"

    @app.tool()
    async def gated(gate: str, count: int, ctx: Context) -> str:
        """Progress 1, then ``GATES[gate]``, then progress 2..``count``."""
        await ctx.progress(1, count)
        await GATES[gate].wait()
        for i in range(2, count + 1):
            await ctx.progress(i, count)
            await asyncio.sleep(0.01)
        return f"gated {count}"

    return app


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[str, str, str]]:
    prefix = f"race{free_port()}"
    async with replicas_in_process(server.url, prefix, make) as (urls, _):
        yield urls[0], urls[1], prefix


async def open_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    first = await http.post(url, json=init, headers=HEADERS)
    assert first.status_code == 200
    headers = {**HEADERS, "mcp-session-id": first.headers["mcp-session-id"]}
    headers["mcp-protocol-version"] = VERSION
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=done, headers=headers)).status_code == 202
    return headers


async def cut_and_resume(
    http: httpx.AsyncClient, a: str, b: str, headers: dict[str, str], rid: int, cut: int
) -> tuple[list[float], str | None]:
    """Call ``burst`` on ``a``, read ``cut`` events, drop the connection and resume on
    ``b``: every progress value the client got, and the result's text."""
    call = {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {
            "name": "burst",
            "arguments": {"count": COUNT},
            "_meta": {"progressToken": f"t{rid}"},
        },
    }
    progress: list[float] = []
    last: str | None = None
    text: str | None = None
    async with asyncio.timeout(60):
        async with http.stream("POST", a, json=call, headers=headers) as answer:
            assert answer.status_code == 200
            async for event_id, message in sse_events(answer):
                last = event_id or last
                progress.append(message["params"]["progress"])
                if len(progress) == cut:
                    break  # the connection drops; the tool goes on
        assert last is not None
        resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
        resume.pop("content-type")
        async with http.stream("GET", b, headers=resume) as answer:
            assert answer.status_code == 200
            async for _, message in sse_events(answer):
                if message.get("method") == "notifications/progress":
                    progress.append(message["params"]["progress"])
                elif message.get("id") == rid:
                    text = message["result"]["content"][0]["text"]
                    break
    return progress, text


async def test_resume_on_another_replica_while_events_are_produced(
    pair: tuple[str, str, str],
) -> None:
    a, b, _ = pair
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, a)
        for rid, cut in enumerate((1, 2, 5, 17, 40, 80, 120, 149), start=1):
            progress, text = await cut_and_resume(http, a, b, headers, rid, cut)
            assert progress == list(range(1, COUNT + 1)), (cut, progress)
            assert text == f"burst {COUNT}", cut


async def test_concurrent_resumes_of_one_session_on_a_cold_replica(
    pair: tuple[str, str, str],
) -> None:
    """Several streams of one session resumed at once on a replica that has not seen the
    session (its channel subscribed by the first, the others waiting for it)."""
    a, b, _ = pair
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, a)
        outcomes = await asyncio.gather(
            *(cut_and_resume(http, a, b, headers, rid, 3 + rid) for rid in range(1, 6))
        )
        for progress, text in outcomes:
            assert progress == list(range(1, COUNT + 1)), progress
            assert text == f"burst {COUNT}"


async def test_the_follow_mark_lives_while_the_stream_is_followed(
    pair: tuple[str, str, str], server: Redis
) -> None:
    a, b, prefix = pair
    client = aioredis.Redis.from_url(server.url)

    async def marks(sid: str) -> list[bytes]:
        fields = await client.hkeys(f"{prefix}:s:{{{sid}}}")
        return [f for f in fields if f.startswith(b"f:")]

    try:
        async with httpx.AsyncClient(timeout=30) as http:
            headers = await open_session(http, a)
            other = await open_session(http, a)
            sid = headers["mcp-session-id"]
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "paced",
                    "arguments": {"count": 6, "delay": 0.2},
                    "_meta": {"progressToken": "p"},
                },
            }
            last: str | None = None
            progress: list[float] = []
            async with asyncio.timeout(60):
                async with http.stream("POST", a, json=call, headers=headers) as answer:
                    async for event_id, message in sse_events(answer):
                        last = event_id or last
                        progress.append(message["params"]["progress"])
                        break
                assert last is not None and not await marks(sid)  # nobody else follows
                first_id = last
                resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
                resume.pop("content-type")
                async with http.stream("GET", b, headers=resume) as answer:
                    assert answer.status_code == 200
                    async for _, message in sse_events(answer):
                        if message.get("method") == "notifications/progress":
                            progress.append(message["params"]["progress"])
                            if len(progress) == 3:  # heard live from A: B follows
                                assert len(await marks(sid)) == 1
                                stream = (await marks(sid))[0][2:].decode()
                                assert first_id.startswith(stream)
                                # Another session holding the event id cannot follow it.
                                theirs = {
                                    **other,
                                    "accept": "text/event-stream",
                                    "last-event-id": first_id,
                                }
                                theirs.pop("content-type")
                                refused = await http.get(b, headers=theirs)
                                assert refused.status_code == 400
                                assert not await marks(other["mcp-session-id"])
                        elif message.get("id") == 1:
                            break
                assert progress == [1, 2, 3, 4, 5, 6]
                assert not await marks(sid)  # the stream ended: its mark is gone
                # Resumed again after its end: replayed from the log, nothing marked.
                async with http.stream("GET", b, headers=resume) as answer:
                    replayed = [m async for _, m in sse_events(answer)]
                assert replayed[-1]["id"] == 1 and len(replayed) == 6
                assert not await marks(sid)
            session_key = f"{prefix}:s:{{{sid}}}"
            assert await client.pttl(session_key) > 0  # the hash (marks too) expires
            assert (await http.delete(a, headers=headers)).status_code == 200
            assert await client.exists(session_key) == 0
    finally:
        await client.aclose()


async def test_resumed_elsewhere_then_back_on_the_producer(pair: tuple[str, str, str]) -> None:
    """A -> B -> A: once B has marked the stream followed, A publishes its events; back on
    A (the producer, which also sends them itself) the client still gets each once."""
    a, b, _ = pair
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, a)
        for rid, (first, second) in enumerate(((3, 10), (1, 2), (20, 100)), start=1):
            call = {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {
                    "name": "burst",
                    "arguments": {"count": COUNT},
                    "_meta": {"progressToken": f"t{rid}"},
                },
            }
            progress: list[float] = []
            text: str | None = None
            last: str | None = None
            async with asyncio.timeout(60):
                async with http.stream("POST", a, json=call, headers=headers) as answer:
                    async for event_id, message in sse_events(answer):
                        last = event_id or last
                        progress.append(message["params"]["progress"])
                        if len(progress) == first:
                            break
                for url, stop in ((b, second), (a, None)):
                    assert last is not None
                    resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
                    resume.pop("content-type")
                    async with http.stream("GET", url, headers=resume) as answer:
                        assert answer.status_code == 200
                        async for event_id, message in sse_events(answer):
                            last = event_id or last
                            if message.get("method") == "notifications/progress":
                                progress.append(message["params"]["progress"])
                                if len(progress) == stop:
                                    break
                            elif message.get("id") == rid:
                                text = message["result"]["content"][0]["text"]
                                break
            assert progress == list(range(1, COUNT + 1)), (first, second, progress)
            assert text == f"burst {COUNT}"


async def read_all(answer: httpx.Response) -> list[Any]:
    """Every message of an SSE response until it ends."""
    return [message async for _, message in sse_events(answer)]


async def test_resume_on_another_replica_takes_the_stream_over(
    pair: tuple[str, str, str],
) -> None:
    """The client resumes a request stream on B while its POST on A is still open: as on a
    single server, the stream moves to the new connection (A's response ends) and each
    later event is sent once, on B only."""
    a, b, _ = pair
    GATES["over"] = gate = asyncio.Event()
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "gated",
            "arguments": {"gate": "over", "count": 6},
            "_meta": {"progressToken": "g"},
        },
    }
    async with httpx.AsyncClient(timeout=30) as http, asyncio.timeout(60):
        headers = await open_session(http, a)
        async with http.stream("POST", a, json=call, headers=headers) as on_a:
            assert on_a.status_code == 200
            events = sse_events(on_a)
            last, first = await anext(events)
            assert first["params"]["progress"] == 1 and last is not None
            resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
            resume.pop("content-type")
            async with http.stream("GET", b, headers=resume) as on_b:
                assert on_b.status_code == 200  # B follows the stream from here on
                gate.set()
                rest_a = [message async for _, message in events]
                got_b = await read_all(on_b)
    assert rest_a == []  # A's response ended when the stream moved to B
    progress = [m["params"]["progress"] for m in got_b if "method" in m]
    assert progress == [2, 3, 4, 5, 6]
    assert got_b[-1]["id"] == 1 and got_b[-1]["result"]["content"][0]["text"] == "gated 6"


async def test_a_second_resume_on_the_same_replica_takes_the_stream_over(
    pair: tuple[str, str, str],
) -> None:
    """Resumed twice on B (the first GET still open): the first GET ends, the second gets
    the rest; and back on A, B's connection ends too."""
    a, b, _ = pair
    GATES["twice"] = gate = asyncio.Event()
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "gated",
            "arguments": {"gate": "twice", "count": 6},
            "_meta": {"progressToken": "g"},
        },
    }
    async with httpx.AsyncClient(timeout=30) as http, asyncio.timeout(60):
        headers = await open_session(http, a)
        async with http.stream("POST", a, json=call, headers=headers) as on_a:
            last, _ = await anext(sse_events(on_a))
        assert last is not None
        resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
        resume.pop("content-type")
        async with (
            http.stream("GET", b, headers=resume) as first_b,
            http.stream("GET", b, headers=resume) as second_b,
            http.stream("GET", a, headers=resume) as back_on_a,
        ):
            assert first_b.status_code == second_b.status_code == back_on_a.status_code == 200
            gate.set()
            got_first = await read_all(first_b)
            got_second = await read_all(second_b)
            got_a = await read_all(back_on_a)
    assert got_first == [] and got_second == []  # both taken over by the later resume
    progress = [m["params"]["progress"] for m in got_a if "method" in m]
    assert progress == [2, 3, 4, 5, 6]
    assert got_a[-1]["id"] == 1


async def test_a_takeover_heard_late_ends_only_earlier_follows(server: Redis) -> None:
    """Pub/sub may bring a takeover notice (``T``) after the follow that superseded it: a
    replica ends its connection of a stream only for a notice of a later follow than the
    one that gave it that connection."""
    from mcpkit.redis.session_table import shared_sessions
    from mcpkit.redis.session_transport import RedisSessionTransport

    prefix = f"late{free_port()}"
    backends = [
        RedisBackend(server.url, prefix=prefix, secret=STORE_SECRET, replica_id=name)
        for name in ("a", "b")
    ]
    GATES["late"] = gate = asyncio.Event()
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "gated",
            "arguments": {"gate": "late", "count": 4},
            "_meta": {"progressToken": "l"},
        },
    }
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(gate.set)
        urls = []
        for backend in backends:
            stack.push_async_callback(backend.aclose)
            base = await stack.enter_async_context(running(make(backend).http_app("/mcp")))
            urls.append(f"{base}/mcp")
        a, b = urls
        async with httpx.AsyncClient(timeout=30) as http, asyncio.timeout(60):
            headers = await open_session(http, a)
            async with http.stream("POST", a, json=call, headers=headers) as on_a:
                last, _ = await anext(sse_events(on_a))
            assert last is not None
            key = last.rsplit("-", 1)[0]
            resume = {**headers, "accept": "text/event-stream", "last-event-id": last}
            resume.pop("content-type")
            async with http.stream("GET", b, headers=resume) as on_b:
                assert on_b.status_code == 200
                view = shared_sessions(backends[1]).views.get(headers["mcp-session-id"])
                assert isinstance(view, RedisSessionTransport)
                (tail,) = view._tails[key]
                assert tail.follow == 1 and tail.live
                # A notice of an earlier follow (or of this one) comes late: ignored.
                view._on_channel(f"T{key} 1 c".encode())
                assert tail.live
                # A notice of a later follow, on another replica: the stream moved there.
                view._on_channel(f"T{key} 2 c".encode())
                assert not tail.live
                assert [m async for _, m in sse_events(on_b)] == []
