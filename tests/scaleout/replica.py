"""One replica of the scale-out test deployment: an mcpkit server on Redis.

``python -m tests.scaleout.replica --port P --redis URL --id NAME`` serves Streamable HTTP
on 127.0.0.1:P with ``store=URL``. Every HTTP request it serves is counted (by method and
JSON-RPC method); the ``replica`` tool returns its name and the counts, so a test can show
that consecutive requests landed on different replicas.
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
        return {"id": name, "served": sum(SERVED.values())}

    @app.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    @app.tool()
    async def stream(count: int, delay: float, ctx: Context) -> str:
        """``count`` progress notifications, ``delay`` seconds apart."""
        for i in range(1, count + 1):
            await ctx.progress(i, count, f"{name}:{i}")
            await asyncio.sleep(delay)
        return f"streamed {count} on {name}"

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


def counting(inner: Any) -> Any:
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            SERVED[scope["method"]] += 1
        await inner(scope, receive, send)

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
