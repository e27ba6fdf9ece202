"""The transport of one MCP session served over Streamable HTTP.

The session engine writes each outgoing message with the id of the incoming request it
belongs to. This transport puts it where the spec says: on the SSE stream (or the pending
JSON response) of the POST that carried that request, otherwise on the standalone GET
stream. Events are numbered per stream and written to the event store before they are sent,
so a client can resume a dropped stream with ``Last-Event-ID``.

Messages of a task (``_meta["io.modelcontextprotocol/related-task"]``) that come with no
request of their own to travel on (a task outlives the POST that created it) go on the open
``tasks/result`` stream for that task; with none open and no GET stream either, they are held
for the task and delivered once, on the next ``tasks/result`` stream for it or on the GET
stream if that opens first (the spec's ``input_required`` flow: the client polls
``tasks/get``, sees ``input_required`` and calls ``tasks/result`` to receive the task's
requests). Held messages are dropped when the task is announced terminal. The transport
reads only the wire: the ``_meta`` key and ``tasks/result``'s ``taskId`` (it knows nothing of
the tasks machinery above the session).

Memory is bounded everywhere: a connection whose client does not read is dropped once its
outgoing buffer passes ``max_buffer`` bytes (the client may resume from the store), messages
for the standalone stream while no GET is open wait in a short backlog, and held task
messages are capped at ``held_limit`` (oldest dropped first).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson

from mcpkit._loop import running_loop
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INVALID_REQUEST, JSONObject, RequestId
from mcpkit.transports.base import MessageSink, Transport, TransportInfo
from mcpkit.transports.http import sse

if TYPE_CHECKING:
    from mcpkit.transports.http.event_store import EventStore
    from mcpkit.versions import ProtocolVersion

__all__ = ["HttpSessionTransport", "SSEConnection", "answer_alone", "stored_answer"]

logger = logging.getLogger("mcpkit.http")

#: The ``_meta`` key tying a message to a task (spec wire name; see module docstring).
_RELATED_TASK = "io.modelcontextprotocol/related-task"
_TERMINAL = frozenset({"completed", "failed", "cancelled"})


def _related_task(message: Any) -> str | None:
    """The ``taskId`` of ``message``'s ``_meta[related-task]``, if any."""
    params = message.get("params")
    if type(params) is not dict:
        return None
    meta = params.get("_meta")
    if type(meta) is not dict:
        return None
    related = meta.get(_RELATED_TASK)
    task_id = related.get("taskId") if type(related) is dict else None
    return task_id if type(task_id) is str else None


class Signal:
    """What :class:`asyncio.Event` does for the one handler that waits on a connection: a
    flag, and a future made only when that handler has to wait for it (an Event costs a
    deque and its loop binding on every response)."""

    __slots__ = ("_flag", "_waiter")

    def __init__(self) -> None:
        self._flag = False
        self._waiter: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        if self._flag:
            return
        self._flag = True
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._flag = False

    async def wait(self) -> bool:
        """Return (True) once the flag is set."""
        if self._flag:
            return True
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        await waiter
        return True


