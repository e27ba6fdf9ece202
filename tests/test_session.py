"""The session engine over both the in-memory and the stdio transport (a real subprocess)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import versions
from mcpkit.errors import McpError, ProcessExited, RequestTimeout
from mcpkit.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND

CLIENT_INFO = {"name": "test-client", "version": "0.0.1"}


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def call(pair: Any, name: str, timeout: float | None = 10, **arguments: Any) -> Any:
    return await pair.client.request(
        "tools/call", {"name": name, "arguments": arguments}, timeout=timeout
    )


async def raw(pair: Any, message: Any, *, data: bytes | None = None, expect: Any = "auto") -> Any:
    """Write ``message`` (or raw ``data``) past the client's own checks; return the reply."""
    checker = pair.client._tracer
    before = len(checker.messages)
    if data is not None:
        pair.transport.write_bytes(data)
    else:
        pair.transport.write(message)
        checker._track("send", message)  # unchecked, but its responses are checked
    want = message.get("id") if isinstance(message, dict) and expect == "auto" else expect
    for _ in range(200):
        await asyncio.sleep(0.01)
        for direction, m in checker.messages[before:]:
            if direction == "recv" and (isinstance(m, list) or m.get("id", "none") == want):
                return m
    raise AssertionError("no reply")


async def test_initialize_negotiates_latest(connect: Any) -> None:
    pair = await connect()
    result = await pair.client.initialize(CLIENT_INFO)
    assert result["protocolVersion"] == "2025-11-25"
    assert result["serverInfo"]["name"] == "core-test"
    assert result["instructions"].startswith("A server")
    assert pair.client.protocol_version is versions.V2025_11_25
    assert pair.client.server_capabilities == {"tools": {}, "logging": {}}
    assert text_of(await call(pair, "echo", text="hi")) == "hi"
    if pair.server is not None:
        assert pair.server.client_info == CLIENT_INFO
        assert pair.server.protocol_version is versions.V2025_11_25


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
async def test_initialize_older_versions(connect: Any, wire: Any, version: str) -> None:
    pair = await connect(tracer=wire(version))
    result = await pair.client.initialize(CLIENT_INFO, protocol_version=version)
    assert result["protocolVersion"] == version
    assert text_of(await call(pair, "echo", text="old")) == "old"


async def test_unknown_version_gets_latest(connect: Any) -> None:
    pair = await connect()
    result = await pair.client.request(
        "initialize",
        {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": CLIENT_INFO},
    )
    assert result["protocolVersion"] == versions.LATEST.name


async def test_client_refuses_unsupported_server_version(connect: Any) -> None:
    # This client only speaks 2024-11-05; the server answers 2025-11-25 for an unknown ask.
    pair = await connect(supported_versions=(versions.V2024_11_05,))
    with pytest.raises(McpError, match="not support"):
        await pair.client.initialize(CLIENT_INFO, protocol_version="2099-01-01")
    assert pair.client.closed


async def test_requests_before_initialize(connect: Any) -> None:
    pair = await connect()
    await pair.client.ping()  # ping is always allowed
    reply = await raw(
        pair, {"jsonrpc": "2.0", "id": "early", "method": "tools/call", "params": {"name": "echo"}}
    )
    assert reply["error"]["code"] == INVALID_REQUEST
    assert "initialize" in reply["error"]["message"]
    await pair.client.initialize(CLIENT_INFO)
    assert text_of(await call(pair, "echo", text="now")) == "now"


async def test_initialize_twice_is_an_error(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    with pytest.raises(McpError) as err:
        await pair.client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO},
        )
    assert err.value.code == INVALID_REQUEST


async def test_initialize_bad_params_names_the_field(connect: Any) -> None:
    pair = await connect()
    reply = await raw(
        pair,
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    )
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "protocolVersion" in reply["error"]["message"]
    # The session survives and can still be initialized.
    await pair.client.initialize(CLIENT_INFO)


async def test_unknown_method_and_bad_params(connect: Any) -> None:
    pair = await connect(supported_versions=versions.SUPPORTED)
    await pair.client.initialize(CLIENT_INFO)
    # Skip the client's own capability guard to see what the server answers.
    pair.client.lifecycle.peer_capabilities["prompts"] = {}
    with pytest.raises(McpError) as err:
        await pair.client.request("prompts/list", {})
    assert err.value.code == METHOD_NOT_FOUND
    reply = await raw(
        pair,
        {
            "jsonrpc": "2.0",
            "id": "p",
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": 5}},
        },
    )
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "'text'" in reply["error"]["message"]
    assert text_of(await call(pair, "echo", text="still alive")) == "still alive"


