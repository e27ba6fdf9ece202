"""2025-era sessions on Redis: any replica serves any request of any session.

What a session *is* lives in the hash ``P:s:{sid}`` (negotiated version, client
capabilities and info, log level, resource subscriptions, the standalone stream's key, the
task owner key, and the session's owner: the principal that opened it, checked by every
replica on every request, see :mod:`mcpkit.owner`), expiring after ``session_ttl`` seconds
idle (``initialize_timeout`` until a request follows the initialize); each replica keeps a *view*
of it (a :class:`~mcpkit.session.ServerSession` rebuilt from the hash on the first request it
serves for the session, refreshed from it on every later one). A request runs on the
replica its POST reached.

Events (resumability): every SSE event of a session's streams is appended to a Redis
stream ``P:s:{sid}:ev:<stream>`` (entry id ``1-<seq>``, trimmed to ``stream_maxlen``)
*before* it is sent, with one pipeline per batch of writes, and published on the session's
channel. A connection is a *tail* of one stream: it sends events in sequence order,
dropping what it already sent and re-reading the stream when it sees a gap, so a client
that resumes with ``Last-Event-ID`` on any replica gets every event it missed, in order,
once. A request stream ends with an end marker entry. The standalone (GET) stream has many
producers: its sequence numbers come from the session hash (``HINCRBY`` in the same Lua
script as the ``XADD``).

Routing: the ids of server-to-client requests are drawn from blocks (``2**32`` ids) that
each view reserves in the hash (``b:<n>`` = the replica), so the answer POSTed to any
replica goes to the replica whose view is waiting for it (its replica channel).
``notifications/cancelled`` is broadcast: the replica running the request cancels it.
Messages for the GET stream reach whichever replica holds it through the session channel.
A bus notification (list changed, resource updated) is sent by the replica holding the
session's GET stream only, so each session hears it once.

Broadcasts missed with no GET stream open: the session hash keeps ``bp``, the newest entry
of the bus log (:mod:`mcpkit.redis.bus`) accounted for (set when the session is created,
advanced with each bus notification written to its GET stream). When a GET stream of the
session opens (fresh or resumed, on any replica), that replica reads the bus log after
``bp``, keeps the list changes and the updates of subscribed resources, coalesced to one
per kind and URI (the newest), skips those already sent live since the stream opened, and
sends them first. The log holds ``bus_log_maxlen`` entries: a session that missed more
(entries trimmed after its ``bp``) is told that every list the server announces changes of,
and every resource it subscribed to, changed.

Failures: a replica resuming a stream whose producer stopped heart-beating ends each of the
stream's requests with a JSON-RPC error (:data:`PRODUCER_DIED_MESSAGE`) and the end marker,
so the client's call fails instead of hanging; when Redis is unreachable, requests of
shared sessions fail with HTTP 503 and a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.jsonrpc import INTERNAL_ERROR, MessageKind, RequestId, classify
from mcpkit.lifecycle import Phase
from mcpkit.logs import session_tag
from mcpkit.redis.backend import StoreUnavailable, unavailable
from mcpkit.server.session import AppSession
from mcpkit.transports.base import TransportInfo
from mcpkit.transports.http import sse
from mcpkit.transports.http.session_transport import (
    HttpSessionTransport,
    SSEConnection,
    _related_task,
    _Stream,
)

if TYPE_CHECKING:
    from redis.asyncio.client import Pipeline

    from mcpkit.redis.backend import RedisBackend
    from mcpkit.transports.http.server import StreamableHTTPApp

__all__ = ["BLOCK", "PRODUCER_DIED_MESSAGE", "RedisSessionTransport", "SharedSessions"]

logger = logging.getLogger("mcpkit.redis")

#: Server-to-client request ids per view block.
BLOCK: Final = 1 << 32
#: The error message of a request whose replica died before answering.
PRODUCER_DIED_MESSAGE: Final = (
    "The server process handling this request stopped before answering; the request did not "
    "complete (retry it)"
)
_BUS_METHODS: Final = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
    }
)

#: KEYS: session hash, streams hash. ARGV: replica, ttl ms, the asking owner ('' for none).
#: Reserves an id block; false (nothing touched) for an unknown or another owner's session.
_LOAD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if (redis.call('HGET', KEYS[1], 'own') or '') ~= ARGV[3] then return false end
local b = redis.call('HINCRBY', KEYS[1], 'blk', 1)
redis.call('HSET', KEYS[1], 'b:' .. b, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {b, redis.call('HGETALL', KEYS[1])}
"""
#: KEYS: session hash, streams hash. ARGV: ttl ms. -> {lvl, subs} or false (gone).
_TOUCH = """
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return redis.call('HMGET', KEYS[1], 'lvl', 'subs', 'sv')
"""
#: KEYS: session hash. ARGV: log level, subscriptions (JSON), the session's channel. The new
#: state is stored with a version and published with it from the session's own node, so a
#: view applies only what is newer than what it has (messages relayed by other cluster nodes
#: may arrive out of order). False when the session is gone.
_STATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local v = redis.call('HINCRBY', KEYS[1], 'sv', 1)
redis.call('HSET', KEYS[1], 'lvl', ARGV[1], 'subs', ARGV[2])
redis.call('PUBLISH', ARGV[3], 'S' .. v .. ' ' .. ARGV[1] .. ' ' .. ARGV[2])
return v
"""
#: Lua: whether stream id ``a`` is newer than ``b`` (false/nil: none yet).
_NEWER = """
local function newer(a, b)
  if not b then return true end
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if not bm then return true end
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
"""
#: KEYS: session hash, streams hash, events. ARGV: maxlen, ttl ms, data, channel, key,
#: bus position ('' none). False when the session is gone.
_STANDALONE = (
    _NEWER
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[6] ~= '' and newer(ARGV[6], redis.call('HGET', KEYS[1], 'bp')) then
  redis.call('HSET', KEYS[1], 'bp', ARGV[6])
end
local seq = redis.call('HINCRBY', KEYS[1], 'sseq', 1)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '1-' .. seq, 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PUBLISH', ARGV[4], 'E' .. ARGV[5] .. ' ' .. seq .. ' ' .. ARGV[3])
return seq
"""
)
#: KEYS: session hash. ARGV: bus position. Advances ``bp`` (never back).
_ADVANCE = (
    _NEWER
    + """
if redis.call('EXISTS', KEYS[1]) == 1 and newer(ARGV[1], redis.call('HGET', KEYS[1], 'bp')) then
  redis.call('HSET', KEYS[1], 'bp', ARGV[1])
end
return 1
"""
)
#: KEYS: streams hash, events. ARGV: key, maxlen, ttl ms, channel, error responses...
_SETTLE = """
local reg = redis.call('HGET', KEYS[1], ARGV[1])
if not reg then return 0 end
local info = cjson.decode(reg)
if info['end'] then return 0 end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local seq = 0
if #last > 0 then seq = tonumber(string.match(last[1][1], '-(%d+)$')) end
for i = 5, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '1-' .. seq, 'd', ARGV[i])
  redis.call('PUBLISH', ARGV[4], 'E' .. ARGV[1] .. ' ' .. seq .. ' ' .. ARGV[i])
end
seq = seq + 1
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '1-' .. seq, 'e', '1')
redis.call('PUBLISH', ARGV[4], 'X' .. ARGV[1] .. ' ' .. seq)
info['end'] = 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(info))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _publish(pipe: Pipeline, channel: str, data: bytes) -> None:
    """``PUBLISH`` in a pipeline. A cluster pipeline refuses its ``publish()`` method, but the
    command itself goes to the node of the channel's slot: a session channel has the
    session's hash tag, so it travels on the same connection as the session's writes."""
    pipe.execute_command("PUBLISH", channel, data)


class _Tail:
    """One SSE connection following one stream from ``last`` on, in sequence order."""

    __slots__ = ("conn", "end_seen", "filling", "key", "last", "refill", "transport", "watch")

    def __init__(
        self, transport: RedisSessionTransport, key: str, conn: SSEConnection, last: int
    ) -> None:
        self.transport = transport
        self.key = key
        self.conn = conn
        self.last = last
        self.filling = False
        self.refill = False
        self.end_seen = False
        self.watch: asyncio.Task[None] | None = None

    @property
    def live(self) -> bool:
        return not (self.conn.aborted or self.conn.finished)

    def offer(self, seq: int, data: bytes | None) -> None:
        """Event ``seq`` (``data`` None: the end marker) of this stream."""
        if seq <= self.last or not self.live:
            return
        if seq == self.last + 1 and not self.filling:
            self.last = seq
            if data is None:
                self.end_seen = True
                self.conn.finish()
            else:
                # A live event: a reader too slow for it is dropped (it resumes from the
                # log), so a slow client never grows this process's memory.
                if self.conn.push(sse.encode_event(data, f"{self.key}-{seq}")):
                    self.transport.delivered(self.key, seq)
            return
        self.fill()

    def fill(self) -> None:
        """Re-read the stream after :attr:`last` (a gap, a start, a reconnect)."""
        if self.filling:
            self.refill = True
            return
        self.filling = True
        self.transport.spawn(self._fill())

    async def _fill(self) -> None:
        t = self.transport
        try:
            while True:
                self.refill = False
                entries = await t.shared.read_events(t.session_id or "", self.key, self.last)
                for entry_id, fields in entries:
                    seq = int(_text(entry_id).rsplit("-", 1)[1])
                    if seq <= self.last or not self.live:
                        continue
                    self.last = seq
                    if b"e" in fields:
                        self.end_seen = True
                        self.conn.finish()
                        return
                    self.conn.push(sse.encode_event(fields[b"d"], f"{self.key}-{seq}"), replay=True)
                    t.delivered(self.key, seq)
                if not self.refill:
                    return
        except StoreUnavailable as exc:
            logger.warning("Cannot read the event log (%s): ending the stream (it may resume)", exc)
            self.conn.abort()
        finally:
            self.filling = False


class RedisSessionTransport(HttpSessionTransport):
    """The transport of one replica's view of a shared session (see module docstring)."""

    def __init__(self, session_id: str, shared: SharedSessions, **kwargs: Any) -> None:
        super().__init__(session_id, **kwargs)
        self.shared = shared
        self.info = TransportInfo("http", session_id, True)
        self._delivering = False
        #: The server-to-client id block of this view.
        self.block = 0
        self._tails: dict[str, list[_Tail]] = {}
        self._ops: list[tuple[Callable[[Pipeline], None], Callable[[Any], None] | None]] = []
        self._flushing = False
        self._subscribed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self.synced: tuple[int, frozenset[str]] = (0, frozenset())
        #: The version of the stored state :attr:`synced` reflects (see ``_STATE``).
        self.state_version = 0
        #: The bus position the next GET-stream write records (a bus notification's).
        self._bus_mark: str | None = None
        #: Bus notifications sent live since a GET stream opened, while its catch-up reads.
        self._live_bus: set[tuple[str, str | None]] | None = None

    @property
    def session(self) -> AppSession | None:
        """The server session this view serves, once started."""
        sink = self.sink
        return sink if isinstance(sink, AppSession) else None

    # -- background work -----------------------------------------------------------------------

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _enqueue(
        self, add: Callable[[Pipeline], None], done: Callable[[Any], None] | None = None
    ) -> None:
        self._ops.append((add, done))
        if not self._flushing:
            self._flushing = True
            self.spawn(self._flush())

    async def _flush(self) -> None:
        try:
            while self._ops:
                ops, self._ops = self._ops, []
                pipe = self.shared.backend.client.pipeline(transaction=False)
                spans: list[tuple[int, int]] = []
                for add, _ in ops:
                    start = len(pipe)
                    add(pipe)
                    spans.append((start, len(pipe)))
                outcome: list[Any]
                try:
                    replies = await pipe.execute(raise_on_error=False)
                    outcome = [_op_result(replies[a:b]) for a, b in spans]
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

        def add(pipe: Pipeline) -> None:
            # The new state rides along, versioned: the GET stream's holder applies it as it
            # hears it, so a resource update published right after a subscribe is not missed.
            pipe.eval(_STATE, 1, keys.session(sid), level, subs, keys.session_channel(sid))

        self._enqueue(add)

    def apply_state(self, level: Any, subs: Any, version: Any = None) -> None:
        """Take the log level and subscriptions stored in Redis into the view, unless the
        view already has a newer ``version`` of them."""
        sink = self.session
        if sink is None:
            return
        ver = int(_text(version)) if version else 0
        if ver < self.state_version:
            return
        self.state_version = ver
        lvl = int(_text(level)) if level else 0
        uris = frozenset(orjson.loads(subs)) if subs else frozenset()
        sink.log_level = lvl
        sink.subscriptions = set(uris)
        self.synced = (lvl, uris)

    # -- writing events ------------------------------------------------------------------------

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if type(message) is dict and "method" not in message:
            self._sync_state()  # before the response: its effect is stored when it is seen
        super().write(message, related_request_id)

    def _prime(self, stream: _Stream, conn: SSEConnection) -> None:
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

        def add(pipe: Pipeline) -> None:
            pipe.hset(keys.streams(sid), key, info)
            pipe.pexpire(keys.streams(sid), ttl)

        def done(result: Any) -> None:
            if priming and tail.live and tail.last == 0:
                conn.push(sse.encode_event(None, f"{key}-0", retry=self.retry_ms))

        self._enqueue(add, done)

    def delivered(self, key: str, seq: int) -> None:
        """A standalone event reached a live GET connection: a later fresh GET starts
        after it (what was produced while no GET stream was open is sent on the next)."""
        if key != self._standalone.key or self._delivering:
            return
        self._delivering = True
        sid = self.session_id or ""
        keys = self.shared.backend.keys

        def add(pipe: Pipeline) -> None:
            self._delivering = False
            last = max((t.last for t in self._tails.get(key, ())), default=seq)
            pipe.hset(keys.session(sid), "sd", str(last))

        self._enqueue(add)

    def _add_tail(self, key: str, conn: SSEConnection, last: int) -> _Tail:
        tail = _Tail(self, key, conn, last)
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

            def add_standalone(pipe: Pipeline) -> None:
                pipe.eval(
                    _STANDALONE,
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

        def add(pipe: Pipeline) -> None:
            pipe.xadd(events, {"d": data}, id=f"1-{seq}", maxlen=maxlen, approximate=True)
            pipe.pexpire(events, ttl)
            _publish(pipe, channel, b"E%s %d " % (key.encode(), seq) + data)

        def done(result: Any) -> None:
            self._offer(key, seq, data, force=isinstance(result, BaseException))

        self._enqueue(add, done)

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
        channel = keys.session_channel(sid)
        maxlen = self.shared.backend.stream_maxlen

        def add(pipe: Pipeline) -> None:
            pipe.xadd(events, {"e": "1"}, id=f"1-{seq}", maxlen=maxlen, approximate=True)
            pipe.hset(keys.streams(sid), key, info)
            _publish(pipe, channel, b"X%s %d" % (key.encode(), seq))

        def done(result: Any) -> None:
            for tail in self._tails.get(key, ()):
                tail.offer(seq, None)
                if tail.live and (isinstance(result, BaseException) or tail.last >= seq - 1):
                    tail.conn.finish()

        self._enqueue(add, done)

    def _unrelated(self, message: Any, data: bytes) -> None:
        # A broadcast reaches every replica's view: the GET stream's holder sends it (and
        # records how far the session has heard the bus; see the module docstring).
        method = message.get("method") if type(message) is dict else None
        if method in _BUS_METHODS:
            if not self._holds_standalone():
                return
            bus = self.shared.backend.shared_bus
            self._bus_mark = bus.last_id if bus is not None else None
            if self._live_bus is not None:
                params = message.get("params")
                uri = params.get("uri") if type(params) is dict else None
                self._live_bus.add((str(method), uri if type(uri) is str else None))
            self._emit(self._standalone, data)
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
        self._live_bus = set()
        self.spawn(self._tail_standalone(conn))

    async def _tail_standalone(self, conn: SSEConnection) -> None:
        try:
            delivered = await self.shared.standalone_delivered(self.session_id or "")
        except StoreUnavailable as exc:
            logger.warning("Cannot open the GET stream: %s", exc)
            conn.abort()
            self._live_bus = None
            return
        await self._start_tail(self._standalone.key, conn, delivered)
        self._release_held(None, self._standalone)
        await self._catch_up()

    async def _catch_up(self) -> None:
        """Send the broadcasts the session missed while no GET stream was open (see the
        module docstring), once a GET stream is followed here."""
        live = self._live_bus
        bus = self.shared.backend.shared_bus
        sid = self.session_id
        sink = self.session
        try:
            if bus is None or sid is None or sink is None or not self._holds_standalone():
                return
            after = await self.shared.bus_position(sid)
            if after is None:
                return
            events, trimmed = await bus.since(after)
        except StoreUnavailable as exc:
            logger.warning("Cannot catch up on missed notifications: %s", exc)
            return
        finally:
            if self._live_bus is live:
                self._live_bus = None
        subscribed = set(sink.subscriptions)
        pending: dict[tuple[str, str | None], None] = {}
        for _, event in events:
            if event.uri is not None and event.uri not in subscribed:
                continue
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
        items = [k for k in pending if live is None or k not in live]
        for i, (method, uri) in enumerate(items):
            msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            if uri is not None:
                msg["params"] = {"uri": uri}
            self._bus_mark = newest if i == len(items) - 1 else None
            self._emit(self._standalone, orjson.dumps(msg))
        if not items and newest is not None:
            keys = self.shared.backend.keys

            def add(pipe: Pipeline) -> None:
                pipe.eval(_ADVANCE, 1, keys.session(sid), newest)

            self._enqueue(add)

    async def _start_tail(self, key: str, conn: SSEConnection, after: int) -> _Tail:
        tail = self._add_tail(key, conn, after)
        try:
            await self._ensure_subscribed()
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
        elif kind == b"S":
            version, _, rest = data[1:].partition(b" ")
            level, _, subs = rest.partition(b" ")
            if version.isdigit() and level.isdigit() and subs:
                with contextlib.suppress(orjson.JSONDecodeError, TypeError):
                    self.apply_state(level, subs, version)
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
            self._live_bus = set()
            await self._start_tail(key, conn, after)
            self._release_held(None, self._standalone)
            self.spawn(self._catch_up())
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
        tail = await self._start_tail(key, conn, after)
        producer = registration.get("r")
        if not registration.get("end") and local is None and isinstance(producer, str):
            tail.watch = asyncio.get_running_loop().create_task(
                self._watch_producer(tail, producer)
            )
            self._tasks.add(tail.watch)
            tail.watch.add_done_callback(self._tasks.discard)
        return True

    async def _watch_producer(self, tail: _Tail, producer: str) -> None:
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


def _op_result(replies: list[Any]) -> Any:
    """An op's result: its first command's reply, or the first failure among them."""
    for reply in replies:
        if isinstance(reply, BaseException):
            return reply
    return replies[0] if replies else None


class SharedSessions:
    """The shared side of a :class:`~mcpkit.transports.http.server.StreamableHTTPApp`:
    registers, loads, refreshes, routes and deletes sessions in Redis."""

    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.keys = backend.keys
        self.app: StreamableHTTPApp | None = None
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
        self.app = app

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

    async def register(self, transport: RedisSessionTransport) -> None:
        """Store a session just initialized here (its view holds id block 0)."""
        sid = transport.session_id or ""
        sink = transport.session
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
            "sk": transport._standalone.key,
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
        pending = self.app.initialize_timeout if self.app is not None else None
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
                _LOAD,
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
        existing = app.sessions.get(sid)
        if isinstance(existing, RedisSessionTransport) and not existing.closed:
            return existing  # another request loaded it meanwhile
        block = int(raw[0])
        items = [x for x in raw[1]]
        fields = {_text(k): v for k, v in zip(items[::2], items[1::2], strict=True)}
        from mcpkit import versions

        version = versions.get(_text(fields.get("v", b"")))
        if version is None:
            return None
        transport = self.new_transport(
            sid,
            max_buffer=app.max_stream_buffer,
            retry_ms=app.sse_retry_ms,
            on_close=app._forget,
            slow_reader_timeout=app.slow_reader_timeout,
        )
        standalone = transport._standalone
        del transport._streams[standalone.key]
        standalone.key = _text(fields.get("sk", b"")) or standalone.key
        transport._streams[standalone.key] = standalone
        transport.block = block
        transport.owner = _text(fields.get("own", b"")) or None
        session: Any = app.session_factory(transport)
        await session.start()
        session.assume_initialized(version, orjson.loads(fields.get("caps") or b"{}"))
        session.lifecycle.peer_info = orjson.loads(fields.get("info") or b"{}")
        session._next_id = block * BLOCK
        tok = _text(fields.get("tok", b""))
        if tok and hasattr(session, "_task_owner_key"):
            session._task_owner_key = tok
        transport.protocol_version = version
        transport.apply_state(fields.get("lvl"), fields.get("subs"), fields.get("sv"))
        app.sessions[sid] = transport
        app._ensure_reaper()
        self.loaded += 1
        return transport

    async def refresh(self, transport: RedisSessionTransport) -> bool:
        """Touch the session (its idle TTL) and take its state; False when it is gone."""
        sid = transport.session_id or ""
        raw = await self._run(
            self._client().eval(
                _TOUCH, 2, self.keys.session(sid), self.keys.streams(sid), self.ttl_ms
            )
        )
        if not raw:
            return False
        transport.apply_state(raw[0], raw[1], raw[2])
        # The view made by initialize waits for the client's `initialized`, which may have
        # reached another replica: a later request of the session shows it was sent (the
        # views other replicas load start operating), so this one operates too (else it
        # would never carry list changes or resource updates).
        sink = transport.session
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
        keys += [self.keys.events(sid, _text(k)) for k in streams]
        keys.append(self.keys.events(sid, await self._standalone_key(sid)))
        await self._run(client.delete(*keys))
        await self._run(
            client.publish(self.keys.broadcast_channel, orjson.dumps({"s": sid, "x": 1}))
        )

    async def _standalone_key(self, sid: str) -> str:
        app = self.app
        view = app.sessions.get(sid) if app is not None else None
        if isinstance(view, RedisSessionTransport):
            return view._standalone.key
        raw = await self._run(self._client().hget(self.keys.session(sid), "sk"))
        return _text(raw) if raw else "-"

    async def standalone_delivered(self, sid: str) -> int:
        """The standalone stream's sequence number a fresh GET starts after."""
        raw = await self._run(self._client().hget(self.keys.session(sid), "sd"))
        return int(_text(raw)) if raw else 0

    async def bus_position(self, sid: str) -> str | None:
        """The newest bus log entry session ``sid`` has heard (None: not recorded)."""
        raw = await self._run(self._client().hget(self.keys.session(sid), "bp"))
        return _text(raw) if raw else None

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
                _SETTLE,
                2,
                self.keys.streams(sid),
                self.keys.events(sid, key),
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
        target = _text(replica)
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
        app = self.app
        if app is None or type(sid) is not str:
            return None
        transport = app.sessions.get(sid)
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
        app = self.app
        if app is None:
            return
        for transport in list(app.sessions.values()):
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
        app = self.app
        if app is None:
            return
        busy = [
            t.session_id
            for t in app.sessions.values()
            if isinstance(t, RedisSessionTransport) and t.connections and t.session_id
        ]
        if not busy:
            return
        pipe = self._client().pipeline(transaction=False)
        for sid in busy:
            pipe.pexpire(self.keys.session(sid), self.ttl_ms)
            pipe.pexpire(self.keys.streams(sid), self.ttl_ms)
        await pipe.execute()