class SSEConnection:
    """One HTTP response streaming SSE frames; the ASGI handler drains :attr:`frames`.

    Backpressure, not loss: once half of ``max_buffer`` (or ``max_frames`` frames) waits to
    be sent, the connection is *full* and its transport's ``writing_paused`` turns true, so a
    producer that awaits ``drain`` waits for the reader instead of growing the buffer. One
    message is never refused for its size. A producer that keeps writing to a full connection
    past ``max_buffer`` bytes has its reader dropped (the client may resume from the event
    store), and so does a reader that takes nothing for ``slow_reader_timeout`` seconds
    while a producer waits (see :meth:`HttpSessionTransport.drain`).
    """

    __slots__ = (
        "aborted",
        "drained",
        "event",
        "finished",
        "frames",
        "keepalive_due",
        "max_buffer",
        "max_frames",
        "on_pressure",
        "sending",
        "size",
        "task",
    )

    def __init__(self, max_buffer: int, max_frames: int = 256) -> None:
        self.frames: deque[bytes] = deque()
        self.size = 0
        self.max_buffer = max_buffer
        self.max_frames = max_frames
        #: Set when there is something for the handler to do (frames, the end, a ping).
        self.event = Signal()
        #: End the response once the buffered frames are sent.
        self.finished = False
        #: Stop now (client gone, replaced, or too slow); buffered frames are dropped.
        self.aborted = False
        self.sending = False
        #: The keep-alive timer fired: the handler sends a comment if nothing else is due.
        self.keepalive_due = False
        self.task: asyncio.Task[Any] | None = asyncio.current_task(running_loop())
        #: Set while the connection is full (None: it is not); set again once it drained.
        self.drained: asyncio.Event | None = None
        #: Told ``(conn, full)`` when the connection fills up and when it drains.
        self.on_pressure: Callable[[SSEConnection, bool], None] | None = None

    @property
    def full(self) -> bool:
        """Whether producers should wait for the reader before writing more here."""
        return self.drained is not None

    def push(self, frame: bytes, *, replay: bool = False) -> bool:
        """Queue a frame; False (and the connection aborted) when the producer went on
        writing past ``max_buffer`` after the connection filled up. A ``replay`` (bounded by
        the event store) is always queued."""
        if self.aborted or self.finished:
            return False
        size = self.size + len(frame)
        if self.drained is not None and size > self.max_buffer and not replay:
            logger.warning("SSE client too slow: dropping its connection (it may resume)")
            self.abort()
            return False
        self.size = size
        self.frames.append(frame)
        self.event.set()
        if self.drained is None and (
            size > self.max_buffer // 2 or len(self.frames) > self.max_frames
        ):
            self.drained = asyncio.Event()
            if self.on_pressure is not None:
                self.on_pressure(self, True)
        return True

    def take(self) -> bytes:
        frames = self.frames
        data = frames.popleft() if len(frames) == 1 else b"".join(frames)
        frames.clear()
        self.size = 0
        self.event.clear()
        self._release()
        return data

    def _release(self) -> None:
        drained, self.drained = self.drained, None
        if drained is not None:
            drained.set()
            if self.on_pressure is not None:
                self.on_pressure(self, False)

    def ping(self) -> None:
        """Wake the handler to send a keep-alive comment."""
        self.keepalive_due = True
        self.event.set()

    def finish(self) -> None:
        self.finished = True
        self.event.set()
        self._release()  # nothing more is accepted: nobody should wait for it

    def abort(self) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.frames.clear()
        self.size = 0
        self.event.set()
        self._release()
        task = self.task
        if self.sending and task is not None and task is not asyncio.current_task():
            task.cancel()  # stuck writing to a client that does not read


class _Stream:
    """A logical SSE stream: outlives its connections (it can be resumed)."""

    __slots__ = (
        "conn",
        "key",
        "prefix",
        "primed",
        "request_ids",
        "seq",
        "standalone",
        "tasks",
        "waited",
    )

    def __init__(self, key: str, standalone: bool = False) -> None:
        self.key = key
        #: What every event id of this stream begins with, encoded once: ``id: <key>-``.
        self.prefix = b"id: " + key.encode() + b"-"
        self.seq = 0
        self.primed = False
        self.conn: SSEConnection | None = None
        self.request_ids: set[RequestId] = set()
        self.standalone = standalone
        #: Tasks whose ``tasks/result`` this stream answers (None: none).
        self.tasks: list[str] | None = None
        #: Producers already waited once for this stream's reader to come back.
        self.waited = False


class _Limits(NamedTuple):
    backlog: int
    held: int
    resume_grace: float
    #: Drop a notification of a request answered with one JSON body (the official SDKs'
    #: way) instead of sending it on the standalone stream.
    drop_json_notes: bool = False


