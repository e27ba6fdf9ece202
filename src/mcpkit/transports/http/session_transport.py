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
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import JSONObject, RequestId
from mcpkit.transports.base import MessageSink, Transport, TransportInfo
from mcpkit.transports.http import sse

if TYPE_CHECKING:
    from mcpkit.transports.http.event_store import EventStore
    from mcpkit.versions import ProtocolVersion

__all__ = ["HttpSessionTransport", "SSEConnection"]

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


class SSEConnection:
    """One HTTP response streaming SSE frames; the ASGI handler drains :attr:`frames`."""

    __slots__ = (
        "aborted",
        "event",
        "finished",
        "frames",
        "keepalive_due",
        "max_buffer",
        "sending",
        "size",
        "task",
    )

    def __init__(self, max_buffer: int) -> None:
        self.frames: deque[bytes] = deque()
        self.size = 0
        self.max_buffer = max_buffer
        self.event = asyncio.Event()
        #: End the response once the buffered frames are sent.
        self.finished = False
        #: Stop now (client gone, replaced, or too slow); buffered frames are dropped.
        self.aborted = False
        self.sending = False
        #: The keep-alive timer fired: the handler sends a comment if nothing else is due.
        self.keepalive_due = False
        self.task: asyncio.Task[Any] | None = asyncio.current_task()

    def push(self, frame: bytes) -> bool:
        """Queue a frame; False (and the connection aborted) when the buffer overflowed."""
        if self.aborted or self.finished:
            return False
        self.size += len(frame)
        if self.size > self.max_buffer:
            logger.warning("SSE client too slow: dropping its connection (it may resume)")
            self.abort()
            return False
        self.frames.append(frame)
        self.event.set()
        return True

    def take(self) -> bytes:
        frames = self.frames
        data = frames.popleft() if len(frames) == 1 else b"".join(frames)
        frames.clear()
        self.size = 0
        self.event.clear()
        return data

    def ping(self) -> None:
        """Wake the handler to send a keep-alive comment."""
        self.keepalive_due = True
        self.event.set()

    def finish(self) -> None:
        self.finished = True
        self.event.set()

    def abort(self) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.frames.clear()
        self.size = 0
        self.event.set()
        task = self.task
        if self.sending and task is not None and task is not asyncio.current_task():
            task.cancel()  # stuck writing to a client that does not read


