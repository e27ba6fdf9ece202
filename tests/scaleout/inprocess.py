"""Replicas in the test's own process: mcpkit servers sharing one Redis, each served over
Streamable HTTP on a loopback port of its own, so that a test can reach into a replica
(its backend, its bus) while clients talk to it over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcpkit import Server
from mcpkit.redis import RedisBackend
from mcpkit.redis.bus import RedisBus
from mcpkit.transports.http import running
from tests.scaleout.cluster import STORE_SECRET


@contextlib.asynccontextmanager
async def replicas_in_process(
    redis_url: str,
    prefix: str,
    make: Callable[[RedisBackend], Any],
    names: tuple[str, ...] = ("a", "b"),
) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    """One replica per name, ``make(backend)`` (a server on that replica's backend), each
    serving ``/mcp``: their endpoint URLs and backends. The servers stop first, then the
    backends close."""
    backends = [
        RedisBackend(redis_url, prefix=prefix, secret=STORE_SECRET, replica_id=name)
        for name in names
    ]
    async with contextlib.AsyncExitStack() as stack:
        for backend in backends:
            stack.push_async_callback(backend.aclose)
        urls = []
        for backend in backends:
            base = await stack.enter_async_context(running(make(backend).http_app("/mcp")))
            urls.append(f"{base}/mcp")
        yield urls, backends


def announcing_server(backend: RedisBackend) -> Server[Any]:
    """A server on ``backend`` whose tools announce through the bus: ``touch(uri)`` an
    update of the resource ``uri``, ``changed()`` a change of the tool list; its
    ``note://{key}`` resources are there to subscribe to."""
    app: Server[Any] = Server("announcing", store=backend)

    @app.tool()
    def touch(uri: str) -> str:
        """Announce that a resource changed."""
        app.notify_resource_updated(uri)
        return "touched"

    @app.tool()
    def changed() -> str:
        """Announce that the tool list changed."""
        app.notify_list_changed("tools")
        return "announced"

    @app.resource("note://{key}")
    def note(key: str) -> str:
        """A note."""
        return f"note {key}"

    return app


async def until(predicate: Callable[[], bool], what: str) -> None:
    """Wait (20 s at most) for ``predicate`` to hold; ``what`` names it when it does not."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"not reached in time: {what}")
        await asyncio.sleep(0.01)


async def settle() -> None:
    """Let a replica's relay hand what it heard to the sessions (a few loop turns)."""
    for _ in range(20):
        await asyncio.sleep(0.005)


class Gate:
    """Holds the bus-channel messages of one replica until :meth:`release` (then lets
    every later one through)."""

    def __init__(self, backend: RedisBackend) -> None:
        bus = backend.shared_bus
        assert bus is not None
        self.bus: RedisBus = bus
        self._deliver = backend.router.fixed[bus.channel]
        self.held: list[bytes] = []
        self.holding = True
        backend.router.fixed[bus.channel] = self._on_message

    def _on_message(self, data: bytes) -> None:
        if self.holding:
            self.held.append(data)
        else:
            self._deliver(data)

    def release(self) -> None:
        """Hand on every held message at once, in order (one turn of the loop)."""
        self.holding = False
        held, self.held = self.held, []
        for data in held:
            self._deliver(data)


class StateGate:
    """Holds the session-state messages (a new subscription made on another replica) that
    one replica's views of session ``sid`` hear, until :meth:`release`; the replica must
    listen on the session's channel already."""

    def __init__(self, backend: RedisBackend, sid: str) -> None:
        self.held: list[tuple[Callable[[bytes], None], bytes]] = []
        self.holding = True
        router = backend.router
        listeners = router._sessions[sid]
        assert listeners, "the replica listens on the session's channel"
        router._sessions[sid] = {self._gated(callback) for callback in listeners}

    def _gated(self, callback: Callable[[bytes], None]) -> Callable[[bytes], None]:
        def gated(data: bytes) -> None:
            if data[:1] == b"S" and self.holding:
                self.held.append((callback, data))
            else:
                callback(data)

        return gated

    def release(self) -> None:
        """Hand on the held state messages, in order; let every later one through."""
        self.holding = False
        held, self.held = self.held, []
        for callback, data in held:
            callback(data)


class LateListening:
    """Makes one replica's next views of a session wait before they listen on its channel
    (each is loaded, not yet listening) until :meth:`release`; :attr:`waiting` is set once
    one waits."""

    def __init__(self, backend: RedisBackend) -> None:
        self.waiting = asyncio.Event()
        self._release = asyncio.Event()
        router = backend.router
        subscribe_session = router.subscribe_session

        async def late_subscribe(sid: str, callback: Callable[[bytes], None]) -> None:
            self.waiting.set()
            await self._release.wait()  # the view is loaded, not yet listening
            await subscribe_session(sid, callback)

        router.subscribe_session = late_subscribe  # type: ignore[method-assign]

    def release(self) -> None:
        """Let every waiting view listen, and every later one at once."""
        self._release.set()