async def test_handler_exception_is_internal_error_without_details(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    with pytest.raises(McpError) as err:
        await call(pair, "fail")
    assert err.value.code == -32603
    assert "secret" not in err.value.message and err.value.data is None
    with pytest.raises(McpError) as err:
        await call(pair, "unencodable")
    assert err.value.code == -32603
    assert text_of(await call(pair, "echo", text="ok")) == "ok"


async def test_responses_in_any_order(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    order: list[str] = []

    async def run(name: str, **args: Any) -> None:
        await call(pair, name, **args)
        order.append(name if name != "sleep" else "slow")

    await asyncio.gather(run("sleep", steps=2, delay=0.1), run("echo", text="fast"))
    assert order == ["echo", "slow"]


async def test_ids_are_unique_and_typed(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    await asyncio.gather(*(call(pair, "echo", text=str(i)) for i in range(50)))
    ids = [m["id"] for m in pair.client._tracer.sent() if "id" in m]  # type: ignore[union-attr]
    assert len(ids) == len(set(ids)) == 51
    assert all(type(i) is int for i in ids)


async def test_progress_reaches_the_caller(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    seen: list[tuple[float, float | None, str | None]] = []
    result = await pair.client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 3, "delay": 0.01}},
        on_progress=lambda p, t, m: seen.append((p, t, m)),
    )
    assert text_of(result) == "slept 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_progress_must_increase(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    seen: list[float] = []
    result = await pair.client.request(
        "tools/call",
        {"name": "bad_progress", "arguments": {}},
        on_progress=lambda p, t, m: seen.append(p),
    )
    assert text_of(result).startswith("refused: progress must increase")
    assert seen == [2]


async def test_timeout_sends_cancelled(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    with pytest.raises(RequestTimeout):
        await call(pair, "sleep", timeout=0.1, steps=1, delay=2)
    await asyncio.sleep(0.05)
    cancels = pair.client._tracer.sent("notifications/cancelled")
    assert len(cancels) == 1 and cancels[0]["params"]["reason"] == "Request timed out"
    assert text_of(await call(pair, "echo", text="after")) == "after"


async def test_timeout_resets_on_progress_up_to_a_maximum(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    # 6 steps of 0.1s with a 0.3s timeout: finishes only because progress resets the timer.
    result = await pair.client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 6, "delay": 0.1}},
        timeout=0.3,
        on_progress=lambda p, t, m: None,
    )
    assert text_of(result) == "slept 6"
    # The same with a total cap of 0.35s fails despite the progress.
    with pytest.raises(RequestTimeout):
        await pair.client.request(
            "tools/call",
            {"name": "sleep", "arguments": {"steps": 6, "delay": 0.1}},
            timeout=0.3,
            max_total_timeout=0.35,
            on_progress=lambda p, t, m: None,
        )


async def test_caller_cancellation_cancels_the_handler(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    running = asyncio.Event()
    task = asyncio.create_task(
        pair.client.request(
            "tools/call",
            {"name": "sleep", "arguments": {"steps": 100, "delay": 0.05}},
            on_progress=lambda p, t, m: running.set(),
        )
    )
    await asyncio.wait_for(running.wait(), 10)  # the handler is running on the other side
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.1)
    cancels = pair.client._tracer.sent("notifications/cancelled")
    assert len(cancels) == 1
    if pair.server is not None:
        assert not pair.server._in_flight  # the handler is gone
        assert not [
            m
            for m in pair.server._tracer.sent()
            if m.get("id") == cancels[0]["params"]["requestId"]
        ]
    # No response arrives for the cancelled id, and the session goes on.
    assert text_of(await call(pair, "echo", text="next")) == "next"
    await asyncio.sleep(0.1)
    cancelled_id = cancels[0]["params"]["requestId"]
    assert not [m for m in pair.client._tracer.received() if m.get("id") == cancelled_id]


async def test_server_to_client_request_and_cancellation(connect: Any) -> None:
    pair = await connect()
    started = asyncio.Event()
    handler_cancelled = asyncio.Event()

    async def sampling(params: Any, ctx: Any) -> Any:
        q = params["messages"][0]["content"]["text"]
        if q == "hang":
            started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                handler_cancelled.set()
                raise
        return {"role": "assistant", "content": {"type": "text", "text": q.upper()}, "model": "m"}

    pair.client.set_request_handler("sampling/createMessage", sampling)
    await pair.client.initialize(CLIENT_INFO, {"sampling": {}})
    assert text_of(await call(pair, "sample", q="hello")) == "HELLO"
    if pair.server is not None:
        # Server-side cancellation of its own request reaches the client's handler.
        task = asyncio.create_task(
            pair.server.request(
                "sampling/createMessage",
                {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hang"}}],
                    "maxTokens": 5,
                },
            )
        )
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        await asyncio.wait_for(handler_cancelled.wait(), 5)


