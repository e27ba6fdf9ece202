"""Client(retry=Retry(...)): refused requests are sent again after the time the server asked
for, a connection cut mid-request is retried only for requests safe to repeat, and the
budget holds. Against a real rate-limited mcpkit server (memory and HTTP, both eras) and an
HTTP stand-in in front of one that answers 429/503 with Retry-After or drops connections."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest

from mcpkit import Client, Server
from mcpkit.client.retry import SAFE_METHODS, Retry, RetryEvent, classify
from mcpkit.errors import HTTP_ERROR, McpError, Overloaded, RateLimited
from mcpkit.server.middleware import RateLimit
from mcpkit.transports.http import running
from mcpkit.types import ToolAnnotations
from tests.server.middleware.helpers import IDS, WAYS, connect

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

# -- the policy alone ---------------------------------------------------------------------


def _http(**data: Any) -> McpError:
    return McpError.from_error({"code": HTTP_ERROR, "message": "HTTP failure", "data": data})


def test_failures_are_classified_by_whether_the_request_ran() -> None:
    assert classify(RateLimited(None, {"retryAfterMs": 1500})) == ("refused", 1.5)
    assert classify(Overloaded()) == ("refused", None)
    assert classify(_http(status=429, retryAfterMs=2000)) == ("refused", 2.0)
    assert classify(_http(status=503)) == ("refused", None)
    assert classify(_http(status=502)) == ("lost", None)
    assert classify(_http(exception="ConnectError")) == ("unsent", None)
    assert classify(_http(exception="RemoteProtocolError")) == ("lost", None)
    assert classify(_http(status=400)) is None
    assert classify(McpError(-32602, "Invalid params")) is None
    assert classify(ValueError("not an MCP error")) is None


def test_a_refusal_waits_what_the_server_asked_and_jitter_only_adds() -> None:
    policy = Retry(jitter=0.5)
    refused = RateLimited(None, {"retryAfterMs": 1200})
    assert policy.delay(refused, "tools/call", attempt=1, waited=0, rand=lambda: 0.0) == (
        "refused",
        1.2,
    )
    kind, wait = policy.delay(refused, "tools/call", attempt=1, waited=0, rand=lambda: 1.0) or (
        "",
        0,
    )
    assert kind == "refused" and wait == pytest.approx(1.8)


def test_without_a_named_time_the_wait_doubles_up_to_the_cap() -> None:
    policy = Retry(attempts=10, backoff=0.5, max_backoff=3, jitter=0, budget=100)
    waits = [policy.delay(Overloaded(), "tools/call", attempt=n, waited=0) for n in range(1, 6)]
    assert [w[1] for w in waits if w] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_a_lost_request_is_retried_only_when_it_is_safe_to_repeat() -> None:
    policy = Retry()
    lost = _http(exception="ReadError")
    assert policy.delay(lost, "tools/call", attempt=1, waited=0) is None
    assert policy.delay(lost, "tools/call", attempt=1, waited=0, repeatable=True) is not None
    assert policy.delay(lost, "tools/list", attempt=1, waited=0) is not None
    assert policy.delay(lost, "sampling/createMessage", attempt=1, waited=0) is None
    assert Retry(connection_lost=False).delay(lost, "tools/list", attempt=1, waited=0) is None
    unsent = _http(exception="ConnectError")  # nothing reached the server: any method
    assert policy.delay(unsent, "tools/call", attempt=1, waited=0) is not None
    assert {"tools/list", "resources/read", "prompts/get"} <= SAFE_METHODS
    assert "tools/call" not in SAFE_METHODS


def test_attempts_and_budget_bound_the_retries() -> None:
    policy = Retry(attempts=3, budget=5, jitter=0)
    refused = RateLimited(None, {"retryAfterMs": 2000})
    assert policy.delay(refused, "ping", attempt=1, waited=0) == ("refused", 2.0)
    assert policy.delay(refused, "ping", attempt=2, waited=2) == ("refused", 2.0)
    assert policy.delay(refused, "ping", attempt=3, waited=4) is None  # third send was last
    assert Retry(budget=3, jitter=0).delay(refused, "ping", attempt=2, waited=2) is None
    with pytest.raises(ValueError):
        Retry(attempts=0)
    with pytest.raises(ValueError):
        Retry(jitter=2)


# -- a real rate-limited mcpkit server ----------------------------------------------------


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_refused_calls_are_sent_again_after_the_asked_time(transport: str, era: str) -> None:
    app: Server[Any] = Server(
        "limited", middleware=[RateLimit(rate=20, burst=1, methods={"tools/call"})]
    )
    runs = itertools.count(1)

    @app.tool()
    def work() -> int:
        return next(runs)

    events: list[RetryEvent] = []
    policy = Retry(attempts=10, budget=10, on_retry=events.append)
    async with connect(app, transport, era, retry=policy) as client:
        results = [await client.call_tool("work", {}) for _ in range(4)]
    assert [r.structured_content for r in results] == [{"result": n} for n in (1, 2, 3, 4)]
    assert events, "the bucket of one token refused some of the four calls"
    for event in events:
        assert event.kind == "refused" and isinstance(event.error, RateLimited)
        asked = event.error.retry_after
        assert asked is not None and event.delay >= asked
    assert next(runs) == 5  # a refused call never ran: four runs for four results


async def test_without_a_retry_policy_the_refusal_reaches_the_caller() -> None:
    app: Server[Any] = Server(
        "limited", middleware=[RateLimit(rate=0.1, burst=1, methods={"tools/call"})]
    )

    @app.tool()
    def work() -> str:
        return "ok"

    async with Client(app) as client:
        await client.call_tool("work", {})
        with pytest.raises(RateLimited):
            await client.call_tool("work", {})


async def test_the_budget_holds_against_a_server_that_keeps_refusing() -> None:
    app: Server[Any] = Server(
        "stingy", middleware=[RateLimit(rate=2, burst=1, methods={"tools/call"})]
    )

    @app.tool()
    def work() -> str:
        return "ok"

    events: list[RetryEvent] = []
    async with Client(app, retry=Retry(attempts=3, budget=0.2, on_retry=events.append)) as c:
        await c.call_tool("work", {})
        with pytest.raises(RateLimited):  # 0.5 s asked, 0.2 s allowed: no retry at all
            await c.call_tool("work", {})
    assert events == []


# -- an HTTP stand-in: 429/503 with Retry-After, connections dropped mid-request ----------


class Faults:
    """ASGI middleware in front of an mcpkit app: the first ``count`` POSTs whose JSON-RPC
    method (and tool name) match get ``fault`` instead of the app's answer."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.plan: list[tuple[str, str | None, str]] = []  # (method, tool, fault)
        self.seen: list[tuple[str, str | None]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        parsed = orjson.loads(body)
        method = parsed.get("method")
        tool = (parsed.get("params") or {}).get("name") if method == "tools/call" else None
        self.seen.append((method, tool))
        fault = None
        for i, (m, t, f) in enumerate(self.plan):
            if m == method and t in (None, tool):
                fault = f
                del self.plan[i]
                break
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        if fault in ("429", "503"):
            headers = [(b"retry-after", b"1"), (b"content-type", b"text/plain")]
            await send({"type": "http.response.start", "status": int(fault), "headers": headers})
            await send({"type": "http.response.body", "body": b"try later"})
            return
        if fault == "drop":
            # The request runs, then the connection breaks before its answer is complete.
            async def swallow(message: dict[str, Any]) -> None:
                return None

            await self.app(scope, replay, swallow)
            headers = [(b"content-type", b"application/json"), (b"content-length", b"500")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b'{"jsonrpc"', "more_body": True})
            return  # uvicorn closes a connection whose answer the app left unfinished
        await self.app(scope, replay, send)