class _Stream:
    """A logical SSE stream: outlives its connections (it can be resumed)."""

    __slots__ = ("conn", "key", "primed", "request_ids", "seq", "standalone", "tasks")

    def __init__(self, key: str, standalone: bool = False) -> None:
        self.key = key
        self.seq = 0
        self.primed = False
        self.conn: SSEConnection | None = None
        self.request_ids: set[RequestId] = set()
        self.standalone = standalone
        #: Tasks whose ``tasks/result`` this stream answers (None: none).
        self.tasks: list[str] | None = None


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
    ) -> None:
        self.session_id = session_id
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
        self._streams: dict[str, _Stream] = {}
        self._by_request: dict[RequestId, _Stream] = {}
        self._json: dict[RequestId, asyncio.Future[bytes]] = {}
        self._standalone = _Stream(self._new_key(), standalone=True)
        self._streams[self._standalone.key] = self._standalone
        self._backlog: deque[bytes] = deque(maxlen=backlog)
        #: Task messages with no route yet, oldest first: (task id, request id, JSON).
        self._held: deque[tuple[str, RequestId | None, bytes]] = deque()
        self._held_limit = held_limit
        #: Ids of held requests dropped undelivered (their cancellation is not sent either).
        self._undelivered: dict[RequestId, None] = {}
        #: The open ``tasks/result`` stream of each task (newest wins).
        self._task_streams: dict[str, _Stream] = {}
        #: Open connections (a session with any is never idle).
        self.connections = 0

    # -- Transport interface -------------------------------------------------------------------

    async def start(self, sink: MessageSink) -> None:
        self.sink = sink

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
                    if type(message) is list:
                        for item in message:
                            rid = item.get("id") if type(item) is dict else None
                            if type(rid) is str or type(rid) is int:
                                self._json.pop(rid, None)
                    if not future.done():
                        future.set_result(data)
                    return
                # No stream to carry it on a JSON response: use the standalone stream.
                self._unrelated(message, data)
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

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for stream in list(self._streams.values()):
            if stream.conn is not None:
                stream.conn.finish()
                stream.conn = None
        self._streams.clear()
        self._by_request.clear()
        for future in self._json.values():
            if not future.done():
                future.cancel()
        self._json.clear()
        self._backlog.clear()
        self._held.clear()
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
        stream.conn = conn
        self._streams[stream.key] = stream
        for rid in ids:
            self._by_request[rid] = stream
        self._prime(stream, conn)
        return stream

    def open_standalone(self, conn: SSEConnection) -> None:
        """Attach a new GET connection to the standalone stream (replacing any earlier one)."""
        stream = self._standalone
        old = stream.conn
        if old is not None:
            old.finish()
        stream.conn = conn
        self._prime(stream, conn)
        while self._backlog and not conn.aborted:
            conn.push(self._backlog.popleft())
        self._release_held(None, stream)

    def resume(self, last_event_id: str, conn: SSEConnection) -> bool:
        """Replay a stream after ``last_event_id`` on ``conn`` and attach it if still live.

        False when the id names no stream of this session (or resumption is unavailable).
        """
        key, sep, seq_text = last_event_id.rpartition("-")
        if not sep or not seq_text.isdigit() or self.store is None or self.session_id is None:
            return False
        after = int(seq_text)
        events = self.store.replay(self.session_id, key, after)
        if events is None:
            return False
        stream = self._streams.get(key)
        if stream is not None and stream.seq < after:
            return False
        for seq, data in events:
            conn.push(sse.encode_event(data, f"{key}-{seq}"))
        if stream is None:
            conn.finish()  # that stream ended: its events are all replayed
            return True
        old = stream.conn
        if old is not None and old is not conn:
            old.finish()
        stream.conn = conn
        if stream.standalone:
            self._backlog.clear()  # those were stored and just replayed
            self._release_held(None, stream)
        return True

    def detach(self, conn: SSEConnection) -> None:
        """A connection ended (client gone or response complete)."""
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
        return self._close_conn(self._standalone)

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

    def request_stream_count(self) -> int:
        return len(self._streams) - 1

    # -- internals -----------------------------------------------------------------------------

    def _new_key(self) -> str:
        if self.session_id is None:
            self._counter += 1  # not resumable: no need for unguessable keys
            return str(self._counter)
        while True:
            key = secrets.token_hex(6)
            if key not in self._streams:
                return key

    def _prime(self, stream: _Stream, conn: SSEConnection) -> None:
        if self.store is None or self.session_id is None:
            return
        if not stream.primed:
            # Registers the stream with the store, so it can be resumed before any message.
            self.store.store_event(self.session_id, stream.key, 0, None)
            stream.primed = True
        version = self.protocol_version
        if version is not None and version.sse_polling:
            # Older clients may choke on an event with empty data: prime only 2025-11-25+.
            conn.push(sse.encode_event(None, f"{stream.key}-{stream.seq}", retry=self.retry_ms))

    def _emit(self, stream: _Stream, data: bytes) -> None:
        store = self.store
        if store is not None and self.session_id is not None:
            stream.seq += 1
            event_id: str | None = f"{stream.key}-{stream.seq}"
            store.store_event(self.session_id, stream.key, stream.seq, data)
        else:
            event_id = None
        frame = sse.encode_event(data, event_id)
        conn = stream.conn
        if conn is not None and not conn.aborted and not conn.finished:
            if not conn.push(frame):
                stream.conn = None
        elif stream.standalone:
            self._backlog.append(frame)
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
        if len(held) >= self._held_limit:
            old_task, old_rid, _ = held.popleft()
            logger.warning(
                "Too many undelivered task messages: dropping the oldest (task %s)", old_task
            )
            if old_rid is not None:
                self._forget_request(old_rid)
        held.append((task_id, rid, data))

    def _forget_request(self, rid: RequestId) -> None:
        undelivered = self._undelivered
        undelivered[rid] = None
        if len(undelivered) > self._held_limit:
            del undelivered[next(iter(undelivered))]

    def _held_message_ended(self, message: JSONObject) -> bool:
        """Drop what a message makes moot: a terminal status drops the task's held
        messages; a cancellation of a held (or dropped) request drops both. True when
        ``message`` itself is not to be sent."""
        method = message.get("method")
        params = message.get("params")
        if type(params) is not dict:
            return False
        if method == "notifications/tasks/status" and params.get("status") in _TERMINAL:
            task_id = params.get("taskId")
            if any(t == task_id for t, _, _ in self._held):
                kept: deque[tuple[str, RequestId | None, bytes]] = deque()
                for entry in self._held:
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
            if rid in self._undelivered:
                del self._undelivered[rid]
                return True  # the peer never saw the request
            for i, entry in enumerate(self._held):
                if entry[1] == rid:
                    del self._held[i]
                    return True
        return False

    def _release_held(self, task_id: str | None, stream: _Stream) -> None:
        """Send the held messages of ``task_id`` (None: all) on ``stream``, in order."""
        if not self._held:
            return
        if task_id is None:
            held, self._held = self._held, deque()
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
