"""The spec's ``input_required`` flow over Streamable HTTP, by a client with no GET stream.

A task that needs input while no ``tasks/result`` is waiting has no stream of its own for its
requests. The client polls ``tasks/get``, sees ``input_required`` and calls ``tasks/result``:
the task's held messages (progress, log, the elicitation) must come on that stream, once,
followed by the rest of the task and its result. If a GET stream opens first they go there
instead, and never a second time on ``tasks/result``. A task that ends drops what it held.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson

from mcpkit import Context, Server
from mcpkit.server.tasks import RELATED_TASK, MemoryTaskStore, TaskManager
from mcpkit.transports.http import HttpSessionTransport, running
from mcpkit.transports.http.session_transport import SSEConnection
from mcpkit.transports.http.sse import SSEDecoder
from tests.http import raw
from tests.wire import WireChecker

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}


def make_app() -> Server:
    app = Server("input-required", tasks=TaskManager(MemoryTaskStore(), poll_interval=20))

    @app.tool(task_support="optional")
    async def asks(ctx: Context) -> str:
        """Progress and a log line, then an elicitation, then more progress."""
        await ctx.progress(1, 2, "asking")
        await ctx.info("about to ask")
        answer = await ctx.elicit("Name?", SCHEMA)
        await ctx.progress(2, 2, "answered")
        return f"hello {answer.content['name'] if answer.content else '?'}"

    return app


class Peer:
    """A raw HTTP client that never opens a GET stream unless told to."""

    def __init__(self, http: httpx.AsyncClient, url: str, sid: str) -> None:
        self.http = http
        self.url = url
        self.sid = sid
        self.next_id = 10

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        async with self.http.stream(
            "POST", self.url, json=message, headers=raw.headers(self.sid)
        ) as r:
            assert r.status_code == 200
            if r.headers["content-type"].startswith("application/json"):
                got = [orjson.loads(await r.aread())]
            else:
                got = raw.messages(await raw.read_events(r))
        # A tasks/get stream carries nothing of the task (no request of the task rides it).
        assert [m for m in got if "method" in m] == []
        assert got[-1]["id"] == self.next_id, got
        return got[-1]

    async def answer(self, rid: Any, result: dict[str, Any]) -> None:
        r = await self.http.post(
            self.url,
            json={"jsonrpc": "2.0", "id": rid, "result": result},
            headers=raw.headers(self.sid),
        )
        assert r.status_code == 202 and r.content == b""

    async def poll_until(self, task_id: str, status: str) -> dict[str, Any]:
        """Poll ``tasks/get`` at the receiver's ``pollInterval`` until ``status``."""
        async with asyncio.timeout(10):
            while True:
                task = (await self.request("tasks/get", {"taskId": task_id}))["result"]
                if task["status"] == status:
                    return dict(task)
                assert task["status"] == "working", task
                await asyncio.sleep(task["pollInterval"] / 1000)


async def frames(response: httpx.Response) -> AsyncIterator[Any]:
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for event in decoder.feed(chunk):
            if event.data:
                yield orjson.loads(event.data)


async def until(stream: AsyncIterator[Any], done: Callable[[Any], bool]) -> list[Any]:
    got: list[Any] = []
    async for message in stream:
        got.append(message)
        if done(message):
            return got
    raise AssertionError(f"the stream ended first: {got}")


async def start(
    wire: Callable[..., WireChecker], http: httpx.AsyncClient, base: str, asgi: Any
) -> tuple[Peer, str]:
    """Open a session declaring form elicitation, start the task; (peer, task id)."""
    url = base + "/mcp"
    init = raw.init_message()
    init["params"]["capabilities"] = {"elicitation": {"form": {}}}
    r = await http.post(url, json=init, headers=raw.headers())
    assert r.status_code == 200
    sid = r.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=raw.headers(sid))).status_code == 202
    peer = Peer(http, url, sid)
    call = raw.tool_call(1, "asks", progress=True)
    call["params"]["task"] = {"ttl": 60_000}
    created = await peer.request("tools/call", call["params"])
    return peer, created["result"]["task"]["taskId"]


def served(wire: Callable[..., WireChecker]) -> tuple[Server, Any]:
    app = make_app()
    asgi = app.http_app()
    asgi.app.session_factory = lambda transport: app.session(transport, tracer=wire())
    return app, asgi


def task_messages(asgi: Any, sid: str, key: str) -> list[Any]:
    events = asgi.event_store.replay(sid, key, 0)
    assert events is not None
    return [orjson.loads(data) for _, data in events]


