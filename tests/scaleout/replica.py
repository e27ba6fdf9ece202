"""One replica of the scale-out test deployment: an mcpkit server on Redis.

``python -m tests.scaleout.replica --port P --redis URL --id NAME`` serves Streamable HTTP
on 127.0.0.1:P with ``store=URL``. Every HTTP request it serves is counted (by method and
JSON-RPC method); the ``replica`` tool returns its name and the counts, so a test can show
that consecutive requests landed on different replicas. It also says how many GETs it
served that resumed a stream (``Last-Event-ID``) and which sessions' GET streams and how
many ``subscriptions/listen`` streams and ``stream`` calls it holds open right now
(``gets``, ``listens``, ``running``), so a test knows where a stream is before it kills
that replica.

Tools for the failover and tour tests: ``stream`` (progress notifications), ``cut`` (the
same, closing its SSE stream midway: the client resumes elsewhere), ``push`` (a session
notification with no request, carried by the session's GET stream), ``announce`` (a list
change or resource update made after the call has answered, so it can only travel on a
stream that is not this call's).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import signal
from typing import Any

import orjson

from mcpkit import Context, Server
from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running

SERVED: collections.Counter[str] = collections.Counter()
#: GETs that resumed a stream (carried ``Last-Event-ID``).
RESUMED: collections.Counter[str] = collections.Counter()
#: Session ids whose GET (standalone) stream this replica holds open, with a count each.
OPEN_GETS: collections.Counter[str] = collections.Counter()
#: Open ``subscriptions/listen`` POSTs.
OPEN_LISTENS: collections.Counter[str] = collections.Counter()
#: ``stream`` calls running here now.
RUNNING: collections.Counter[str] = collections.Counter()
#: Background announcements (kept referenced until done).
_PENDING: set[asyncio.Task[None]] = set()


def build(name: str, redis_url: str | None) -> Server[Any]:
    # A restarted replica is a new incarnation: its id differs, so what the dead one ran is
    # known to be dead.
    backend = (
        None
        if redis_url is None
        else RedisBackend(
            redis_url,
            replica_id=f"{name}-{os.getpid()}",
            heartbeat_interval=0.15,
            heartbeat_ttl=0.75,
        )
    )
    app: Server[Any] = Server("scaleout", "1.0", store=backend)

    @app.tool()
    def replica() -> dict[str, Any]:
        """This replica's name and what it served."""
        return {
            "id": name,
            "served": sum(SERVED.values()),
            "resumed": sum(RESUMED.values()),
            "gets": sorted(sid for sid, n in OPEN_GETS.items() if n > 0),
            "listens": sum(OPEN_LISTENS.values()),
            "running": RUNNING["stream"],
        }

    @app.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    @app.tool()
    async def stream(count: int, delay: float, ctx: Context, tag: str = "") -> str:
        """``count`` progress notifications, ``delay`` seconds apart (messages
        ``NAME:STEP``, or ``NAME:STEP:TAG`` given a ``tag``)."""
        suffix = f":{tag}" if tag else ""
        RUNNING["stream"] += 1
        try:
            for i in range(1, count + 1):
                await ctx.progress(i, count, f"{name}:{i}{suffix}")
                await asyncio.sleep(delay)
        finally:
            RUNNING["stream"] -= 1
        return f"streamed {count} on {name}"

    @app.tool()
    async def cut(count: int, delay: float, at: int, ctx: Context) -> str:
        """Like ``stream``, but closes the SSE stream after progress ``at`` (the request
        goes on: the client resumes with ``Last-Event-ID``, through the balancer)."""
        closed = False
        for i in range(1, count + 1):
            await ctx.progress(i, count, f"{name}:{i}")
            if i == at:
                closed = ctx.close_sse_stream()
            await asyncio.sleep(delay)
        return f"cut {count} on {name}" if closed else f"not cut on {name}"

    @app.tool()
    async def push(seq: int, ctx: Context) -> str:
        """``notifications/message`` with ``data: seq`` to this session, related to no
        request (so it travels on the session's GET stream, wherever that is)."""
        params = {"level": "info", "logger": "push", "data": seq}
        await ctx.session.notify("notifications/message", params)
        return name

    @app.tool()
    async def announce(kind: str, uri: str = "", delay: float = 0.2) -> str:
        """After ``delay`` seconds (once this call has answered): the tool list changed
        (``kind="tools"``) or resource ``uri`` was updated (``kind="resource"``)."""

        async def later() -> None:
            await asyncio.sleep(delay)
            if kind == "tools":
                app.notify_list_changed("tools")
            else:
                app.notify_resource_updated(uri)

        task = asyncio.get_running_loop().create_task(later())
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)
        return f"{name} announces {kind}"

    @app.tool()
    async def sample(prompt: str, ctx: Context) -> str:
        """Ask the client's model (sampling)."""
        result = await ctx.sample(prompt, max_tokens=20)
        return f"{name} sampled: {result.content.text}"  # type: ignore[union-attr]

    @app.tool()
    async def ask(question: str, ctx: Context) -> str:
        """Ask the user (elicitation)."""
        answer = await ctx.elicit(
            question, {"type": "object", "properties": {"v": {"type": "string"}}}
        )
        return f"{name} got: {answer.action} {orjson.dumps(answer.content).decode()}"

    @app.tool()
    async def roots(ctx: Context) -> str:
        """The client's roots."""
        listed = await ctx.list_roots()
        return f"{name} roots: " + ",".join(str(r.uri) for r in listed)

    @app.tool()
    def touch(uri: str) -> str:
        """Announce that a resource changed."""
        app.notify_resource_updated(uri)
        return f"{name} touched {uri}"

    @app.tool()
    def changed() -> str:
        """Announce that the tool list changed."""
        app.notify_list_changed("tools")
        return f"{name} announced"

    @app.resource("note://{key}")
    def note(key: str) -> str:
        """A note."""
        return f"note {key}"

    @app.tool(task_support="optional")
    async def slow(seconds: float) -> str:
        """A task-capable tool taking ``seconds``."""
        await asyncio.sleep(seconds)
        return f"{name} slept {seconds}"

    @app.tool()
    async def hold(key: str) -> str:
        """Wait to be cancelled; say in Redis where it started and where it was cancelled."""
        assert backend is not None
        await backend.client.set(f"test:started:{key}", name, ex=60)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.shield(backend.client.set(f"test:cancelled:{key}", name, ex=60))
            raise
        return "not cancelled"

    @app.tool(task_support="optional")
    async def confirm(ctx: Context) -> str:
        """A task that asks the user, then finishes."""
        answer = await ctx.elicit(
            "Go?", {"type": "object", "properties": {"v": {"type": "string"}}}, key="go"
        )
        return f"{name} confirmed: {answer.action}"

    return app


def _header(scope: Any, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def counting(inner: Any) -> Any:
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        method = scope["method"]
        SERVED[method] += 1
        held: tuple[collections.Counter[str], str] | None = None
        if method == "GET":
            if _header(scope, b"last-event-id") is not None:
                RESUMED[method] += 1
            sid = _header(scope, b"mcp-session-id")
            if sid is not None:
                held = (OPEN_GETS, sid)
        elif method == "POST" and _header(scope, b"mcp-method") == "subscriptions/listen":
            held = (OPEN_LISTENS, "listen")
        if held is None:
            await inner(scope, receive, send)
            return
        counter, key = held
        counter[key] += 1
        try:
            await inner(scope, receive, send)
        finally:
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]

    return asgi


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--id", required=True)
    parser.add_argument("--memory", action="store_true", help="no Redis: the memory store")
    args = parser.parse_args()
    app = build(args.id, None if args.memory else args.redis)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    http = app.http_app("/mcp", sse_retry_ms=100)
    async with running(counting(http), host="127.0.0.1", port=args.port):
        print(f"ready {args.id} {args.port}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
