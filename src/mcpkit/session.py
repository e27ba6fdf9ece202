"""The session engine: one bidirectional JSON-RPC endpoint used by both clients and servers.

A :class:`Session` sits on a :class:`~mcpkit.transports.base.Transport`. It correlates
outgoing requests with their responses (futures, timeouts that may reset on progress,
cancellation), serves incoming requests concurrently (one task each, bounded in number, with
backpressure on the transport), routes progress and cancellation, and enforces the lifecycle.
Roles differ only in the handlers registered: :class:`ServerSession` answers ``initialize``,
:class:`ClientSession` sends it.

The hot path is: bytes -> ``orjson.loads`` -> dispatch on ``method`` -> handler -> dict ->
``orjson.dumps`` -> bytes, with no queue or relay task in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import traceback
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, Self

import orjson

from mcpkit import session_clone, versions
from mcpkit._defaults import DEFAULT
from mcpkit.eager import Handoff, resume
from mcpkit.envelope import Envelope, parse_request_envelope
from mcpkit.errors import ConnectionClosed, McpError, RequestTimeout, UnsupportedProtocolVersion
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    JSONObject,
    MessageKind,
    RequestId,
    classify,
    error_response,
    is_valid_id,
    readable_id,
)
from mcpkit.lifecycle import (
    SERVER_CAPABILITY_FOR,
    Lifecycle,
    Role,
    era_of_first_request,
    era_refusal,
    offered,
)
from mcpkit.timeouts import Timeout
from mcpkit.transports.base import Transport
from mcpkit.versions import Era, ProtocolVersion

__all__ = [
    "ClientSession",
    "NotificationHandler",
    "ProgressCallback",
    "RequestContext",
    "RequestHandler",
    "ServerSession",
    "Session",
]

logger = logging.getLogger("mcpkit.session")

RequestHandler = Callable[[JSONObject | None, "RequestContext"], Awaitable[Any]]
"""Serves one request: ``(params, ctx) -> result`` (a JSON object, possibly with
``orjson.Fragment`` parts for pre-encoded data)."""
NotificationHandler = Callable[[JSONObject | None], Awaitable[None] | None]
ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
Tracer = Callable[[str, Any], None]

_NO_CANCEL: Final = frozenset({"initialize"})
#: Seconds the requests cancelled at the end of a drain get to unwind before they are
#: answered regardless.
_CUT_OFF_GRACE: Final = 1.0
# Enum members as module names: looked up on their class they cost ~0.4 µs each (3.11).
_REQUEST, _NOTIFICATION = MessageKind.REQUEST, MessageKind.NOTIFICATION
_RESULT, _ERROR = MessageKind.RESULT, MessageKind.ERROR
_SERVER, _CLIENT = Role.SERVER, Role.CLIENT


class RequestContext:
    """What a request handler knows about the request it serves, and how it talks back."""

    __slots__ = (
        "_last_progress",
        "_parked",
        "cancelled",
        "envelope",
        "meta",
        "method",
        "params",
        "progress_token",
        "request_id",
        "session",
        "task",
        "task_id",
    )

    def __init__(
        self, session: Session, request_id: RequestId, method: str, params: JSONObject | None
    ) -> None:
        self.session = session
        self.request_id = request_id
        self.method = method
        self.params = params
        meta = params.get("_meta") if params is not None else None
        if type(meta) is dict:
            self.meta: JSONObject | None = meta
            token = meta.get("progressToken")
            self.progress_token: str | int | None = (
                token if token is not None and is_valid_id(token) else None
            )
        else:
            self.meta = None
            self.progress_token = None
        #: Set when the peer cancelled this request; sync code can poll it.
        self.cancelled = False
        self.task: asyncio.Task[None] | None = None
        #: (handler coroutine, its context, the Handoff it waits on) while the request,
        #: served inline, waits on a Handoff with no task (see Session._park).
        self._parked: tuple[Coroutine[Any, Any, None], contextvars.Context, Handoff[Any]] | None = (
            None
        )
        self._last_progress: float | None = None
        #: The task this request runs as (a task-augmented call), else None.
        self.task_id: str | None = None
        #: The modern ``_meta`` envelope of the request (version, client capabilities,
        #: clientInfo, logLevel); None for a request of the legacy era.
        self.envelope: Envelope | None = None

    def unpark(self, fut: asyncio.Future[Any]) -> None:
        """Continue this request, parked on ``fut`` (see :meth:`Session._park`): what the
        Handoff calls once settled (a bound method of the request: nothing made per park
        but the method object)."""
        parked = self._parked
        if parked is None:
            return
        self._parked = None
        coro, context, _ = parked
        try:
            waiting_on = context.run(coro.send, None)
        except StopIteration:
            return
        except asyncio.CancelledError:  # its run was cancelled (the pool shut down)
            self.session._settle_cancelled(self)
            return
        except Exception:  # _serve answers every handler error itself: a bug if here
            logger.exception("Serving %r failed", self.method)
            self.session._done_serving(self.request_id)
            return
        if type(waiting_on) is Handoff and waiting_on.then is None:
            # parked again
            self._parked = (coro, context, waiting_on)
            waiting_on.then = self.unpark
        else:
            self.task = self.session._loop.create_task(resume(coro, waiting_on), context=context)

    @property
    def related_request_id(self) -> RequestId | None:
        """The incoming request whose stream carries what this handler sends: its own id,
        or for a task the request waiting on it (None: the transport routes it)."""
        return self.request_id

    @property
    def related_meta(self) -> JSONObject | None:
        """``_meta`` added to what this handler sends (a task's related-task key), or None."""
        return None

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` for this request (only if the caller asked for it).

        Progress must increase with every call; a value that does not raises ValueError.
        """
        token = self.progress_token
        if token is None:
            return
        last = self._last_progress
        if last is not None and progress <= last:
            raise ValueError(f"progress must increase: {progress} after {last}")
        self._last_progress = progress
        params: JSONObject = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            version = self.session.protocol_version
            if version is None or version.progress_message:
                params["message"] = message
        await self.notify("notifications/progress", params)

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        """Send a notification related to this request."""
        await self.session.notify(method, params, related_request_id=self.request_id)

    async def request(self, method: str, params: JSONObject | None = None, **kwargs: Any) -> Any:
        """Send a request to the peer while serving this one (sampling, elicitation, roots)."""
        return await self.session.request(
            method, params, related_request_id=self.request_id, **kwargs
        )


class _Pending:
    __slots__ = (
        "deadline",
        "future",
        "method",
        "on_progress",
        "progress_token",
        "request_id",
        "reset_on_progress",
        "timeout",
        "timer",
    )

    def __init__(self, future: asyncio.Future[Any], method: str, request_id: RequestId) -> None:
        self.request_id = request_id
        self.future = future
        self.method = method
        self.on_progress: ProgressCallback | None = None
        self.progress_token: str | int | None = None
        self.timeout: float | None = None
        self.deadline: float | None = None
        self.reset_on_progress = True
        self.timer: asyncio.TimerHandle | None = None


class _Batch:
    """Collects the responses to one incoming batch so they leave as one array."""

    __slots__ = ("outstanding", "related", "responses")

    def __init__(self) -> None:
        self.outstanding = 0
        self.responses: list[JSONObject] = []
        self.related: RequestId | None = None


class SharedTable(dict[str, Any]):
    """A handler table shared by sessions copied from one prototype (see
    :meth:`Session.share_handlers`): a session copies it before changing it, and a closed
    one leaves it as it is."""

    __slots__ = ()


class Session:
    """A JSON-RPC endpoint over one transport. See the module docstring."""

    # Set by end_of_input (class defaults: a session whose input never ends pays nothing).
    #: Why requests to the peer fail at once: its input to us ended, no answer can come.
    _input_gone: ConnectionClosed | None = None
    #: The answer (a -32603 message) of requests cut off at the end of a drain.
    _cut_off: str | None = None
    _drain_task: asyncio.Task[None] | None = None
    #: The batch each batched request in flight belongs to (made by the first batch: an
    #: instance attribute more for every session would cost each attribute read a little).
    _batch_of: dict[RequestId, _Batch] | None = None
    #: Whether a line that is not JSON is answered with a -32700 ``Parse error`` (the
    #: official SDK's client answers nothing; its compat client turns this off).
    answers_parse_errors: bool = True
    #: Methods whose requests stay open until cancelled (``subscriptions/listen``): at the
    #: end of input they end at once instead of holding the drain.
    stream_methods: frozenset[str] = frozenset({"subscriptions/listen"})
    #: The containers in the instance dict or slots that copies of a session share with it
    #: (:meth:`cloner`): those that belong to what made it, not to the session.
    clone_shares: frozenset[str] = frozenset()

    def __init__(
        self,
        transport: Transport,
        *,
        role: Role,
        capabilities: JSONObject | None = None,
        max_in_flight: int = 256,
        max_pending: int = 1024,
        default_timeout: float | None = None,
        supported_versions: tuple[ProtocolVersion, ...] = versions.SUPPORTED,
        modern_versions: tuple[ProtocolVersion, ...] = (),
        debug: bool = False,
        tracer: Tracer | None = None,
    ) -> None:
        self.transport = transport
        self.lifecycle = Lifecycle(role, capabilities)
        self.supported_versions = supported_versions
        #: The stateless revisions this side serves (empty: legacy only, e.g. a client).
        self.modern_versions = modern_versions
        #: The era of the connection: fixed by its first request (``initialize``: legacy; one
        #: carrying the modern ``_meta`` envelope: modern), or up front by the transport.
        self.era: Era | None = None
        self.debug = debug
        self.default_timeout = default_timeout
        self._tracer = tracer
        self._handlers: dict[str, RequestHandler] = {"ping": _ping}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._notification_observer: Callable[[str, JSONObject | None], None] | None = None
        self._next_id = 0
        self._pending: dict[RequestId, _Pending] = {}
        self._progress: dict[str | int, _Pending] = {}
        self._progress_listeners: dict[str | int, ProgressCallback] = {}
        self._in_flight: dict[RequestId, RequestContext] = {}
        self._max_in_flight = max_in_flight
        self._reading_paused = False
        # Made on first use: most server sessions never send a request (a Semaphore and an
        # Event cost about 1 µs each, on every per-request session of stateless HTTP).
        self._max_pending = max_pending
        self._pending_slots: asyncio.Semaphore | None = None
        self._background: set[asyncio.Task[Any]] | None = None  # made on first use
        self._closed = False
        self._close_reason: BaseException | None = None
        self._closed_event: asyncio.Event | None = None
        self._loop = asyncio.get_running_loop()

    # -- public surface ------------------------------------------------------------------------

    @property
    def protocol_version(self) -> ProtocolVersion | None:
        """The negotiated protocol revision (None before initialization)."""
        return self.lifecycle.version

    @property
    def peer_capabilities(self) -> JSONObject:
        """The capabilities the peer declared."""
        return self.lifecycle.peer_capabilities

    @property
    def closed(self) -> bool:
        """True once the connection is gone."""
        return self._closed

    def _own_handlers(self) -> None:
        # Tables shared with a prototype become this session's before it changes them.
        if type(self._handlers) is SharedTable:
            self._handlers = dict(self._handlers)
            self._notification_handlers = dict(self._notification_handlers)

    def share_handlers(self) -> None:
        """Make this session's handler tables ones its copies (:meth:`cloner`) share, without
        the handlers bound to this session: for a prototype whose copies never need those
        (a copy takes a table of its own before it changes one, see :class:`SharedTable`)."""
        self._handlers = SharedTable(session_clone.unbound(self._handlers, self))
        self._notification_handlers = SharedTable(
            session_clone.unbound(self._notification_handlers, self)
        )

    def cloner(self) -> Callable[[Transport], Self]:
        """A function ``clone(transport)`` making a copy of this session, never started, on
        ``transport``: the session the constructor would have made there in this one's state
        (its own containers but :attr:`clone_shares`, its own :class:`Lifecycle` copy, the
        handlers bound to this session bound to it), at a fraction of the cost. Made once per
        prototype; see :mod:`mcpkit.session_clone`."""
        return session_clone.make_cloner(self)

    def set_request_handler(self, method: str, handler: RequestHandler) -> None:
        """Serve ``method`` with ``handler`` (replacing any earlier one)."""
        self._own_handlers()
        self._handlers[method] = handler

    def remove_request_handler(self, method: str) -> None:
        """Stop serving ``method`` (it then answers -32601)."""
        self._own_handlers()
        self._handlers.pop(method, None)

    def set_notification_handler(self, method: str, handler: NotificationHandler) -> None:
        """Call ``handler(params)`` for each ``method`` notification (sync or async)."""
        self._own_handlers()
        self._notification_handlers[method] = handler

    def observe_notifications(
        self, observer: Callable[[str, JSONObject | None], None] | None
    ) -> None:
        """Call ``observer(method, params)`` for every incoming notification, after the
        engine's own handling (cancellation, progress) and any registered handler."""
        self._notification_observer = observer

    def listen_progress(self, token: str | int, callback: ProgressCallback) -> Callable[[], None]:
        """Deliver ``notifications/progress`` for ``token`` to ``callback`` until the returned
        function is called: for progress that outlives its request (the token of a
        task-augmented request stays valid for the task's lifetime). The caller puts
        ``token`` in the request's ``_meta.progressToken`` itself (and passes no
        ``on_progress``); a pending request's own token takes precedence."""
        listeners = self._progress_listeners
        listeners[token] = callback

        def release() -> None:
            if listeners.get(token) is callback:
                del listeners[token]

        return release

    async def start(self) -> None:
        """Connect the transport; incoming messages flow from now on."""
        await self.transport.start(self)

    async def wait_closed(self) -> None:
        """Return once the connection has ended."""
        if self._closed:
            return
        event = self._closed_event
        if event is None:
            event = self._closed_event = asyncio.Event()
        await event.wait()

    async def request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | Timeout | None = DEFAULT,
        on_progress: ProgressCallback | None = None,
        reset_timeout_on_progress: bool = True,
        max_total_timeout: float | None = None,
        related_request_id: RequestId | None = None,
    ) -> Any:
        """Send a request and return its ``result``; raise :class:`McpError` on an error reply.

        ``timeout`` (seconds, default the session's) restarts on every progress notification
        when ``reset_timeout_on_progress``, but never runs past ``max_total_timeout``; a
        :class:`~mcpkit.timeouts.Timeout` gives all three at once. On timeout or when the
        awaiting task is cancelled, ``notifications/cancelled`` is sent.
        """
        if isinstance(timeout, Timeout):
            reset_timeout_on_progress = timeout.reset_on_progress
            max_total_timeout = timeout.max_total
            timeout = timeout.timeout
        elif timeout is DEFAULT:
            timeout = self.default_timeout
        if self._closed:
            raise self._closed_error()
        if self._input_gone is not None:
            raise self._input_gone
        self.lifecycle.check_outgoing_request(method)
        slots = self._pending_slots
        if slots is None:
            slots = self._pending_slots = asyncio.Semaphore(self._max_pending)
        await slots.acquire()
        loop = self._loop
        rid = self._next_id
        self._next_id = rid + 1
        future: asyncio.Future[Any] = loop.create_future()
        pending = _Pending(future, method, rid)
        if on_progress is not None:
            params = dict(params) if params else {}
            meta = params.get("_meta")
            meta = dict(meta) if isinstance(meta, dict) else {}
            meta["progressToken"] = rid
            params["_meta"] = meta
            pending.on_progress = on_progress
            pending.progress_token = rid
            pending.reset_on_progress = reset_timeout_on_progress
            self._progress[rid] = pending
        if timeout is not None:
            pending.timeout = timeout
            if max_total_timeout is not None:
                pending.deadline = loop.time() + max_total_timeout
            pending.timer = loop.call_later(timeout, self._expire, rid)
        elif max_total_timeout is not None:
            pending.timeout = max_total_timeout
            pending.deadline = loop.time() + max_total_timeout
            pending.timer = loop.call_later(max_total_timeout, self._expire, rid)
        self._pending[rid] = pending
        msg: JSONObject = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        try:
            await self._send(msg, related_request_id)
            return await future
        except asyncio.CancelledError:
            if rid in self._pending and method not in _NO_CANCEL and not self._closed:
                self._spawn(self._send_cancel(rid, "Request cancelled by the caller"))
            raise
        finally:
            slots.release()
            self._pending.pop(rid, None)
            if pending.progress_token is not None:
                self._progress.pop(pending.progress_token, None)
            if pending.timer is not None:
                pending.timer.cancel()

    async def notify(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        related_request_id: RequestId | None = None,
    ) -> None:
        """Send a notification."""
        if self._closed:
            raise self._closed_error()
        self.lifecycle.check_outgoing_notification(method)
        msg: JSONObject = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self._send(msg, related_request_id)

    async def ping(self, timeout: float | None = DEFAULT) -> None:
        """Send ``ping`` and wait for the (empty) answer."""
        await self.request("ping", timeout=timeout)

    async def close(self) -> None:
        """Close the connection: in-flight handlers are cancelled, pending requests fail
        (and are cancelled at the peer first: a stdio server answers what it was asked
        before it exits, unless told it is no longer wanted)."""
        if not self._closed:
            if self._background:
                # Cancellations just spawned (a request abandoned as the caller stops, e.g.
                # Ctrl-C) are written first: a stdio server drains what it was asked
                # before it exits, unless told it is no longer wanted.
                await asyncio.sleep(0)
            if self._pending and self._input_gone is None:
                self._cancel_pending("The connection is closing")
            with contextlib.suppress(Exception):
                await self.transport.close()
            self.connection_lost(None)
        if self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    # -- incoming (called by the transport) ------------------------------------------------------

    def receive_bytes(self, data: bytes) -> None:
        """Take one framed message off the wire."""
        try:
            msg = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            if self._tracer is not None:
                self._tracer("recv-invalid", data)
            if self.answers_parse_errors:
                self._write(error_response(None, PARSE_ERROR, f"Parse error: {exc}"))
            return
        self.receive(msg)

    def receive(self, msg: Any) -> None:
        """Take one decoded message (or batch)."""
        if type(msg) is list:
            if self._tracer is not None:
                self._tracer("recv", msg)
            self._receive_batch(msg)
            return
        kind, why = classify(msg)
        # receive_classified, inline (every message comes this way on stdio).
        if self._tracer is not None:
            self._tracer("recv", msg)
        if kind is _REQUEST:
            self._on_request(msg, None)
        elif kind is _NOTIFICATION:
            self._on_notification(msg)
        elif kind is _RESULT or kind is _ERROR:
            self._on_response(msg, kind)
        else:
            self._on_invalid(msg, why)

    def receive_classified(self, msg: Any, kind: MessageKind, why: str | None = None) -> None:
        """Take one message its transport has already classified with
        :func:`mcpkit.jsonrpc.classify` (Streamable HTTP classifies every POST to choose its
        answer), so that each message is classified once."""
        if self._tracer is not None:
            self._tracer("recv", msg)
        if kind is _REQUEST:
            self._on_request(msg, None)
        elif kind is _NOTIFICATION:
            self._on_notification(msg)
        elif kind is _RESULT or kind is _ERROR:
            self._on_response(msg, kind)
        else:
            self._on_invalid(msg, why)

    def connection_lost(self, exc: BaseException | None) -> None:
        """The transport is gone: fail every pending request, cancel every handler."""
        if self._closed:
            return
        self._closed = True
        self._close_reason = exc
        self.lifecycle.close()
        if self._pending:  # the error is built only for requests that wait on it
            error = self._closed_error()
            for pending in list(self._pending.values()):
                if not pending.future.done():
                    pending.future.set_exception(error)
        for ctx in list(self._in_flight.values()):
            task = self._task_of(ctx)
            if task is not None:
                task.cancel()
        self._progress_listeners.clear()
        if self._closed_event is not None:
            self._closed_event.set()
        self.on_closed(exc)

    def end_of_input(self, drain_timeout: float) -> None:
        """The peer closed its sending half (a stdio server's stdin reached end of file)
        while ours stays open: answer what was already asked, then close.

        Nothing more can arrive, so requests to the peer (sampling, elicitation, roots,
        ping) fail at once with :class:`ConnectionClosed`, those waiting already too. The
        requests in flight run to their end and their answers (and notifications) go out;
        those still running after ``drain_timeout`` seconds are cancelled and each answered
        with a -32603 error saying so. Then the session closes as :meth:`close` does. A
        :meth:`connection_lost` meanwhile (the output closed too) ends everything at once.
        """
        if self._closed or self._input_gone is not None:
            return
        gone = self._input_gone = ConnectionClosed(
            "The client closed its input (end of stdin): no answer to a request can arrive"
        )
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(gone)
        self._drain_task = self._loop.create_task(self._drain_input(drain_timeout))

    async def _drain_input(self, drain_timeout: float) -> None:
        for ctx in self._running():
            if ctx.method in self.stream_methods and ctx.task is not None:
                # A stream the client kept open has nothing more to say to a client gone:
                # it ends unanswered, as when the client cancels it.
                ctx.cancelled = True
                ctx.task.cancel()
        loop = self._loop
        deadline = loop.time() + drain_timeout
        while not self._closed:
            left = self._running()
            remaining = deadline - loop.time()
            if not left or remaining <= 0:
                break
            await asyncio.wait(_tasks(left), timeout=remaining)
        left = self._running()
        if left and not self._closed:
            cut_off = self._cut_off = (
                f"Request cancelled: the client closed its input (end of stdin) and the "
                f"request did not finish within the drain timeout of {drain_timeout:g} s"
            )
            logger.warning(
                "%d request(s) still running %g s after the end of input: cancelled",
                len(left),
                drain_timeout,
            )
            for ctx in left:
                if ctx.task is not None:
                    ctx.task.cancel()
            await asyncio.wait(_tasks(left), timeout=_CUT_OFF_GRACE)
            for ctx in self._running():  # it ignored its cancellation: answered regardless
                ctx.cancelled = True
                self._write(error_response(ctx.request_id, INTERNAL_ERROR, cut_off), ctx.request_id)
        await self.close()

    def _cancel_pending(self, reason: str) -> None:
        for rid, pending in list(self._pending.items()):
            if pending.method in _NO_CANCEL or pending.future.done():
                continue
            message = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": rid, "reason": reason},
            }
            try:
                self.transport.write(message)
            except Exception:
                return  # the transport is gone already: nothing to tell
            if self._tracer is not None:
                self._tracer("send", message)

    def _running(self) -> list[RequestContext]:
        """The requests in flight still to be answered (a request the peer cancelled before
        its task began never ran its own cleanup: it is dropped here)."""
        running = []
        for rid, ctx in list(self._in_flight.items()):
            task = self._task_of(ctx)
            if task is None:
                continue
            if task.done():
                self._in_flight.pop(rid, None)
            elif not ctx.cancelled:
                running.append(ctx)
        return running

    def on_closed(self, exc: BaseException | None) -> None:
        """Hook for subclasses: the connection ended."""

    # -- dispatch -------------------------------------------------------------------------------

    def accept_initialize(self, params: JSONObject | None) -> None:
        """Hook for roles: take an incoming ``initialize`` as it is dispatched, before the
        next message is read (raise :class:`McpError` to answer with that error)."""

    def build_context(
        self, request_id: RequestId, method: str, params: JSONObject | None
    ) -> RequestContext:
        """The context a handler of an incoming request gets; each role may supply its own
        (a subclass of :class:`RequestContext`)."""
        return RequestContext(self, request_id, method, params)

    def enter_modern(self) -> None:
        """Serve this connection in the modern era: every request stands alone, carrying its
        version and the client's capabilities in ``_meta`` (no handshake)."""
        if not self.modern_versions:
            raise ValueError("this session serves no modern revision")
        self.era = "modern"

    def finish_modern(self, ctx: RequestContext, result: Any) -> Any:
        """Hook for roles: the result of a modern request as it goes on the wire."""
        return result

    def _on_request(self, msg: JSONObject, batch: _Batch | None) -> None:
        era = self.era
        if era is None and self.modern_versions:
            era = era_of_first_request(msg["method"], msg.get("params"))
            if era == "modern":
                self.enter_modern()
            elif era == "legacy":
                self.era = era
        if era == "modern":
            self._on_modern_request(msg)
            return
        rid: RequestId = msg["id"]
        method: str = msg["method"]
        error = era_refusal("legacy", method) if era == "legacy" else None
        if error is not None:
            error = self._era_refused(method, error)
        if error is None:
            error = self.lifecycle.check_incoming_request(method)
        if error is None:
            handler = self._handlers.get(method)
            if handler is None:
                error = self._not_found(method)
            elif rid in self._in_flight:
                error = McpError(INVALID_REQUEST, f"Request id {rid!r} is already in use")
            elif method == "initialize":
                # Taken now, not in the handler's task: what follows on the wire (a pipelined
                # `initialized`, the first requests) must see the handshake done.
                try:
                    self.accept_initialize(msg.get("params"))
                except McpError as exc:
                    error = exc
        if error is not None:
            self._reply(error_response(rid, error.code, error.message, error.data), rid, batch)
            return
        ctx = self.build_context(rid, method, msg.get("params"))
        self._in_flight[rid] = ctx
        self._start_serving(handler, ctx, batch)  # type: ignore[arg-type]

    def _on_modern_request(self, msg: JSONObject) -> None:
        rid: RequestId = msg["id"]
        method: str = msg["method"]
        params = msg.get("params")
        error = era_refusal("modern", method)
        if error is not None:
            error = self._era_refused(method, error)
        if method == "initialize" and self.transport.info.kind != "http":
            # One connection that settled on the modern era (stdio, in memory); over HTTP
            # each request stands alone and `initialize` is simply not a modern method.
            error = self._late_initialize(params)
        handler = None
        envelope = None
        if error is None:
            handler = self._handlers.get(method)
            if handler is None:
                error = self._not_found(method)
            elif rid in self._in_flight:
                error = McpError(INVALID_REQUEST, f"Request id {rid!r} is already in use")
            else:
                try:
                    envelope = parse_request_envelope(params, self.modern_versions)
                except McpError as exc:
                    error = self._envelope_refused(params, exc)
                else:
                    error = self.lifecycle.own_capability_error(method)
        if error is not None or handler is None:
            assert error is not None
            self._write(error_response(rid, error.code, error.message, error.data), rid)
            return
        ctx = self.build_context(rid, method, params)
        ctx.envelope = envelope
        self._in_flight[rid] = ctx
        self._start_serving(handler, ctx, None)

    def _era_refused(self, method: str, error: McpError) -> McpError:
        """What a request for a method the connection's era does not have is answered
        with: ``error`` (see :func:`~mcpkit.lifecycle.era_refusal`)."""
        return error

    def _envelope_refused(self, params: Any, error: McpError) -> McpError:
        """What a modern request whose ``_meta`` envelope is missing or malformed is
        answered with: ``error``."""
        return error

    def _not_found(self, method: str) -> McpError:
        """-32601 for ``method``, naming the feature a server without it does not offer."""
        path = SERVER_CAPABILITY_FOR.get(method) if self.lifecycle.role is Role.SERVER else None
        if path is None:
            return McpError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return McpError(
            METHOD_NOT_FOUND, f"Method not found: {method} (this server offers no {offered(path)})"
        )

    def _late_initialize(self, params: Any) -> McpError:
        """-32022 for an ``initialize`` on a connection that speaks the modern revision
        (a client that gave up on its ``server/discover`` probe before this server read
        it): its data lists the revisions served, so the client switches to one of them."""
        requested = params.get("protocolVersion") if isinstance(params, dict) else None
        supported = [v.name for v in self.modern_versions]
        data: JSONObject = {
            "supported": supported,
            "requested": requested if isinstance(requested, str) else "",
        }
        message = f"Unsupported protocol version: this connection speaks {supported[0]}"
        return UnsupportedProtocolVersion(message, data)

    def serves_inline(self, method: str, params: JSONObject | None) -> bool:
        """Hook for roles: True when the handler of ``method`` (with ``params``) cannot
        suspend and needs no task of its own (it must not use ``asyncio.current_task()``,
        e.g. through ``asyncio.timeout``): the engine then runs it to its end as the
        request arrives, in a copy of the current context, as Python 3.12's eager tasks
        do. Should it wait after all, it goes on in a task (see :meth:`_start_serving`)."""
        return False

    def _start_serving(
        self, handler: RequestHandler, ctx: RequestContext, batch: _Batch | None
    ) -> None:
        coro = self._serve(handler, ctx, batch)
        if batch is not None:
            if self._batch_of is None:
                self._batch_of = {}
            self._batch_of[ctx.request_id] = batch
        if self.serves_inline(ctx.method, ctx.params):
            # A task costs about 3 µs (creation, registration, a loop turn): a handler that
            # finishes at once does without. What does wait continues in a task, in the
            # same context, from where it stopped.
            context = contextvars.copy_context()
            try:
                waiting_on = context.run(coro.send, None)
            except StopIteration:
                return
            except Exception:  # _serve answers every handler error itself: a bug if here
                logger.exception("Serving %r failed", ctx.method)
                self._done_serving(ctx.request_id)
                return
            if type(waiting_on) is Handoff and waiting_on.then is None:
                # self._park(ctx, coro, context, waiting_on), inline
                ctx._parked = (coro, context, waiting_on)
                waiting_on.then = ctx.unpark
            else:
                ctx.task = self._loop.create_task(resume(coro, waiting_on), context=context)
        else:
            ctx.task = self._loop.create_task(coro)
        if len(self._in_flight) >= self._max_in_flight and not self._reading_paused:
            self._reading_paused = True
            self.transport.pause_reading()

    def _park(
        self,
        ctx: RequestContext,
        coro: Coroutine[Any, Any, None],
        context: contextvars.Context,
        waiting_on: Handoff[Any],
    ) -> None:
        """Leave an inline request waiting on ``waiting_on`` (a sync handler's run in a
        worker thread) with no task: the Handoff continues it in place once settled. A
        task is made for it only if something needs one meanwhile (its cancellation, the
        end of the connection: :meth:`_task_of`)."""
        ctx._parked = (coro, context, waiting_on)
        waiting_on.then = ctx.unpark

    def _task_of(self, ctx: RequestContext) -> asyncio.Task[None] | None:
        """The task serving ``ctx``; a parked request (:meth:`_park`) gets one now, going
        on from where it waits."""
        parked = ctx._parked
        if parked is not None:
            ctx._parked = None
            coro, context, waiting_on = parked
            waiting_on.then = None
            ctx.task = self._loop.create_task(resume(coro, waiting_on), context=context)
        return ctx.task

    async def _serve(
        self, handler: RequestHandler, ctx: RequestContext, batch: _Batch | None
    ) -> None:
        rid = ctx.request_id
        try:
            result = await handler(ctx.params, ctx)
            if ctx.envelope is not None:
                result = self.finish_modern(ctx, result)
            response: JSONObject = {"jsonrpc": "2.0", "id": rid, "result": result}
        except McpError as exc:
            response = error_response(rid, exc.code, exc.message, exc.data)
        except asyncio.CancelledError:
            cut_off = self._cut_off
            if cut_off is None or ctx.cancelled or self._closed:
                self._done_serving(rid)
                if ctx.cancelled or self._closed:
                    if batch is not None:
                        self._batch_done(batch)
                    return  # a cancelled request gets no response
                raise
            response = error_response(rid, INTERNAL_ERROR, cut_off)
        except Exception as exc:
            response = self._internal_error(ctx, exc)
        self._done_serving(rid)
        if ctx.cancelled or self._closed:
            if batch is not None:
                self._batch_done(batch)
            return
        if batch is not None:
            batch.responses.append(response)
            self._batch_done(batch)
            return
        try:
            self.transport.write(response, rid)
            if self._tracer is not None:
                self._tracer("send", response)
            if self.transport.writing_paused:
                await self.transport.drain()
        except Exception as exc:
            self._write_failed(response, exc)

    async def respond_alone(self, ctx: RequestContext) -> JSONObject:
        """The JSON-RPC response to ``ctx``'s request (a method this session serves) apart
        from its request table: nothing registered, nothing written, what :meth:`_serve`
        would write for it. For a stateless request that needs no session of its own (see
        :func:`mcpkit.server.request_sessions.sessionless_context`)."""
        rid = ctx.request_id
        try:
            result = await self._handlers[ctx.method](ctx.params, ctx)
            if ctx.envelope is not None:
                result = self.finish_modern(ctx, result)
        except McpError as exc:
            return error_response(rid, exc.code, exc.message, exc.data)
        except Exception as exc:
            return self._internal_error(ctx, exc)
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    @property
    def mask_errors(self) -> bool:
        """Whether an unexpected handler exception answers only "Internal error" and an
        error id (its text and traceback in the log): unless in debug mode."""
        return not self.debug

    def _internal_error(self, ctx: RequestContext, exc: Exception) -> JSONObject:
        """The response to a request whose handler raised ``exc`` (logged here with an error
        id; its text unless :attr:`mask_errors`, its traceback in debug mode)."""
        import secrets  # only on this path: not loaded by a server that never fails

        eid = secrets.token_hex(6)
        logger.error("Handler for %r failed (error id %s)", ctx.method, eid, exc_info=exc)
        data = {"traceback": traceback.format_exc()} if self.debug else None
        message = (
            f"Internal error (error id {eid})" if self.mask_errors else f"Internal error: {exc}"
        )
        return error_response(ctx.request_id, INTERNAL_ERROR, message, data)

    def _done_serving(self, rid: RequestId) -> None:
        self._in_flight.pop(rid, None)
        if self._batch_of:
            self._batch_of.pop(rid, None)
        if self._reading_paused and len(self._in_flight) <= self._max_in_flight // 2:
            self._reading_paused = False
            self.transport.resume_reading()

    def _on_notification(self, msg: JSONObject) -> None:
        refusal = self.lifecycle.check_incoming_notification(msg["method"])
        if refusal is not None:
            logger.debug("Notification %r dropped: %s", msg["method"], refusal.message)
            return
        self._dispatch_notification(msg["method"], msg.get("params"))
        observer = self._notification_observer
        if observer is not None:
            try:
                observer(msg["method"], msg.get("params"))
            except Exception:
                logger.exception("Notification observer failed")

    def _dispatch_notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled":
            self._on_cancelled(params)
            return
        handler = self._notification_handlers.get(method)
        if method == "notifications/progress" and (handler is None or self._tracked(params)):
            self._on_progress(params)
            return
        if handler is None:
            if method == "notifications/initialized":
                self.lifecycle.server_initialized()
            else:
                logger.debug("Ignoring notification %r (no handler)", method)
            return
        try:
            outcome = handler(params)
        except Exception:
            logger.exception("Notification handler for %r failed", method)
            return
        if outcome is not None:
            self._spawn(_logged(outcome, method))

    def _on_cancelled(self, params: JSONObject | None) -> None:
        if not isinstance(params, dict):
            return
        rid = params.get("requestId")
        if not is_valid_id(rid):
            return
        ctx = self._in_flight.get(rid)
        if ctx is None or ctx.method in _NO_CANCEL:
            return  # unknown, finished or not cancellable: ignore, as the spec says
        logger.debug("Request %r cancelled by the peer: %s", rid, params.get("reason"))
        ctx.cancelled = True
        task = self._task_of(ctx)
        if task is not None:
            task.cancel()
            task.add_done_callback(lambda _: self._settle_cancelled(ctx))

    def _settle_cancelled(self, ctx: RequestContext) -> None:
        """A cancelled request's task ended: when its handler never began (the request and
        its cancellation came in one read), nothing in it ran to forget the request or to
        count it in its batch; done here."""
        rid = ctx.request_id
        if self._in_flight.get(rid) is not ctx:
            return  # it ended itself
        batch = self._batch_of.get(rid) if self._batch_of is not None else None
        self._done_serving(rid)
        if batch is not None:
            self._batch_done(batch)

    def _tracked(self, params: Any) -> bool:
        """Whether a progress notification is for a token of this side's own (a request
        in flight or a listener); any other goes to a ``notifications/progress`` handler."""
        token = params.get("progressToken") if isinstance(params, dict) else None
        return is_valid_id(token) and (token in self._progress or token in self._progress_listeners)

    def _on_progress(self, params: JSONObject | None) -> None:
        if not isinstance(params, dict):
            return
        token = params.get("progressToken")
        if not is_valid_id(token):
            return
        pending = self._progress.get(token)
        if pending is None:
            callback = self._progress_listeners.get(token)
            if callback is None:
                logger.debug("Progress for unknown token %r dropped", token)
                return
        else:
            callback = pending.on_progress
        progress = params.get("progress")
        if not isinstance(progress, (int, float)) or isinstance(progress, bool):
            logger.warning("Progress notification with a non-numeric progress dropped")
            return
        total = params.get("total")
        if not isinstance(total, (int, float)) or isinstance(total, bool):
            total = None
        message = params.get("message")
        if not isinstance(message, str):
            message = None
        if (
            pending is not None
            and pending.reset_on_progress
            and pending.timer is not None
            and pending.timeout
        ):
            loop = self._loop
            delay = pending.timeout
            if pending.deadline is not None:
                delay = min(delay, pending.deadline - loop.time())
            pending.timer.cancel()
            pending.timer = loop.call_later(max(delay, 0.0), self._expire, pending.request_id)
        if callback is not None:
            try:
                outcome = callback(progress, total, message)
            except Exception:
                logger.exception("Progress callback failed")
                return
            if outcome is not None:
                self._spawn(_logged(outcome, "progress callback"))

    def _on_response(self, msg: JSONObject, kind: MessageKind) -> None:
        rid = msg["id"]
        pending = self._pending.pop(rid, None) if is_valid_id(rid) else None
        if pending is None:
            if kind is _ERROR:
                logger.warning("Error from peer for unknown request %r: %s", rid, msg.get("error"))
            else:
                logger.warning("Response to unknown request id %r dropped", rid)
            return
        if pending.timer is not None:
            pending.timer.cancel()
            pending.timer = None
        future = pending.future
        if future.done():
            return
        if kind is _RESULT:
            future.set_result(msg["result"])
        else:
            future.set_exception(McpError.from_error(msg["error"]))

    def _on_invalid(self, msg: Any, why: str | None) -> None:
        rid = readable_id(msg)
        if type(msg) is dict and "method" not in msg and ("result" in msg or "error" in msg):
            logger.warning("Malformed response from peer dropped: %s", why)
            return
        self._write(error_response(rid, INVALID_REQUEST, f"Invalid request: {why}"))

    def _receive_batch(self, items: list[Any]) -> None:
        version = self.lifecycle.version
        if version is None or not version.batching:
            name = version.name if version is not None else "(not negotiated yet)"
            self._write(
                error_response(
                    None,
                    INVALID_REQUEST,
                    f"JSON-RPC batches are not supported in protocol version {name}; "
                    "only 2025-03-26 allows them",
                )
            )
            return
        if not items:
            self._write(error_response(None, INVALID_REQUEST, "Invalid request: empty batch"))
            return
        batch = _Batch()
        batch.outstanding = 1  # held until every item is dispatched
        for item in items:
            kind, why = classify(item)
            if kind is _REQUEST:
                if item.get("method") == "initialize":
                    batch.responses.append(
                        error_response(
                            item["id"], INVALID_REQUEST, "initialize cannot be part of a batch"
                        )
                    )
                    continue
                batch.outstanding += 1
                if batch.related is None:
                    batch.related = item["id"]
                self._on_request(item, batch)
            elif kind is _NOTIFICATION:
                self._on_notification(item)
            elif kind is _RESULT or kind is _ERROR:
                self._on_response(item, kind)
            else:
                batch.responses.append(
                    error_response(readable_id(item), INVALID_REQUEST, f"Invalid request: {why}")
                )
        self._batch_done(batch)

    def _batch_done(self, batch: _Batch) -> None:
        batch.outstanding -= 1
        if batch.outstanding == 0 and batch.responses:
            self._write(batch.responses, batch.related)

    def _reply(self, response: JSONObject, rid: RequestId, batch: _Batch | None) -> None:
        if batch is not None:
            batch.responses.append(response)
            self._batch_done(batch)
        else:
            self._write(response, rid)

    # -- outgoing -------------------------------------------------------------------------------

    async def _send(self, msg: Any, related: RequestId | None = None) -> None:
        if self._closed:
            raise self._closed_error()
        self.transport.write(msg, related)
        if self._tracer is not None:
            self._tracer("send", msg)
        if self.transport.writing_paused:
            await self.transport.drain()

    def _write(self, msg: Any, related: RequestId | None = None) -> None:
        """Send without waiting (errors answered from the receive path)."""
        if self._closed:
            return
        try:
            self.transport.write(msg, related)
        except Exception as exc:
            self._write_failed(msg, exc)
            return
        if self._tracer is not None:
            self._tracer("send", msg)

    def _write_failed(self, msg: Any, exc: Exception) -> None:
        logger.error("Could not send message: %s", exc)
        if isinstance(msg, dict) and "id" in msg and "method" not in msg:
            # The result could not be encoded: tell the peer instead of leaving it hanging.
            with contextlib.suppress(Exception):
                self.transport.write(
                    error_response(
                        msg["id"], INTERNAL_ERROR, "Internal error: result not encodable"
                    ),
                    msg["id"],
                )

    async def _send_cancel(self, rid: RequestId, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.notify("notifications/cancelled", {"requestId": rid, "reason": reason})

    def _expire(self, rid: RequestId) -> None:
        pending = self._pending.pop(rid, None)
        if pending is None or pending.future.done():
            return
        pending.future.set_exception(RequestTimeout(pending.method, pending.timeout or 0.0))
        if pending.method not in _NO_CANCEL and not self._closed:
            self._spawn(self._send_cancel(rid, "Request timed out"))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = self._loop.create_task(coro)
        background = self._background
        if background is None:
            background = self._background = set()
        background.add(task)
        task.add_done_callback(background.discard)

    def _closed_error(self) -> ConnectionClosed:
        reason = self._close_reason
        if isinstance(reason, ConnectionClosed):
            return reason
        if reason is not None:
            return ConnectionClosed(f"Connection closed: {reason}")
        return ConnectionClosed()


def _tasks(contexts: list[RequestContext]) -> set[asyncio.Task[None]]:
    return {ctx.task for ctx in contexts if ctx.task is not None}


async def _ping(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
    return {}


async def _logged(awaitable: Awaitable[Any], what: str) -> None:
    try:
        await awaitable
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("%s failed", what)


class ServerSession(Session):
    """The server end: answers ``initialize`` with this server's info and capabilities."""

    #: The server's info is the server's own: copies share it.
    clone_shares: frozenset[str] = frozenset({"server_info"})

    def __init__(
        self,
        transport: Transport,
        *,
        server_info: JSONObject,
        capabilities: JSONObject | Callable[[ProtocolVersion], JSONObject] | None = None,
        instructions: str | None = None,
        on_initialized: Callable[[ServerSession], Awaitable[None] | None] | None = None,
        **kwargs: Any,
    ) -> None:
        caps = capabilities if isinstance(capabilities, dict) else {}
        super().__init__(transport, role=_SERVER, capabilities=caps, **kwargs)
        self.server_info = server_info
        self._capabilities_for = capabilities if callable(capabilities) else None
        self.instructions = instructions
        self._on_initialized_hook = on_initialized
        self.set_request_handler("initialize", self._initialize)
        self.set_notification_handler("notifications/initialized", self._initialized)

    @property
    def client_info(self) -> JSONObject:
        """The client's ``clientInfo`` (name, version, ...)."""
        return self.lifecycle.peer_info

    @property
    def client_capabilities(self) -> JSONObject:
        """The capabilities the client declared."""
        return self.lifecycle.peer_capabilities

    def accept_initialize(self, params: JSONObject | None) -> None:
        """Negotiate the version and settle the capabilities as ``initialize`` arrives."""
        version = self.lifecycle.server_initialize(params, self.supported_versions)
        if self._capabilities_for is not None:
            self.lifecycle.capabilities = self._capabilities_for(version)

    async def _initialize(self, params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        version = self.lifecycle.version
        if version is None:  # dispatched without the engine's accept step
            self.accept_initialize(params)
            version = self.lifecycle.version
            assert version is not None
        result: JSONObject = {
            "protocolVersion": version.name,
            "capabilities": self.lifecycle.capabilities,
            "serverInfo": self.server_info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _initialized(self, params: JSONObject | None) -> Awaitable[None] | None:
        self.lifecycle.server_initialized()
        hook = self._on_initialized_hook
        return hook(self) if hook is not None else None

    def enter_modern(self) -> None:
        """Serve the modern era: no handshake, the capabilities of the newest modern
        revision; the client's capabilities come with each request."""
        super().enter_modern()
        self.assume_initialized(self.modern_versions[0])

    def assume_initialized(
        self, version: ProtocolVersion, client_capabilities: JSONObject | None = None
    ) -> None:
        """Operate without a handshake (stateless HTTP): the session's era is ``version``'s
        unless already fixed."""
        if self.era is None and self.modern_versions:
            self.era = version.era
        if self._capabilities_for is not None:
            self.lifecycle.capabilities = self._capabilities_for(version)
        self.lifecycle.assume(version, client_capabilities)


class ClientSession(Session):
    """The client end: sends ``initialize`` and ``notifications/initialized``."""

    def __init__(self, transport: Transport, **kwargs: Any) -> None:
        super().__init__(transport, role=_CLIENT, **kwargs)
        self.initialize_result: JSONObject = {}

    @property
    def server_info(self) -> JSONObject:
        """The server's ``serverInfo``."""
        return self.lifecycle.peer_info

    @property
    def server_capabilities(self) -> JSONObject:
        """The capabilities the server declared."""
        return self.lifecycle.peer_capabilities

    @property
    def instructions(self) -> str | None:
        """The server's instructions, if it gave any."""
        value = self.initialize_result.get("instructions")
        return value if isinstance(value, str) else None

    async def initialize(
        self,
        client_info: JSONObject,
        capabilities: JSONObject | None = None,
        *,
        protocol_version: str | None = None,
        timeout: float | None = DEFAULT,
    ) -> JSONObject:
        """Run the handshake; raise :class:`McpError` (and close) on an unsupported version."""
        if capabilities is not None:
            self.lifecycle.capabilities = capabilities
        params = {
            "protocolVersion": protocol_version or self.supported_versions[0].name,
            "capabilities": self.lifecycle.capabilities,
            "clientInfo": client_info,
        }
        result = await self.request("initialize", params, timeout=timeout)
        if not isinstance(result, dict):
            await self.close()
            raise McpError(INVALID_REQUEST, "Server sent a malformed initialize result")
        try:
            self.lifecycle.client_initialize_result(result, self.supported_versions)
        except McpError:
            await self.close()
            raise
        self.initialize_result = result
        await self.notify("notifications/initialized")
        return result
