"""ASGI plumbing shared by the HTTP apps: the ASGI types, the request headers MCP looks
at (read in one pass), content negotiation, and the respond / read-body helpers.

Plain ASGI with no per-message framework objects: the hot path reads ``scope["headers"]``
once and writes whole bodies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from types import CoroutineType
from typing import Any, Final

import orjson

from mcpkit.asgi_types import Message, Receive, Scope, Send
from mcpkit.eager import Resume

__all__ = [
    "JSON_HEADERS",
    "NO_BODY",
    "SSE_HEADERS",
    "BodyTooLarge",
    "BodyTooSlow",
    "Message",
    "Receive",
    "RequestHeaders",
    "Scope",
    "Send",
    "accept_flags",
    "accepts",
    "body_within",
    "error_body",
    "flags_cache",
    "oversized_headers",
    "read_body",
    "read_body_within",
    "read_headers",
    "respond",
    "respond_body_timeout",
    "respond_error",
    "respond_json",
]


JSON_HEADERS: Final = [(b"content-type", b"application/json")]
#: The headers of an answer without a body (a length, so it is not sent chunked).
NO_BODY: Final = [(b"content-length", b"0")]
SSE_HEADERS: Final = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


#: What each header RequestHeaders reads is, by its (lower-case) name.
(
    _HOST,
    _ACCEPT,
    _CONTENT_TYPE,
    _CONTENT_LENGTH,
    _PROTOCOL_VERSION,
    _SESSION_ID,
    _ORIGIN,
    _EVENT_ID,
) = range(8)
_KINDS: Final[dict[bytes, int]] = {
    b"host": _HOST,
    b"accept": _ACCEPT,
    b"content-type": _CONTENT_TYPE,
    b"content-length": _CONTENT_LENGTH,
    b"mcp-protocol-version": _PROTOCOL_VERSION,
    b"mcp-session-id": _SESSION_ID,
    b"origin": _ORIGIN,
    b"last-event-id": _EVENT_ID,
}
#: Header values seen before (Host, Accept, Content-Type, Origin, MCP-Protocol-Version: a
#: server sees the same few), decoded; bounded.
_TEXT: dict[bytes, str] = {}


def _text(value: bytes) -> str:
    text = value.decode("latin-1")
    if len(_TEXT) < 1024 and len(value) <= 256:
        _TEXT[value] = text
    return text


class RequestHeaders:
    """The request headers the transports look at, read in one pass, with the size of them
    all (``size``: bytes of names and values; ``count``) and every ``Mcp-*`` one: ``fields``
    maps their raw names to their raw values when no ``Mcp-*`` name repeats (what the
    2026-07-28 checks read, with no second pass over the headers), else None (None too
    when there is none); :attr:`mcp` lists them as they came."""

    __slots__ = (
        "_raw",
        "accept",
        "allowed",
        "content_length",
        "content_type",
        "count",
        "fields",
        "host",
        "last_event_id",
        "origin",
        "protocol_version",
        "routing",
        "session_id",
        "size",
    )

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        self._raw = raw
        self.accept: str | None = None
        self.content_type: str | None = None
        self.host: str | None = None
        self.origin: str | None = None
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.last_event_id: str | None = None
        self.content_length: str | None = None
        #: What the 2026-07-28 edge found of the routing headers in :attr:`fields` (kept
        #: here, read once per head: see ``modern_server.routing_of``); None: not looked at.
        self.routing: Any = None
        #: The Host/Origin policy that let this head through last (its app found it within
        #: its header limits too), and the server address it judged it for (see
        #: ``StreamableHTTPApp.handle_http``); None: none yet.
        self.allowed: tuple[object, object] | None = None
        fields: dict[bytes, bytes] | None = None
        repeated = False
        if type(raw) is not list:  # (ASGI servers give a list: counted at once)
            raw = self._raw = list(raw)
        size = 0
        count = len(raw)
        kind_of, text = _KINDS.get, _TEXT
        for k, v in raw:
            size += len(k) + len(v)
            # One lookup says which header it is (no chain of comparisons); a value seen
            # before is taken decoded from _TEXT.
            kind = kind_of(k)
            if kind is None:
                if k[:4] != b"mcp-":
                    continue
            elif kind is _HOST:
                self.host = text.get(v) or _text(v)
                continue
            elif kind is _ACCEPT:
                value = text.get(v) or _text(v)
                self.accept = value if self.accept is None else self.accept + "," + value
                continue
            elif kind is _CONTENT_TYPE:
                self.content_type = text.get(v) or _text(v)
                continue
            elif kind is _CONTENT_LENGTH:
                self.content_length = v.decode("latin-1")
                continue
            elif kind is _PROTOCOL_VERSION:
                self.protocol_version = (text.get(v) or _text(v)).strip()
            elif kind is _SESSION_ID:
                self.session_id = v.decode("latin-1")
            elif kind is _ORIGIN:
                self.origin = text.get(v) or _text(v)
                continue
            else:
                self.last_event_id = v.decode("latin-1").strip()
                continue
            if fields is None:  # an Mcp-* header
                fields = {k: v}
            elif k in fields:
                repeated = True
            else:
                fields[k] = v
        self.fields = None if repeated else fields
        self.size = size
        self.count = count

    @property
    def mcp(self) -> list[tuple[bytes, bytes]] | None:
        """Every ``Mcp-*`` header as it came (name, value), in order; None when none."""
        return [(k, v) for k, v in self._raw if k[:4] == b"mcp-"] or None


#: Heads read before (a server sees the same few from its clients): each head's
#: RequestHeaders by its headers less Content-Length (its position put in its place, so
#: the head is known exactly), then by the Content-Length value (None: none). Bounded:
#: emptied when full; heads larger than _HEAD_BYTES are not kept.
_HEADS: dict[tuple[Any, ...], dict[bytes | None, RequestHeaders]] = {}
#: Where Content-Length stood in the last head of so many headers read with one.
_LENGTH_AT: dict[int, int] = {}
_HEADS_MAX: Final = 256
_LENGTHS_MAX: Final = 32
_HEAD_BYTES: Final = 2048


def read_headers(raw: Iterable[tuple[bytes, bytes]]) -> RequestHeaders:
    """``RequestHeaders(raw)``, shared with every earlier request whose head was the same
    (read-only: nothing changes a RequestHeaders). An ASGI server gives a new list of new
    bytes objects per request: one hash of the head finds it, where reading it costs a
    step per header."""
    if type(raw) is not list:
        return RequestHeaders(raw)
    at = _LENGTH_AT.get(len(raw))
    if at is not None and raw[at][0] == b"content-length":
        key: tuple[Any, ...] = (*raw[:at], at, *raw[at + 1 :])
        length: bytes | None = raw[at][1]
    else:
        key = tuple(raw)
        length = None
    by_length = _HEADS.get(key)
    if by_length is not None:
        h = by_length.get(length)
        if h is not None:
            return h
    return _read_new(raw, key, length)


def _read_new(
    raw: list[tuple[bytes, bytes]], key: tuple[Any, ...], length: bytes | None
) -> RequestHeaders:
    """A head not found among those read before: read, and kept when small."""
    h = RequestHeaders(raw)
    if h.size > _HEAD_BYTES:
        return h
    if length is None and h.content_length is not None:
        # Content-Length is not where the last such head had it: keyed by where it is.
        at = max(i for i, (k, _) in enumerate(raw) if k == b"content-length")
        if len(_LENGTH_AT) < 64:
            _LENGTH_AT[len(raw)] = at
        key = (*raw[:at], at, *raw[at + 1 :])
        length = raw[at][1]
    by_length = _HEADS.get(key)
    if by_length is None:
        if len(_HEADS) >= _HEADS_MAX:
            _HEADS.clear()
        by_length = _HEADS[key] = {}
    elif len(by_length) >= _LENGTHS_MAX:
        by_length.clear()
    by_length[length] = h
    return h


_ACCEPT_CACHE: dict[tuple[str, str], bool] = {}


def accepts(accept: str | None, kind: str) -> bool:
    """Whether an Accept header admits ``kind`` (``type/subtype``), wildcards included."""
    if accept is None:
        return False
    key = (accept, kind)
    cached = _ACCEPT_CACHE.get(key)
    if cached is None:
        cached = _parse_accepts(accept, kind)
        if len(_ACCEPT_CACHE) < 512:
            _ACCEPT_CACHE[key] = cached
    return cached


_FLAGS_CACHE: dict[str, tuple[bool, bool]] = {}
_NEITHER: Final = (False, False)


def accept_flags(accept: str | None) -> tuple[bool, bool]:
    """Whether an Accept header admits ``application/json`` and ``text/event-stream``
    (:func:`accepts` of each), found once per distinct header value."""
    if accept is None:
        return _NEITHER
    flags = _FLAGS_CACHE.get(accept)
    if flags is None:
        flags = (
            _parse_accepts(accept, "application/json"),
            _parse_accepts(accept, "text/event-stream"),
        )
        if len(_FLAGS_CACHE) < 512:
            _FLAGS_CACHE[accept] = flags
    return flags


def flags_cache() -> dict[str, tuple[bool, bool]]:
    """What :func:`accept_flags` found for each Accept value seen (bounded; read-only to
    callers: a hit there is what the call would answer)."""
    return _FLAGS_CACHE


def _parse_accepts(accept: str, kind: str) -> bool:
    major = kind.split("/", 1)[0]
    for part in accept.split(","):
        media, _, params = part.strip().partition(";")
        media = media.strip().lower()
        if media in (kind, "*/*", major + "/*"):
            if "q=0" in params.replace(" ", "") and "q=0." not in params.replace(" ", ""):
                continue  # explicitly refused
            return True
    return False


def error_body(code: int, message: str, rid: Any = None) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


async def respond(
    send: Send,
    status: int,
    body: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers or []})
    await send({"type": "http.response.body", "body": body})


async def respond_json(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A whole JSON answer, with its ``Content-Length`` (without one the ASGI server has to
    send it chunked: a chunk header, then the terminating chunk)."""
    headers = [*JSON_HEADERS, (b"content-length", b"%d" % len(body))]
    if extra:
        headers += extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def respond_error(
    send: Send,
    status: int,
    code: int,
    message: str,
    rid: Any = None,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    await respond_json(send, status, error_body(code, message, rid), extra)


class BodyTooLarge(Exception):
    """The request body passed its limit (answer 413)."""


class BodyTooSlow(TimeoutError):
    """The request body arrived slower than the minimum data rate (answer 408, close)."""


async def read_body(
    receive: Receive, limit: int, min_rate: float | None = None, grace: float = 5.0
) -> bytes | None:
    """The request body, or None if the client went away first; over ``limit`` raises.

    ``min_rate``: once the body has taken more than ``grace`` seconds, it must have arrived
    at ``min_rate`` bytes per second on average, else :class:`BodyTooSlow` (a client
    trickling bytes holds no connection). Checked as each chunk arrives: a body in one
    piece costs nothing; a client sending nothing at all is a matter for a timeout."""
    return await _read_from(await receive(), receive, limit, min_rate, grace)


async def _read_from(
    message: Message, receive: Receive, limit: int, min_rate: float | None, grace: float
) -> bytes | None:
    """:func:`read_body` once its first message (``message``) was received."""
    if message["type"] != "http.request":
        return None
    body: bytes = message.get("body", b"")
    if not message.get("more_body", False):
        if len(body) > limit:
            raise BodyTooLarge
        return body
    chunks = [body]
    size = len(body)
    loop = asyncio.get_running_loop() if min_rate else None
    started = loop.time() if loop is not None else 0.0
    while True:
        if size > limit:
            raise BodyTooLarge
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            break
        if loop is not None and min_rate:
            elapsed = loop.time() - started
            if elapsed > grace and size < min_rate * elapsed:
                raise BodyTooSlow
    if size > limit:
        raise BodyTooLarge
    return b"".join(chunks)


async def _first_then_rest(
    first: Awaitable[Message],
    receive: Receive,
    limit: int,
    min_rate: float | None,
    grace: float,
) -> bytes | None:
    return await _read_from(await first, receive, limit, min_rate, grace)


async def read_body_within(
    receive: Receive,
    limit: int,
    timeout: float | None,
    min_rate: float | None = None,
    grace: float = 5.0,
) -> bytes | None:
    """:func:`read_body` with the whole body due within ``timeout`` seconds (else
    ``TimeoutError``) and arriving at ``min_rate`` bytes per second after ``grace`` seconds
    (else :class:`BodyTooSlow`). A body the ASGI server already holds is read at once, with
    no timer armed: only a read that has to wait runs under the timeout."""
    body = body_within(receive, limit, timeout, min_rate, grace)
    if body is None or isinstance(body, bytes):
        return body
    rest: bytes | None = await body
    return rest


def body_within(
    receive: Receive,
    limit: int,
    timeout: float | None,
    min_rate: float | None = None,
    grace: float = 5.0,
) -> bytes | Awaitable[bytes | None] | None:
    """:func:`read_body_within` with no coroutine of its own: the body (or None) when the
    ASGI server already holds all of it (read at once, no timer armed), else the awaitable
    of the rest of the read, under the timeout (to be awaited at once). Raises
    :class:`BodyTooLarge` as the read does."""
    first = receive()
    if type(first) is CoroutineType:
        # The usual receive (a coroutine) is stepped here: a body already held comes back
        # with no coroutine of ours around it.
        try:
            waiting_on = first.send(None)
        except StopIteration as done:
            message: Message = done.value
            if message["type"] == "http.request" and not message.get("more_body", False):
                body: bytes = message.get("body", b"")  # the whole body in one message
                if len(body) > limit:
                    raise BodyTooLarge from None
                return body
            coro = _read_from(message, receive, limit, min_rate, grace)
        else:
            first = Resume(first, waiting_on)
            coro = _first_then_rest(first, receive, limit, min_rate, grace)
    else:
        coro = _first_then_rest(first, receive, limit, min_rate, grace)
    try:
        waiting_on = coro.send(None)
    except StopIteration as rest:
        return rest.value  # type: ignore[no-any-return]
    return _rest_within(coro, waiting_on, timeout)


async def _rest_within(coro: Any, waiting_on: Any, timeout: float | None) -> bytes | None:
    if timeout is None:
        return await Resume(coro, waiting_on)
    async with asyncio.timeout(timeout):
        return await Resume(coro, waiting_on)


_CLOSE_CONNECTION: Final = [(b"connection", b"close")]


async def respond_body_timeout(send: Send, exc: TimeoutError) -> None:
    """408 for a body that did not arrive in time (or too slowly), closing the connection:
    the rest of the body is never read, so it cannot carry another request."""
    why = "arrived too slowly" if isinstance(exc, BodyTooSlow) else "did not arrive in time"
    await respond_json(
        send, 408, error_body(-32600, f"Request Timeout: the body {why}", None), _CLOSE_CONNECTION
    )


def oversized_headers(
    headers: Iterable[tuple[bytes, bytes]], max_bytes: int, max_count: int
) -> bool:
    """Whether a request's headers pass ``max_bytes`` in all or ``max_count`` in number
    (answer 431, whatever the ASGI server underneath let through)."""
    total = 0
    count = 0
    for name, value in headers:
        total += len(name) + len(value)
        count += 1
    return total > max_bytes or count > max_count
