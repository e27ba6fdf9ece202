"""The server's session: :class:`AppSession` (a :class:`~mcpkit.session.ServerSession`
belonging to a :class:`~mcpkit.server.app.Server`) and the request context it gives every
handler, :class:`ServerRequestContext`, which knows its server and worker pool so features
make the user's :class:`~mcpkit.server.context.Context` from it directly.

The session, its request context, a handler's Context and middleware see the server that
holds them as a :class:`SessionServer`: the few members they read (a
:class:`~mcpkit.server.app.Server` is one), not the Server class, which sits above them.
Features read who asks through a :class:`Caller` (a Context and a request context are
both one), so that they need not name the Context, which sits above them too: the
Context a user's function gets is made by the server's ``context_type``.

Modern era (2026-07-28)
-----------------------
One :class:`~mcpkit.server.app.Server` serves both eras with the same user code. The era of
a session is fixed once (:attr:`AppSession.era`, see :func:`mcpkit.lifecycle.era_of_first_request`):

- ``server.session(transport)`` (stdio, in memory): the first request decides. An
  ``initialize`` starts a legacy session exactly as before; a request whose ``params._meta``
  carries ``io.modelcontextprotocol/protocolVersion`` makes the connection modern, and from
  then on ``initialize``, ``ping``, ``logging/setLevel`` and ``resources/subscribe`` /
  ``unsubscribe`` answer -32601.
- ``server.session(transport, era="modern")``: a modern session from the start (a
  per-request session of Streamable HTTP). Start it and hand it the request
  (``session.receive(message)``); the response is written to the transport with the
  request's id as its related id, like any other. ``era="legacy"`` fixes a legacy session
  (requests with the envelope are then legacy requests; ``server/discover`` is -32601).

On a modern session every request's envelope is parsed by the engine
(:func:`mcpkit.envelope.parse_request_envelope`: -32602 when malformed, -32022 for an
unsupported version) and kept on the request context (``rctx.envelope``); a handler's
result leaves through :meth:`AppSession.finish_modern` (``resultType``, ``_meta``
serverInfo, caching hints for cacheable methods). ``tools/call``, ``prompts/get`` and
``resources/read`` of a user function taking a Context run inside an MRTR
:class:`~mcpkit.server.mrtr.Round` (:meth:`ServerRequestContext.call_user`), so
``ctx.elicit``/``ctx.sample``/``ctx.list_roots`` become ``inputRequests`` of an
``InputRequiredResult`` sealed with the server's
:attr:`~mcpkit.server.app.Server.request_state` sealer.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, cast

from mcpkit._lazy import lazy_module
from mcpkit.envelope import LOG_LEVELS, SERVER_INFO_KEY, Envelope, should_log
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import JSONObject, RequestId, error_response
from mcpkit.lifecycle import Phase
from mcpkit.owner import current_token
from mcpkit.owner import principal as owner_principal
from mcpkit.server.caching import CACHEABLE_METHODS, CacheHints, apply_cache_hints
from mcpkit.server.mrtr import MRTR_METHODS, Round, current_round
from mcpkit.server.offload import WorkerPool
from mcpkit.server.schema import ArgumentsError
from mcpkit.session import RequestContext, RequestHandler, ServerSession, SharedTable
from mcpkit.transports.base import Transport

if TYPE_CHECKING:
    from mcpkit.bus import BusRelay
    from mcpkit.redis.backend import RedisBackend
    from mcpkit.server import roots as _roots
    from mcpkit.server.invoke import UserFunction
    from mcpkit.server.limiter import ConcurrencyLimiter
    from mcpkit.server.request_state import RequestStateSealer
    from mcpkit.server.state_store import StateStore
    from mcpkit.tasks.receiver import TaskReceiver
    from mcpkit.types import Root
    from mcpkit.versions import ProtocolVersion
else:  # loads when a handler first asks for the client's roots
    _roots = lazy_module("mcpkit.server.roots", globals(), "_roots")

__all__ = [
    "AppSession",
    "Caller",
    "InlineTool",
    "ServerHandler",
    "ServerRequestContext",
    "SessionHolder",
    "SessionServer",
    "ToolTable",
    "current_context",
]

logger = logging.getLogger("mcpkit.server")
_OPERATING = Phase.OPERATING
#: Severity of each log level (RFC 5424 order, lowest first).
_SEVERITY: Final = {name: rank for rank, name in enumerate(LOG_LEVELS)}


class Caller(Protocol):
    """Who a request comes from, as features read it: its session, the server serving it,
    its modern envelope and id (a handler's :class:`~mcpkit.server.context.Context` and a
    :class:`ServerRequestContext` are both one)."""

    @property
    def session(self) -> AppSession: ...

    @property
    def server(self) -> SessionServer: ...

    @property
    def envelope(self) -> Envelope | None: ...

    @property
    def request_id(self) -> RequestId: ...


#: The Context of the request being served, while the server bridges Python logging to its
#: clients (set around handler calls; read by :class:`~mcpkit.server.logging.McpLogHandler`).
current_context: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "mcpkit_current_context", default=None
)


class InlineTool(Protocol):
    """A registered tool as the session reads it to serve a call inline (a
    :class:`~mcpkit.server.tools.ToolEntry` is one)."""

    @property
    def function(self) -> UserFunction: ...

    @property
    def context_param(self) -> str | None: ...

    @property
    def accepts_tasks(self) -> bool: ...

    @property
    def task_support(self) -> str | None:
        """What ``accepts_tasks`` reads (the hot path reads it without the property)."""

    @property
    def limiter(self) -> ConcurrencyLimiter | None: ...

    @property
    def timeout(self) -> float | None: ...

    def header_params(self) -> tuple[Any, ...] | None: ...

    # What header_params() keeps once found (the hot path reads them without its call).
    @property
    def _header_params(self) -> tuple[Any, ...] | None: ...

    @property
    def _header_params_found(self) -> bool: ...


class ToolTable(Protocol):
    """The server's tools as the session reads them (a
    :class:`~mcpkit.server.tools.ToolRegistry` is one): the registered tools and the
    ``tools/call`` handler."""

    @property
    def tools(self) -> Mapping[str, InlineTool]: ...

    async def call_tool(self, params: JSONObject | None, rctx: ServerRequestContext) -> Any: ...

    async def run(self, entry: Any, arguments: Any, request: ServerRequestContext) -> Any:
        """Validate, call and convert: ``call_tool`` once the tool is found."""
        ...

    # run's three outcomes, for a call run without it (AppSession.respond_plain).
    def refused(self, entry: Any, exc: Any, arguments: Any, version: Any) -> JSONObject:
        """The answer to arguments the tool's schema refused (or an McpError raised)."""
        ...

    def failed(self, entry: Any, exc: Exception, server: Any) -> JSONObject:
        """The answer to a call whose tool raised ``exc`` (or an McpError raised)."""
        ...

    def finished(self, entry: Any, value: Any, server: Any, version: Any) -> JSONObject:
        """The result of a call whose tool returned ``value``."""
        ...