def _standin_app() -> tuple[Server[Any], list[str]]:
    app: Server[Any] = Server("standin")
    runs: list[str] = []

    @app.tool()
    def charge(amount: int) -> str:
        runs.append(f"charge {amount}")
        return "charged"

    @app.tool(annotations=ToolAnnotations(idempotent_hint=True))
    def set_limit(value: int) -> str:
        runs.append(f"set_limit {value}")
        return "set"

    return app, runs


@pytest.mark.parametrize("status", ["429", "503"])
async def test_http_429_and_503_are_retried_after_retry_after(status: str) -> None:
    app, runs = _standin_app()
    asgi = app.http_app()
    faults = Faults(asgi)
    faults.plan.append(("tools/call", "charge", status))
    events: list[RetryEvent] = []
    async with running(faults) as base:
        async with Client(base + "/mcp", retry=Retry(on_retry=events.append), timeout=10) as c:
            result = await c.call_tool("charge", {"amount": 5})
    await asgi.aclose()
    assert result.content[0].text == "charged"
    assert runs == ["charge 5"]  # refused at the door, run once when sent again
    assert [(e.kind, e.method) for e in events] == [("refused", "tools/call")]
    assert events[0].delay >= 1.0  # Retry-After: 1


async def test_a_dropped_call_of_a_tool_that_is_not_idempotent_is_not_repeated() -> None:
    app, runs = _standin_app()
    asgi = app.http_app()
    faults = Faults(asgi)
    events: list[RetryEvent] = []
    async with running(faults) as base:
        async with Client(base + "/mcp", retry=Retry(on_retry=events.append), timeout=10) as c:
            await c.list_tools()
            faults.plan.append(("tools/call", "charge", "drop"))
            with pytest.raises(McpError) as lost:
                await c.call_tool("charge", {"amount": 7})
            faults.plan.append(("tools/call", "set_limit", "drop"))
            again = await c.call_tool("set_limit", {"value": 3})
            faults.plan.append(("tools/list", None, "drop"))
            listed = await c.list_tools()
    await asgi.aclose()
    assert lost.value.code == HTTP_ERROR and classify(lost.value) == ("lost", None)
    assert runs.count("charge 7") == 1  # ran once, and was not sent again
    assert again.content[0].text == "set"
    assert runs.count("set_limit 3") == 2  # idempotent: cut off, then sent again
    assert {t.name for t in listed} == {"charge", "set_limit"}
    assert [(e.kind, e.method) for e in events] == [("lost", "tools/call"), ("lost", "tools/list")]
    assert faults.seen.count(("tools/call", "charge")) == 1


async def test_a_server_that_cannot_be_reached_is_retried_within_the_budget() -> None:
    import socket

    # A port bound and not listening: refused, and no other process can take it meanwhile.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        events: list[RetryEvent] = []
        policy = Retry(attempts=3, backoff=0.05, budget=1, on_retry=events.append)
        client = Client(f"http://127.0.0.1:{port}/mcp", retry=policy, era="2026-07-28", timeout=5)
        with pytest.raises(Exception):
            async with client:
                await client.list_tools()
    assert sum(e.delay for e in events) <= 1
    assert all(e.kind == "unsent" for e in events)