async def test_capabilities_are_enforced(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)  # no sampling, no roots
    # The server never sends a request the client did not declare.
    with pytest.raises(McpError) as err:
        await call(pair, "sample", q="x")
    assert err.value.code == METHOD_NOT_FOUND and "sampling" in err.value.message
    with pytest.raises(McpError) as err:
        await call(pair, "roots")
    assert err.value.code == METHOD_NOT_FOUND and "roots" in err.value.message
    assert not pair.client._tracer.received("sampling/createMessage")
    assert not pair.client._tracer.received("roots/list")
    # The client never sends a request the server did not declare.
    with pytest.raises(McpError) as err:
        await pair.client.request("resources/list", {})
    assert err.value.code == METHOD_NOT_FOUND and "resources" in err.value.message
    assert not pair.client._tracer.sent("resources/list")
    if pair.server is not None:
        with pytest.raises(McpError, match="sampling"):
            await pair.server.request("sampling/createMessage", {"messages": [], "maxTokens": 1})


async def test_undeclared_client_capability_answers_method_not_found(connect: Any) -> None:
    pair = await connect()
    # The client claims roots but registers no handler: the request gets -32601.
    await pair.client.initialize(CLIENT_INFO, {"roots": {}})
    with pytest.raises(McpError) as err:
        await call(pair, "roots", timeout=5)
    assert err.value.code == METHOD_NOT_FOUND and "roots/list" in err.value.message


async def test_ping_both_ways(connect: Any) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    await pair.client.ping()
    if pair.server is not None:
        await pair.server.ping()


async def test_backpressure_bounds_in_flight(connect: Any, kind: str) -> None:
    pair = await connect(
        server_kwargs={"max_in_flight": 4}, server_env_extra={"MAX_IN_FLIGHT": "4"}
    )
    await pair.client.initialize(CLIENT_INFO)
    peak = 0
    if pair.server is not None:
        server = pair.server
        original = server._done_serving

        def watch(rid: Any) -> None:
            nonlocal peak
            peak = max(peak, len(server._in_flight))
            original(rid)

        server._done_serving = watch  # type: ignore[method-assign]
    results = await asyncio.gather(*(call(pair, "sleep", steps=1, delay=0.01) for _ in range(40)))
    assert all(text_of(r) == "slept 1" for r in results)
    if pair.server is not None:
        assert 1 <= peak <= 4


async def test_in_memory_is_the_real_protocol(wire: Any) -> None:
    """Everything crosses as JSON bytes: a non-JSON result fails like on a wire."""
    from mcpkit.session import ClientSession
    from mcpkit.transports import MemoryTransport
    from tests.servers import core_server

    a, b = MemoryTransport.pair()
    server = core_server.make_session(b, tracer=wire())
    await server.start()
    client = ClientSession(a, tracer=wire())
    await client.start()
    await client.initialize(CLIENT_INFO)
    kinds = {type(m) for _, m in client._tracer.messages}  # type: ignore[union-attr]
    assert kinds == {dict}
    await client.close()
    await asyncio.sleep(0)
    assert server.closed


@pytest.mark.parametrize("kind", ["stdio"])
async def test_stdio_server_process_death_fails_pending(connect: Any, kind: str) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    slow = asyncio.create_task(call(pair, "sleep", steps=1, delay=10))
    await asyncio.sleep(0.1)
    with pytest.raises(ProcessExited) as err:
        await call(pair, "crash")
    assert err.value.returncode == 3
    assert "the server is going down" in err.value.stderr_tail
    with pytest.raises(ProcessExited):
        await slow
    with pytest.raises(ProcessExited):
        await call(pair, "echo", text="dead")


@pytest.mark.parametrize("kind", ["stdio"])
async def test_stdio_stray_prints_go_to_stderr(connect: Any, kind: str) -> None:
    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)
    assert text_of(await call(pair, "print")) == "printed"
    assert text_of(await call(pair, "echo", text="clean")) == "clean"
    await asyncio.sleep(0.1)
    assert "this must not reach stdout" in pair.transport.stderr_tail
    assert "nor this" in pair.transport.stderr_tail