#: The most attributes an instance may set (those of ``__init__`` and the ones set later,
#: such as ``writing_paused``) for CPython 3.11+ to keep them inline in the object, where
#: every read of one specializes (a 30th one makes a dict of them, and each read of the
#: per-message path a hashed lookup). ``tests/http/test_attribute_budget.py`` checks it.
_MAX_ATTRIBUTES: Final = 29


class HttpSessionTransport(Transport):
    """Routes one MCP session's outgoing messages onto its HTTP responses."""

    def __init__(
        self,
        session_id: str | None,
        *,
        event_store: EventStore | None = None,
        max_buffer: int = 4 * 1024 * 1024,
        backlog: int = 256,
        held_limit: int = 256,
        retry_ms: int | None = None,
        on_close: Any = None,
        slow_reader_timeout: float = 30.0,
        resume_grace: float = 30.0,
    ) -> None:
        self.session_id = session_id
        self.slow_reader_timeout = slow_reader_timeout
        #: Connections whose reader is behind (writes wait in :meth:`drain` while any is).
        #: This and the other containers below that most sessions never use (the standalone
        #: stream, its backlog, the held task messages) are made on first use: an idle
        #: session holds none of them.
        self._full: set[SSEConnection] | None = None
        #: Streams whose reader was dropped for being slow, until it resumes (writes wait for
        #: it once, up to ``resume_grace`` seconds, so the store keeps what it missed).
        self._awaiting: dict[_Stream, asyncio.Event] | None = None
        self.store = event_store if session_id is not None else None
        self.info = TransportInfo("http", session_id, self.store is not None)
        #: The session's negotiated revision, set by the app once known (it decides whether
        #: streams start with a priming event, and whether batches are accepted).
        self.protocol_version: ProtocolVersion | None = None
        self.max_buffer = max_buffer
        self.retry_ms = retry_ms
        self.sink: MessageSink | None = None
        self.last_active = time.monotonic()
        self.closed = False
        self._on_close = on_close
        self._counter = 0
        #: The backlog and held-message bounds and the resumption grace (one attribute for
        #: the three: see :data:`_MAX_ATTRIBUTES`).
        self._limits = _Limits(backlog, held_limit, resume_grace)
        self._key_prefix: str | None = None
        self._streams: dict[str, _Stream] = {}
        self._by_request: dict[RequestId, _Stream] = {}
        self._json: dict[RequestId, asyncio.Future[bytes]] = {}
        self._standalone_stream: _Stream | None = None
        self._backlog: deque[bytes] | None = None
        #: Task messages with no route yet, oldest first: (task id, request id, JSON).
        self._held: deque[tuple[str, RequestId | None, bytes]] | None = None
        #: Ids of held requests dropped undelivered (their cancellation is not sent either).
        self._undelivered: dict[RequestId, None] | None = None
        #: The open ``tasks/result`` stream of each task (newest wins).
        self._task_streams: dict[str, _Stream] = {}
        #: Open connections (a session with any is never idle).
        self.connections = 0
        #: Who owns the session (:mod:`mcpkit.owner`): the principal that opened it, or
        #: None (no authorization: its unguessable id alone reaches it).
        self.owner: str | None = None
        #: Whom the session counts against for ``max_sessions_per_client``.
        self.client_key: str | None = None
        #: False until a request of the session follows its ``initialize`` (until then it
        #: ends after the app's ``initialize_timeout``).
        self.established = False

    @property
    def resume_grace(self) -> float:
        """Seconds a write waits, once, for a stream dropped as a slow reader to resume."""
        return self._limits.resume_grace

    @property
    def _standalone(self) -> _Stream:
        """The standalone (GET) stream, made on first use."""
        stream = self._standalone_stream
        if stream is None:
            stream = self._standalone_stream = _Stream(self._new_key(), standalone=True)
            if not self.closed:
                self._streams[stream.key] = stream
        return stream

    # -- Transport interface -------------------------------------------------------------------

    async def start(self, sink: MessageSink) -> None:
        self.sink = sink

    def drop_json_notifications(self) -> None:
        """Drop each notification of a request answered with one JSON body, as the official
        SDKs do (mcpkit sends it on the standalone stream)."""
        self._limits = self._limits._replace(drop_json_notes=True)

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if self.closed:
            raise ConnectionClosed("The HTTP session has ended")
        data = orjson.dumps(message)
        is_response = type(message) is list or "method" not in message
        if related_request_id is not None:
            future = self._json.get(related_request_id)
            if future is not None:
                if is_response:
                    del self._json[related_request_id]
                    if not self._json:
                        self._json = {}  # an emptied dict keeps its table: let it go
                    if type(message) is list:
                        for item in message:
                            rid = item.get("id") if type(item) is dict else None
                            if type(rid) is str or type(rid) is int:
                                self._json.pop(rid, None)
                    if not future.done():
                        future.set_result(data)
                    return
                # No stream to carry it on a JSON response: use the standalone stream
                # (or, as mcp 2.x does, drop a notification and refuse a request).
                if not self._limits.drop_json_notes:
                    self._unrelated(message, data)
                elif "id" in message:
                    raise McpError(
                        INVALID_REQUEST,
                        f"Cannot send {message['method']!r}: this transport context has no "
                        "back-channel for server-initiated requests.",
                    )
                return
            stream = self._by_request.get(related_request_id)
            if stream is not None:
                self._emit(stream, data)
                if is_response:
                    ids: list[Any] = (
                        [m.get("id") for m in message if type(m) is dict]
                        if type(message) is list
                        else [related_request_id]
                    )
                    for rid in ids:
                        if stream.request_ids:
                            stream.request_ids.discard(rid)
                        self._by_request.pop(rid, None)
                    if not stream.request_ids:
                        self._end_stream(stream)
                return
        if is_response:
            # A response whose stream is gone (cancelled, or the session is stateless and the
            # request finished): the spec forbids sending it on the standalone stream.
            logger.debug("Dropping a response with no stream (request %r)", related_request_id)
            return
        self._unrelated(message, data)

    async def drain(self) -> None:
        """Wait until every full connection's reader took what waits for it; a reader that
        takes nothing for ``slow_reader_timeout`` seconds is dropped (it may resume), and
        then its stream is waited for once, up to ``resume_grace`` seconds, so that what it
        missed is still in the event store when it comes back."""
        while self._full or self._awaiting:
            if self._full:
                conn = next(iter(self._full))
                drained = conn.drained
                if drained is None:  # released without telling us
                    self._pressure(conn, False)
                    continue
                try:
                    async with asyncio.timeout(self.slow_reader_timeout):
                        await drained.wait()
                except TimeoutError:
                    logger.warning(
                        "SSE client read nothing for %gs: dropping its connection (it may resume)",
                        self.slow_reader_timeout,
                    )
                    self._dropped(conn)
                continue
            assert self._awaiting is not None
            stream, resumed = next(iter(self._awaiting.items()))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._limits.resume_grace):
                    await resumed.wait()
            self._resumed(stream)

    def _pressure(self, conn: SSEConnection, full: bool) -> None:
        if full:
            if self._full is None:
                self._full = set()
            self._full.add(conn)
        elif self._full is not None:
            self._full.discard(conn)
        self.writing_paused = bool(self._full or self._awaiting)

    def _dropped(self, conn: SSEConnection) -> None:
        """``conn``'s reader was too slow: abort it, and have producers wait for the stream
        to be resumed (once) when it can be."""
        conn.abort()
        for stream in self._streams.values():
            if stream.conn is conn:
                stream.conn = None
                if self.store is not None and not stream.waited and not self.closed:
                    stream.waited = True
                    if self._awaiting is None:
                        self._awaiting = {}
                    self._awaiting[stream] = asyncio.Event()
                    self.writing_paused = True
                break

    def _resumed(self, stream: _Stream) -> None:
        awaiting = self._awaiting
        resumed = awaiting.pop(stream, None) if awaiting else None
        if resumed is not None:
            resumed.set()
            self.writing_paused = bool(self._full or self._awaiting)

    def _attach(self, stream: _Stream, conn: SSEConnection) -> None:
        stream.conn = conn
        conn.on_pressure = self._pressure
        if conn.full:
            self._pressure(conn, True)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for stream in list(self._streams.values()):
            if stream.conn is not None:
                stream.conn.finish()
                stream.conn = None
        self._streams.clear()
        for resumed in (self._awaiting or {}).values():
            resumed.set()
        self._awaiting = None
        self._full = None
        self.writing_paused = False
        self._by_request.clear()
        for future in self._json.values():
            if not future.done():
                future.cancel()
        self._json.clear()
        self._backlog = None
        self._held = None
        self._task_streams.clear()
        if self.store is not None and self.session_id is not None:
            self.store.delete_session(self.session_id)
        if self._on_close is not None:
            self._on_close(self)
        sink = self.sink
        if sink is not None:
            sink.connection_lost(None)
            # The session and this transport refer to each other: without the cycle both are
            # freed by reference counting as soon as the server drops them (a stateless
            # request no longer leaves garbage for the cyclic collector, ~6 µs a request).
            self.sink = None

    # -- used by the HTTP app ------------------------------------------------------------------

    def touch(self) -> None:
        self.last_active = time.monotonic()

    def has_request(self, rid: RequestId) -> bool:
        return rid in self._by_request or rid in self._json

    def expect_json(self, ids: list[RequestId]) -> asyncio.Future[bytes]:
        """The future of the JSON response to the request(s) ``ids`` (one POST)."""
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        for rid in ids:
            self._json[rid] = future
        return future

    def forget_json(self, rid: RequestId) -> None:
        self._json.pop(rid, None)

    def idle(self) -> bool:
        """No open connection and no request waiting for its response."""
        return self.connections == 0 and not self._by_request and not self._json

    def open_request_stream(self, ids: list[RequestId], conn: SSEConnection) -> _Stream:
        """A new SSE stream for the request(s) of one POST, attached to ``conn``."""
        stream = _Stream(self._new_key())
        stream.request_ids.update(ids)
        self._attach(stream, conn)
        self._streams[stream.key] = stream
        for rid in ids:
            self._by_request[rid] = stream
        self._prime(stream, conn)
        return stream

    def open_standalone(self, conn: SSEConnection) -> None:
        """Attach a new GET connection to the standalone stream (replacing any earlier one).

        What waited in the backlog goes first, after a priming event naming the event
        before it (so a client cut off inside the backlog resumes where it was, not past
        it); it is queued as a replay is (bounded by the backlog), never dropping the new
        connection for its size."""
        stream = self._standalone
        old = stream.conn
        if old is not None:
            old.finish()
        self._attach(stream, conn)
        backlog = self._backlog
        self._prime(stream, conn, len(backlog) if backlog else 0)
        while backlog and not conn.aborted:
            conn.push(backlog.popleft(), replay=True)
        self._release_held(None, stream)

    def resume(self, last_event_id: str, conn: SSEConnection) -> bool:
        """Replay a stream after ``last_event_id`` on ``conn`` and attach it if still live.

        False when the id names no stream of this session (or resumption is unavailable).
        """
        store = self.store
        if store is None or self.session_id is None:
            return False
        if store.names_events:
            named = store.replay_named(self.session_id, last_event_id)
            prefix = self._key_prefix
            if named is None or prefix is None or not named[0].startswith(prefix):
                return False  # unknown, or another session's stream
            key = named[0]
            stream = self._streams.get(key)
            for event_id, data in named[1]:
                conn.push(sse.encode_event(data, event_id), replay=True)
            if stream is None:  # primed again after the replay, as the official SDKs do
                self._prime_named(_Stream(key), conn)
        else:
            parsed = sse.split_event_id(last_event_id)
            if parsed is None:
                return False
            key, after = parsed
            events = store.replay(self.session_id, key, after)
            if events is None:
                return False
            stream = self._streams.get(key)
            if stream is not None and stream.seq < after:
                return False
            for seq, data in events:
                conn.push(sse.encode_event(data, f"{key}-{seq}"), replay=True)
        if stream is None:
            conn.finish()  # that stream ended: its events are all replayed
            return True
        old = stream.conn
        if old is not None and old is not conn:
            old.finish()
        self._attach(stream, conn)
        self._resumed(stream)
        if stream.standalone:
            self._backlog = None  # those were stored and just replayed
            self._release_held(None, stream)
        return True

    def detach(self, conn: SSEConnection) -> None:
        """A connection ended (client gone or response complete)."""
        conn.on_pressure = None
        if self._full and conn in self._full:
            self._pressure(conn, False)
        for stream in self._streams.values():
            if stream.conn is conn:
                stream.conn = None
                break

    def close_response_stream(self, request_id: RequestId) -> bool:
        """End the connection carrying request ``request_id``'s stream without ending the
        stream (SSE polling): the client reconnects after ``retry`` ms with Last-Event-ID.

        Only meaningful with an event store; returns False when there is nothing to close.
        """
        return self._close_conn(self._by_request.get(request_id))

    #: The former name of :meth:`close_response_stream`.
    close_sse_stream = close_response_stream

    def close_standalone_sse_stream(self) -> bool:
        """Like :meth:`close_response_stream`, for the standalone GET stream."""
        return self._close_conn(self._standalone_stream)

    def cancel_request(self, rid: RequestId) -> None:
        """The client cancelled ``rid``: no response will come, so end its stream."""
        future = self._json.pop(rid, None)
        if future is not None and not future.done():
            future.cancel()
        stream = self._by_request.pop(rid, None)
        if stream is not None:
            stream.request_ids.discard(rid)
            if not stream.request_ids:
                self._end_stream(stream)

    def bind_task_results(self, msg: Any) -> None:
        """Called with what a POST carried once its SSE stream is open: a ``tasks/result``
        request among it makes that stream the route of its task's messages that have no
        request of their own, starting with those held for the task."""
        for item in msg if type(msg) is list else (msg,):
            if type(item) is not dict or item.get("method") != "tasks/result":
                continue
            params = item.get("params")
            task_id = params.get("taskId") if type(params) is dict else None
            stream = self._by_request.get(item.get("id"))  # type: ignore[arg-type]
            if type(task_id) is not str or stream is None:
                continue
            self._task_streams[task_id] = stream
            if stream.tasks is None:
                stream.tasks = []
            stream.tasks.append(task_id)
            self._release_held(task_id, stream)

    def emit_standalone(self, data: bytes) -> None:
        """Send one encoded message on the standalone stream (or its backlog), bypassing the
        routing by request: what a single-stream transport (legacy HTTP+SSE) does."""
        self._emit(self._standalone, data)

    def request_stream_count(self) -> int:
        return len(self._streams) - (self._standalone_stream is not None)

    # -- internals -----------------------------------------------------------------------------

    def _new_key(self) -> str:
        self._counter += 1
        if self.session_id is None:
            return str(self._counter)  # not resumable: no need for unguessable keys
        # A random prefix per transport (drawn once) and a counter: keys no other view of
        # this session (another replica, a restored session) can repeat, without a draw
        # from the system's random source for every stream.
        prefix = self._key_prefix
        if prefix is None:
            prefix = self._key_prefix = secrets.token_hex(6)
        return f"{prefix}{self._counter}"

    def _prime(self, stream: _Stream, conn: SSEConnection, pending: int = 0) -> None:
        """Register ``stream`` with the store and start ``conn`` with a priming event
        (2025-11-25+), whose id is the stream's last event but ``pending`` (the backlog's
        events, sent next)."""
        if self.store is None or self.session_id is None:
            return
        if self.store.names_events:
            self._prime_named(stream, conn)
            return
        if not stream.primed:
            # Registers the stream with the store, so it can be resumed before any message.
            self.store.store_event(self.session_id, stream.key, 0, None)
            stream.primed = True
        version = self.protocol_version
        if version is not None and version.sse_polling:
            # Older clients may choke on an event with empty data: prime only 2025-11-25+.
            conn.push(_priming(stream.prefix, stream.key, stream.seq - pending, self.retry_ms))

    def _prime_named(self, stream: _Stream, conn: SSEConnection) -> None:
        """:meth:`_prime` with a store naming its events: a priming event stored each time
        a connection of a request's stream starts (2025-11-25+; the official SDKs prime no
        standalone stream)."""
        version = self.protocol_version
        if self.store is None or self.session_id is None or stream.standalone:
            return
        if version is not None and version.sse_polling:
            event_id = self.store.store_named(self.session_id, stream.key, None)
            conn.push(sse.encode_event(None, event_id, retry=self.retry_ms))
        stream.primed = True

    def _emit(self, stream: _Stream, data: bytes) -> None:
        store = self.store
        if store is not None and store.names_events and self.session_id is not None:
            frame = sse.encode_event(data, store.store_named(self.session_id, stream.key, data))
        elif store is not None and self.session_id is not None:
            seq = stream.seq = stream.seq + 1
            store.store_event(self.session_id, stream.key, seq, data)
            frame = _event(stream.prefix, stream.key, seq, data)
        else:
            frame = sse.encode_event(data)
        conn = stream.conn
        if conn is not None and not conn.aborted and not conn.finished:
            if not conn.push(frame):
                self._dropped(conn)  # push aborted it: producers wait for the resumption
        elif stream.standalone:
            backlog = self._backlog
            if backlog is None:
                backlog = self._backlog = deque(maxlen=self._limits.backlog)
            backlog.append(frame)
        # else: the client left this stream; it is in the store if resumption is on.

    def _unrelated(self, message: Any, data: bytes) -> None:
        """A request or notification with no request stream to travel on."""
        standalone = self._standalone
        conn = standalone.conn
        live = conn is not None and not conn.aborted and not conn.finished
        quiet = not self._task_streams and not self._held and not self._undelivered
        if (live and quiet) or type(message) is not dict:
            self._emit(standalone, data)
            return
        if (self._held or self._undelivered) and self._held_message_ended(message):
            return
        task_id = _related_task(message)
        if task_id is not None:
            stream = self._task_streams.get(task_id)
            if stream is not None:
                self._emit(stream, data)
                return
            if not live:
                self._hold(task_id, message.get("id"), data)
                return
        self._emit(standalone, data)

    def _hold(self, task_id: str, rid: RequestId | None, data: bytes) -> None:
        held = self._held
        if held is None:
            held = self._held = deque()
        if len(held) >= self._limits.held:
            old_task, old_rid, _ = held.popleft()
            logger.warning(
                "Too many undelivered task messages: dropping the oldest (task %s)", old_task
            )
            if old_rid is not None:
                self._forget_request(old_rid)
        held.append((task_id, rid, data))

    def _forget_request(self, rid: RequestId) -> None:
        undelivered = self._undelivered
        if undelivered is None:
            undelivered = self._undelivered = {}
        undelivered[rid] = None
        if len(undelivered) > self._limits.held:
            del undelivered[next(iter(undelivered))]

    def _held_message_ended(self, message: JSONObject) -> bool:
        """Drop what a message makes moot: a terminal status drops the task's held
        messages; a cancellation of a held (or dropped) request drops both. True when
        ``message`` itself is not to be sent."""
        method = message.get("method")
        params = message.get("params")
        if type(params) is not dict:
            return False
        held = self._held
        if method == "notifications/tasks/status" and params.get("status") in _TERMINAL:
            task_id = params.get("taskId")
            if held and any(t == task_id for t, _, _ in held):
                kept: deque[tuple[str, RequestId | None, bytes]] = deque()
                for entry in held:
                    if entry[0] != task_id:
                        kept.append(entry)
                    elif entry[1] is not None:
                        self._forget_request(entry[1])
                self._held = kept
            return False
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            if type(rid) is not str and type(rid) is not int:
                return False
            if self._undelivered and rid in self._undelivered:
                del self._undelivered[rid]
                return True  # the peer never saw the request
            if held:
                for i, entry in enumerate(held):
                    if entry[1] == rid:
                        del held[i]
                        return True
        return False

    def _release_held(self, task_id: str | None, stream: _Stream) -> None:
        """Send the held messages of ``task_id`` (None: all) on ``stream``, in order."""
        if not self._held:
            return
        if task_id is None:
            held, self._held = self._held, None
        else:
            held = deque()
            kept: deque[tuple[str, RequestId | None, bytes]] = deque()
            for entry in self._held:
                (held if entry[0] == task_id else kept).append(entry)
            self._held = kept
        for _, _, data in held:
            self._emit(stream, data)

    def _end_stream(self, stream: _Stream) -> None:
        self._streams.pop(stream.key, None)
        self._resumed(stream)
        if stream.tasks is not None:
            for task_id in stream.tasks:
                if self._task_streams.get(task_id) is stream:
                    del self._task_streams[task_id]
        conn, stream.conn = stream.conn, None
        if conn is not None:
            conn.finish()

    def _close_conn(self, stream: _Stream | None) -> bool:
        if stream is None or stream.conn is None:
            return False
        conn, stream.conn = stream.conn, None
        with contextlib.suppress(Exception):
            conn.push(sse.encode_retry(self.retry_ms if self.retry_ms is not None else 1000))
        conn.finish()
        return True


