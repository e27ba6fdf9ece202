"""The shared session table: registers, loads, refreshes, routes and deletes 2025-era
sessions in Redis, and keeps this replica's views of them (see :mod:`mcpkit.redis.sessions`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

import orjson

from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject, MessageKind, classify
from mcpkit.lifecycle import Lifecycle, Phase
from mcpkit.logs import session_tag
from mcpkit.redis.backend import StoreUnavailable, unavailable
from mcpkit.redis.session_transport import RedisSessionTransport
from mcpkit.redis.stream_tail import FOLLOW, LOAD, SETTLE, TOUCH, as_text
from mcpkit.transports.http.host import MemorySessionHost

if TYPE_CHECKING:
    from collections.abc import Iterator

    from mcpkit.redis.backend import RedisBackend
    from mcpkit.redis.batch import Batch
    from mcpkit.transports.http.host import SessionHost
    from mcpkit.transports.http.server import StreamableHTTPApp
    from mcpkit.transports.http.session_transport import HttpSessionTransport

__all__ = ["BLOCK", "PRODUCER_DIED_MESSAGE", "SharedSessions", "StoredSession", "shared_sessions"]

logger = logging.getLogger("mcpkit.redis")

#: Server-to-client request ids per view block.
BLOCK: Final = 1 << 32
#: The error message of a request whose replica died before answering.
PRODUCER_DIED_MESSAGE: Final = (
    "The server process handling this request stopped before answering; the request did not "
    "complete (retry it)"
)


class StoredSession(Protocol):
    """What the table stores of a server session and moves on (the server's
    :class:`~mcpkit.server.session.AppSession` is one)."""

    log_level: int

    @property
    def task_owner_key(self) -> str: ...

    @property
    def client_capabilities(self) -> JSONObject: ...

    @property
    def client_info(self) -> JSONObject: ...

    @property
    def lifecycle(self) -> Lifecycle: ...


def _stored(transport: RedisSessionTransport) -> StoredSession | None:
    """The server session a view serves, once started."""
    return cast("StoredSession | None", transport.sink)


class SharedSessions:
    """The shared side of a :class:`~mcpkit.transports.http.server.StreamableHTTPApp`:
    registers, loads, refreshes, routes and deletes sessions in Redis."""

    #: What its methods raise when Redis cannot be reached (the app answers 503).
    unavailable: Final = StoreUnavailable

    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.keys = backend.keys
        self.app: StreamableHTTPApp | None = None
        #: This replica's views of shared sessions (the app's table, once attached).
        self.views = MemorySessionHost()
        backend.router.fixed[self.keys.replica_channel(backend.replica_id)] = self._on_replica
        backend.router.fixed[self.keys.broadcast_channel] = self._on_broadcast
        backend.router.on_reconnect.append(self._resync)
        backend.on_heartbeat.append(self._keep_alive)
        #: Views built here (for operators and tests).
        self.loaded = 0
        self._loading: dict[
            tuple[str, str | None], asyncio.Future[RedisSessionTransport | None]
        ] = {}

    @property
    def ttl_ms(self) -> int:
        return int(self.backend.session_ttl * 1000)

    def attach(self, app: StreamableHTTPApp) -> None:
        """Serve ``app``'s sessions: its table holds this replica's views of them."""
        self.app = app
        self.views = app.table

    # -- the host interface (mcpkit.transports.http.host.SessionHost): this replica's views ----

    def get(self, session_id: str, /) -> HttpSessionTransport | None:
        return self.views.get(session_id)

    def register(self, transport: HttpSessionTransport) -> None:
        self.views.register(transport)

    def forget(self, transport: HttpSessionTransport) -> None:
        self.views.forget(transport)

    def iterate(self) -> Iterator[HttpSessionTransport]:
        return self.views.iterate()

    async def reap(self) -> None:
        await self.views.reap()

    def _client(self) -> Any:
        return self.backend.client

    async def _run(self, coro: Any) -> Any:
        try:
            return await coro
        except StoreUnavailable:
            raise
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    # -- the session hash ----------------------------------------------------------------------

    def new_transport(self, sid: str, **kwargs: Any) -> RedisSessionTransport:
        kwargs.pop("event_store", None)
        return RedisSessionTransport(sid, self, **kwargs)

    async def store(self, transport: RedisSessionTransport) -> None:
        """Store a session just initialized here (its view holds id block 0)."""
        sid = transport.session_id or ""
        sink = _stored(transport)
        if sink is None:
            raise RuntimeError("a shared session is registered once its server session started")
        version = transport.protocol_version
        self.backend.start()
        mapping: dict[str, Any] = {
            "v": version.name if version is not None else "",
            "caps": orjson.dumps(sink.client_capabilities),
            "info": orjson.dumps(sink.client_info),
            "lvl": str(sink.log_level),
            "subs": b"[]",
            "sk": transport.standalone_key,
            "tok": sink.task_owner_key,
            # the owner (mcpkit.owner), checked by every replica that serves the session
            "own": transport.owner or "",
            "blk": "0",
            "b:0": self.backend.replica_id,
            "sseq": "0",
            "sd": "0",
        }
        bus = self.backend.shared_bus
        if bus is not None:  # broadcasts from now on are the session's to hear
            mapping["bp"] = await bus.position()
        pipe = self._client().pipeline(transaction=False)
        pipe.hset(self.keys.session(sid), mapping=mapping)
        # Until a request follows the initialize the session lives initialize_timeout at
        # most (the next request on any replica gives it the full idle TTL).
        pending = self.views.initialize_timeout
        ttl = self.ttl_ms if not pending else min(self.ttl_ms, max(int(pending * 1000), 1))
        pipe.pexpire(self.keys.session(sid), ttl)
        await self._run(pipe.execute())

    async def load(self, sid: str, owner: str | None = None) -> RedisSessionTransport | None:
        """A view of session ``sid`` on this replica for a request of ``owner`` (None: no
        such session, or another owner's: then nothing of it is touched, see
        :mod:`mcpkit.owner`). Concurrent requests of one session share one view (one id
        block: answers find their future)."""
        key = (sid, owner)
        loading = self._loading.get(key)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[RedisSessionTransport | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._loading[key] = future
        try:
            view = await self._load(sid, owner)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters (if any) get it too
            raise
        else:
            future.set_result(view)
            return view
        finally:
            del self._loading[key]

    async def _load(self, sid: str, owner: str | None) -> RedisSessionTransport | None:
        app = self.app
        assert app is not None
        self.backend.start()
        raw = await self._run(
            self._client().eval(
                LOAD,
                2,
                self.keys.session(sid),
                self.keys.streams(sid),
                self.backend.replica_id,
                self.ttl_ms,
                owner or "",
            )
        )
        if not raw:
            return None
        existing = self.views.get(sid)
        if isinstance(existing, RedisSessionTransport) and not existing.closed:
            return existing  # another request loaded it meanwhile
        block = int(raw[0])
        items = [x for x in raw[1]]
        fields = {as_text(k): v for k, v in zip(items[::2], items[1::2], strict=True)}
        from mcpkit import versions

        version = versions.get(as_text(fields.get("v", b"")))
        if version is None:
            return None
        transport = self.new_transport(
            sid,
            max_buffer=app.options.max_stream_buffer,
            retry_ms=app.options.sse_retry_ms,
            on_close=self.views.forget,
            slow_reader_timeout=app.options.slow_reader_timeout,
        )
        transport.adopt_standalone_key(as_text(fields.get("sk", b"")))
        transport.block = block
        transport.owner = as_text(fields.get("own", b"")) or None
        session: Any = app.session_factory(transport)
        await session.start()
        session.assume_initialized(version, orjson.loads(fields.get("caps") or b"{}"))
        session.lifecycle.peer_info = orjson.loads(fields.get("info") or b"{}")
        session._next_id = block * BLOCK
        tok = as_text(fields.get("tok", b""))
        if tok and hasattr(session, "_task_owner_key"):
            session._task_owner_key = tok
        transport.protocol_version = version
        transport.apply_state(fields.get("lvl"), fields.get("subs"), fields.get("sv"))
        self.views.register(transport)
        self.loaded += 1
        return transport

    async def refresh(self, transport: RedisSessionTransport) -> bool:
        """Touch the session (its idle TTL) and take its state; False when it is gone."""
        sid = transport.session_id or ""
        keys, ttl = self.keys, self.ttl_ms

        def touch(pipe: Batch) -> None:
            pipe.eval(TOUCH, 2, keys.session(sid), keys.streams(sid), ttl)

        # Sent with the session's pending writes (one round trip for both).
        raw = await transport.ask(touch)
        if isinstance(raw, BaseException):
            raise unavailable(raw, self.backend.url)
        if not raw:
            return False
        transport.apply_state(raw[0], raw[1], raw[2], raw[3] if len(raw) > 3 else None)
        # The view made by initialize waits for the client's `initialized`, which may have
        # reached another replica: a later request of the session shows it was sent (the
        # views other replicas load start operating), so this one operates too (else it
        # would never carry list changes or resource updates).
        sink = _stored(transport)
        if sink is not None and sink.lifecycle.phase is Phase.INITIALIZING:
            sink.lifecycle.server_initialized()
        return True

    async def delete(self, sid: str) -> None:
        """End session ``sid`` everywhere (DELETE on any replica): its keys go (every one
        named, none scanned; a stream opened meanwhile expires with its TTL) and every
        replica's view closes."""
        client = self._client()
        streams = await self._run(client.hkeys(self.keys.streams(sid)))
        keys = [self.keys.session(sid), self.keys.streams(sid)]
        keys += [self.keys.events(sid, as_text(k)) for k in streams]
        keys.append(self.keys.events(sid, await self._standalone_key(sid)))
        await self._run(client.delete(*keys))
        await self._run(
            client.publish(self.keys.broadcast_channel, orjson.dumps({"s": sid, "x": 1}))
        )

    async def _standalone_key(self, sid: str) -> str:
        view = self.views.get(sid)
        if isinstance(view, RedisSessionTransport):
            return view.standalone_key
        raw = await self._run(self._client().hget(self.keys.session(sid), "sk"))
        return as_text(raw) if raw else "-"

    async def standalone_delivered(self, sid: str) -> int:
        """The standalone stream's sequence number a fresh GET starts after."""
        raw = await self._run(self._client().hget(self.keys.session(sid), "sd"))
        return int(as_text(raw)) if raw else 0

    async def bus_position(self, sid: str) -> str | None:
        """The newest bus log entry session ``sid`` has heard (None: not recorded)."""
        raw = await self._run(self._client().hget(self.keys.session(sid), "bp"))
        return as_text(raw) if raw else None

    async def stream_info(self, sid: str, key: str) -> dict[str, Any] | None:
        raw = await self._run(self._client().hget(self.keys.streams(sid), key))
        if raw is None:
            return None
        value = orjson.loads(raw)
        return value if isinstance(value, dict) else None

    async def read_events(self, sid: str, key: str, after: int) -> list[tuple[Any, Any]]:
        events = await self._run(
            self._client().xrange(self.keys.events(sid, key), min=f"(1-{after}", max="+")
        )
        return list(events)

    async def follow(self, sid: str, key: str) -> int:
        """Ask the producer of request stream ``key`` to publish its events on the
        session's channel, and the other replicas to end their connections of it (this
        replica follows the stream; see ``FOLLOW``): the follow's number (0: none)."""
        keys = self.keys
        number = await self._run(
            self._client().eval(
                FOLLOW,
                2,
                keys.session(sid),
                keys.streams(sid),
                key,
                self.backend.replica_id,
                keys.session_channel(sid),
                "0",
            )
        )
        return int(number or 0)

    async def settle_stream(self, sid: str, key: str) -> None:
        """End a stream whose producer died: an error response for each of its requests."""
        info = await self.stream_info(sid, key)
        if info is None or info.get("end"):
            return
        errors = [
            orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": INTERNAL_ERROR, "message": PRODUCER_DIED_MESSAGE},
                }
            )
            for rid in info.get("ids", [])
        ]
        logger.warning(
            "Replica %s stopped while serving stream %s of session %s: ending its requests",
            info.get("r"),
            key,
            session_tag(sid),
        )
        await self._run(
            self._client().eval(
                SETTLE,
                3,
                self.keys.streams(sid),
                self.keys.events(sid, key),
                self.keys.session(sid),
                key,
                self.backend.stream_maxlen,
                self.ttl_ms,
                self.keys.session_channel(sid),
                *errors,
            )
        )

    # -- routing -------------------------------------------------------------------------------

    async def route_response(self, transport: RedisSessionTransport, msg: Any) -> bool:
        """Deliver a client's answer to the view waiting for it; False when it is this one."""
        rid = msg.get("id")
        if type(rid) is not int or rid // BLOCK == transport.block:
            return False
        sid = transport.session_id or ""
        replica = await self._run(self._client().hget(self.keys.session(sid), f"b:{rid // BLOCK}"))
        if replica is None:
            return False
        target = as_text(replica)
        if target == self.backend.replica_id:
            return False
        await self._run(
            self._client().publish(
                self.keys.replica_channel(target), orjson.dumps({"s": sid, "m": msg})
            )
        )
        return True

    async def broadcast_cancel(self, sid: str, msg: Any) -> None:
        await self._run(
            self._client().publish(self.keys.broadcast_channel, orjson.dumps({"s": sid, "c": msg}))
        )

    def _view(self, sid: Any) -> RedisSessionTransport | None:
        if type(sid) is not str:
            return None
        transport = self.views.get(sid)
        if isinstance(transport, RedisSessionTransport) and not transport.closed:
            return transport
        return None

    def _on_replica(self, data: bytes) -> None:
        try:
            envelope = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        transport = self._view(envelope.get("s"))
        msg = envelope.get("m")
        if transport is None or transport.sink is None or type(msg) is not dict:
            return
        kind, why = classify(msg)
        transport.sink.receive_classified(msg, kind, why)

    def _on_broadcast(self, data: bytes) -> None:
        try:
            envelope = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        transport = self._view(envelope.get("s"))
        if transport is None:
            return
        if envelope.get("x"):
            sink: Any = transport.sink
            transport.spawn(sink.close() if sink is not None else transport.close())
            return
        msg = envelope.get("c")
        if type(msg) is not dict or transport.sink is None:
            return
        params = msg.get("params")
        rid = params.get("requestId") if type(params) is dict else None
        if (type(rid) is str or type(rid) is int) and transport.has_request(rid):
            transport.sink.receive_classified(msg, MessageKind.NOTIFICATION)
            transport.cancel_request(rid)

    def _resync(self) -> None:
        for transport in self.views.iterate():
            if isinstance(transport, RedisSessionTransport):
                transport.resync()

    async def shutdown(self) -> None:
        """This replica stops: withdraw its heartbeat (bounded; an unreachable Redis is
        left to expire it) and close the backend."""
        await self.backend.withdraw()
        with contextlib.suppress(Exception):
            await self.backend.aclose()

    async def _keep_alive(self) -> None:
        """Heartbeat: sessions with open connections here stay alive in Redis."""
        busy = [
            t.session_id
            for t in self.views.iterate()
            if isinstance(t, RedisSessionTransport) and t.connections and t.session_id
        ]
        if not busy:
            return
        pipe = self._client().pipeline(transaction=False)
        for sid in busy:
            pipe.pexpire(self.keys.session(sid), self.ttl_ms)
            pipe.pexpire(self.keys.streams(sid), self.ttl_ms)
        await pipe.execute()


if TYPE_CHECKING:

    def _is_a_host(table: SharedSessions) -> SessionHost:
        return table  # mypy: the shared table implements the host interface


def shared_sessions(backend: RedisBackend) -> SharedSessions:
    """The 2025-era session registry, event log and routing of ``backend`` (one per backend,
    made on first use)."""
    table = backend.session_table
    if table is None:
        table = backend.session_table = SharedSessions(backend)
    return cast("SharedSessions", table)
