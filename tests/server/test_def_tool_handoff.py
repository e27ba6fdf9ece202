"""A ``def`` tool's run in the worker pool handed back to the loop: the task awaiting it is
continued right where the run's outcome is delivered (``Handoff.settle``, no loop turn for
its wake-up), cancellation and errors still reach it, and on stateless HTTP (both eras) a
blocking ``def`` tool stalls no other call."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from typing import Any

import orjson
import pytest

from mcpkit import Server, ToolError
from mcpkit.eager import Handoff
from mcpkit.server.offload import Offloader, run_sync

# -- Handoff -----------------------------------------------------------------------------------


async def waiting_task(fut: Handoff[int], seen: list[Any]) -> asyncio.Task[None]:
    async def wait() -> None:
        try:
            seen.append(await fut)
        except BaseException as exc:
            seen.append(type(exc).__name__)
            raise

    task = asyncio.get_running_loop().create_task(wait())
    await asyncio.sleep(0)  # the task now waits on fut
    assert not task.done()
    return task


async def test_settle_continues_the_awaiting_task_before_the_next_callback() -> None:
    loop = asyncio.get_running_loop()
    fut: Handoff[int] = Handoff(loop=loop)
    seen: list[Any] = []
    task = await waiting_task(fut, seen)
    loop.call_soon(fut.settle, True, 5)
    loop.call_soon(seen.append, "next callback")
    await task
    assert seen == [5, "next callback"]


async def test_settle_with_an_exception_raises_it_in_the_task() -> None:
    loop = asyncio.get_running_loop()
    fut: Handoff[int] = Handoff(loop=loop)
    seen: list[Any] = []
    task = await waiting_task(fut, seen)
    loop.call_soon(fut.settle, False, ValueError("boom"))
    loop.call_soon(seen.append, "next callback")
    with pytest.raises(ValueError, match="boom"):
        await task
    assert seen == ["ValueError", "next callback"]


async def test_cancelling_the_task_cancels_the_handoff_and_wakes_the_task() -> None:
    loop = asyncio.get_running_loop()
    fut: Handoff[int] = Handoff(loop=loop)
    seen: list[Any] = []
    task = await waiting_task(fut, seen)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert fut.cancelled()
    assert seen == ["CancelledError"]


async def test_set_result_and_other_callbacks_work_as_on_any_future() -> None:
    loop = asyncio.get_running_loop()
    fut: Handoff[int] = Handoff(loop=loop)
    seen: list[Any] = []
    task = await waiting_task(fut, seen)
    fut.add_done_callback(lambda f: seen.append(("callback", f.result())))
    fut.set_result(7)  # from inside a task: the waiter is woken on the next turn
    await task
    await asyncio.sleep(0)
    assert sorted(seen, key=str) == [("callback", 7), 7]


async def test_remove_done_callback_drops_the_first_callback() -> None:
    loop = asyncio.get_running_loop()
    fut: Handoff[int] = Handoff(loop=loop)
    seen: list[Any] = []

    def first(f: asyncio.Future[int]) -> None:
        seen.append("first")

    fut.add_done_callback(first)
    fut.add_done_callback(lambda f: seen.append("second"))
    assert fut.remove_done_callback(first) == 1
    loop.call_soon(fut.settle, True, 1)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert seen == ["second"]


async def test_a_then_is_called_when_the_handoff_is_cancelled() -> None:
    fut: Handoff[int] = Handoff(loop=asyncio.get_running_loop())
    seen: list[bool] = []
    fut.then = lambda f: seen.append(f.cancelled())
    assert fut.cancel()
    assert seen == [True] and fut.then is None


# -- the pool's wake-up ------------------------------------------------------------------------


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_pool_used_from_many_loops_keeps_no_descriptor_of_theirs() -> None:
    pool = Offloader(2)
    try:
        assert asyncio.run(run_sync(pool, lambda: 1)) == 1
        gc.collect()
        before = open_fds()
        for n in range(30):
            assert asyncio.run(run_sync(pool, lambda n=n: n * 2)) == n * 2  # type: ignore[misc]
        gc.collect()
        assert open_fds() <= before
    finally:
        pool.shutdown()


def test_a_result_for_a_closed_loop_is_dropped() -> None:
    pool = Offloader(1)
    gate = threading.Event()
    done = threading.Event()

    def blocks() -> int:
        gate.wait(30)
        return 1

    async def start() -> None:
        pool.start(blocks)

    try:
        asyncio.run(start())  # the loop closes while the run blocks
        gate.set()
        # the worker delivers to a closed loop: nothing raises, the pool goes on
        assert pool.submit(done.set).result(30) is None
        assert asyncio.run(run_sync(pool, lambda: 2)) == 2
    finally:
        pool.shutdown()


# -- stateless HTTP, both eras -----------------------------------------------------------------


def make_server() -> tuple[Server, threading.Event, threading.Event]:
    server = Server("handoff", version="1.0")
    entered = threading.Event()
    gate = threading.Event()

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    @server.tool()
    def blocks(text: str) -> str:
        """Blocks its thread until released."""
        entered.set()
        gate.wait(30)
        return f"released {text}"

    @server.tool()
    def fails(text: str) -> str:
        """Raises."""
        raise ToolError(f"no {text}")

    @server.tool()
    async def async_echo(text: str) -> str:
        """Echo, async."""
        return text

    return server, entered, gate


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


async def post(app: Any, era: str, rid: int, name: str, text: str) -> dict[str, Any]:
    """One stateless ``tools/call`` through the ASGI app; its JSON answer."""
    params: dict[str, Any] = {"name": name, "arguments": {"text": text}}
    headers = [
        (b"host", b"127.0.0.1"),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-type", b"application/json"),
    ]
    if era == "modern":
        params["_meta"] = MODERN_META
        headers += [
            (b"mcp-protocol-version", b"2026-07-28"),
            (b"mcp-method", b"tools/call"),
            (b"mcp-name", name.encode()),
        ]
    else:
        headers.append((b"mcp-protocol-version", b"2025-11-25"))
    body = orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": headers,
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    assert sent[0]["status"] == 200, sent
    answer: dict[str, Any] = orjson.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert answer["id"] == rid
    return answer


def text_of(answer: dict[str, Any]) -> str:
    content: str = answer["result"]["content"][0]["text"]
    return content


@pytest.fixture(params=["legacy", "modern"])
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_many_def_calls_in_flight_each_get_their_answer(era: str) -> None:
    server, _, _ = make_server()
    app = server.http_app(stateless=True, json_response=True)
    answers = await asyncio.gather(*(post(app, era, n, "echo", f"t{n}") for n in range(64)))
    assert [text_of(a) for a in answers] == [f"t{n}" for n in range(64)]


async def test_a_def_tool_error_is_an_error_result(era: str) -> None:
    server, _, _ = make_server()
    app = server.http_app(stateless=True, json_response=True)
    answer = await post(app, era, 1, "fails", "way")
    assert answer["result"]["isError"] is True
    assert "no way" in text_of(answer)
    assert text_of(await post(app, era, 2, "echo", "after")) == "after"


async def test_a_blocking_def_tool_stalls_no_other_call(era: str) -> None:
    server, entered, gate = make_server()
    app = server.http_app(stateless=True, json_response=True)
    blocked = asyncio.ensure_future(post(app, era, 1, "blocks", "b"))
    try:
        await asyncio.to_thread(entered.wait, 30)
        for n in range(10):
            assert text_of(await post(app, era, 10 + n, "echo", f"s{n}")) == f"s{n}"
            assert text_of(await post(app, era, 30 + n, "async_echo", f"a{n}")) == f"a{n}"
        assert not blocked.done()
    finally:
        gate.set()
    assert text_of(await blocked) == "released b"


async def test_a_request_cancelled_during_the_handoff_drops_the_result(era: str) -> None:
    server, entered, gate = make_server()
    app = server.http_app(stateless=True, json_response=True)
    blocked = asyncio.ensure_future(post(app, era, 1, "blocks", "b"))
    await asyncio.to_thread(entered.wait, 30)
    blocked.cancel()
    with pytest.raises(asyncio.CancelledError):
        await blocked
    gate.set()  # the run ends with nobody waiting for it
    entered.clear()
    for n in range(5):
        assert text_of(await post(app, era, 10 + n, "echo", f"s{n}")) == f"s{n}"
    gate.clear()
    again = asyncio.ensure_future(post(app, era, 2, "blocks", "c"))
    await asyncio.to_thread(entered.wait, 30)
    gate.set()
    assert text_of(await again) == "released c"


class LoopWithoutReaders(asyncio.SelectorEventLoop):
    """A loop that cannot watch descriptors (as the proactor loop on Windows)."""

    def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:
        raise NotImplementedError


def test_a_loop_without_add_reader_is_woken_with_call_soon_threadsafe() -> None:
    pool = Offloader(2)
    loop = LoopWithoutReaders()
    try:

        async def calls() -> list[int]:
            return list(await asyncio.gather(*(run_sync(pool, lambda n=n: n) for n in range(50))))

        assert loop.run_until_complete(calls()) == list(range(50))
    finally:
        loop.close()
        pool.shutdown()
