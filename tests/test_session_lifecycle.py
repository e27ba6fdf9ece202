"""Session lifecycle rules: total timeouts, initialize never cancelled, only ping before
initialization, capability checks both ways, stdio shutdown and server death, keep-alive pings,
bounded outgoing requests (both transports where a peer process is involved)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mcpkit.errors import ConnectionClosed, McpError, ProcessExited, RequestTimeout
from mcpkit.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND
from mcpkit.session import ClientSession
from mcpkit.transports import MemoryTransport, StdioClientTransport
from tests.conftest import ROOT, server_env
from tests.test_session import CLIENT_INFO, call, raw, text_of

INIT_PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}


async def test_max_total_timeout_holds_without_a_per_request_timeout(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    progress: list[float] = []
    # Progress every 0.1 s for 0.6 s: with only a total cap of 0.35 s, progress must not
    # push the deadline back.
    with pytest.raises(RequestTimeout):
        await pair.client.request(
            "tools/call",
            {"name": "sleep", "arguments": {"steps": 6, "delay": 0.1}},
            timeout=None,
            max_total_timeout=0.35,
            on_progress=lambda p, t, m: progress.append(p),
        )
    assert progress  # progress did arrive, and still the cap held
    assert text_of(await call(pair, "echo", text="after")) == "after"


class _Silent:
    """A peer that records what it receives and never answers."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.arrived = asyncio.Event()

    def receive_bytes(self, data: bytes) -> None:
        self.received.append(data)
        self.arrived.set()

    def receive(self, message: Any) -> None:  # pragma: no cover - bytes only
        raise AssertionError

    def connection_lost(self, exc: BaseException | None) -> None:
        pass


async def test_client_never_cancels_initialize(wire: Any) -> None:
    a, b = MemoryTransport.pair()
    peer = _Silent()
    await b.start(peer)
    client = ClientSession(a, tracer=wire())
    await client.start()
    with pytest.raises(RequestTimeout):
        await client.initialize(CLIENT_INFO, timeout=0.05)
    task = asyncio.create_task(client.initialize(CLIENT_INFO, timeout=None))
    while len(peer.received) < 2:
        peer.arrived.clear()
        await peer.arrived.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await client.close()  # runs the background tasks a cancellation notice would use
    assert not client._tracer.sent("notifications/cancelled")  # type: ignore[union-attr]
    assert [m for m in peer.received if b"notifications/cancelled" in m] == []
    assert len(peer.received) == 2


async def test_server_ignores_cancellation_of_initialize(connect: Any) -> None:
    pair = await connect()
    init = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INIT_PARAMS}
    pair.transport.write(init)
    pair.client._tracer._track("send", init)
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": "init", "reason": "changed my mind"},
    }
    reply = await raw(pair, cancel, expect="init")
    assert reply["result"]["protocolVersion"] == "2025-11-25"


async def test_client_sends_only_ping_before_initialization(connect: Any) -> None:
    pair = await connect()
    with pytest.raises(McpError) as err:
        await pair.client.request("tools/list", {})
    assert err.value.code == INVALID_REQUEST and "before initialization" in err.value.message
    with pytest.raises(McpError):
        await pair.client.request("custom/method", {})
    assert pair.client._tracer.sent() == []
    await pair.client.ping()
    await pair.client.initialize(CLIENT_INFO)
    assert text_of(await call(pair, "echo", text="now")) == "now"


async def test_server_refuses_a_request_for_a_capability_it_did_not_declare(
    connect: Any,
) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    # The core server registers a resources/list handler but declares no `resources`.
    pair.client.lifecycle.peer_capabilities["resources"] = {}  # skip the client's own guard
    with pytest.raises(McpError) as err:
        await pair.client.request("resources/list", {}, timeout=5)
    assert err.value.code == METHOD_NOT_FOUND
    assert "resources" in err.value.message
    assert text_of(await call(pair, "echo", text="alive")) == "alive"


async def test_client_refuses_a_request_for_a_capability_it_did_not_declare(
    connect: Any,
) -> None:
    pair = await connect()
    called: list[Any] = []

    async def sampling(params: Any, ctx: Any) -> Any:
        called.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "no"}, "model": "m"}

    pair.client.set_request_handler("sampling/createMessage", sampling)
    await pair.client.initialize(CLIENT_INFO)  # a handler, but no `sampling` declared
    with pytest.raises(McpError) as err:
        await call(pair, "force_sample")
    assert err.value.code == METHOD_NOT_FOUND and "sampling" in err.value.message
    assert called == []


async def test_server_pings_the_client(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    assert text_of(await call(pair, "ping_client")) == "pong"
    assert pair.client._tracer.received("ping")  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["stdio"])
