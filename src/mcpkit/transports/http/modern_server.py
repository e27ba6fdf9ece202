"""Streamable HTTP for the stateless (modern) revisions: one POST, one request, one answer.

:class:`~mcpkit.transports.http.server.StreamableHTTPApp` decides the era of every POST once,
at its edge (:func:`~mcpkit.transports.http.modern_headers.is_modern_request`), and hands a
modern one to :func:`serve_modern_post`. That checks the request's headers in the order the
conformance suite assumes (:func:`~mcpkit.transports.http.modern_headers.
check_modern_headers`, then ``Mcp-Param-*`` against the called tool's ``x-mcp-header``
parameters), then serves it with a fresh session of the modern era on a
:class:`ModernRequestTransport` (which judges the ``_meta`` envelope and the version:
-32602, -32022) and nothing is kept afterwards. A quick ``tools/call`` that nothing could
make reach a session (see
:func:`~mcpkit.server.request_sessions.sessionless_context`) is answered the same way
without one: the server's prototype session computes its response.

The answer:

- a notification: ``202 Accepted``; a batch or a JSON-RPC response: ``400`` (-32600);
- an error found before the handler runs, or a final response that comes before anything
  else: ``application/json`` with the status of its code
  (:func:`~mcpkit.transports.http.modern_headers.status_for_code`: 400 for the envelope,
  header, version and capability errors, 404 for -32601);
- in SSE mode (the app's ``json_response`` off and the client accepting
  ``text/event-stream``), the response commits to an SSE stream only once there is
  something to stream before the result (progress, log notifications) or the request has
  run for ``keepalive_interval`` seconds: ``event: message`` frames without ids (this
  revision has no resumability), ``X-Accel-Buffering: no``, keep-alive comments while it is
  quiet, the final response last. In JSON mode notifications are dropped. A client that
  accepts only ``text/event-stream`` gets its result as one SSE event (errors stay JSON
  with their status).
- A request the session tries to send fails at once with -32600 (the modern wire has
  none; MRTR's ``input_required`` results replace them) and nothing reaches the stream.

A stream stays open for as long as its request runs: a handler that writes notifications
related to its request and does not return (``subscriptions/listen``) keeps an SSE stream
open with keep-alives until the client goes away. A client that disconnects cancels the
request (its session is closed, which cancels the handler).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Mapping, Sequence
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson

from mcpkit.envelope import PROTOCOL_VERSION_KEY
from mcpkit.errors import McpError
from mcpkit.http_headers import NAME_SOURCES
from mcpkit.http_headers import validate_param_headers as _validate_param_headers
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSONObject,
    MessageKind,
    RequestId,
    classify,
)
from mcpkit.transports.base import MessageSink, Transport, TransportInfo
from mcpkit.transports.http import sse
from mcpkit.transports.http.asgi import (
    JSON_HEADERS,
    SSE_HEADERS,
    Receive,
    RequestHeaders,
    Send,
    respond,
)
from mcpkit.transports.http.modern_headers import check_modern_headers, status_for_code
from mcpkit.transports.http.served import ServedApp, served_by_session
from mcpkit.transports.http.shutdown import watch_signals

if TYPE_CHECKING:
    from mcpkit.transports.http.app_view import HttpApp

__all__ = [
    "DisconnectWatch",
    "ModernRequestTransport",
    "error_status",
    "fields_match",
    "header_mapping",
    "headers_match",
    "quick_answer",
    "routed",
    "routing_of",
    "serve_modern_post",
]

logger = logging.getLogger("mcpkit.http")

#: How long the answer waits for its request before it watches for a disconnect (a quick
#: answer needs no watcher task).
_WATCH_AFTER: Final = 0.05
# Enum members as module names: looked up on their class they cost ~0.4 µs each (3.11).
_REQUEST, _NOTIFICATION = MessageKind.REQUEST, MessageKind.NOTIFICATION
_INFO: Final = TransportInfo(kind="http")
_JSON_TYPE: Final = (b"content-type", b"application/json")


#: Header names seen before: the decoded name of an ``Mcp-*`` one, None for any other (a
#: server sees the same few names over and over). Routing-header values seen before,
#: decoded, and whether a value is plain (see _plain). All bounded.
_NAMES: dict[bytes, str | None] = {}
_VALUES: dict[bytes, str] = {}
_PLAIN: dict[str, bool] = {}
_CACHE_MAX: Final = 4096
_VALUE_MAX: Final = 256
#: The headers whose values are remembered (not Mcp-Param-*: those carry arguments).
_ROUTING: Final = frozenset({"mcp-protocol-version", "mcp-method", "mcp-name"})


def _name_of(k: bytes) -> str | None:
    name = k.decode("latin-1") if k.startswith(b"mcp-") else None  # ASGI names are lower-case
    if len(_NAMES) < _CACHE_MAX:
        _NAMES[k] = name
    return name


def _value_of(v: bytes) -> str:
    value = v.decode("latin-1")
    if len(_VALUES) < _CACHE_MAX and len(v) <= _VALUE_MAX:
        _VALUES[v] = value
    return value


def header_mapping(raw: Sequence[tuple[bytes, bytes]]) -> dict[str, str]:
    """The ``Mcp-*`` request headers (every header the modern checks read) of an ASGI
    scope (names lower-case) as ``{name: value}``; repeated fields are joined with ``", "``
    (RFC 9110), so a duplicated ``Mcp-Method`` no longer equals the body's."""
    out: dict[str, str] = {}
    names, values = _NAMES, _VALUES
    for k, v in raw:
        try:
            name = names[k]
        except KeyError:
            name = _name_of(k)
        if name is None:
            continue
        try:
            value = values[v]
        except KeyError:
            value = _value_of(v) if name in _ROUTING else v.decode("latin-1")
        if name in out:
            out[name] = out[name] + ", " + value
        else:
            out[name] = value
    return out


