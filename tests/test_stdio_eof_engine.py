"""The end-of-input drain in process: a stdio server transport on pipes of this process, so
each case runs in milliseconds (tests/test_stdio_eof.py runs real server processes)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.session import ClientSession, RequestContext, ServerSession
from mcpkit.transports import MemoryTransport, StdioServerTransport


def make_app() -> Server[Any]:
    app: Server[Any] = Server("eof-engine")

    @app.tool()
    async def slow(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @app.tool()
    def sync_slow(seconds: float) -> str:
        time.sleep(seconds)
        return f"slept {seconds} in a thread"

    return app


@dataclass
class Piped:
    session: ServerSession
    to_server: int
    answers: asyncio.StreamReader
    answers_transport: asyncio.ReadTransport

    def send(self, *messages: Any) -> None:
        os.write(self.to_server, b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    def end_input(self) -> None:
        os.close(self.to_server)

    async def read_all(self) -> list[Any]:
        data = await asyncio.wait_for(self.answers.read(), 10)
        return [json.loads(line) for line in data.splitlines()]


@pytest.fixture
async def piped() -> AsyncIterator[Any]:
    made: list[Piped] = []

    async def start(drain_timeout: float) -> Piped:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        transport = StdioServerTransport(
            os.fdopen(in_r, "rb", buffering=0),
            os.fdopen(out_w, "wb", buffering=0),
            drain_timeout=drain_timeout,
        )
        session = make_app().session(transport)
        await session.start()
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(out_r, "rb", buffering=0)
        )
        pipes = Piped(session, in_w, reader, read_transport)
        made.append(pipes)
        return pipes

    yield start
    for pipes in made:
        await pipes.session.close()
        pipes.answers_transport.close()
        try:
            os.close(pipes.to_server)
        except OSError:
            pass  # closed by the test


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def slow(rid: int, seconds: float) -> dict[str, Any]:
    params = {"name": "slow", "arguments": {"seconds": seconds}}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def test_a_zero_drain_timeout_answers_every_request_with_the_error_at_once(
    piped: Any,
) -> None:
    pipes = await piped(0)
    pipes.send(INIT, INITIALIZED, slow(2, 30), slow(3, 30))
    pipes.end_input()
    await asyncio.wait_for(pipes.session.wait_closed(), 10)
    answers = {a["id"]: a for a in await pipes.read_all()}
    assert sorted(answers) == [1, 2, 3]
    for rid in (2, 3):
        assert answers[rid]["error"]["code"] == -32603
        assert "drain timeout of 0 s" in answers[rid]["error"]["message"]


async def test_requests_finishing_within_the_drain_are_answered(piped: Any) -> None:
    pipes = await piped(10)
    pipes.send(INIT, INITIALIZED, slow(2, 0.05), slow(3, 0.1))
    pipes.end_input()
    await asyncio.wait_for(pipes.session.wait_closed(), 10)
    answers = {a["id"]: a for a in await pipes.read_all()}
    assert [answers[i]["result"]["content"][0]["text"] for i in (2, 3)] == [
        "slept 0.05",
        "slept 0.1",
    ]


async def test_def_tool_calls_in_flight_at_the_end_of_input_are_answered(piped: Any) -> None:
    """A def tool's call waits on its thread with no task of its own: the drain still
    waits for it (it is given a task then) and writes its answer."""
    pipes = await piped(10)
    calls = [
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": "sync_slow", "arguments": {"seconds": 0.2}},
        }
        for rid in (2, 3)
    ]
    pipes.send(INIT, INITIALIZED, *calls)
    pipes.end_input()
    await asyncio.wait_for(pipes.session.wait_closed(), 10)
    answers = {a["id"]: a for a in await pipes.read_all()}
    assert [answers[i]["result"]["content"][0]["text"] for i in (2, 3)] == [
        "slept 0.2 in a thread"
    ] * 2


async def test_stdout_closing_during_the_drain_ends_the_session_at_once(piped: Any) -> None:
    pipes = await piped(30)
    pipes.send(INIT, INITIALIZED, slow(2, 30))
    line = await asyncio.wait_for(pipes.answers.readline(), 10)
    assert json.loads(line)["id"] == 1
    pipes.end_input()
    await asyncio.sleep(0.05)
    assert not pipes.session.closed  # draining: the 30 s call is still running
    pipes.answers_transport.close()  # nobody reads the answers any more
    await asyncio.wait_for(pipes.session.wait_closed(), 5)


def test_a_negative_drain_timeout_is_refused() -> None:
    with pytest.raises(ValueError, match="drain_timeout"):
        StdioServerTransport(drain_timeout=-1)


async def test_closing_a_client_cancels_its_pending_requests_at_the_server() -> None:
    """A stdio server answers what it was asked before it exits: a client that closes tells
    it first which answers nobody waits for any more."""
    client_end, server_end = MemoryTransport.pair()
    server = ServerSession(server_end, server_info={"name": "s", "version": "1"})
    started = asyncio.Event()
    outcome: list[str] = []

    async def wait_forever(params: Any, ctx: RequestContext) -> Any:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            outcome.append("cancelled" if ctx.cancelled else "torn down")
            raise
        return {}

    server.set_request_handler("custom/wait", wait_forever)
    await server.start()
    client = ClientSession(client_end)
    await client.start()
    await client.initialize({"name": "c", "version": "1"})
    pending = asyncio.create_task(client.request("custom/wait", {}))
    await asyncio.wait_for(started.wait(), 5)
    await client.close()
    with pytest.raises(Exception, match="closed"):
        await pending
    for _ in range(100):
        if outcome:
            break
        await asyncio.sleep(0.01)
    assert outcome == ["cancelled"]
    await server.close()