class SessionServer(Protocol):
    """The server a session and the features serving its requests see
    (``rctx.server``): what they read of it (a :class:`~mcpkit.server.app.Server` is one;
    a handler's ``ctx.server`` is the fuller :class:`~mcpkit.server.context.ServerView`)."""

    @property
    def name(self) -> str: ...

    @property
    def tools(self) -> ToolTable: ...

    @property
    def context_type(self) -> Callable[[ServerRequestContext, RequestContext | None], Any]:
        """Makes the Context a user's function gets (the
        :class:`~mcpkit.server.context.Context` class)."""

    @property
    def sessions(self) -> set[AppSession]:
        """Live, started sessions."""

    @property
    def workers(self) -> WorkerPool:
        """The pool sync user functions run in."""

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]: ...

    @property
    def debug(self) -> bool: ...

    @property
    def relay(self) -> BusRelay:
        """This process's subscription to the server's notification bus."""

    @property
    def store_backend(self) -> RedisBackend | None:
        """The shared store (None: memory)."""

    @property
    def session_visibility(self) -> bool:
        """Whether per-caller visibility rules are kept (``ctx.enable``/``ctx.disable``)."""

    @session_visibility.setter
    def session_visibility(self, on: bool) -> None: ...

    @property
    def state_max_bytes(self) -> int: ...

    @property
    def mask_errors(self) -> bool: ...

    @property
    def log_bridge(self) -> bool:
        """True once the server bridges Python logging to its clients."""

    @property
    def request_state(self) -> RequestStateSealer:
        """Seals MRTR ``requestState``."""

    @property
    def max_rounds(self) -> int: ...

    @property
    def state_store(self) -> StateStore:
        """Where ``ctx.state`` keeps values."""

    @property
    def task_manager(self) -> TaskReceiver:
        """Runs task-augmented requests (a :class:`~mcpkit.server.tasks.TaskManager`)."""

    def cache_hints(self, method: str) -> CacheHints: ...

    def capabilities(self, version: ProtocolVersion = ...) -> JSONObject: ...

    def handler_table(self) -> Mapping[str, ServerHandler]: ...

    def session_closed(self, session: AppSession) -> None:
        """Forget a session that closed (its ``ctx.state`` of this session too)."""

    def notify_list_changed(self, kind: Literal["tools", "prompts", "resources"]) -> None: ...

    def notify_resource_updated(self, uri: str) -> None: ...