def _plain(value: str) -> bool:
    # A value the full checks take as it is: visible ASCII, no surrounding spaces, not in
    # the =?base64?...?= form.
    try:
        return _PLAIN[value]
    except KeyError:
        pass
    plain = (
        value.isascii()
        and value.isprintable()
        and value[:1] != " "
        and value[-1:] != " "
        and not value.startswith("=?base64?")
    )
    if len(_PLAIN) < _CACHE_MAX and len(value) <= _VALUE_MAX:
        _PLAIN[value] = plain
    return plain


def headers_match(headers: Mapping[str, str], method: str, params: Any) -> bool:
    """True when the routing headers (``headers`` as :func:`header_mapping` gives them)
    equal the body exactly: ``MCP-Protocol-Version`` the ``_meta`` version, ``Mcp-Method``
    the method, ``Mcp-Name`` the named field where the method has one. Such a request
    passes :func:`~mcpkit.transports.http.modern_headers.check_modern_headers`; False
    means it must be asked (the usual request of a well-behaved client costs one lookup
    per header instead of the full checks)."""
    try:
        meta = params["_meta"]
        version = headers["mcp-protocol-version"]
        if (
            type(params) is not dict
            or type(meta) is not dict
            or version != meta[PROTOCOL_VERSION_KEY]
            or headers["mcp-method"] != method
        ):
            return False
    except (KeyError, TypeError):
        return False
    plain = _PLAIN
    try:
        if not (plain[version] and plain[method]):
            return False
    except KeyError:
        if not (_plain(version) and _plain(method)):
            return False
    field = NAME_SOURCES.get(method)
    if field is None:
        return True
    name = headers.get("mcp-name")
    if name is None:
        return False
    try:
        if not plain[name]:
            return False
    except KeyError:
        if not _plain(name):
            return False
    body = params.get(field)
    return type(body) is not str or body == name


