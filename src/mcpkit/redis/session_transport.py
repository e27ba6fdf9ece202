"""The transport of one replica's view of a shared 2025-era session: every SSE event goes
to the session's Redis streams before it is sent, and each connection is a
:class:`~mcpkit.redis.stream_tail.Tail` of one stream (see :mod:`mcpkit.redis.sessions`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

import orjson

from mcpkit.bus import BusEvent, announcing
from mcpkit.jsonrpc import JSONObject, RequestId
from mcpkit.redis.backend import StoreUnavailable
from mcpkit.redis.batch import Batch
from mcpkit.redis.bus import stream_id
from mcpkit.redis.stream_tail import (
    ADVANCE,
    END,
    EVENT,
    FOLLOW,
    OPEN,
    STANDALONE,
    STATE,
    Tail,
    as_text,
    op_result,
)
from mcpkit.transports.base import TransportInfo
from mcpkit.transports.http import sse
from mcpkit.transports.http.session_transport import (
    HttpSessionTransport,
    SSEConnection,
    _related_task,
    _Stream,
)

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["RedisSessionTransport", "ServedSession", "SessionTable"]

logger = logging.getLogger("mcpkit.redis")

#: Seconds a request stream's registration waits to share the round trip of the stream's
#: first event (a request answered sooner costs one round trip for both; the priming
#: event of a slower one is sent this much later).
PRIME_DELAY: Final = 0.005

_UPDATED: Final = "notifications/resources/updated"
_BUS_METHODS: Final = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
    }
)


class _Negotiated(Protocol):
    @property
    def capabilities(self) -> JSONObject: ...


class ServedSession(Protocol):
    """What a view keeps in step of the server session it feeds (the server's
    :class:`~mcpkit.server.session.AppSession` is one): its log level and resource
    subscriptions, and the capabilities it declared."""

    log_level: int

    @property
    def subscriptions(self) -> set[str]: ...

    @subscriptions.setter
    def subscriptions(self, uris: set[str]) -> None: ...

    @property
    def lifecycle(self) -> _Negotiated: ...


class SessionTable(Protocol):
    """What a view reads and asks of the shared session table it belongs to
    (:class:`~mcpkit.redis.session_table.SharedSessions` is the one)."""

    @property
    def backend(self) -> RedisBackend: ...

    @property
    def ttl_ms(self) -> int: ...

    async def refresh(self, transport: RedisSessionTransport) -> bool: ...

    async def standalone_delivered(self, sid: str) -> int: ...

    async def bus_position(self, sid: str) -> str | None: ...

    async def stream_info(self, sid: str, key: str) -> dict[str, Any] | None: ...

    async def settle_stream(self, sid: str, key: str) -> None: ...

    async def read_events(self, sid: str, key: str, after: int) -> list[tuple[Any, Any]]: ...

    async def follow(self, sid: str, key: str) -> int: ...


class RedisSessionTransport(HttpSessionTransport):
    """The transport of one replica's view of a shared session (see module docstring)."""

    def __init__(self, session_id: str, shared: SessionTable, **kwargs: Any) -> None:
        super().__init__(session_id, **kwargs)
        self.shared = shared
        self.info = TransportInfo("http", session_id, True)
        self._delivering = False
        #: The server-to-client id block of this view.
        self.block = 0
        self._tails: dict[str, list[Tail]] = {}
        self._ops: list[tuple[Callable[[Batch], None], Callable[[Any], None] | None]] = []
        self._flushing = False
        #: A deferred write waits for its timer (see ``_enqueue``).
        self._deferred = False
        self._subscribed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self.synced: tuple[int, frozenset[str]] = (0, frozenset())
        #: The version of the stored state :attr:`synced` reflects (see ``STATE``).
        self.state_version = 0
        #: The bus position the next GET-stream write records (a bus notification's).
        self._bus_mark: str | None = None
        #: Bus notifications heard since a GET stream opened, until its catch-up has read
        #: the bus log: (method, uri, bus log entry or None). They are not sent as they
        #: come but with the catch-up, coalesced into it (see ``_catch_up``).
        self._held_bus: list[tuple[str, str | None, str | None]] | None = None
        #: GET streams opened on this view so far: a catch-up of one superseded by a
        #: newer one leaves the sending to the newer one's (see ``_catch_up``).
        self._opened = 0
        #: The newest bus entry a catch-up has accounted for (as ``stream_id``): a
        #: broadcast heard later whose own entry is no newer was in that catch-up already
        #: (its pub/sub message came late), and is not sent twice.
        self._caught_up: tuple[int, int] | None = None
        #: Request-stream resumptions here so far: a connection opened by a later one is
        #: not ended by what an earlier follower did (see ``_taken_over``).
        self._epoch = 0
        #: The newest follow heard of each request stream followed here (see ``FOLLOW``).
        self._follows: dict[str, int] = {}
        #: Updates re-read from the bus log for URIs newly subscribed (see ``apply_state``):
        #: by URI, the newest bus entry that read covers (its updates heard live up to
        #: that entry were sent by it).
        self._recovered: dict[str, tuple[int, int]] = {}

    @property
    def session(self) -> ServedSession | None:
        """The server session this view serves, once started (the server starts every
        session of its table with its own session as the sink)."""
        return cast("ServedSession | None", self.sink)

    @property
    def standalone_key(self) -> str:
        """The key of the session's standalone (GET) stream."""
        return self._standalone.key

    def adopt_standalone_key(self, key: str) -> None:
        """Name the standalone stream as the session hash does (a view loaded on a replica
        other than the one that made the session; empty: keep its own)."""
        standalone = self._standalone
        del self._streams[standalone.key]
        standalone.key = key or standalone.key
        self._streams[standalone.key] = standalone

    # -- background work -----------------------------------------------------------------------

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _enqueue(
        self,
        add: Callable[[Batch], None],
        done: Callable[[Any], None] | None = None,
        *,
        defer: bool = False,
    ) -> None:
        """Queue a write for the session's next round trip; ``defer``: it may wait up to
        ``PRIME_DELAY`` for another write to share that round trip."""
        self._ops.append((add, done))
        if self._flushing:
            return
        if defer:
            if not self._deferred:
                self._deferred = True
                asyncio.get_running_loop().call_later(PRIME_DELAY, self._flush_deferred)
            return
        self._flushing = True
        self.spawn(self._flush())

    def _flush_deferred(self) -> None:
        self._deferred = False
        if self._ops and not self._flushing:
            self._flushing = True
            self.spawn(self._flush())

    async def ask(self, add: Callable[[Batch], None]) -> Any:
        """Run the command(s) ``add`` puts in a pipeline with the session's pending writes
        (one round trip for both) and return the result (the failure, if any, as it is)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        self._enqueue(add, done)
        return await future

    async def _flush(self) -> None:
        try:
            while self._ops:
                ops, self._ops = self._ops, []
                outcome: list[Any]
                try:
                    batch = Batch()
                    spans: list[tuple[int, int]] = []
                    for add, _ in ops:
                        start = len(batch)
                        add(batch)
                        spans.append((start, len(batch)))
                    replies = await self.shared.backend.run_batch(batch)
                    outcome = [op_result(replies[a:b]) for a, b in spans]
                except Exception as exc:
                    logger.warning("Event log write failed (%s): sending without resumability", exc)
                    outcome = [exc] * len(ops)
                for (_, done), result in zip(ops, outcome, strict=True):
                    if done is not None:
                        try:
                            done(result)
                        except Exception:
                            logger.exception("Event log callback failed")
        finally:
            self._flushing = False

    # -- session state -------------------------------------------------------------------------

    def _sync_state(self) -> None:
        """Write the view's log level and subscriptions back when a handler changed them."""
        sink = self.session
        if sink is None:
            return
        state = (sink.log_level, frozenset(sink.subscriptions))
        if state == self.synced:
            return
        self.synced = state
        sid = self.session_id or ""
        keys = self.shared.backend.keys
        subs = orjson.dumps(sorted(state[1]))
        level = str(state[0])
        bus = self.shared.backend.shared_bus
        position = (bus.last_id if bus is not None else None) or ""

        def add(pipe: Batch) -> None:
            # The new state rides along, versioned: the GET stream's holder applies it as it
            # hears it, so a resource update published right after a subscribe is not missed.
            pipe.eval(STATE, 1, keys.session(sid), level, subs, keys.session_channel(sid), position)

        self._enqueue(add)

    def apply_state(self, level: Any, subs: Any, version: Any = None, position: Any = None) -> None:
        """Take the log level and subscriptions stored in Redis into the view, unless the
        view already has a newer ``version`` of them. ``position``: the bus position the
        replica that wrote them had heard.

        The state and the bus events come on different channels, which a Redis Cluster
        relays from different nodes, unordered: the GET stream's holder may hear an update
        of a URI before it hears that the session subscribed to it (on another replica,
        answered before the change was made). So when a URI is newly subscribed here and
        this replica heard bus events after ``position``, their updates of that URI are
        re-read from the bus log and sent: those up to the newest entry accounted for here
        (heard, or read from the log by a catch-up: a live one no newer is dropped as sent
        by it). A catch-up still to read the log reads them itself, with the new
        subscriptions."""
        sink = self.session
        if sink is None:
            return
        ver = int(as_text(version)) if version else 0
        if ver < self.state_version:
            return
        self.state_version = ver
        lvl = int(as_text(level)) if level else 0
        uris = frozenset(orjson.loads(subs)) if subs else frozenset()
        added = uris.difference(sink.subscriptions)
        sink.log_level = lvl
        sink.subscriptions = set(uris)
        self.synced = (lvl, uris)
        _reread_for(self, uris, added, as_text(position) if position else "")

    # -- writing events ------------------------------------------------------------------------

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if type(message) is dict and "method" not in message:
            self._sync_state()  # before the response: its effect is stored when it is seen
        super().write(message, related_request_id)

    def _prime(self, stream: _Stream, conn: SSEConnection, pending: int = 0) -> None:
        sid = self.session_id
        if sid is None or stream.standalone:
            return
        tail = self._add_tail(stream.key, conn, stream.seq)
        if stream.primed:
            return
        stream.primed = True
        shared = self.shared
        keys = shared.backend.keys
        info = orjson.dumps(
            {"r": shared.backend.replica_id, "ids": sorted(stream.request_ids, key=str)}
        )
        ttl = shared.ttl_ms
        version = self.protocol_version
        priming = version is not None and version.sse_polling
        key = stream.key

        def add(pipe: Batch) -> None:
            pipe.eval(OPEN, 1, keys.streams(sid), key, info, ttl)

        def done(result: Any) -> None:
            if priming and tail.live and tail.last == 0:
                conn.push(sse.encode_event(None, f"{key}-0", retry=self.retry_ms))

        # A quick answer registers its stream in the round trip of its first event.
        self._enqueue(add, done, defer=True)

    def delivered(self, key: str, seq: int) -> None:
        """A standalone event reached a live GET connection: a later fresh GET starts
        after it (what was produced while no GET stream was open is sent on the next)."""
        if key != self._standalone.key or self._delivering:
            return
        self._delivering = True
        sid = self.session_id or ""
        keys = self.shared.backend.keys

        def add(pipe: Batch) -> None:
            self._delivering = False
            last = max((t.last for t in self._tails.get(key, ())), default=seq)
            pipe.hset(keys.session(sid), "sd", str(last))

        self._enqueue(add)

    def _add_tail(self, key: str, conn: SSEConnection, last: int) -> Tail:
        tail = Tail(self, key, conn, last)
        tail.epoch = self._epoch
        self._tails.setdefault(key, []).append(tail)
        return tail

    def _emit(self, stream: _Stream, data: bytes) -> None:
        sid = self.session_id
        if sid is None:
            super()._emit(stream, data)
            return
        shared = self.shared
        keys = shared.backend.keys
        channel = keys.session_channel(sid)
        ttl = shared.ttl_ms
        maxlen = shared.backend.stream_maxlen
        key = stream.key
        if stream.standalone:
            events = keys.events(sid, key)
            mark, self._bus_mark = self._bus_mark or "", None

            def add_standalone(pipe: Batch) -> None:
                pipe.eval(
                    STANDALONE,
                    3,
                    keys.session(sid),
                    keys.streams(sid),
                    events,
                    maxlen,
                    ttl,
                    data,
                    channel,
                    key,
                    mark,
                )

            def done_standalone(result: Any) -> None:
                if isinstance(result, int):
                    self._offer(key, result, data)
                else:
                    logger.warning("Dropping a message for the GET stream: %s", result)

            self._enqueue(add_standalone, done_standalone)
            return
        stream.seq += 1
        seq = stream.seq
        events = keys.events(sid, key)
        session = keys.session(sid)

        def add(pipe: Batch) -> None:
            pipe.eval(EVENT, 2, events, session, maxlen, ttl, seq, data, channel, key)

        epoch = self._epoch

        def done(result: Any) -> None:
            followed = result and not isinstance(result, BaseException)
            if followed and as_text(result).partition(" ")[2] != shared.backend.replica_id:
                # Delivered by the replica following the stream; this replica's
                # connections of it, all older than the event, end.
                self._taken_over(key, epoch)
                return
            self._offer(key, seq, data, force=isinstance(result, BaseException))

        self._enqueue(add, done)

    def _taken_over(self, key: str, epoch: int) -> None:
        """Stream ``key`` moved to another connection: this replica's connections of it
        opened by ``epoch`` end, as a single server's old connection does when a stream is
        resumed."""
        ended = set()
        for tail in self._tails.get(key, ()):
            if tail.epoch <= epoch and tail.live:
                tail.conn.finish()
                ended.add(tail.conn)
        local = self._streams.get(key)
        if local is not None and (local.conn is None or local.conn in ended):
            local.conn = None
            self._resumed(local)  # producers waiting for a resumption go on

    def _offer(self, key: str, seq: int, data: bytes | None, *, force: bool = False) -> None:
        for tail in self._tails.get(key, ()):
            if force and data is not None and tail.live:
                tail.last = max(tail.last, seq)
                tail.conn.push(sse.encode_event(data, f"{key}-{seq}"), replay=True)
                continue
            tail.offer(seq, data)

    def _end_stream(self, stream: _Stream) -> None:
        self._streams.pop(stream.key, None)
        self._resumed(stream)
        if stream.tasks is not None:
            for task_id in stream.tasks:
                if self._task_streams.get(task_id) is stream:
                    del self._task_streams[task_id]
        stream.conn = None
        sid = self.session_id
        if sid is None:
            return
        keys = self.shared.backend.keys
        key = stream.key
        seq = stream.seq + 1
        events = keys.events(sid, key)
        info = orjson.dumps({"r": self.shared.backend.replica_id, "end": 1})
        streams, session = keys.streams(sid), keys.session(sid)
        channel = keys.session_channel(sid)
        maxlen = self.shared.backend.stream_maxlen
        ttl = self.shared.ttl_ms

        def add(pipe: Batch) -> None:
            # The end marker may be the stream's first entry (a request cancelled before it
            # answered): the log gets its TTL here too.
            pipe.eval(END, 3, events, streams, session, maxlen, ttl, seq, key, info, channel)

        def done(result: Any) -> None:
            for tail in self._tails.get(key, ()):
                tail.offer(seq, None)
                if tail.live and (isinstance(result, BaseException) or tail.last >= seq - 1):
                    tail.conn.finish()

        self._enqueue(add, done)

    def _unrelated(self, message: Any, data: bytes) -> None:
        # A broadcast reaches every replica's view: the GET stream's holder sends it (and
        # records how far the session has heard the bus; see the module docstring). The
        # same notification sent to this session alone (a list its own ctx.enable or
        # ctx.disable changed) is written once, by the view that sends it: it goes to the
        # GET stream through the log below, as any other message does.
        method = message.get("method") if type(message) is dict else None
        event = announcing.get() if method in _BUS_METHODS else None
        if event is not None and event.method == method:
            params = message.get("params")
            uri = params.get("uri") if type(params) is dict else None
            if uri == event.uri:
                _broadcast(self, event, uri, data)
                return
        # Nothing is held for a later tasks/result here: that may reach another replica.
        # A task's message goes on its tasks/result stream when this replica serves one,
        # else on the GET stream (kept in the log until one is open, on any replica).
        task_id = _related_task(message) if type(message) is dict else None
        if task_id is not None:
            stream = self._task_streams.get(task_id)
            if stream is not None:
                self._emit(stream, data)
                return
        self._emit(self._standalone, data)

    def _holds_standalone(self) -> bool:
        return any(t.live for t in self._tails.get(self._standalone.key, ()))

    # -- connections ---------------------------------------------------------------------------

    def open_standalone(self, conn: SSEConnection) -> None:
        stream = self._standalone
        old = stream.conn
        if old is not None and old is not conn:
            old.finish()
        self._attach(stream, conn)
        self.spawn(self._tail_standalone(conn, self._open_standalone()))

    def _open_standalone(self) -> int:
        """A GET stream opens: hold the bus notifications heard until its catch-up has
        read the log (those held for an older stream's catch-up, still reading, too)."""
        if self._held_bus is None:
            self._held_bus = []
        self._opened += 1
        return self._opened

    async def _tail_standalone(self, conn: SSEConnection, opened: int) -> None:
        try:
            delivered = await self.shared.standalone_delivered(self.session_id or "")
        except StoreUnavailable as exc:
            logger.warning("Cannot open the GET stream: %s", exc)
            conn.abort()
            if self._opened == opened:
                self._held_bus = None
            return
        listening = self._subscribed
        await self._start_tail(self._standalone.key, conn, delivered)
        await _take_state(self, listening)
        self._release_held(None, self._standalone)
        await _catch_up(self, opened)

    async def _start_tail(
        self, key: str, conn: SSEConnection, after: int, *, follow: bool = False
    ) -> Tail:
        """Follow stream ``key`` on ``conn`` from after ``after``; ``follow``: the stream is
        produced on another replica, which is asked to publish its events from now on."""
        tail = self._add_tail(key, conn, after)
        try:
            await self._ensure_subscribed()
            if follow:
                tail.follow = await self.shared.follow(self.session_id or "", key)
                if 0 < tail.follow < self._follows.get(key, 0):
                    tail.conn.finish()  # a later follow, heard first, took the stream
        except StoreUnavailable as exc:
            logger.warning("Cannot follow stream %s: %s", key, exc)
            conn.abort()
            return tail
        tail.fill()
        return tail

    async def _ensure_subscribed(self) -> None:
        if not self._subscribed:
            await self.shared.backend.router.subscribe_session(
                self.session_id or "", self._on_channel
            )
            self._subscribed = True

    def _on_channel(self, data: bytes) -> None:
        kind = data[:1]
        if kind == b"E":
            head, _, rest = data[1:].partition(b" ")
            seq_text, _, payload = rest.partition(b" ")
            key = head.decode()
            if key in self._tails:
                self._offer(key, int(seq_text), payload)
        elif kind == b"X":
            head, _, seq_text = data[1:].partition(b" ")
            key = head.decode()
            if key in self._tails:
                self._offer(key, int(seq_text), None)
        elif kind == b"T":
            head, _, rest = data[1:].partition(b" ")
            number, _, replica = rest.partition(b" ")
            key = head.decode()
            # A producer learns that another replica follows its stream from its events'
            # replies (ordered with its own resumptions); this replica's own follows are
            # ordered here already.
            if replica.decode() == self.shared.backend.replica_id or key in self._streams:
                return
            if key in self._tails and number.isdigit():
                self._follows[key] = max(self._follows.get(key, 0), int(number))
                for tail in self._tails[key]:
                    if 0 < tail.follow < int(number):
                        tail.conn.finish()  # a later follow took the stream
        elif kind == b"S":
            head, _, rest = data[1:].partition(b" ")
            version, _, position = head.partition(b":")
            level, _, subs = rest.partition(b" ")
            if version.isdigit() and level.isdigit() and subs:
                with contextlib.suppress(orjson.JSONDecodeError, TypeError):
                    self.apply_state(level, subs, version, position)
            else:
                self.spawn(self.shared.refresh(self))

    def resync(self) -> None:
        """After a pub/sub reconnect: re-read every followed stream."""
        for tails in self._tails.values():
            for tail in tails:
                if tail.live:
                    tail.fill()

    async def aresume(self, last_event_id: str, conn: SSEConnection) -> bool:
        """Follow the stream named by ``last_event_id`` from after it on ``conn`` (on any
        replica); False when the id names no stream of this session."""
        parsed = sse.split_event_id(last_event_id)
        sid = self.session_id
        if parsed is None or sid is None:
            return False
        key, after = parsed
        if key == self._standalone.key:
            old = self._standalone.conn
            if old is not None and old is not conn:
                old.finish()
            self._attach(self._standalone, conn)
            opened = self._open_standalone()
            listening = self._subscribed
            await self._start_tail(key, conn, after)
            await _take_state(self, listening)
            self._release_held(None, self._standalone)
            self.spawn(_catch_up(self, opened))
            return True
        registration = await self.shared.stream_info(sid, key)
        if registration is None:
            return False
        local = self._streams.get(key)
        if local is not None:
            if local.seq < after:
                return False
            old = local.conn
            if old is not None and old is not conn:
                old.finish()
            self._attach(local, conn)
            self._resumed(local)
            self._claim(sid, key)
        else:
            self._taken_over(key, self._epoch)
        self._epoch += 1
        tail = await self._start_tail(key, conn, after, follow=local is None)
        producer = registration.get("r")
        if not registration.get("end") and local is None and isinstance(producer, str):
            tail.watch = asyncio.get_running_loop().create_task(
                self._watch_producer(tail, producer)
            )
            self._tasks.add(tail.watch)
            tail.watch.add_done_callback(self._tasks.discard)
        return True

    def _claim(self, sid: str, key: str) -> None:
        """The producer resumed its own stream: if another replica follows it, that
        replica's connection ends and the events are sent here again (with the stream's
        next writes: no round trip of its own)."""
        keys = self.shared.backend.keys
        replica = self.shared.backend.replica_id
        channel = keys.session_channel(sid)

        def add(pipe: Batch) -> None:
            pipe.eval(FOLLOW, 2, keys.session(sid), keys.streams(sid), key, replica, channel, "1")

        self._enqueue(add)

    async def _watch_producer(self, tail: Tail, producer: str) -> None:
        """End the stream's requests with an error once its producer stops heart-beating."""
        backend = self.shared.backend
        while tail.live and not tail.end_seen:
            try:
                alive = await backend.is_alive(producer)
                if not alive:
                    await self.shared.settle_stream(self.session_id or "", tail.key)
                    tail.fill()
                    return
            except Exception as exc:
                logger.debug("Producer check failed: %s", exc)
            await asyncio.sleep(backend.heartbeat_interval)

    def detach(self, conn: SSEConnection) -> None:
        super().detach(conn)
        for key in list(self._tails):
            tails = [t for t in self._tails[key] if t.conn is not conn]
            for t in self._tails[key]:
                if t.conn is conn and t.watch is not None:
                    t.watch.cancel()
            if tails:
                self._tails[key] = tails
            else:
                del self._tails[key]
                self._follows.pop(key, None)

    async def close(self) -> None:
        if self.closed:
            return
        # A view ends here (idle, shutdown, DELETE): the shared session is ended by
        # SharedSessions.delete, never by one view going away.
        self.store = None
        for tails in self._tails.values():
            for tail in tails:
                tail.conn.finish()
                if tail.watch is not None:
                    tail.watch.cancel()
        self._tails.clear()
        if self._subscribed:
            self._subscribed = False
            self.shared.backend.router.unsubscribe_session(self.session_id or "", self._on_channel)
        await super().close()