def answer_alone(transport: HttpSessionTransport, data: bytes) -> bytes:
    """The SSE body of a POST answered at once by its one message ``data`` (the usual
    ``tools/call`` of a tool that cannot suspend: nothing else can travel on its
    stream): the events a request stream of its own would carry, and store for
    resumption, without the stream (primed on 2025-11-25+, as its ``_prime`` does)."""
    store = transport.store
    sid = transport.session_id
    if store is None or sid is None:
        return sse.encode_event(data)
    if store.names_events:
        return stored_answer(transport, data)
    key = transport._new_key()
    store.store_event(sid, key, 0, None)
    store.store_event(sid, key, 1, data)
    prefix = b"id: " + key.encode() + b"-"  # (a _Stream's prefix)
    frame = _event(prefix, key, 1, data)
    version = transport.protocol_version
    if version is None or not version.sse_polling:
        return frame
    return _priming(prefix, key, 0, transport.retry_ms) + frame


def _priming(prefix: bytes, key: str, seq: int, retry: int | None) -> bytes:
    """The priming event of the stream ``key`` (``prefix``: its ``id: <key>-``), with the
    id of its event ``seq``: ``sse.encode_event(None, id, retry=retry)``."""
    if retry is None:  # the usual priming event, at once
        return b"%b%d\ndata: \n\n" % (prefix, seq)
    return sse.encode_event(None, f"{key}-{seq}", retry=retry)


def _event(prefix: bytes, key: str, seq: int, data: bytes) -> bytes:
    """The event ``seq`` of the stream ``key`` (``prefix``: its ``id: <key>-``) carrying the
    message ``data``: ``sse.encode_event(data, id)``."""
    if b"\n" in data or b"\r" in data:
        return sse.encode_event(data, f"{key}-{seq}")
    # one line of JSON (what orjson writes), at once
    return b"%b%d\nevent: message\ndata: %b\n\n" % (prefix, seq, data)


def stored_answer(transport: HttpSessionTransport, data: bytes) -> bytes:
    """The SSE body of an answer sent on a stream of its own, written through a store
    naming its events first (primed on 2025-11-25+): the official SDKs' ``initialize``."""
    stream = _Stream(transport._new_key())
    conn = SSEConnection(len(data) + 4096)
    transport._prime_named(stream, conn)
    assert transport.store is not None and transport.session_id is not None
    conn.push(
        sse.encode_event(data, transport.store.store_named(transport.session_id, stream.key, data))
    )
    return conn.take()