def fields_match(fields: Mapping[bytes, bytes], method: str, params: Any) -> bool:
    """:func:`headers_match` read from the raw header ``fields`` of a head in which no name
    repeats (:attr:`RequestHeaders.fields`), without building the mapping: True only when
    every routing header is a value seen (and found plain) before and equals the body.
    False means ask :func:`headers_match` (its first reading of a value remembers it)."""
    values, plain = _VALUES, _PLAIN
    try:
        meta = params["_meta"]
        version = values[fields[b"mcp-protocol-version"]]
        if (
            type(params) is not dict
            or type(meta) is not dict
            or version != meta[PROTOCOL_VERSION_KEY]
            or values[fields[b"mcp-method"]] != method
            or not (plain[version] and plain[method])
        ):
            return False
        field = NAME_SOURCES.get(method)
        if field is None:
            return True
        name = values[fields[b"mcp-name"]]
        if not plain[name]:
            return False
    except (KeyError, TypeError):
        return False
    body = params.get(field)
    return type(body) is not str or body == name


def routing_of(fields: Mapping[bytes, bytes] | None) -> tuple[str, str, str | None] | bool:
    """The routing headers of a head's raw ``Mcp-*`` ``fields`` (:attr:`RequestHeaders.
    fields`, None when a name repeats), decoded: ``(version, method, name)`` when the
    version and the method are there and plain (what the full checks take as it is; the
    name None when it is missing or not plain), else False. A RequestHeaders keeps it
    (``routing``), so a head read before is not looked at again."""
    if fields is None:
        return False
    version = fields.get(b"mcp-protocol-version")
    method = fields.get(b"mcp-method")
    if version is None or method is None:
        return False
    text, routed_method = version.decode("latin-1"), method.decode("latin-1")
    if not (_plain(text) and _plain(routed_method)):
        return False
    name = fields.get(b"mcp-name")
    named = None if name is None else name.decode("latin-1")
    # (Mcp-Name is read only for the methods that name something: one that is not plain
    # is as good as none there, and not looked at elsewhere.)
    return text, routed_method, named if named is None or _plain(named) else None


def routed(routing: tuple[str, str, str | None], method: str, params: Any) -> bool:
    """:func:`headers_match` of the headers :func:`routing_of` found (not False): True when
    they equal the body exactly; False means ask the full checks."""
    version, routed_method, name = routing
    try:
        meta = params["_meta"]
        if (
            type(params) is not dict
            or type(meta) is not dict
            or meta[PROTOCOL_VERSION_KEY] != version
            or method != routed_method
        ):
            return False
    except (KeyError, TypeError):
        return False
    field = NAME_SOURCES.get(method)
    if field is None:
        return True
    if name is None:
        return False
    body = params.get(field)
    return type(body) is not str or body == name


def _error_code(error: Any) -> int:
    """The code of a JSON-RPC error object as the status of its answer reads it (0: none)."""
    code = error.get("code") if type(error) is dict else None
    return code if type(code) is int else 0


def error_status(error: Any) -> int:
    """The HTTP status answering a modern request with the JSON-RPC ``error`` object (a
    response with a result is answered 200)."""
    return status_for_code(_error_code(error))


def _error_body(rid: Any, error: McpError) -> bytes:
    err: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        err["data"] = error.data
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": err})