# -- catching up: what a view heard late or missed ------------------------------------------


async def _take_state(view: RedisSessionTransport, listening: bool) -> None:
    """Re-read the session's state once this view listens on the session's channel
    (``listening``: it did already): a change made on another replica after the view
    was loaded and before its channel was subscribed would otherwise go unheard (a
    resource subscribed there never updated on this GET stream)."""
    if listening or not view._subscribed:
        return
    try:
        await view.shared.refresh(view)
    except StoreUnavailable as exc:
        logger.warning("Cannot re-read the session's state: %s", exc)


async def _catch_up(view: RedisSessionTransport, opened: int) -> None:
    """Send the broadcasts the session missed while no GET stream was open (see the
    module docstring), once a GET stream is followed here, together with those heard
    since it opened (held meanwhile): coalesced, once per kind and URI.

    Every broadcast is in the bus log before it is published, and the log is read after
    the stream is followed here: one heard whose entry is no newer than what the read
    accounts for is in it (its pub/sub message came late) and is dropped; a newer one,
    published after the read, is sent too (merged: after, and with, the missed ones).

    ``opened``: the GET stream's number (see ``_open_standalone``). When a newer one
    opened meanwhile, its catch-up reads the log after this one and sends what this one
    would have, with what was held: this one sends nothing."""
    try:
        missed = await _read_missed(view)
    finally:
        held = view._held_bus
        if view._opened == opened:
            view._held_bus = None
    if view._opened != opened:
        return  # superseded by a newer GET stream's catch-up
    sink = view.session
    sid = view.session_id
    if sink is None or sid is None or not view._holds_standalone():
        return  # the next GET stream catches up (what was held is in the log after bp)
    pending: dict[tuple[str, str | None], None] = {}
    newest: str | None = None
    if missed is not None:
        after, events, trimmed = missed
        subscribed = set(sink.subscriptions)
        recovered = view._recovered
        for logged, event in events:
            if event.uri is not None:
                if event.uri not in subscribed:
                    continue
                resent = recovered.get(event.uri) if recovered else None
                if resent is not None and stream_id(logged) <= resent:
                    continue  # a re-read of its new subscription sends it
            key = (event.method, event.uri)
            pending.pop(key, None)  # coalesced: the newest counts
            pending[key] = None
        if trimmed:
            caps = sink.lifecycle.capabilities or {}
            for kind in ("tools", "prompts", "resources"):
                entry = caps.get(kind)
                if isinstance(entry, dict) and entry.get("listChanged"):
                    pending.setdefault((f"notifications/{kind}/list_changed", None), None)
            for subscribed_uri in sorted(subscribed):
                pending.setdefault(("notifications/resources/updated", subscribed_uri), None)
        newest = events[-1][0] if events else None
        bound = stream_id(newest or after)
        if view._caught_up is None or bound > view._caught_up:
            view._caught_up = bound
    caught_up = view._caught_up
    for method, uri, entry_id in held or ():
        if entry_id is not None:
            position = stream_id(entry_id)
            if caught_up is not None and position <= caught_up:
                continue  # read by the catch-up: its pub/sub message came late
            if missed is not None and (newest is None or position > stream_id(newest)):
                newest = entry_id  # published after the read: sent here, accounted for
        key = (method, uri)
        pending.pop(key, None)
        pending[key] = None
    items = list(pending)
    for i, (method, uri) in enumerate(items):
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if uri is not None:
            msg["params"] = {"uri": uri}
        view._bus_mark = newest if i == len(items) - 1 else None
        view._emit(view._standalone, orjson.dumps(msg))
    if not items and newest is not None:
        keys = view.shared.backend.keys
        last = newest

        def add(pipe: Batch) -> None:
            pipe.eval(ADVANCE, 1, keys.session(sid), last)

        view._enqueue(add)