async def test_stdio_server_exits_cleanly_when_its_input_closes(connect: Any, kind: str) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    slow = asyncio.create_task(call(pair, "sleep", steps=1, delay=30))
    await asyncio.sleep(0)
    pair.transport.shutdown_timeout = 10
    await pair.client.close()  # closes stdin; SIGTERM only if the server does not exit
    assert pair.transport.returncode == 0
    with pytest.raises(ProcessExited):
        await slow


GRANDPARENT = r"""
import subprocess, sys, os
sys.stdin.readline()
# A helper that outlives this process and keeps its stderr open.
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
sys.stderr.write(f"helper {child.pid}\n"); sys.stderr.flush()
os._exit(5)
"""


async def test_server_death_fails_pending_even_when_a_helper_keeps_stderr_open(
    tmp_path: Path, wire: Any
) -> None:
    script = tmp_path / "server.py"
    script.write_text(GRANDPARENT)
    transport = StdioClientTransport(sys.executable, [str(script)], env=server_env(), cwd=ROOT)
    client = ClientSession(transport, tracer=wire())
    await client.start()
    helper = None
    try:
        with pytest.raises(ProcessExited) as err:
            await client.request("initialize", INIT_PARAMS, timeout=20)
        assert err.value.returncode == 5
        helper = int(transport.stderr_tail.split("helper ")[1].split()[0])
    finally:
        await client.close()
        if helper is not None:
            os.kill(helper, signal.SIGKILL)


async def _memory_pair(wire: Any, **client_kwargs: Any) -> tuple[ClientSession, Any]:
    from tests.servers import core_server

    a, b = MemoryTransport.pair()
    server = core_server.make_session(b, tracer=wire())
    await server.start()
    client = ClientSession(a, tracer=wire(), **client_kwargs)
    await client.start()
    await client.initialize(CLIENT_INFO)
    return client, server


async def test_keep_alive_pings_until_the_session_closes(wire: Any) -> None:
    from mcpkit.keepalive import keep_alive

    client, server = await _memory_pair(wire)
    pinged = asyncio.Event()
    count = 0

    async def ping(params: Any, ctx: Any) -> dict[str, Any]:
        nonlocal count
        count += 1
        if count >= 3:
            pinged.set()
        return {}

    server.set_request_handler("ping", ping)
    task = asyncio.create_task(keep_alive(client, 0.01, 5))
    await asyncio.wait_for(pinged.wait(), 10)
    assert not client.closed
    await client.close()
    await asyncio.wait_for(task, 5)  # ends by itself once the session is closed
    await server.close()


async def test_keep_alive_unanswered_ping_fails_pending_requests(wire: Any) -> None:
    from mcpkit.keepalive import keep_alive

    client, server = await _memory_pair(wire)
    hang = asyncio.Event()

    async def deaf(params: Any, ctx: Any) -> dict[str, Any]:
        await hang.wait()
        return {}

    server.set_request_handler("ping", deaf)
    slow = asyncio.create_task(call(client_pair(client), "sleep", timeout=None, delay=30))
    with pytest.raises(ConnectionClosed, match="ping"):
        await asyncio.wait_for(
            asyncio.gather(keep_alive(client, 0.01, 0.05, max_failures=2), slow), 10
        )
    assert client.closed
    with pytest.raises(ConnectionClosed, match="ping"):
        await slow
    await server.close()


def client_pair(client: ClientSession) -> Any:
    """What ``call`` needs: an object with the client session."""
    return SimpleNamespace(client=client)


async def test_outgoing_requests_are_bounded(wire: Any) -> None:
    client, server = await _memory_pair(wire, max_pending=2)
    peak = 0
    original = server._done_serving

    def watch(rid: Any) -> None:
        nonlocal peak
        peak = max(peak, len(server._in_flight))
        original(rid)

    server._done_serving = watch  # type: ignore[method-assign]
    pair = client_pair(client)
    results = await asyncio.gather(*(call(pair, "sleep", steps=1, delay=0.01) for _ in range(10)))
    assert [text_of(r) for r in results] == ["slept 1"] * 10
    assert peak == 2  # the caller waits for a free slot instead of queueing without bound
    await client.close()
    await server.close()


async def test_log_messages_need_the_logging_capability(wire: Any) -> None:
    from mcpkit.session import ServerSession

    a, b = MemoryTransport.pair()
    server = ServerSession(b, server_info={"name": "quiet", "version": "1"}, tracer=wire())
    await server.start()
    client = ClientSession(a, tracer=wire())
    await client.start()
    await client.initialize(CLIENT_INFO)
    params = {"level": "info", "data": "hello"}
    with pytest.raises(McpError) as err:
        await server.notify("notifications/message", params)
    assert err.value.code == METHOD_NOT_FOUND and "logging" in err.value.message
    assert not server._tracer.sent("notifications/message")  # type: ignore[union-attr]
    await client.close()
    await server.close()
