"""stdio under hostile conditions: oversize messages, /dev/null input, a peer that does not
read, a server that closes its stdout and lives on."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INVALID_REQUEST, MessageKind, peek
from mcpkit.session import ClientSession
from mcpkit.transports import StdioClientTransport

SERVER = r"""
import asyncio, sys
from mcpkit.session import ServerSession
from mcpkit.transports import StdioServerTransport

async def big(params, ctx):
    return {"text": "x" * int(params["size"])}

async def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 4 * 1024 * 1024
    session = ServerSession(
        StdioServerTransport(max_message_size=limit),
        server_info={"name": "robust", "version": "1"},
        capabilities={},
    )
    session.set_request_handler("test/big", big)
    await session.start()
    await session.wait_closed()

asyncio.run(main())
"""

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(msg: Any) -> bytes:
    return orjson.dumps(msg) + b"\n"


@pytest.fixture
def server_script(tmp_path: Path) -> Path:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    return script


async def spawn(script: Path, *args: str, **kwargs: Any) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        *args,
        stdin=kwargs.pop("stdin", asyncio.subprocess.PIPE),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        **kwargs,
    )


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
        await proc.wait()


def test_peek_reads_the_envelope_of_a_cut_message() -> None:
    assert peek(b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"a":"') == (
        MessageKind.REQUEST,
        "big",
    )
    assert peek(b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [') == (
        MessageKind.RESULT,
        7,
    )
    assert peek(b'{"id":7,"error":{"code":') == (MessageKind.ERROR, 7)
    assert peek(b'{"jsonrpc":"2.0","method":"n","params":{"id":3') == (
        MessageKind.NOTIFICATION,
        None,
    )
    # Where the start does not tell, nothing is guessed (a nested "id" is not the id).
    assert peek(b'{"params":{"id":3') == (MessageKind.INVALID, None)
    assert peek(b"xxxx") == (MessageKind.INVALID, None)
    assert peek(b'{"id":1.5,"method":"m","params":{') == (MessageKind.REQUEST, None)
    assert peek(b'{"id":"\\q","method":"m"') == (MessageKind.REQUEST, None)


async def test_an_oversize_request_is_answered_with_its_id(server_script: Path) -> None:
    proc = await spawn(server_script, "1000")
    assert proc.stdin is not None and proc.stdout is not None
    try:
        big = {"jsonrpc": "2.0", "id": "big", "method": "test/big", "params": {"pad": "y" * 5000}}
        proc.stdin.write(line(INIT) + line(INITIALIZED) + line(big))
        proc.stdin.write(line({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
        replies = [orjson.loads(await asyncio.wait_for(proc.stdout.readline(), 10)) for _ in "123"]
        by_id = {r["id"]: r for r in replies}
        assert by_id["big"]["error"]["code"] == INVALID_REQUEST
        assert "size limit of 1000 bytes" in by_id["big"]["error"]["message"]
        assert by_id["after"]["result"] == {}  # the session goes on
    finally:
        await stop(proc)


async def test_an_oversize_response_fails_its_caller_at_once(server_script: Path) -> None:
    transport = StdioClientTransport(sys.executable, [str(server_script)], max_message_size=2000)
    client = ClientSession(transport)
    await client.start()
    try:
        await client.initialize({"name": "t", "version": "0"}, timeout=10)
        t = time.monotonic()
        with pytest.raises(McpError) as info:
            await client.request("test/big", {"size": 10_000}, timeout=30)
        assert time.monotonic() - t < 5
        assert info.value.code == INVALID_REQUEST
        assert info.value.data == {"maxMessageSize": 2000}
        assert "max_message_size" in info.value.message
        small = await client.request("test/big", {"size": 10}, timeout=10)
        assert small == {"text": "x" * 10}
    finally:
        await client.close()


async def test_a_server_reading_dev_null_exits_cleanly(server_script: Path) -> None:
    proc = await spawn(server_script, stdin=subprocess.DEVNULL)
    _, err = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 0, err
    assert b"PermissionError" not in err and b"Traceback" not in err


@pytest.mark.parametrize("what", ["pings", "garbage"])
async def test_a_peer_that_does_not_read_stops_being_read(server_script: Path, what: str) -> None:
    proc = await spawn(server_script)
    assert proc.stdin is not None and proc.stdout is not None
    count = 30_000
    try:
        proc.stdin.write(line(INIT) + line(INITIALIZED))
        if what == "pings":
            data = b"".join(
                line({"jsonrpc": "2.0", "id": i, "method": "ping"}) for i in range(count)
            )
        else:
            data = b"not json at all\n" * count
        proc.stdin.write(data)
        # The server stops reading once its output buffer is full: our writes back up.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(proc.stdin.drain(), 3)
        # Reading its output lets it go on, and every message is answered.
        got = 0
        while got < count + 1:
            await asyncio.wait_for(proc.stdout.readline(), 10)
            got += 1
        await asyncio.wait_for(proc.stdin.drain(), 10)
    finally:
        await stop(proc)


CLOSES_STDOUT = r"""
import os, sys, time
sys.stdin.buffer.readline()
os.close(1)
time.sleep(30)
"""


async def test_a_server_that_closes_stdout_fails_pending_calls_at_once(tmp_path: Path) -> None:
    script = tmp_path / "closer.py"
    script.write_text(CLOSES_STDOUT)
    transport = StdioClientTransport(sys.executable, [str(script)], shutdown_timeout=0.5)
    client = ClientSession(transport)
    await client.start()
    t = time.monotonic()
    with pytest.raises(ConnectionClosed) as info:
        await client.request("initialize", {"protocolVersion": "2025-11-25"}, timeout=30)
    assert time.monotonic() - t < 5
    assert "closed its stdout" in str(info.value)
    # The process is still there, and useless: it is stopped as the spec says.
    for _ in range(100):
        if transport.returncode is not None:
            break
        await asyncio.sleep(0.05)
    assert transport.returncode == -15  # it ignores stdin closing, SIGTERM ends it
    await client.close()


APP = r"""
import asyncio
from mcpkit import Server

app = Server("limited")
asyncio.run(app.run_stdio(max_message_size=1000))
"""


async def test_server_run_stdio_takes_the_size_limit(tmp_path: Path) -> None:
    script = tmp_path / "app.py"
    script.write_text(APP)
    proc = await spawn(script)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        big = {"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"pad": "y" * 2000}}
        proc.stdin.write(line(big))
        reply = orjson.loads(await asyncio.wait_for(proc.stdout.readline(), 10))
        assert reply["id"] == 9 and "size limit of 1000 bytes" in reply["error"]["message"]
    finally:
        await stop(proc)
