"""Server-Sent Events: framing (pure functions), an incremental parser, and the loop that
sends one SSE response over ASGI (:func:`stream_response`).

Encoding follows the WHATWG event-stream format: each field on its own line, an empty line
ends the event. JSON from orjson never contains a raw newline, so a message is always one
``data:`` line; other data is split on line breaks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mcpkit._loop import running_loop

if TYPE_CHECKING:
    from mcpkit.transports.http.asgi import Receive, Send
    from mcpkit.transports.http.session_transport import SSEConnection

__all__ = [
    "KEEPALIVE",
    "SSEDecoder",
    "SSELineTooLong",
    "ServerSentEvent",
    "StreamHost",
    "encode_event",
    "encode_retry",
    "split_event_id",
    "stream_response",
    "watch_disconnect",
]

#: A comment line: keeps idle connections (and proxies) from timing out; clients ignore it.
KEEPALIVE = b": keep-alive\n\n"


def encode_event(
    data: bytes | None,
    event_id: str | None = None,
    *,
    event: str | None = "message",
    retry: int | None = None,
) -> bytes:
    """One SSE event. ``data=None`` (with an id) makes a priming event: id and empty data."""
    if (
        event == "message"
        and retry is None
        and data is not None
        and b"\n" not in data
        and b"\r" not in data
    ):
        # The usual event: one JSON message on one line.
        if event_id is None:
            return b"event: message\ndata: " + data + b"\n\n"
        return b"id: %b\nevent: message\ndata: %b\n\n" % (event_id.encode(), data)
    parts: list[bytes] = []
    if event_id is not None:
        parts.append(b"id: " + event_id.encode() + b"\n")
    if retry is not None:
        parts.append(b"retry: %d\n" % retry)
    if data is None:
        parts.append(b"data: \n\n")
        return b"".join(parts)
    if event is not None:
        parts.append(b"event: " + event.encode() + b"\n")
    if b"\n" in data or b"\r" in data:
        for line in data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
            parts.append(b"data: " + line + b"\n")
    else:
        parts.append(b"data: " + data + b"\n")
    parts.append(b"\n")
    return b"".join(parts)


def split_event_id(event_id: str) -> tuple[str, int] | None:
    """``(stream key, seq)`` of an event id of the form ``<key>-<seq>`` (what the server
    issues); None when it is not of that form (``seq`` must be 1 to 18 ASCII digits, so a
    hostile ``Last-Event-ID`` never reaches ``int`` with something it refuses)."""
    key, sep, seq = event_id.rpartition("-")
    if not sep or not 0 < len(seq) <= 18 or not seq.isascii() or not seq.isdigit():
        return None
    return key, int(seq)


def encode_retry(retry_ms: int) -> bytes:
    """A bare ``retry`` field (no event is dispatched): sent before closing a stream early."""
    return b"retry: %d\n\n" % retry_ms


@dataclass(slots=True)
class ServerSentEvent:
    """One dispatched event. ``id`` is the stream's last event id after this event."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSELineTooLong(ValueError):
    """A line longer than :attr:`SSEDecoder.max_line`. :attr:`events` are the events the
    same chunk completed before it: dispatched already (``last_event_id`` counts them, so
    a resumption does not send them again), to be handled as :meth:`SSEDecoder.feed`'s."""

    def __init__(self, max_line: int, events: list[ServerSentEvent]) -> None:
        super().__init__(f"SSE line longer than {max_line} bytes")
        self.events = events