async def _respond_json(send: Send, status: int, body: bytes) -> None:
    headers = [*JSON_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _respond_alone(send: Send, answer: Any) -> None:
    # The JSON-RPC response of a request served without a session, as serve_modern_post
    # sends it inline.
    error = answer.get("error")
    status = 200 if error is None else error_status(error)
    await _respond_json(send, status, orjson.dumps(answer))


async def _respond_error(send: Send, rid: Any, error: McpError) -> None:
    await _respond_json(send, status_for_code(error.code), _error_body(rid, error))


class ModernRequestTransport(Transport):
    """The transport of one modern request's session: collects what the session writes for
    that request (notifications, then the response) for the POST answering it."""

    info = _INFO
    # Defaults of what most requests never change (each instance sets only what differs).
    sink: MessageSink | None = None
    size = 0
    #: The encoded final response, once written.
    response: bytes | None = None
    #: The JSON-RPC error code of the response (None: a result).
    error_code: int | None = None
    _event: asyncio.Event | None = None
    closed = False
    #: End the stream after what it has (the server is shutting down).
    ending = False
    #: The task watching for the client's disconnect (started once the request has
    #: waited past the quick-answer window), and when the wait began.
    watcher: asyncio.Task[None] | None = None
    started = 0.0
    _drained: asyncio.Event | None = None
    #: The ASGI ``send`` of the committed SSE stream while its writer waits with nothing
    #: queued (None otherwise): :meth:`push_frame` then sends a frame itself.
    idle: Send | None = None
    #: A frame's send that had to wait (flow control), finishing on a task of its own: the
    #: writer sends nothing more until it is done.
    sending: asyncio.Task[None] | None = None

    def __init__(self, request_id: RequestId | None, max_buffer: int = 4 * 1024 * 1024) -> None:
        self.request_id = request_id
        self.max_buffer = max_buffer
        #: Encoded notifications waiting to be streamed.
        self.frames: deque[bytes] = deque()

    @property
    def event(self) -> asyncio.Event:
        """Set whenever something arrives (or the stream must end); made on first use (a
        quick answer, written as the request was dispatched, never needs one)."""
        event = self._event
        if event is None:
            event = self._event = asyncio.Event()
        return event

    def _wake(self) -> None:
        if self._event is not None:
            self._event.set()

    async def start(self, sink: MessageSink) -> None:
        self.sink = sink

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if self.closed or self.response is not None:
            return  # the request is over: nothing more for it
        if type(message) is not dict:
            return
        if "method" not in message:
            if message.get("id") != self.request_id:
                return
            error = message.get("error")
            if type(error) is dict:
                self.error_code = _error_code(error)
            self.response = orjson.dumps(message)
            if self._event is not None:
                self._event.set()
            return
        if "id" in message:
            # The caller's request fails at once instead of waiting for an answer that
            # cannot come.
            raise McpError(
                INVALID_REQUEST,
                f"Cannot send a {message['method']!r} request: the 2026-07-28 wire has no "
                "server-to-client requests (ask through an input_required result instead)",
            )
        if related_request_id != self.request_id:
            return  # not about this request (a broadcast): no stream of its own here
        data = orjson.dumps(message)
        self.frames.append(data)
        self.size += len(data)
        if self._drained is None and self.size > self.max_buffer // 2:
            self._drained = asyncio.Event()
            self.writing_paused = True
        self._wake()

    def push_frame(self, data: bytes) -> bool:
        """Stream the notification ``data`` (encoded JSON, related to this request) without
        going through the session: sent on the spot when the SSE stream's writer is idle
        (no wake-up of it, no task), else queued for it. False when the stream is held
        back by a slow reader: the caller keeps the frame and waits (:meth:`drain`)."""
        if self.closed or self.response is not None:
            return True  # the request is over: nothing more for it (as write)
        if self._drained is not None:
            return False
        if self.idle is not None and not self.frames:
            self._send_now(sse.encode_event(data))
            return True
        self.frames.append(data)
        self.size += len(data)
        if self.size > self.max_buffer // 2:
            self._drained = asyncio.Event()
            self.writing_paused = True
        self._wake()
        return True

    def _send_now(self, chunk: bytes) -> None:
        send = self.idle
        assert send is not None
        try:
            sent = send({"type": "http.response.body", "body": chunk, "more_body": True})
            # A coroutine (uvicorn's send) is stepped as it is; any other awaitable (granian's)
            # through one that awaits it.
            step = sent if type(sent) is CoroutineType else _awaited(sent)
            yielded = step.send(None)
        except StopIteration:
            return  # written without waiting: the usual case
        except Exception as exc:
            if not isinstance(exc, OSError):
                logger.warning("A stream's frame could not be sent: %r", exc)
            self._lost()
            return
        # The server holds the write back (flow control): finish it on a task; until then
        # frames queue for the writer, which waits for it.
        self.idle = None
        task = asyncio.get_running_loop().create_task(_finish(step, yielded))
        self.sending = task
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self.sending = None
        if task.cancelled() or task.exception() is not None:
            self._lost()
        elif self.frames:
            self._wake()

    def _lost(self) -> None:
        # A write failed: the connection is gone (the session's close follows).
        self.closed = True
        self._wake()

    def end(self) -> None:
        """End this request's stream once its buffered frames are sent (shutdown)."""
        self.ending = True
        self._wake()

    def take(self) -> list[bytes]:
        """The frames waiting, removed (producers waiting on :meth:`drain` go on)."""
        frames = list(self.frames)
        self.frames.clear()
        self.size = 0
        if self._drained is not None:
            self._drained.set()
            self._drained = None
            self.writing_paused = False
        return frames

    async def drain(self) -> None:
        drained = self._drained
        if drained is not None:
            await drained.wait()

    async def close(self) -> None:
        self.close_now()

    def close_now(self) -> None:
        """:meth:`close`, which never waits: the session is told at once."""
        if self.closed:
            return
        self.closed = True
        if self._event is not None:
            self._event.set()
        if self._drained is not None:
            self._drained.set()
        sink = self.sink
        if sink is not None:
            sink.connection_lost(None)
            # The session and this transport refer to each other: without the cycle both are
            # freed by reference counting once the answer is sent (no garbage for the cyclic
            # collector, as on the 2025 stateless path).
            self.sink = None


class _Resume:
    """Hands what a suspended coroutine yielded to the running task, as if the task ran
    that coroutine itself (see :func:`_finish`)."""

    __slots__ = ("yielded",)

    def __init__(self, yielded: Any) -> None:
        self.yielded = yielded

    def __await__(self) -> Any:
        return (yield self.yielded)


async def _awaited(awaitable: Any) -> None:
    await awaitable


async def _finish(step: Any, yielded: Any) -> None:
    """Run the rest of the coroutine ``step`` that was started by hand and yielded
    ``yielded``: what its own task would have done."""
    while True:
        try:
            value = await _Resume(yielded)
        except BaseException as exc:  # thrown in by the task (cancelled): hand it on
            try:
                yielded = step.throw(exc)
            except StopIteration:
                return
            continue
        try:
            yielded = step.send(value)
        except StopIteration:
            return


# -- serving -------------------------------------------------------------------------------------


async def _watch_disconnect(receive: Receive, transport: ModernRequestTransport) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            transport.closed = True
            transport._wake()
            return


class DisconnectWatch:
    """Starts a disconnect watcher for each request still waiting for its answer after
    ``after`` seconds, with one timer for all of them: a quick answer costs no task and no
    timer of its own."""

    def __init__(self, after: float = _WATCH_AFTER) -> None:
        self.after = after
        self._waiting: dict[ModernRequestTransport, Receive] = {}
        self._timer: asyncio.TimerHandle | None = None

    def add(self, transport: ModernRequestTransport, receive: Receive) -> None:
        """``transport``'s request begins waiting (its ASGI ``receive`` reports disconnects)."""
        loop = asyncio.get_running_loop()
        transport.started = loop.time()
        self._waiting[transport] = receive
        if self._timer is None:
            self._timer = loop.call_later(self.after, self._sweep)

    def discard(self, transport: ModernRequestTransport) -> None:
        """The request is answered: stop watching it."""
        self._waiting.pop(transport, None)
        watcher = transport.watcher
        if watcher is not None:
            transport.watcher = None
            watcher.cancel()

    def _sweep(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        due = loop.time() - self.after
        first: float | None = None
        for transport, receive in list(self._waiting.items()):
            if transport.started <= due:
                del self._waiting[transport]
                transport.watcher = loop.create_task(_watch_disconnect(receive, transport))
                transport._wake()  # its answer loop may now arm its own timers
            elif first is None or transport.started < first:
                first = transport.started
        if first is not None:
            self._timer = loop.call_at(first + self.after, self._sweep)


def _new_session(
    factory: Any, served: ServedApp | None, transport: ModernRequestTransport
) -> tuple[Any, bool]:
    """A modern session for one request and whether it is started: the served server's
    request session when ``factory`` is its own session maker (``served``), started there;
    else ``factory(transport)`` in the modern era, to be started."""
    if served is not None:
        session = served.request_session(transport)
        # AppSession.start for a copy: its handler table was checked as it was made, and
        # this transport's start only takes its sink.
        transport.sink = session
        return session, True
    session = factory(transport)
    session.enter_modern()
    return session, False


def _param_header_error(
    served: ServedApp | None, headers: Mapping[str, str], params: Any
) -> McpError | None:
    """The error of a ``tools/call`` whose ``Mcp-Param-*`` headers disagree with its
    arguments (as the tool's ``x-mcp-header`` parameters name them), else None."""
    wanted = None if served is None else served.tool_header_params(params.get("name"))
    if wanted:
        try:
            _validate_param_headers(headers, wanted, params.get("arguments"))
        except McpError as exc:
            return exc
    return None


def _envelope_refused(app: HttpApp, params: Any, error: McpError) -> McpError:
    """A malformed ``_meta`` envelope (-32602) as the serving server words it (its
    ``envelope_refused(params, error)``, a server answering as another SDK does)."""
    server = getattr(app.session_factory, "__self__", None)
    rule = getattr(server, "envelope_refused", None)
    if error.code != INVALID_PARAMS or rule is None:
        return error
    refused: McpError = rule(params, error)
    return refused


def quick_answer(
    app: HttpApp,
    msg: JSONObject,
    params: Any,
    meta: Any,
    h: RequestHeaders,
    accepted: tuple[bool, bool],
) -> Awaitable[JSONObject] | Literal[False] | None:
    """The usual modern request answered with no frame of :func:`serve_modern_post`'s: a
    well-formed ``tools/call`` whose routing headers are exactly its body's (what
    :func:`routed` says of it), from a client accepting JSON, that needs no session (a
    call of a plain tool: the served app's ``sessionless_response``): the awaitable of
    its JSON-RPC response (answered as :func:`error_status` says). ``msg``: the request,
    an object whose ``params`` (an object) have the ``_meta`` object ``meta``. Else
    :func:`serve_modern_post` serves it, every check made in full: None when it is not
    such a request, False when only the last question found it needs a session
    (``serve_modern_post(..., ask_sessionless=False)``: its envelope was read here and is
    not read twice)."""
    served = app.served
    if served is None or not accepted[0]:
        return None
    rid = msg.get("id")
    if not (
        (type(rid) is str or type(rid) is int)
        and msg.get("method") == "tools/call"
        and msg.get("jsonrpc") == "2.0"
    ):
        return None
    routing = h.routing
    if routing is None:
        routing = h.routing = routing_of(h.fields)
    if routing is False:
        return None
    # routed(routing, "tools/call", params), inline: the version, the method and the
    # tool's name (Mcp-Name) are the body's (a name that is no string is refused later).
    version, method, name = routing
    if method != "tools/call" or name is None or meta.get(PROTOCOL_VERSION_KEY) != version:
        return None
    called = params.get("name")
    if type(called) is str and called != name:
        return None
    answer: Awaitable[JSONObject] | None = served.sessionless_response(rid, method, params)
    return False if answer is None else answer


async def serve_modern_post(
    app: HttpApp,
    msg: Any,
    h: RequestHeaders,
    accepted: tuple[bool, bool],
    receive: Receive,
    send: Send,
    ask_sessionless: bool = True,
) -> None:
    """Answer one modern POST whose body ``msg`` was parsed (see the module docstring);
    ``h``: its headers; ``accepted``: whether its Accept admits JSON and SSE
    (:func:`accept_flags`); ``ask_sessionless`` False: :func:`quick_answer` asked whether
    it needs a session of its own (it does), so that is not asked again."""
    if type(msg) is not dict:
        await _respond_error(
            send, None, McpError(INVALID_REQUEST, "Invalid request: the modern wire takes no batch")
        )
        return
    rid = msg.get("id")
    params = msg.get("params")
    if (
        type(rid) is str or type(rid) is int
    ) and (  # the usual request: what classify says of it, inline
        msg.get("jsonrpc") == "2.0"
        and type(msg.get("method")) is str
        and (params is None or type(params) is dict)
    ):
        kind: MessageKind = _REQUEST
    else:
        kind, why = classify(msg)
        if kind is _NOTIFICATION:
            await respond(send, 202)
            return
        if type(rid) is not str and type(rid) is not int:
            rid = None
    if kind is not _REQUEST:
        reason = (
            f"Invalid request: {why}"
            if kind is MessageKind.INVALID
            else ("Invalid request: the modern wire takes no JSON-RPC response from a client")
        )
        await _respond_error(send, rid, McpError(INVALID_REQUEST, reason))
        return
    method: str = msg["method"]
    # The usual request's routing headers are read from the head's fields, once per head
    # (h.routing); the {name: value} mapping of its Mcp-* headers is made only when
    # something needs more.
    routing = h.routing
    if routing is None:
        routing = h.routing = routing_of(h.fields)
    headers: Mapping[str, str] | None = None
    if routing is False or not routed(routing, method, params):
        headers = header_mapping(h.mcp or ())
        if not headers_match(headers, method, params):
            try:
                check_modern_headers(headers, method, params)
            except McpError as exc:
                await _respond_error(send, rid, _envelope_refused(app, params, exc))
                return
    served = app.served
    if served is not None:
        quick = accepted[0]
        if quick and ask_sessionless:
            # A quick request that needs no session of its own (the usual tools/call, of a
            # tool with no Mcp-Param-* headers to check): served by the prototype's engine,
            # answered as its copy would answer it.
            answer = served.sessionless_response(rid, method, params)
            if answer is not None:
                await _respond_alone(send, await answer)
                return
        if (
            method == "tools/call"
            and type(params) is dict
            and served.tool_header_params(params.get("name"))
        ):
            refused = _param_header_error(served, headers or header_mapping(h.mcp or ()), params)
            if refused is not None:
                await _respond_error(send, rid, refused)
                return
            if quick:  # its headers agree: it may need no session either
                answer = served.sessionless_response(rid, method, params, None, True)
                if answer is not None:
                    await _respond_alone(send, await answer)
                    return
    transport = ModernRequestTransport(rid, app.options.max_stream_buffer)
    session, started = _new_session(app.session_factory, served, transport)
    if served is None and method == "tools/call" and type(params) is dict:
        # Any other factory's session: its server's tools, if it is a server's session.
        refused = _param_header_error(
            served_by_session(session), headers or header_mapping(h.mcp or ()), params
        )
        if refused is not None:
            await _respond_error(send, rid, refused)
            await session.close()
            return
    if not started:
        await session.start()
    try:
        session.receive_classified(msg, kind)
        json_ok, sse_ok = accepted
        # A client that takes only SSE gets its result as an SSE event even in JSON mode.
        stream = not json_ok or (not app.json_response and sse_ok)
        response = transport.response
        if (
            response is not None
            and not (stream and transport.frames)
            and not transport.closed
            and (json_ok or transport.error_code is not None)
        ):
            # Answered as it was dispatched (the usual quick request): no waiting, no watch.
            code = transport.error_code
            await _respond_json(send, 200 if code is None else status_for_code(code), response)
        else:
            await _answer(app, transport, stream, json_ok, receive, send)
    finally:
        if served is not None:  # a started copy
            # Session.close for a copy, without its coroutines: close the transport, end
            # the session (connection_lost), then wait for its background tasks, if any.
            transport.close_now()
            if not session.closed:  # the transport was closed by the client's disconnect
                session.connection_lost(None)
            await served.finish_request(session)
        else:
            await session.close()


#: The answer of a request still running when the server stops (its handler is cancelled).
_SHUTTING_DOWN: Final = McpError(
    INTERNAL_ERROR, "The server is shutting down: the request was cancelled before it finished"
)


async def _answer(
    app: HttpApp,
    transport: ModernRequestTransport,
    stream: bool,
    json_ok: bool,
    receive: Receive,
    send: Send,
) -> None:
    """The answer of a request not answered as it was dispatched (see serve_modern_post):
    JSON once it is, or an SSE stream when it streams or runs long."""
    loop = asyncio.get_running_loop()
    event = transport.event
    watch = app.disconnect_watch
    watch.add(transport, receive)
    # Shutdown ends the wait as it ends the streams (uvicorn would wait for this request).
    app.modern_streams.add(transport)
    if app.shutting_down:
        transport.end()
    commit_at: float | None = None
    try:
        while True:
            if not stream and transport.frames:
                transport.take()  # nowhere to put notifications in JSON mode
            if transport.response is not None or transport.closed:
                break
            if transport.ending:
                await _respond_error(send, transport.request_id, _SHUTTING_DOWN)
                return
            if stream and transport.frames:
                break
            wake = None
            if stream and transport.watcher is not None:
                # Past the quick-answer window: commit once the request has run long enough
                # to need keep-alives.
                if commit_at is None:
                    commit_at = transport.started + app.options.keepalive_interval
                if loop.time() >= commit_at:
                    break
                wake = loop.call_at(commit_at, event.set)
            try:
                await event.wait()
            finally:
                if wake is not None:
                    wake.cancel()
            event.clear()
        if transport.response is None and transport.closed:
            return  # the client went away (the session's close cancels the request)
        if (
            transport.response is not None
            and not (stream and transport.frames)
            and (json_ok or transport.error_code is not None)
        ):
            # Errors keep their status as JSON whatever the client accepts.
            code = transport.error_code
            status = 200 if code is None else status_for_code(code)
            await _respond_json(send, status, transport.response)
            return
        if transport.watcher is None:
            watch.discard(transport)
            transport.watcher = loop.create_task(_watch_disconnect(receive, transport))
        await _stream(app, transport, send)
    finally:
        watch.discard(transport)
        app.modern_streams.discard(transport)


async def _stream(app: HttpApp, transport: ModernRequestTransport, send: Send) -> None:
    """The committed SSE answer: frames as they come, keep-alives while quiet, the final
    response last. At shutdown (:meth:`StreamableHTTPApp.close_streams`) it ends after what
    it has, like every stream of the app."""
    app.modern_streams.add(transport)
    watch_signals(app)
    if app.shutting_down:
        transport.end()
    try:
        await _stream_frames(app, transport, send)
    finally:
        app.modern_streams.discard(transport)


async def _stream_frames(app: HttpApp, transport: ModernRequestTransport, send: Send) -> None:
    loop = asyncio.get_running_loop()
    event = transport.event
    await send({"type": "http.response.start", "status": 200, "headers": list(SSE_HEADERS)})
    keepalive = app.options.keepalive_interval
    if not transport.frames and transport.response is None:
        # committed because the request ran quietly for a while: show the stream is alive
        await send({"type": "http.response.body", "body": sse.KEEPALIVE, "more_body": True})
    with contextlib.suppress(OSError):
        while True:
            chunks = [sse.encode_event(f) for f in transport.take()]
            response = transport.response
            if response is not None:
                chunks.append(sse.encode_event(response))
                await send({"type": "http.response.body", "body": b"".join(chunks)})
                return
            if transport.closed:
                return  # the client went away; no end of body to send
            if transport.ending:
                # The request's handler is cancelled as the stream ends: say so as its answer.
                chunks.append(sse.encode_event(_error_body(transport.request_id, _SHUTTING_DOWN)))
                await send({"type": "http.response.body", "body": b"".join(chunks)})
                return
            if chunks:
                await send(
                    {"type": "http.response.body", "body": b"".join(chunks), "more_body": True}
                )
                continue
            event.clear()
            if transport.frames or transport.response is not None or transport.closed:
                continue
            if transport.ending:
                continue
            timer = loop.call_later(keepalive, event.set)
            # While it waits, a frame pushed to the transport is sent there and then.
            transport.idle = send
            try:
                await event.wait()
            finally:
                transport.idle = None
                timer.cancel()
            sending = transport.sending
            if sending is not None:
                await asyncio.wait((sending,))  # a pushed frame's send goes first
            if not (
                transport.frames
                or transport.response is not None
                or transport.closed
                or transport.ending
            ):
                await send({"type": "http.response.body", "body": sse.KEEPALIVE, "more_body": True})
