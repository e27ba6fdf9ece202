"""Faults on the client's side, seen by mcpkit's server: a client that answers the server's
own requests with a wrong id, garbage, an error, nothing, or hangs up; a client whose SSE
stream is cut mid-call (it resumes and loses nothing) or that dies mid-call (the server
goes on serving others and lets go of the connection); a stdio client that dies mid-call
(the server process exits)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.errors import McpkitError
from mcpkit.session import RequestContext, ServerSession
from mcpkit.transports import MemoryTransport
from mcpkit.transports.http.sse import SSEDecoder
from tests.reliability import hostile
from tests.reliability.procs import ROOT, env, http_server, stdio_command

INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "faulty", "version": "1"},
    },
}


async def ask(params: Any, ctx: RequestContext) -> Any:
    """Asks the client for its roots (1 s bound) and says how that went."""
    started = time.monotonic()
    try:
        result = await ctx.request("roots/list", timeout=1.0)
    except McpkitError as exc:
        return {"error": type(exc).__name__, "text": str(exc), "took": time.monotonic() - started}
    return {"roots": result.get("roots"), "took": time.monotonic() - started}


class FaultyClient:
    """The client end of a memory connection, answering ``roots/list`` as ``mode`` says."""

    def __init__(self, end: MemoryTransport, mode: str) -> None:
        self.end = end
        self.mode = mode
        self.got: list[Any] = []

    def receive_bytes(self, data: bytes) -> None:
        self.receive(orjson.loads(data))

    def receive(self, msg: Any) -> None:
        self.got.append(msg)
        if msg.get("method") != "roots/list":
            return
        rid = msg["id"]
        if self.mode == "ok":
            self.end.write({"jsonrpc": "2.0", "id": rid, "result": {"roots": []}})
        elif self.mode == "wrong-id":
            self.end.write({"jsonrpc": "2.0", "id": f"x{rid}", "result": {"roots": []}})
        elif self.mode == "garbage":
            self.end.write_bytes(b"\x00 not json")
            self.end.write_bytes(b'{"jsonrpc":"2.0","id":')
        elif self.mode == "error":
            self.end.write(
                {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "no"}}
            )
        elif self.mode == "hang-up":
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self.end.close()))

    def connection_lost(self, exc: BaseException | None) -> None:
        pass


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [
        ("ok", "roots"),
        ("wrong-id", "RequestTimeout"),
        ("garbage", "RequestTimeout"),
        ("error", "McpError"),
        ("silent", "RequestTimeout"),
        ("hang-up", "cancelled"),
    ],
)
async def test_a_faulty_client_fails_the_servers_request_in_bound(mode: str, outcome: str) -> None:
    client_end, server_end = MemoryTransport.pair()
    server = ServerSession(server_end, server_info={"name": "s", "version": "1"}, capabilities={})
    box: dict[str, Any] = {}

    async def handler(params: Any, ctx: RequestContext) -> Any:
        started = time.monotonic()
        try:
            box["answer"] = await ask(params, ctx)
        except asyncio.CancelledError:
            # The client is gone: its handler is cancelled, there is no one to answer.
            box["answer"] = {"error": "cancelled", "text": "-", "took": time.monotonic() - started}
            raise
        return box["answer"]

    server.set_request_handler("test/ask", handler)
    await server.start()
    client = FaultyClient(client_end, mode)
    await client_end.start(client)
    try:
        client_end.write(INIT)
        client_end.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        client_end.write({"jsonrpc": "2.0", "id": 1, "method": "test/ask"})
        async with asyncio.timeout(5):
            while "answer" not in box:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        answer = box["answer"]
        assert answer["took"] < 2.0, answer
        if outcome == "roots":
            assert answer["roots"] == []
        else:
            assert answer["error"] == outcome and answer["text"], answer
        if mode == "garbage":
            parse_errors = [m for m in client.got if m.get("error", {}).get("code") == -32700]
            assert len(parse_errors) == 2
        if mode != "hang-up":
            # The server still serves this client.
            client_end.write({"jsonrpc": "2.0", "id": 2, "method": "ping"})
            async with asyncio.timeout(5):
                while not any(m.get("id") == 2 for m in client.got):  # noqa: ASYNC110
                    await asyncio.sleep(0.01)
    finally:
        await client_end.close()
        await server.close()


async def start_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": hostile.ACCEPT}
    r = await http.post(url, content=hostile.INIT, headers=headers)
    headers["mcp-session-id"] = r.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


async def test_http_a_stream_cut_mid_call_resumes_with_nothing_lost_or_repeated() -> None:
    async with http_server() as served, httpx.AsyncClient(timeout=10) as http:
        headers = await start_session(http, served.url)
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "steps",
                "arguments": {"count": 20, "delay": 0.02},
                "_meta": {"progressToken": "p"},
            },
        }
        decoder = SSEDecoder()
        seen: list[Any] = []
        async with http.stream("POST", served.url, json=call, headers=headers) as response:
            async for chunk in response.aiter_bytes():
                for event in decoder.feed(chunk):
                    if event.data:
                        seen.append(orjson.loads(event.data))
                if len(seen) >= 3:
                    break  # cut the stream mid-call
        assert decoder.last_event_id is not None
        await asyncio.sleep(0.3)  # the tool goes on meanwhile
        resume = {**headers, "accept": "text/event-stream", "last-event-id": decoder.last_event_id}
        async with http.stream("GET", served.url, headers=resume) as response:
            assert response.status_code == 200
            async with asyncio.timeout(10):
                async for chunk in response.aiter_bytes():
                    for event in decoder.feed(chunk):
                        if event.data:
                            seen.append(orjson.loads(event.data))
                    if any(m.get("id") == 7 for m in seen):
                        break
        progress = [
            m["params"]["progress"] for m in seen if m.get("method") == "notifications/progress"
        ]
        assert progress == list(range(1, 21))
        results = [m for m in seen if m.get("id") == 7]
        assert len(results) == 1 and results[0]["result"]["content"][0]["text"] == "done 20"


async def test_http_clients_that_die_mid_call_leave_the_server_serving_and_clean() -> None:
    async with http_server() as served, httpx.AsyncClient(timeout=10) as http:
        await start_session(http, served.url)
        fds0 = served.fd_count()
        for i in range(30):
            headers = await start_session(http, served.url)
            body = orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "hang", "arguments": {}},
                }
            )
            reader, writer = await hostile.connect(served.url)
            host, port, path = hostile.address(served.url)
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: {hostile.ACCEPT}\r\nMcp-Session-Id: {headers['mcp-session-id']}\r\n"
                f"Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
            await reader.readline()  # the stream started: the tool is running
            writer.transport.abort()  # the client dies
        headers = await start_session(http, served.url)
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "alive"}},
        }
        r = await http.post(served.url, json=call, headers=headers)
        assert '"alive"' in r.text
        deadline = time.monotonic() + 5
        while served.fd_count() > fds0 + 2 and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.1)
        assert served.fd_count() <= fds0 + 2


async def test_stdio_a_client_that_dies_mid_call_ends_the_server() -> None:
    # Plain pipes: the client "dies" by closing both of its ends at once.
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    proc = subprocess.Popen(  # noqa: ASYNC220 (plain pipes, no event loop transport)
        stdio_command(),
        stdin=to_server_r,
        stdout=from_server_w,
        stderr=subprocess.DEVNULL,
        env=env(),
        cwd=str(ROOT),
    )
    os.close(to_server_r)
    os.close(from_server_w)
    try:
        out = os.fdopen(from_server_r, "rb", buffering=0)
        os.write(to_server_w, orjson.dumps(INIT) + b"\n")
        first = await asyncio.wait_for(asyncio.to_thread(out.read, 4096), 20)
        assert b'"init"' in first
        os.write(to_server_w, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        os.write(
            to_server_w,
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
            b'"params":{"name":"hang","arguments":{}}}\n',
        )
        await asyncio.sleep(0.3)
        started = time.monotonic()
        out.close()
        os.close(to_server_w)
        await asyncio.to_thread(proc.wait, 10)
        assert time.monotonic() - started < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
