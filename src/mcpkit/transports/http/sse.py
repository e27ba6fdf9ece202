"""Server-Sent Events framing: pure functions and an incremental parser, no I/O.

Encoding follows the WHATWG event-stream format: each field on its own line, an empty line
ends the event. JSON from orjson never contains a raw newline, so a message is always one
``data:`` line; other data is split on line breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "KEEPALIVE",
    "SSEDecoder",
    "ServerSentEvent",
    "encode_event",
    "encode_retry",
    "split_event_id",
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


class SSEDecoder:
    """Incremental event-stream parser: :meth:`feed` bytes, get whole events back.

    Also tracks ``last_event_id`` and ``retry`` (milliseconds) as the stream sets them, so a
    client can resume after the connection drops. Lines longer than ``max_line`` raise
    ``ValueError`` instead of growing the buffer without bound.
    """

    def __init__(self, max_line: int = 16 * 1024 * 1024) -> None:
        self.max_line = max_line
        self.last_event_id: str | None = None
        self.retry: int | None = None
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
                raise ValueError(f"SSE line longer than {self.max_line} bytes")
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
            raise ValueError(f"SSE line longer than {self.max_line} bytes")
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
                self.last_event_id = value
                self._id_seen = True
        elif name == "retry" and value.isdigit():
            self.retry = int(value)
            self._retry_seen = self.retry

    def _dispatch(self, out: list[ServerSentEvent]) -> None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        id_seen, self._id_seen = self._id_seen, False
        retry, self._retry_seen = self._retry_seen, None
        if not data and not id_seen:
            return
        out.append(
            ServerSentEvent(
                event=event or "message",
                data="\n".join(data),
                id=self.last_event_id if id_seen else None,
                retry=retry,
            )
        )