class SSEDecoder:
    """Incremental event-stream parser: :meth:`feed` bytes, get whole events back.

    Also tracks ``last_event_id`` and ``retry`` (milliseconds) as the stream sets them, so a
    client can resume after the connection drops. As in the WHATWG event-stream rules, an
    ``id`` counts once its event is complete (at the blank line that dispatches it): a stream
    cut inside an event leaves ``last_event_id`` at the event before, so a resumption
    replays the cut one. :meth:`reconnected` drops what a cut stream left half-read. Lines
    longer than ``max_line`` raise :class:`SSELineTooLong` (a ``ValueError``, carrying the
    events completed before the line) instead of growing the buffer without bound.
    """

    def __init__(self, max_line: int = 16 * 1024 * 1024) -> None:
        self.max_line = max_line
        self.last_event_id: str | None = None
        self.retry: int | None = None
        #: The id the event being read sets (``last_event_id`` once it is dispatched).
        self._id: str | None = None
        self._buf = b""
        #: Chunks of a long line after ``_buf``, joined once its end arrives.
        self._parts: list[bytes] = []
        self._parts_size = 0
        self._event = ""
        self._data: list[str] = []
        self._id_seen = False
        self._retry_seen: int | None = None
        self._first = True

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Parse ``chunk``; return the events it completed (in order)."""
        if (
            self._buf
            and not self._first
            and b"\n" not in chunk
            and b"\r" not in chunk
            and not self._buf.endswith(b"\r")
        ):
            # The middle of a long line (a large message): collect it without rescanning.
            self._parts.append(chunk)
            self._parts_size += len(chunk)
            if len(self._buf) + self._parts_size > self.max_line:
                raise SSELineTooLong(self.max_line, [])
            return []
        if self._parts:
            self._buf = b"".join([self._buf, *self._parts])
            self._parts.clear()
            self._parts_size = 0
        buf = self._buf + chunk if self._buf else chunk
        if self._first and buf:
            if buf.startswith(b"\xef\xbb\xbf"):
                buf = buf[3:]
            if len(buf) >= 3 or not b"\xef\xbb\xbf".startswith(buf):
                self._first = False
        out: list[ServerSentEvent] = []
        start = 0
        n = len(buf)
        while start < n:
            i = buf.find(b"\n", start)
            j = buf.find(b"\r", start, i if i >= 0 else n)
            if j >= 0:
                if j + 1 == n:
                    break  # a lone CR at the end: wait to see whether LF follows
                end, nxt = j, j + 2 if buf[j + 1 : j + 2] == b"\n" else j + 1
            elif i >= 0:
                end, nxt = i, i + 1
            else:
                break
            self._line(buf[start:end].decode("utf-8", "replace"), out)
            start = nxt
        self._buf = buf[start:]
        if len(self._buf) > self.max_line:
            raise SSELineTooLong(self.max_line, out)
        return out

    def _line(self, line: str, out: list[ServerSentEvent]) -> None:
        if not line:
            self._dispatch(out)
            return
        if line[0] == ":":
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
                self._id_seen = True
        elif name == "retry" and value.isdigit():
            self.retry = int(value)
            self._retry_seen = self.retry

    def reconnected(self) -> None:
        """A new connection follows a cut one: forget the cut stream's unfinished line and
        event, keep ``last_event_id`` and ``retry`` (what the reconnection is sent with)."""
        self._buf = b""
        self._parts.clear()
        self._parts_size = 0
        self._event = ""
        self._data = []
        self._id = self.last_event_id
        self._id_seen = False
        self._retry_seen = None
        self._first = True

    def _dispatch(self, out: list[ServerSentEvent]) -> None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        id_seen, self._id_seen = self._id_seen, False
        retry, self._retry_seen = self._retry_seen, None
        self.last_event_id = self._id
        if not data and not id_seen:
            return
        out.append(
            ServerSentEvent(
                event=event or "message",
                data="\n".join(data),
                id=self._id if id_seen else None,
                retry=retry,
            )
        )


async def watch_disconnect(receive: Receive, conn: SSEConnection) -> None:
    """Abort ``conn`` once the client goes away (``http.disconnect``)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            conn.abort()
            return


class StreamHost(Protocol):
    """What holds the streams of :func:`stream_response` (the Streamable HTTP app)."""

    def cancel_is_quiet(self, conn: SSEConnection) -> bool:
        """Whether a cancellation of ``conn``'s response ends it quietly."""
        ...

    def stream_ended(self, owner: Any, conn: SSEConnection) -> None:
        """``conn``'s response (of ``owner``, its session) ended."""
        ...


async def stream_response(
    conn: SSEConnection,
    headers: list[tuple[bytes, bytes]],
    receive: Receive,
    send: Send,
    *,
    keepalive: float,
    watch: bool = False,
    hold: float = 0.0,
    host: StreamHost | None = None,
    owner: Any = None,
    loop: asyncio.AbstractEventLoop | None = None,
) -> None:
    """Answer with ``conn``'s SSE frames as they come, with a keep-alive comment every
    ``keepalive`` idle seconds, until it ends. A failed write aborts ``conn``; a
    cancellation is raised unless ``host`` says it is quiet, and ``host`` is told when the
    response ends (so no coroutine of its own needs to wrap this one on the per-event path).
    ``loop``: the running loop, when the caller has it at hand.

    ``watch``: watch for a client disconnect from the start (else only once the stream
    sits idle). ``hold``: wait up to that long for the first message before sending the
    headers, so a quick answer leaves as headers + one body write (frames, then the end of
    the response, in one chunk) instead of headers, frames and end apart.
    """
    if loop is None:
        loop = running_loop()
    # Short POST streams end before a disconnect matters; long ones (and GET streams)
    # watch for it so a vanished client is detached and its coroutine ends.
    watcher = loop.create_task(watch_disconnect(receive, conn)) if watch else None
    event = conn.event
    try:
        if hold > 0 and not event.is_set():
            timer = loop.call_later(hold, event.set)
            try:
                await event.wait()
            finally:
                timer.cancel()
        if conn.finished and conn.frames:
            # The whole answer is here: one body with its length (not chunked).
            data = conn.take()
            headers = [*headers, (b"content-length", b"%d" % len(data))]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            conn.sending = True
            await send({"type": "http.response.body", "body": data, "more_body": False})
            conn.sending = False
            return
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        while True:
            if conn.frames:
                data = conn.take()
                last = conn.finished
                conn.sending = True
                await send({"type": "http.response.body", "body": data, "more_body": not last})
                conn.sending = False
                if last:
                    break
                continue
            if conn.aborted or conn.finished:
                if not conn.aborted:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                break
            if event.is_set():
                event.clear()  # woken by the hold timer, or a push since dropped
            timer = loop.call_later(keepalive, conn.ping)
            try:
                await event.wait()
            finally:
                timer.cancel()
            if conn.keepalive_due:
                conn.keepalive_due = False
                if conn.frames or conn.aborted or conn.finished:
                    continue
                event.clear()
                if watcher is None:
                    watcher = loop.create_task(watch_disconnect(receive, conn))
                conn.sending = True
                await send({"type": "http.response.body", "body": KEEPALIVE, "more_body": True})
                conn.sending = False
    except OSError:
        conn.abort()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if host is None or task is None or not host.cancel_is_quiet(conn):
            raise
        task.uncancel()
    finally:
        if watcher is not None:
            watcher.cancel()
        if host is not None:
            host.stream_ended(owner, conn)