async def _read_missed(
    view: RedisSessionTransport,
) -> tuple[str, list[tuple[str, BusEvent]], bool] | None:
    """The session's bus position and the bus log entries after it (with whether some
    may have been trimmed away); None when there is nothing to read or it cannot be read."""
    bus = view.shared.backend.shared_bus
    sid = view.session_id
    if bus is None or sid is None or view.session is None or not view._holds_standalone():
        return None
    try:
        after = await view.shared.bus_position(sid)
        if after is None:
            return None
        events, trimmed = await bus.since(after)
    except StoreUnavailable as exc:
        logger.warning("Cannot catch up on missed notifications: %s", exc)
        return None
    return after, events, trimmed


def _broadcast(view: RedisSessionTransport, event: BusEvent, uri: str | None, data: bytes) -> None:
    """Send the announcement of bus ``event`` (``data``) on ``view``'s GET stream when
    the view holds it, unless a catch-up or a re-read sent it already."""
    if not view._holds_standalone():
        return
    entry = event.entry
    if entry is not None:
        position = stream_id(entry)
        caught_up = view._caught_up
        if caught_up is not None and position <= caught_up:
            return  # in the catch-up already (its pub/sub message came late)
        recovered = view._recovered.get(uri) if view._recovered and uri else None
        if recovered is not None and position <= recovered:
            return  # sent by the re-read of its new subscription
    held = view._held_bus
    if held is not None:
        held.append((event.method, uri, entry))  # sent with the catch-up
        return
    view._bus_mark = entry
    view._emit(view._standalone, data)