async def test_input_required_then_tasks_result_delivers_the_elicitation(
    wire: Callable[..., WireChecker],
) -> None:
    _, asgi = served(wire)
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        peer, task_id = await start(wire, http, base, asgi)
        task = await peer.poll_until(task_id, "input_required")
        assert task["taskId"] == task_id

        transport: HttpSessionTransport = asgi.sessions[peer.sid]
        wait = {"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task_id}}
        async with http.stream("POST", peer.url, json=wait, headers=raw.headers(peer.sid)) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            stream = frames(r)
            before = await until(stream, lambda m: m.get("method") == "elicitation/create")
            # What the task sent while nobody listened, in order, tied to the task.
            assert [m["method"] for m in before] == [
                "notifications/progress",
                "notifications/message",
                "elicitation/create",
            ]
            for m in before:
                assert m["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
            assert before[0]["params"]["progressToken"] == "p1"
            assert not transport._held
            await peer.answer(before[-1]["id"], {"action": "accept", "content": {"name": "Ada"}})
            after = [m async for m in stream]
        assert [m.get("method") for m in after[:-1]] == ["notifications/progress"]
        final = after[-1]
        assert final["id"] == 2
        assert final["result"]["content"][0]["text"] == "hello Ada"
        assert final["result"]["_meta"][RELATED_TASK] == {"taskId": task_id}
        assert (await peer.request("tasks/get", {"taskId": task_id}))["result"][
            "status"
        ] == "completed"

        # Delivered once: nothing of the task waits for, or went to, the GET stream.
        standalone = task_messages(asgi, peer.sid, transport._standalone.key)
        assert {m["method"] for m in standalone} == {"notifications/tasks/status"}
        assert [orjson.loads(b.split(b"data: ", 1)[1]) for b in transport._backlog] == standalone


async def test_a_get_stream_opened_first_gets_them_and_tasks_result_does_not(
    wire: Callable[..., WireChecker],
) -> None:
    _, asgi = served(wire)
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        peer, task_id = await start(wire, http, base, asgi)
        await peer.poll_until(task_id, "input_required")
        get_headers = {"accept": "text/event-stream", "mcp-session-id": peer.sid}
        async with http.stream("GET", peer.url, headers=get_headers) as g:
            stream = frames(g)
            got = await until(stream, lambda m: m.get("method") == "elicitation/create")
            task_methods = [m["method"] for m in got if m["method"] != "notifications/tasks/status"]
            assert task_methods == [
                "notifications/progress",
                "notifications/message",
                "elicitation/create",
            ]
            elicitation = got[-1]
            assert elicitation["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
            wait = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tasks/result",
                "params": {"taskId": task_id},
            }
            async with http.stream("POST", peer.url, json=wait, headers=raw.headers(peer.sid)) as r:
                await peer.answer(elicitation["id"], {"action": "accept", "content": {"name": "B"}})
                on_result = [m async for m in frames(r)]
        # Only what the task sent after tasks/result arrived: no second elicitation.
        assert [m.get("method") for m in on_result] == ["notifications/progress", None]
        assert on_result[-1]["result"]["content"][0]["text"] == "hello B"


async def test_a_cancelled_task_drops_what_it_held(wire: Callable[..., WireChecker]) -> None:
    _, asgi = served(wire)
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        peer, task_id = await start(wire, http, base, asgi)
        await peer.poll_until(task_id, "input_required")
        transport: HttpSessionTransport = asgi.sessions[peer.sid]
        assert [m[0] for m in transport._held] == [task_id] * 3
        cancelled = await peer.request("tasks/cancel", {"taskId": task_id})
        assert cancelled["result"]["status"] == "cancelled"
        assert not transport._held
        # A later tasks/result gets the error alone, not the stale elicitation.
        wait = {"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task_id}}
        async with http.stream("POST", peer.url, json=wait, headers=raw.headers(peer.sid)) as r:
            got = [m async for m in frames(r)]
        assert [m.get("method") for m in got] == [None]
        assert got[0]["error"]["message"].startswith(f"Task {task_id} has no result")


# -- the transport's bookkeeping, without HTTP ---------------------------------------------------


def _request(rid: int, task_id: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "elicitation/create",
        "params": {"message": "?", "_meta": {RELATED_TASK: {"taskId": task_id}}},
    }


def _sent(conn: SSEConnection) -> list[Any]:
    if not conn.frames:
        return []
    decoder = SSEDecoder()
    return [orjson.loads(e.data) for e in decoder.feed(conn.take()) if e.data]


async def test_held_messages_are_bounded_and_cancellations_of_unsent_requests_stay_home() -> None:
    transport = HttpSessionTransport("s", event_store=None, held_limit=3)
    for rid in range(5):
        transport.write(_request(rid, "t1"))
    assert [entry[1] for entry in transport._held] == [2, 3, 4]  # the oldest went first
    # The peer never saw requests 0 (dropped) and 4 (held): their cancellations stay home and
    # 4 is dropped.
    for rid in (0, 4):
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": rid},
        }
        transport.write(cancel)
    assert [entry[1] for entry in transport._held] == [2, 3]
    assert not transport._backlog  # neither cancellation waits for the GET stream
    # Unrelated messages still wait in the GET backlog; the task's open the stream.
    transport.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    conn = SSEConnection(1 << 20)
    transport.open_standalone(conn)
    got = _sent(conn)
    assert [m.get("method") for m in got] == [
        "notifications/tools/list_changed",
        "elicitation/create",
        "elicitation/create",
    ]
    assert [m.get("id") for m in got[1:]] == [2, 3]
    assert not transport._held
    # A GET stream is open: messages go out at once, nothing is held.
    transport.write(_request(9, "t1"))
    assert [m["id"] for m in _sent(conn)] == [9]
    await transport.close()


async def test_a_terminal_status_drops_only_that_task() -> None:
    transport = HttpSessionTransport("s", event_store=None)
    transport.write(_request(1, "t1"))
    transport.write(_request(2, "t2"))
    status = {
        "jsonrpc": "2.0",
        "method": "notifications/tasks/status",
        "params": {"taskId": "t1", "status": "failed"},
    }
    transport.write(status)
    assert [entry[:2] for entry in transport._held] == [("t2", 2)]
    # The dropped request's cancellation stays home too.
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    transport.write(cancel)
    assert len(transport._backlog) == 1  # the status notification alone
    await transport.close()