class ServerRequestContext(RequestContext):
    """The request context of an :class:`AppSession`: the engine's context plus the server
    serving it (its settings, worker pool and logging bridge)."""

    # No __init__ of its own: made by the engine's, one frame per request less.
    __slots__ = ("_cache_hints",)

    session: AppSession

    @property
    def cache_hints(self) -> CacheHints | None:
        """Caching hints of what this request returns (a resource's own), set by its
        handler (None: none set)."""
        try:
            return self._cache_hints
        except AttributeError:
            return None

    @cache_hints.setter
    def cache_hints(self, hints: CacheHints | None) -> None:
        self._cache_hints = hints

    @property
    def server(self) -> SessionServer:
        """The server this request is served by."""
        return self.session.server

    @property
    def workers(self) -> WorkerPool:
        """The pool sync user functions run in."""
        return self.session.workers

    def context(self, rctx: RequestContext | None = None) -> Any:
        """The :class:`~mcpkit.server.context.Context` for the user's function (made by the
        server's ``context_type``); ``rctx`` is the context it talks back through when that
        is not this one (a task's). Becomes the logging bridge's current context when the
        server has one."""
        server = self.session.server
        ctx = server.context_type(self, rctx)
        if server.log_bridge:
            current_context.set(ctx)
        return ctx

    @property
    def principal(self) -> str | None:
        """Who asks: the authenticated subject (or client id) when the request's token was
        checked (wherever ``auth`` was attached), else None."""
        token = current_token()
        if token is None:
            return None
        return token.subject or token.client_id

    async def call_user(
        self, function: UserFunction, kwargs: dict[str, Any], *, rounds: bool = True
    ) -> Any:
        """Call a user's function for this request. On a modern ``tools/call``,
        ``prompts/get`` or ``resources/read`` with ``rounds`` (the function takes a Context)
        it runs in an MRTR :class:`Round`: raises
        :class:`~mcpkit.server.mrtr.InputRequired` when it waits on the client's input."""
        env = self.envelope
        if (
            env is None
            or not rounds
            or self.method not in MRTR_METHODS
            or current_round() is not None  # already inside this request's round
        ):
            return await function.call(self.workers, **kwargs)
        server = self.session.server
        rnd = Round.from_request(
            self.method,
            self.params or {},
            client_capabilities=env.client_capabilities,
            sealer=server.request_state,
            principal=owner_principal(),  # sealed state opens for its principal only
            max_rounds=server.max_rounds,
        )
        return await rnd.run(lambda: function.call(self.workers, **kwargs))

    def bind_logging(self, rctx: RequestContext | None = None) -> None:
        """Route the logging bridge's records to this request's client (a function that
        takes no Context still logs to the client it serves)."""
        server = self.session.server
        if server.log_bridge:
            current_context.set(server.context_type(self, rctx))


#: A request handler of a server feature: served only by an :class:`AppSession`.
ServerHandler = Callable[[JSONObject | None, ServerRequestContext], Awaitable[Any]]


_SERVER_INITIALIZE = ServerSession._initialize


