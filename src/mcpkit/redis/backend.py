"""The Redis backend: one object configuring every piece of shared state.

``RedisBackend(url)`` owns the connection (``redis.asyncio``), this process's replica id,
its heartbeat, and the one pub/sub connection that carries what replicas tell each other
(:class:`Router`). From it come the shared pieces: :meth:`RedisBackend.bus`,
:meth:`RedisBackend.task_store`, :meth:`RedisBackend.key_ring` and
:meth:`RedisBackend.sessions` (2025-era sessions, their event log and their routing). A
``Server(..., store="redis://...")`` (or ``store=RedisBackend(...)``) wires all of them.

Failures: every command has short connect and read timeouts, so an unreachable Redis
turns into :class:`StoreUnavailable` quickly (the HTTP layer answers 503 with a JSON-RPC
error), and the pub/sub connection reconnects with backoff; when it is back, every stream
tail re-reads what it missed from the event log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit._extras import needs_extra
from mcpkit.errors import McpError
from mcpkit.redis.address import CLUSTER_SCHEMES, SERVER_SCHEMES, StoreAddress
from mcpkit.redis.batch import Batch
from mcpkit.redis.keys import default_prefix, store_secret
from mcpkit.redis.keyspace import Keyspace

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

    from mcpkit.redis.bus import RedisBus
    from mcpkit.redis.lane import Lane
    from mcpkit.redis.tasks import RedisTaskStore
    from mcpkit.server.request_state import KeyRing

__all__ = ["RedisBackend", "Router", "StoreUnavailable", "backend_from"]

logger = logging.getLogger("mcpkit.redis")

#: JSON-RPC code of errors caused by the shared store being unreachable (internal error).
STORE_UNAVAILABLE_CODE: Final = -32603


class StoreUnavailable(McpError):
    """Redis could not be reached (or answered too slowly): the request cannot be served.
    A JSON-RPC internal error (-32603) whose message says so, whoever raises it (a handler
    creating a task, the HTTP layer loading a session)."""

    def __init__(self, message: str) -> None:
        super().__init__(STORE_UNAVAILABLE_CODE, message)


def unavailable(exc: BaseException, url: str) -> StoreUnavailable:
    """The error to raise for a Redis failure ``exc``."""
    return StoreUnavailable(
        f"Shared store unavailable: Redis at {_redact(url)} did not answer ({type(exc).__name__}"
        f"{': ' + str(exc) if str(exc) else ''}); try again shortly"
    )


def _redact(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return scheme + sep + rest


MessageCallback = Callable[[bytes], None]


class Router:
    """This process's pub/sub connection: fixed channels (its replica channel, the broadcast
    channel, the bus) and session channels subscribed while this process holds one of the
    session's SSE connections. Reconnects on failure and then calls every ``on_reconnect``
    callback (tails re-read the event log)."""

    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.fixed: dict[str, MessageCallback] = {}
        self._sessions: dict[str, set[MessageCallback]] = {}
        self._confirm: dict[str, asyncio.Future[None]] = {}
        #: Per session being subscribed: whether that subscription succeeded, once known.
        self._pending: dict[str, asyncio.Future[bool]] = {}
        self._pubsub: PubSub | None = None
        #: The client owning the pub/sub connection when it is not the command client's
        #: (a Redis Cluster: one node's connection).
        self._pubsub_owner: Any = None
        self._attempt = secrets.randbelow(1 << 16)  # replicas spread over a cluster's seeds
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.connected = asyncio.Event()
        self.on_reconnect: list[Callable[[], None]] = []

    def start(self) -> None:
        # Always one channel to subscribe to: this replica's own.
        self.fixed.setdefault(self.backend.keys.replica_channel(self.backend.replica_id), _ignore)
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._loop is loop:
            return
        self._loop = loop
        self.connected = asyncio.Event()
        self._confirm.clear()
        self._task = loop.create_task(self._run(), name="mcpkit-redis-router")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await self._drop_pubsub()

    async def _drop_pubsub(self) -> None:
        ps, self._pubsub = self._pubsub, None
        owner, self._pubsub_owner = self._pubsub_owner, None
        if ps is not None:
            with contextlib.suppress(Exception):
                await ps.aclose()
        if owner is not None:
            with contextlib.suppress(Exception):
                await owner.aclose()

    def _open_pubsub(self) -> PubSub:
        backend = self.backend
        owner = backend.address.pubsub_client(
            self._attempt, connect_timeout=backend.connect_timeout
        )
        self._attempt += 1
        self._pubsub_owner = owner
        ps: PubSub = (owner if owner is not None else backend.client).pubsub()
        return ps

    def _channels(self) -> list[str]:
        return [*self.fixed, *(self.backend.keys.session_channel(s) for s in self._sessions)]

    async def _run(self) -> None:
        delay = 0.05
        first = True
        while True:
            try:
                ps = self._open_pubsub()
                self._pubsub = ps
                channels = self._channels()
                await ps.subscribe(*channels)
                # Sessions dropped while that was on its way are not kept subscribed.
                dropped = set(channels).difference(self._channels())
                if dropped:
                    await ps.unsubscribe(*dropped)
                self.connected.set()
                if not first:
                    logger.info("Redis pub/sub reconnected: resynchronising stream tails")
                    for callback in list(self.on_reconnect):
                        try:
                            callback()
                        except Exception:
                            logger.exception("Reconnect callback failed")
                first = False
                delay = 0.05
                await self._read(ps)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.connected.is_set():
                    logger.warning("Redis pub/sub connection lost (%s): reconnecting", exc)
                self.connected.clear()
                for future in self._confirm.values():
                    if not future.done():
                        future.set_exception(unavailable(exc, self.backend.url))
                self._confirm.clear()
                await self._drop_pubsub()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                first = False

    async def _read(self, ps: PubSub) -> None:
        prefix = self.backend.keys.prefix + ":s:{"
        while True:
            msg = await ps.get_message(timeout=5.0)
            if msg is None:
                continue
            kind = msg["type"]
            channel = msg["channel"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            if kind == "subscribe":
                future = self._confirm.pop(channel, None)
                if future is not None and not future.done():
                    future.set_result(None)
                continue
            if kind != "message":
                continue
            data = msg["data"]
            callback = self.fixed.get(channel)
            if callback is not None:
                _call(callback, data)
                continue
            if channel.startswith(prefix):
                sid = channel[len(prefix) : -1]
                for cb in list(self._sessions.get(sid, ())):
                    _call(cb, data)

    async def subscribe_session(self, sid: str, callback: MessageCallback) -> None:
        """Receive the messages of session ``sid``'s channel; returns once subscribed (so a
        read of the event log made after this misses nothing)."""
        self.start()
        try:
            await self._add_listener(sid, callback)
        except BaseException:
            # Given up (failed, or the caller cancelled): no listener left behind, and
            # the channel is dropped unless someone else listens on it.
            self.unsubscribe_session(sid, callback)
            raise

    async def _add_listener(self, sid: str, callback: MessageCallback) -> None:
        channel = self.backend.keys.session_channel(sid)
        listeners = self._sessions.get(sid)
        if listeners is not None and listeners:
            listeners.add(callback)
            pending = self._pending.get(sid)
            # Another caller is subscribing the channel: back once it is (or, when that
            # failed or was cancelled, once this caller subscribed it itself).
            if pending is not None and not await asyncio.shield(pending):
                # (That caller's listener went with it, maybe this one too: the same.)
                self._sessions.setdefault(sid, set()).add(callback)
                await self._subscribe(channel)
            return
        self._sessions[sid] = {callback}
        pending = self._pending[sid] = asyncio.get_running_loop().create_future()
        subscribed = False
        try:
            await self._subscribe(channel)
            subscribed = True
        finally:
            pending.set_result(subscribed)
            if self._pending.get(sid) is pending:
                del self._pending[sid]

    async def _subscribe(self, channel: str) -> None:
        timeout = self.backend.command_timeout
        try:
            async with asyncio.timeout(timeout):
                await self.connected.wait()
        except TimeoutError as exc:
            raise unavailable(exc, self.backend.url) from None
        ps = self._pubsub
        if ps is None:
            raise unavailable(ConnectionError("pub/sub not connected"), self.backend.url)
        loop = asyncio.get_running_loop()
        future = self._confirm.get(channel)
        if future is None:
            future = self._confirm[channel] = loop.create_future()
        try:
            async with asyncio.timeout(timeout):
                await ps.subscribe(channel)
                await asyncio.shield(future)
        except TimeoutError as exc:
            raise unavailable(exc, self.backend.url) from None
        except StoreUnavailable:
            raise
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    async def ready(self) -> None:
        """Start, and wait until the fixed channels are subscribed (StoreUnavailable when
        Redis does not answer within ``command_timeout``)."""
        self.start()
        try:
            async with asyncio.timeout(self.backend.command_timeout * 2):
                await self.connected.wait()
        except TimeoutError as exc:
            raise unavailable(exc, self.backend.url) from None

    def unsubscribe_session(self, sid: str, callback: MessageCallback) -> None:
        listeners = self._sessions.get(sid)
        if listeners is None:
            return
        listeners.discard(callback)
        if listeners:
            return
        del self._sessions[sid]
        ps = self._pubsub
        if ps is not None and self.connected.is_set() and self._loop is not None:
            self._loop.create_task(_quiet(self._unsubscribe(ps, sid)))

    async def _unsubscribe(self, ps: PubSub, sid: str) -> None:
        # Not when the session was taken again meanwhile: its SUBSCRIBE may already be on
        # the wire, and this UNSUBSCRIBE after it would leave the channel unheard.
        if sid not in self._sessions:
            await ps.unsubscribe(self.backend.keys.session_channel(sid))


def _ignore(data: bytes) -> None:
    """A channel nobody here handles yet."""


def _call(callback: MessageCallback, data: Any) -> None:
    try:
        callback(data if isinstance(data, bytes) else str(data).encode())
    except Exception:
        logger.exception("Redis message handler failed")


async def _quiet(awaitable: Awaitable[Any]) -> None:
    with contextlib.suppress(Exception):
        await awaitable


class RedisBackend:
    """mcpkit's shared state on Redis (the ``redis`` extra).

    ``url``: ``redis://host:port/db`` (or ``rediss://``, ``unix://``) for one server,
    ``redis+cluster://host:port,host:port/`` (or ``rediss+cluster://``) for a Redis Cluster
    reached through those seed nodes (``cluster=True`` reads a ``redis://`` URL as a seed;
    see :mod:`mcpkit.redis.address`); ``prefix`` of every key and channel; ``replica_id``
    (default random) names this process; ``session_ttl`` (seconds a 2025 session lives
    idle); ``stream_maxlen`` (events kept per SSE stream); ``bus_log_maxlen`` (bus events
    kept for 2025 sessions with no GET stream open: one that missed more is told every list
    and subscribed resource changed); ``heartbeat_interval``/``heartbeat_ttl`` (seconds: how
    often this replica says it is alive, and how soon after it stops it counts as dead:
    requests and tasks it ran then end with an error); ``connect_timeout``/``command_timeout``
    (seconds before an unreachable Redis fails a request); ``max_connections`` (connections
    to Redis at most, per node of a cluster: commands beyond them wait for one, up to
    ``command_timeout``); ``request_state_keys`` (base64
    keys sealing MRTR ``requestState``; default: a ring kept in Redis, made by the first
    replica and wrapped with ``secret``).

    ``secret`` (default the ``MCPKIT_STORE_SECRET`` environment variable): the deployment's
    secret, the same on every replica and different for every deployment (see
    :mod:`mcpkit.redis.keys`). It wraps the sealing keys kept in Redis and, unless ``prefix``
    is given, names the key prefix (``mcpkit:<server name>:<tag of the secret>``, fixed
    when a :class:`~mcpkit.Server` attaches the backend). Without it a backend needs an
    explicit ``prefix``, and a server on it an explicit ``request_state_keys``
    (:class:`~mcpkit.redis.keys.StoreSecretMissing` otherwise).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        cluster: bool = False,
        prefix: str | None = None,
        secret: str | bytes | None = None,
        replica_id: str | None = None,
        session_ttl: float = 1800.0,
        stream_maxlen: int = 4096,
        bus_log_maxlen: int = 1024,
        heartbeat_interval: float = 1.0,
        heartbeat_ttl: float = 4.0,
        connect_timeout: float = 1.0,
        command_timeout: float = 2.0,
        max_connections: int = 256,
        request_state_keys: str | None = None,
    ) -> None:
        try:
            import redis.asyncio  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise needs_extra("RedisBackend", "redis", exc.name) from exc
        if heartbeat_ttl <= heartbeat_interval:
            raise ValueError("heartbeat_ttl must be longer than heartbeat_interval")
        self.url = url
        #: Where the store is (one server or a cluster), parsed from ``url``.
        self.address = StoreAddress.parse(url, cluster=cluster)
        #: The deployment secret (None: not given, see :mod:`mcpkit.redis.keys`).
        self.secret = store_secret(secret)
        self._fixed_prefix = prefix is not None
        self.keys = Keyspace(prefix if prefix is not None else default_prefix(self.secret))
        self.replica_id = replica_id or secrets.token_hex(4)
        self.session_ttl = session_ttl
        self.stream_maxlen = stream_maxlen
        self.bus_log_maxlen = bus_log_maxlen
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_ttl = heartbeat_ttl
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self.max_connections = max_connections
        self.request_state_keys = request_state_keys
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lane: Lane | None = None
        self._lane_loop: asyncio.AbstractEventLoop | None = None
        self.router = Router(self)
        self._heartbeat: asyncio.Task[None] | None = None
        #: Called on every heartbeat (task leases renew here).
        self.on_heartbeat: list[Callable[[], Awaitable[None]]] = []
        self._bus: RedisBus | None = None
        self._tasks: RedisTaskStore | None = None
        #: The shared session table over this backend, once made (by
        #: :func:`mcpkit.redis.sessions.shared_sessions`, one per backend).
        self.session_table: Any = None

    def attach(self, name: str) -> None:
        """Name the deployment after the server ``name`` it stores: unless ``prefix`` was
        given, every key is then under ``mcpkit:<name>:<tag of the secret>``. Called by
        :class:`~mcpkit.Server` before anything uses the backend; RuntimeError when its
        bus, task store or sessions were already made under another prefix."""
        if self._fixed_prefix:
            return
        prefix = default_prefix(self.secret, name)
        if prefix == self.keys.prefix:
            return
        if self._bus is not None or self._tasks is not None or self.session_table is not None:
            raise RuntimeError(
                "this RedisBackend is already in use under another prefix: attach it to its "
                "server before using it, or give it prefix="
            )
        self.keys = Keyspace(prefix)

    def __repr__(self) -> str:
        return f"RedisBackend({_redact(self.url)!r}, replica_id={self.replica_id!r})"

    @property
    def cluster(self) -> bool:
        """True when the store is a Redis Cluster."""
        return self.address.cluster

    @property
    def client(self) -> Any:
        """The asyncio client of the running loop, made on first use: a
        ``redis.asyncio.Redis``, or a ``redis.asyncio.cluster.RedisCluster`` on a cluster
        (the same commands; every multi-key command and script of mcpkit stays in one slot).
        """
        loop = asyncio.get_running_loop()
        client = self._client
        if client is None or self._loop is not loop:
            client = self._client = self.address.async_client(
                connect_timeout=self.connect_timeout,
                command_timeout=self.command_timeout,
                max_connections=self.max_connections,
            )
            self._loop = loop
        return client

    async def run_batch(self, batch: Batch) -> list[Any]:
        """Run ``batch`` in one round trip: the replies in order, error replies in place
        (as exceptions). On one server without TLS through this process's
        :class:`~mcpkit.redis.lane.Lane`, else through a pipeline of :attr:`client`."""
        loop = asyncio.get_running_loop()
        if self._lane_loop is not loop:
            self._lane_loop = loop
            old, self._lane = self._lane, None
            if old is not None:
                with contextlib.suppress(Exception):
                    old.close()
            if not self.cluster:
                from mcpkit.redis.lane import Lane

                self._lane = Lane.for_url(
                    self.url,
                    connect_timeout=self.connect_timeout,
                    command_timeout=self.command_timeout,
                )
        lane = self._lane
        if lane is not None:
            return await lane.run(batch.commands)
        pipe = self.client.pipeline(transaction=False)
        for command in batch.commands:
            pipe.execute_command(*command)
        replies: list[Any] = await pipe.execute(raise_on_error=False)
        return replies

    async def run(self, *command: Any) -> Any:
        """Run one command as :meth:`run_batch` does and return its reply (an error reply
        raised)."""
        batch = Batch()
        batch.commands.append(command)
        (reply,) = await self.run_batch(batch)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def start(self) -> None:
        """Start the router and the heartbeat on the running loop (idempotent)."""
        self.router.start()
        hb = self._heartbeat
        if hb is None or hb.done() or hb.get_loop() is not asyncio.get_running_loop():
            self._heartbeat = asyncio.get_running_loop().create_task(
                self._beat(), name="mcpkit-redis-heartbeat"
            )

    async def _beat(self) -> None:
        key = self.keys.alive(self.replica_id)
        ttl_ms = int(self.heartbeat_ttl * 1000)
        while True:
            try:
                await self.client.set(key, b"1", px=ttl_ms)
                for hook in list(self.on_heartbeat):
                    await hook()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.debug("Heartbeat failed: %s", exc)
            await asyncio.sleep(self.heartbeat_interval)

    async def is_alive(self, replica: str) -> bool:
        """Whether replica ``replica`` sent a heartbeat within ``heartbeat_ttl``."""
        if replica == self.replica_id:
            return True
        return bool(await self.client.exists(self.keys.alive(replica)))

    def bus(self) -> RedisBus:
        """The notification bus shared by every replica (one per backend)."""
        if self._bus is None:
            from mcpkit.redis.bus import RedisBus

            self._bus = RedisBus(self)
        return self._bus

    @property
    def shared_bus(self) -> RedisBus | None:
        """The bus made by :meth:`bus`, if the server uses it (None: it has a bus of its
        own, and 2025 sessions then do not catch up on missed broadcasts)."""
        return self._bus

    def task_store(self) -> RedisTaskStore:
        """The task store shared by every replica (one per backend)."""
        if self._tasks is None:
            from mcpkit.redis.tasks import RedisTaskStore

            self._tasks = RedisTaskStore(self)
        return self._tasks

    def key_ring(self) -> KeyRing:
        """The MRTR sealing keys every replica shares: ``request_state_keys`` when given,
        else the ring kept in Redis (the first replica to ask makes it). Reads Redis
        synchronously, once (call it at start-up)."""
        from mcpkit.redis.keys import shared_key_ring

        return shared_key_ring(self)

    async def ready(self) -> None:
        """Start on the running loop and wait for the pub/sub connection (what a server
        does at start-up, so that nothing published from then on is missed)."""
        self.start()
        await self.router.ready()

    async def withdraw(self) -> None:
        """Stop heart-beating and delete this replica's heartbeat at once (bounded by
        ``command_timeout``): other replicas then treat what it ran as ended."""
        hb, self._heartbeat = self._heartbeat, None
        if hb is not None:
            hb.cancel()
            with contextlib.suppress(BaseException):
                await hb
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.command_timeout):
                await self.client.delete(self.keys.alive(self.replica_id))

    async def aclose(self) -> None:
        """Stop the router and heartbeat and close the connection (bounded: a shutdown
        never waits on an unreachable Redis for more than twice ``command_timeout``)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.command_timeout * 2):
                await self._close()

    async def _close(self) -> None:
        hb, self._heartbeat = self._heartbeat, None
        if hb is not None:
            hb.cancel()
            with contextlib.suppress(BaseException):
                await hb
        await self.router.stop()
        lane, self._lane, self._lane_loop = self._lane, None, None
        if lane is not None:
            lane.close()
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()


def backend_from(store: str | RedisBackend) -> RedisBackend:
    """``store`` as a backend: a ``redis://`` / ``rediss://`` / ``unix://`` URL, a
    ``redis+cluster://`` / ``rediss+cluster://`` URL, or a :class:`RedisBackend` as it is."""
    if isinstance(store, RedisBackend):
        return store
    if isinstance(store, str) and store.split("://", 1)[0] in (*SERVER_SCHEMES, *CLUSTER_SCHEMES):
        return RedisBackend(store)
    raise ValueError(
        "store must be 'memory', a redis:// or redis+cluster:// URL or a RedisBackend, "
        f"not {store!r}"
    )
