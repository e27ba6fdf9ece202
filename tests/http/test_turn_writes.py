"""The served connection's writes: what one loop turn wrote leaves as one write (uvicorn
writes a response's head and body separately), bounded so that flow control still works."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from mcpkit import Server
from mcpkit.transports.http.serve import TURN_WRITE_LIMIT, TurnWrites, running


class Recorder(asyncio.Transport):
    """A transport that records what it is asked to do."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []
        self.buffered = 0

    def write(self, data: Any) -> None:
        self.calls.append(("write", bytes(data)))

    def writelines(self, list_of_data: Any) -> None:
        self.calls.append(("writelines", [bytes(d) for d in list_of_data]))

    def close(self) -> None:
        self.calls.append(("close", None))

    def abort(self) -> None:
        self.calls.append(("abort", None))

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return self.buffered


async def test_the_writes_of_one_turn_leave_together_at_its_end() -> None:
    inner = Recorder()
    turn = TurnWrites(inner, asyncio.get_running_loop())
    turn.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    turn.write(b"{}")
    assert inner.calls == []
    assert turn.get_write_buffer_size() == 40
    await asyncio.sleep(0)
    assert inner.calls == [("writelines", [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n", b"{}"])]
    assert turn.get_write_buffer_size() == 0
    turn.write(b"event: message\n\n")  # alone in its turn: a plain write
    await asyncio.sleep(0)
    assert inner.calls[-1] == ("write", b"event: message\n\n")


async def test_more_than_the_limit_is_written_at_once() -> None:
    inner = Recorder()
    turn = TurnWrites(inner, asyncio.get_running_loop())
    big = b"x" * (TURN_WRITE_LIMIT + 1)
    turn.write(big)
    assert inner.calls == [("write", big)]  # the transport's flow control sees it now
    turn.write(b"head")
    turn.write(big)
    assert inner.calls[-1] == ("writelines", [b"head", big])
    await asyncio.sleep(0)
    assert len(inner.calls) == 2  # nothing left for the end of the turn


async def test_closing_sends_what_waits_first() -> None:
    inner = Recorder()
    turn = TurnWrites(inner, asyncio.get_running_loop())
    turn.write(b"HTTP/1.1 408 Request Timeout\r\n\r\n")
    turn.close()
    assert inner.calls == [("write", b"HTTP/1.1 408 Request Timeout\r\n\r\n"), ("close", None)]
    await asyncio.sleep(0)
    assert len(inner.calls) == 2
    turn.write(b"late")
    turn.abort()  # drops what waits
    await asyncio.sleep(0)
    assert inner.calls[2:] == [("abort", None)]


async def test_served_answers_small_large_and_streamed() -> None:
    app = Server("turns")

    @app.tool()
    def big(n: int) -> str:
        """n bytes of text."""
        return "y" * n

    asgi = app.http_app(stateless=True, json_response=True)
    for head_timeout in (10.0, None):
        async with (
            running(asgi, head_timeout=head_timeout) as base,
            httpx.AsyncClient(timeout=10) as http,
        ):
            headers = {
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25",
            }
            for i, n in enumerate((3, 3 * TURN_WRITE_LIMIT)):
                call = {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "big", "arguments": {"n": n}},
                }
                answer = await http.post(base + "/mcp", json=call, headers=headers)
                assert answer.status_code == 200
                assert answer.json()["result"]["content"][0]["text"] == "y" * n
    await asgi.aclose()