class AppSession(ServerSession):
    """A server session belonging to a server (:class:`SessionServer`): it keeps the client's
    logging level and resource subscriptions, and takes part in the server's broadcasts.

    Memory: a server may hold many idle sessions. This class's own attributes are slots,
    so that the instance dict keeps only the engine's (few enough for CPython to share its
    keys between instances: ~0.4 KB instead of ~1.6 KB), and the containers most sessions
    never use (subscriptions, background tasks) are made on first use."""

    __slots__ = (
        "_app_tasks",
        "_inline_tools",
        "_subscriptions",
        "_task_owner_key",
        "handler_table",
        "log_level",
        "loop",
        "server",
        "workers",
    )
    #: The server's own containers (its info, its handler table): copies share them.
    clone_shares: frozenset[str] = ServerSession.clone_shares | {"handler_table"}

    def __init__(self, server: SessionServer, transport: Transport, **kwargs: Any) -> None:
        kwargs.setdefault("modern_versions", server.modern_versions)
        super().__init__(transport, **kwargs)
        self.server = server
        #: Where sync user functions run (the server's pool).
        self.workers = server.workers
        self.loop = self._loop
        #: Minimum severity of ``notifications/message`` (everything until the client sets one).
        self.log_level = 0
        self._subscriptions: set[str] | None = None
        self._app_tasks: set[asyncio.Task[Any]] | None = None
        self._task_owner_key: str | None = None
        #: The server's handler table this session was last given.
        self.handler_table: Mapping[str, ServerHandler] | None = None
        # tools/call is the registry's own handler (no middleware around it): a call of an
        # async tool that cannot suspend is served inline (see serves_inline).
        self._inline_tools = False

    @property
    def mask_errors(self) -> bool:
        """The server's :attr:`~mcpkit.Server.mask_errors`."""
        return self.server.mask_errors

    def _era_refused(self, method: str, error: McpError) -> McpError:
        """A method the era does not have: as a method nobody serves when the server says
        how it answers those (``method_not_found``: another SDK has no such refusal)."""
        rule = getattr(self.server, "method_not_found", None)
        if rule is not None:
            refused: McpError = rule(method)
            return refused
        return error

    def _envelope_refused(self, params: Any, error: McpError) -> McpError:
        """A missing or malformed ``_meta`` envelope: ``error``, or the error the server's
        ``envelope_refused(params, error)`` makes (a server answering as another SDK does)."""
        rule = getattr(self.server, "envelope_refused", None)
        if rule is not None:
            refused: McpError = rule(params, error)
            return refused
        return error

    def _not_found(self, method: str) -> McpError:
        """-32601 for ``method``, or the error the server's ``method_not_found(method)``
        makes (a server answering as another SDK does)."""
        rule = getattr(self.server, "method_not_found", None)
        if rule is not None:
            error: McpError = rule(method)
            return error
        return super()._not_found(method)

    @property
    def subscriptions(self) -> set[str]:
        """Resource URIs this client subscribed to (the set is made on first use)."""
        subs = self._subscriptions
        if subs is None:
            subs = self._subscriptions = set()
        return subs

    @subscriptions.setter
    def subscriptions(self, uris: set[str]) -> None:
        self._subscriptions = uris

    def build_context(
        self, request_id: RequestId, method: str, params: JSONObject | None
    ) -> ServerRequestContext:
        return ServerRequestContext(self, request_id, method, params)

    async def respond_tool(self, ctx: ServerRequestContext, entry: Any) -> JSONObject:
        """What :meth:`~mcpkit.session.Session.respond_alone` answers for ``ctx``, a
        ``tools/call`` of :meth:`plain_tool` ``entry`` (a request with no session of its
        own): the registry's ``call_tool`` would find that entry and, it being neither a
        task nor timed, only run it."""
        try:
            result = await self.server.tools.run(entry, ctx.params.get("arguments"), ctx)  # type: ignore[union-attr]
            if ctx.envelope is not None:
                result = self.finish_modern(ctx, result)
        except McpError as exc:
            return error_response(ctx.request_id, exc.code, exc.message, exc.data)
        except Exception as exc:
            return self._internal_error(ctx, exc)
        return {"jsonrpc": "2.0", "id": ctx.request_id, "result": result}

    async def respond_plain(
        self, request_id: RequestId, params: JSONObject, entry: Any, envelope: Envelope | None
    ) -> JSONObject:
        """:meth:`respond_tool` for a ``tools/call`` with ``params`` of :meth:`plain_tool`
        ``entry`` whose function is an ``async def`` (``envelope``: the request's modern
        ``_meta`` envelope, else None), in one frame and with no context made (but for
        the rare answer that needs one): the registry's ``run`` as it runs such a tool."""
        tools = self.server.tools
        try:
            arguments = params.get("arguments")
            signature = entry.signature
            check = signature.plain_check
            try:
                # What validate returns of arguments it passes whole, without its frame.
                kwargs = (
                    arguments
                    if check is not None and type(arguments) is dict and check(arguments)
                    else signature.validate(arguments)
                )
            except ArgumentsError as exc:
                result = tools.refused(entry, exc, arguments, self.protocol_version)
            else:
                try:
                    value = await entry.function.fn(**kwargs)
                except Exception as exc:
                    result = tools.failed(entry, exc, self.server)
                else:
                    if type(value) is str and entry.output is None:
                        # finished()'s usual case, at once: one text block (which no
                        # revision downgrades); a modern one finished in place (its own).
                        content = {"type": "text", "text": value}
                        if envelope is None:
                            return {
                                "jsonrpc": "2.0",
                                "id": request_id,
                                "result": {"content": [content]},
                            }
                        result = {
                            "content": [content],
                            "resultType": "complete",
                            "_meta": {SERVER_INFO_KEY: self.server_info},
                        }
                        return {"jsonrpc": "2.0", "id": request_id, "result": result}
                    result = tools.finished(entry, value, self.server, self.lifecycle.version)
            if envelope is not None:
                if result.get("resultType") == "input_required":
                    ctx = self.build_context(request_id, "tools/call", params)
                    ctx.envelope = envelope
                    result = self.finish_modern(ctx, result)
                else:  # tools/call is no cacheable method: finish_modern's last step only
                    result = self.finish_result(result)
        except McpError as exc:
            return error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:
            return self._internal_error(self.build_context(request_id, "tools/call", params), exc)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def finish_modern(self, ctx: RequestContext, result: Any) -> Any:
        """A modern result as it goes on the wire: caching hints for cacheable methods (the
        handler's own fields win; an MRTR retry gets the safe defaults; none on
        ``input_required``), ``resultType`` and ``_meta`` serverInfo."""
        if type(result) is not dict:
            return result
        method = ctx.method
        if method in CACHEABLE_METHODS or result.get("resultType") == "input_required":
            own = ctx.cache_hints if isinstance(ctx, ServerRequestContext) else None
            hints = own or self.server.cache_hints(method)
            params = ctx.params
            retried = params is not None and (
                "inputResponses" in params or "requestState" in params
            )
            result = apply_cache_hints(result, method, hints, retried=retried)
        return self.finish_result(result)

    def finish_result(self, result: JSONObject) -> JSONObject:
        """A copy of the modern ``result`` with ``resultType`` (``complete`` unless it says)
        and the ``_meta`` serverInfo (the result's own ``_meta`` fields win)."""
        out = result.copy()
        if "resultType" not in out:
            out["resultType"] = "complete"
        meta = out.get("_meta")
        merged: dict[str, Any] = {SERVER_INFO_KEY: self.server_info}
        if meta is not None and (type(meta) is dict or isinstance(meta, Mapping)):
            merged.update(meta)
        out["_meta"] = merged
        return out

    def _initialized(self, params: JSONObject | None) -> Awaitable[None] | None:
        # The handshake is over: the in-flight table its initialize grew (an emptied dict
        # keeps its table) is let go, so that an idle session holds an empty one.
        if not self._in_flight:
            self._in_flight = {}
        return super()._initialized(params)

    def install(self, table: Mapping[str, ServerHandler]) -> None:
        """Serve the methods of ``table`` (a server's handler table) with its handlers."""
        if self.handler_table is table:
            return
        self.handler_table = table
        self._own_handlers()
        self._inline_tools = table.get("tools/call") == self.server.tools.call_tool
        if self.era == "modern" and self.lifecycle.version is not None:
            # No handshake fixed them: a modern connection serves what is registered now.
            self.lifecycle.capabilities = self.server.capabilities(self.lifecycle.version)
        # Every context this session builds is a ServerRequestContext (build_context above),
        # so its handlers may take one.
        self._handlers.update(cast("Mapping[str, RequestHandler]", table))

    def serves_inline(self, method: str, params: JSONObject | None) -> bool:
        """A ``tools/call`` of an ``async def`` tool whose body cannot suspend (no
        ``await``, ``async with`` or ``async for``; not a task, no Context) runs inline:
        nothing in it waits, so it needs no task (see :meth:`Session.serves_inline`); so
        does the session's own ``initialize``. So does a call of a ``def`` tool (no
        Context, not a task): it waits only on its run in the worker pool, a
        :class:`~mcpkit.eager.Handoff` that continues it in place (see
        :meth:`Session._park`)."""
        if method == "initialize":
            # The engine's own handshake (no middleware, no handler of the user's) answers
            # at once: no task, no loop turn before the answer is written.
            handler = self._handlers.get(method)
            return getattr(handler, "__func__", None) is _SERVER_INITIALIZE
        if method != "tools/call" or params is None:
            return False
        entry = self.plain_tool(params)
        if entry is None:
            return False
        function = entry.function
        return function.never_suspends or not function.is_async

    def inline_tool(self, params: JSONObject) -> InlineTool | None:
        """The tool a ``tools/call`` with ``params`` runs inline (see :meth:`serves_inline`),
        or None."""
        entry = self.plain_tool(params)
        return entry if entry is not None and entry.function.never_suspends else None

    def plain_tool(self, params: JSONObject) -> InlineTool | None:
        """The tool a ``tools/call`` with ``params`` calls when nothing stands between the
        call and the tool's function (no middleware, no timeout, not a task) and the
        function takes no Context, or None. Such a call cannot talk back to its client: it
        only waits, if at all, on its own function (an ``async def`` one that suspends,
        or a ``def`` one in the worker pool)."""
        if not self._inline_tools:
            return None
        name = params.get("name")
        entry = self.server.tools.tools.get(name) if type(name) is str else None
        if (
            entry is not None
            and entry.context_param is None
            and entry.timeout is None
            and entry.task_support != "optional"  # not entry.accepts_tasks, inline
            and entry.task_support != "required"
            and "task" not in params
        ):
            return entry
        return None

    @property
    def task_owner_key(self) -> str:
        """Identifies this session as the owner of the tasks it creates (see TaskManager)."""
        key = self._task_owner_key
        if key is None:
            key = self._task_owner_key = uuid.uuid4().hex  # made on first use: ~2 µs
        return key

    async def start(self) -> None:
        self.install(self.server.handler_table())  # registrations made since session() count
        self.server.sessions.add(self)
        await super().start()

    def on_closed(self, exc: BaseException | None) -> None:
        self.server.session_closed(self)
        if self._app_tasks:
            for task in list(self._app_tasks):
                task.cancel()
        # Handlers bound to this session (initialize, roots hooks) make reference cycles;
        # a closed session serves nothing, so drop them and let refcounting free it at once
        # (a SharedTable, a prototype's, holds none of this session's: it stays as it is).
        if type(self._handlers) is not SharedTable:
            self._handlers.clear()
            self._notification_handlers.clear()

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` in the background, tied to this session."""
        task: asyncio.Task[Any] = self.loop.create_task(coro)  # type: ignore[arg-type]
        tasks = self._app_tasks
        if tasks is None:
            tasks = self._app_tasks = set()
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def call_soon(self, coro_fn: Callable[[], Awaitable[Any]]) -> None:
        """Spawn ``coro_fn()`` from any thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.spawn(coro_fn())
        else:
            self.loop.call_soon_threadsafe(lambda: self.spawn(coro_fn()))

    @property
    def operating(self) -> bool:
        """True once initialized and still open."""
        return self.lifecycle.phase is _OPERATING and not self.closed

    async def send_log(
        self,
        level: str,
        data: Any,
        logger_name: str | None = None,
        related_request_id: RequestId | None = None,
        meta: JSONObject | None = None,
        envelope: Envelope | None = None,
    ) -> None:
        """``notifications/message`` when ``level`` passes this session's threshold (on a
        modern session: only for a request whose ``envelope`` set a ``logLevel`` that
        ``level`` reaches)."""
        if self.closed:
            return
        if self.era == "modern":
            if envelope is None or not should_log(envelope, level):
                return
        elif _SEVERITY[level] < self.log_level:
            return
        params: JSONObject = {"level": level, "data": data}
        if logger_name is not None:
            params["logger"] = logger_name
        if meta:
            params["_meta"] = meta
        with contextlib.suppress(ConnectionClosed):
            await self.notify(
                "notifications/message", params, related_request_id=related_request_id
            )

    async def send_quietly(self, method: str, params: JSONObject | None = None) -> None:
        """A notification that is dropped when the session cannot carry it."""
        if not self.operating:
            return
        try:
            await self.notify(method, params)
        except (ConnectionClosed, McpError) as exc:
            logger.debug("Not sending %s: %s", method, exc)

    async def complete_elicitation(self, elicitation_id: str) -> None:
        """``notifications/elicitation/complete`` for a URL-mode elicitation."""
        await self.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})

    async def list_roots(self) -> list[Root]:
        """The client's roots (``roots/list``)."""
        return await _roots.list_roots(self)


class SessionHolder(Protocol):
    """A server as a feature that reaches every open session sees it (a
    :class:`~mcpkit.server.app.Server` is one)."""

    @property
    def sessions(self) -> Collection[AppSession]: ...