def _reread_for(
    view: RedisSessionTransport, uris: frozenset[str], added: frozenset[str], mark: str
) -> None:
    """After a state change subscribing ``view``'s session to ``added`` (of ``uris``, all it
    is subscribed to now) written by a replica that had heard the bus up to ``mark``: the
    re-read of their updates accounted for here since (see
    :meth:`RedisSessionTransport.apply_state`), and the bounds of those running, for the
    URIs still subscribed."""
    recovered = view._recovered
    if recovered:
        for uri in [u for u in recovered if u not in uris]:
            del recovered[uri]
    if not (added and mark and view._held_bus is None and view._holds_standalone()):
        return
    bus = view.shared.backend.shared_bus
    heard = bus.last_id if bus is not None else None
    upto = stream_id(heard) if heard is not None else (0, 0)
    caught_up = view._caught_up
    if caught_up is not None and caught_up > upto:
        upto = caught_up
    if upto > stream_id(mark):
        for uri in added:
            recovered[uri] = max(recovered.get(uri, upto), upto)
        view.spawn(_recover(view, added, mark, upto))


async def _recover(
    view: RedisSessionTransport, uris: frozenset[str], after: str, upto: tuple[int, int]
) -> None:
    """Send the updates of ``uris`` logged on the bus after entry ``after`` up to entry
    ``upto`` (accounted for here before their subscription was: see
    :meth:`~RedisSessionTransport.apply_state`)."""
    bus = view.shared.backend.shared_bus
    if bus is None:
        return
    try:
        events, _ = await bus.since(after)
    except StoreUnavailable as exc:
        for uri in uris:
            if view._recovered.get(uri) == upto:
                del view._recovered[uri]
        logger.warning("Cannot re-read the notifications of a new subscription: %s", exc)
        return
    changed: dict[str, None] = {}
    for entry, event in events:
        if stream_id(entry) > upto:
            break
        if event.method == _UPDATED and event.uri in uris:
            changed[event.uri] = None
    if view.session is None or not view._holds_standalone():
        return
    for uri in changed:
        msg = {"jsonrpc": "2.0", "method": _UPDATED, "params": {"uri": uri}}
        view._emit(view._standalone, orjson.dumps(msg))
