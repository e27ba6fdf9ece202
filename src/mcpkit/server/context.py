"""The :class:`Context` a handler receives by declaring a parameter annotated ``Context``.

It knows the request being served (id, ``_meta``, cancellation) and talks back to the client
on its behalf: progress, logging, sampling, elicitation, roots, and reading this server's
own resources.

The same handler code serves both protocol eras. For a 2025-era client ``elicit``,
``sample`` and ``list_roots`` send a request to the client and wait for its answer; for a
2026-07-28 client they become the ``inputRequests`` of an ``InputRequiredResult`` (MRTR,
:mod:`mcpkit.server.mrtr`): the handler is run again, from the top, when the client retries
with the answers, and the answered question returns at once. ``key=`` names a question
(default: derived from its position and parameters). :attr:`Context.era` and
:attr:`Context.protocol_version` tell which wire the request came on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast, overload

from mcpkit._lazy import lazy_module
from mcpkit.envelope import Envelope, should_log
from mcpkit.errors import McpError
from mcpkit.http_request import current_http_request
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject, RequestId
from mcpkit.server.logging import LoggingLevel
from mcpkit.server.mrtr import InputKind, current_round
from mcpkit.server.session import SessionServer
from mcpkit.session import RequestContext
from mcpkit.versions import Era, ProtocolVersion

if TYPE_CHECKING:
    from pydantic import BaseModel
    from typing_extensions import TypeVar as DefaultTypeVar

    from mcpkit.auth.server import AccessToken
    from mcpkit.http_request import HttpRequest
    from mcpkit.server import elicitation as _elicitation
    from mcpkit.server import roots as _roots
    from mcpkit.server import sampling as _sampling
    from mcpkit.server.elicitation import ElicitationResult
    from mcpkit.server.prompts import PromptRegistry
    from mcpkit.server.resources import ResourceRegistry
    from mcpkit.server.session import AppSession, ServerRequestContext
    from mcpkit.server.state import State
    from mcpkit.server.tasks import TaskManager
    from mcpkit.server.tools import ToolRegistry
    from mcpkit.types import CreateMessageResult, ReadResourceResult, Root
else:  # what only some handlers use loads on first use
    _elicitation = lazy_module("mcpkit.server.elicitation", globals(), "_elicitation")
    _roots = lazy_module("mcpkit.server.roots", globals(), "_roots")
    _sampling = lazy_module("mcpkit.server.sampling", globals(), "_sampling")

__all__ = ["Context", "LifespanT", "ServerView"]

#: Transports no HTTP request comes over (a handler's task may still inherit an outer one's
#: mark: an in-memory client used inside an HTTP handler).
_NOT_HTTP = frozenset({"stdio", "memory"})

M = TypeVar("M", bound="BaseModel")
#: What the server's lifespan yields: ``Server[State]`` and ``Context[State]`` type
#: :attr:`Context.lifespan` (unparameterised, both mean ``Any``).
if TYPE_CHECKING:
    LifespanT = DefaultTypeVar("LifespanT", default=Any)
else:  # the default is for type checkers: typing_extensions is not loaded to run
    LifespanT = TypeVar("LifespanT")


#: What the server's lifespan yields, as a :class:`ServerView` gives it.
L_co = TypeVar("L_co", covariant=True)


class ServerView(SessionServer, Protocol[L_co]):
    """The server a handler (``ctx.server``) and middleware see: what the session sees of
    it, its registries and its lifespan's state (a :class:`~mcpkit.server.app.Server` is
    one; ``Context[State].server`` is a ``ServerView[State]``)."""

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def prompts(self) -> PromptRegistry: ...

    @property
    def resources(self) -> ResourceRegistry: ...

    @property
    def task_manager(self) -> TaskManager: ...

    @property
    def lifespan_state(self) -> L_co:
        """What the server's lifespan yielded."""


class Context(Generic[LifespanT]):
    """Per-request access to the session and the server (see the module docstring).

    ``Context[State]`` types :attr:`lifespan` as what a ``Server[State]``'s lifespan yields."""

    __slots__ = ("_rctx", "_request", "server", "session")

    def __init__(self, request: ServerRequestContext, rctx: RequestContext | None = None) -> None:
        """``request``: the request being served; ``rctx``: the context to talk back
        through when it is another one (a task's), else ``request`` itself."""
        self._request = request
        #: The server serving this request (a :class:`~mcpkit.server.app.Server`), as
        #: handlers see it: a :class:`ServerView`.
        self.server = cast("ServerView[LifespanT]", request.server)
        self.session: AppSession = request.session
        self._rctx: RequestContext = request if rctx is None else rctx

    # -- the request ----------------------------------------------------------------------------

    @property
    def request_id(self) -> RequestId:
        """The JSON-RPC id of the request being served."""
        return self._rctx.request_id

    @property
    def meta(self) -> JSONObject | None:
        """The request's ``_meta`` object (None when absent)."""
        return self._rctx.meta

    @property
    def progress_token(self) -> str | int | None:
        """The progress token the client gave, if any."""
        return self._rctx.progress_token

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled this request (sync tools can poll it)."""
        return self._rctx.cancelled

    @property
    def task_id(self) -> str | None:
        """The task this call runs as (a task-augmented ``tools/call``), else None."""
        return self._rctx.task_id

    async def start_task(self) -> None:
        """The point where a tool registered with ``task_start="explicit"`` becomes a task:
        on the 2026-07-28 wire, for a client that opted in to the tasks extension, the
        call answers a ``CreateTaskResult`` here and the tool runs again from the top as the
        task (the questions asked before this point are MRTR rounds, their answers
        replayed). Elsewhere (a 2025-11-25 task, which starts with the call; a plain call)
        it does nothing."""
        from mcpkit.server.tasks_extension import start_task

        await start_task(self._rctx)

    @property
    def request_context(self) -> RequestContext:
        """The low-level request context of the session engine."""
        return self._rctx

    @property
    def state(self) -> State:
        """The caller's state, kept between requests: ``await ctx.state.get(key,
        default)``, ``await ctx.state.set(key, value, ttl=None)``, ``await
        ctx.state.delete(key)``; per 2025 session, else per authenticated principal (see
        :mod:`mcpkit.server.state`)."""
        from mcpkit.server.state import State

        return State(self)

    async def enable(
        self,
        *names: str,
        tags: Iterable[str] | str | None = None,
        kinds: Iterable[str] | None = None,
    ) -> None:
        """Show components to this caller only (this 2025 session, else this principal):
        those named (tool/prompt names, resource URIs, URI templates) and those with one of
        ``tags``, of ``kinds`` (``"tools"``, ``"prompts"``, ``"resources"``,
        ``"templates"``; default all). Undoes the caller's own :meth:`disable`, and shows
        it what the server hides (within its scopes). See :mod:`mcpkit.server.visibility`."""
        from mcpkit.server.visibility import change

        await change(self, True, names, tags, kinds)

    async def disable(
        self,
        *names: str,
        tags: Iterable[str] | str | None = None,
        kinds: Iterable[str] | None = None,
    ) -> None:
        """Hide components from this caller only (see :meth:`enable`): out of its lists,
        and calling or reading them answers as for something that does not exist."""
        from mcpkit.server.visibility import change

        await change(self, False, names, tags, kinds)

    @property
    def lifespan(self) -> LifespanT:
        """What the server's lifespan yielded (RuntimeError when it is not running)."""
        return self.server.lifespan_state

    @property
    def auth(self) -> AccessToken | None:
        """The validated OAuth access token of this request (None when the server is not
        protected by a :class:`mcpkit.auth.ResourceServer`)."""
        from mcpkit.auth.server import get_access_token

        return get_access_token()

    @property
    def request(self) -> HttpRequest | None:
        """The HTTP request that carried this message (a :class:`mcpkit.HttpRequest`:
        headers, the client's address, the authenticated principal with its scopes and
        claims): a 2026-07-28 request itself, the POST that carried a 2025 session's
        message. None over stdio and in memory."""
        if self.session.transport.info.kind in _NOT_HTTP:
            return None
        return current_http_request()

    @property
    def era(self) -> Era:
        """``"modern"`` for a 2026-07-28 request (stateless, MRTR), else ``"legacy"``."""
        return "modern" if self._request.envelope is not None else "legacy"

    @property
    def envelope(self) -> Envelope | None:
        """The request's modern ``_meta`` envelope (None on the legacy wire)."""
        return self._request.envelope

    @property
    def protocol_version(self) -> ProtocolVersion | None:
        """The revision this request speaks (its ``_meta`` version on the modern wire, the
        negotiated one on a legacy session; None before negotiation)."""
        env = self._request.envelope
        if env is not None:
            return env.version
        return self.session.protocol_version

    @property
    def client_capabilities(self) -> JSONObject:
        """The capabilities the client declared: in this request's ``_meta`` (modern), or at
        ``initialize`` (legacy)."""
        env = self._request.envelope
        if env is not None:
            return dict(env.client_capabilities)
        return self.session.client_capabilities

    @property
    def client_info(self) -> JSONObject:
        """The client's ``clientInfo`` (name, version, ...; empty when it sent none)."""
        env = self._request.envelope
        if env is not None:
            return dict(env.client_info or {})
        return self.session.client_info

    def close_sse_stream(self) -> bool:
        """Close the HTTP connection carrying this request's SSE stream, without ending the
        request (SSE polling): the client reconnects after the stream's ``retry`` delay with
        ``Last-Event-ID`` and receives what was sent meanwhile, including the result.

        Useful for long-running calls behind proxies that cut idle connections. Returns False
        when there is nothing to close (not Streamable HTTP, no event store, or a JSON
        response).
        """
        route = self._route_id
        if route is None:
            return False
        return self.session.transport.close_response_stream(route)

    # -- progress and logging -------------------------------------------------------------------

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress (sent only when the client asked for it with a progress token)."""
        await self._rctx.progress(progress, total, message)

    #: The official SDK's and fastmcp's name for :meth:`progress`.
    report_progress = progress

    async def log(self, level: LoggingLevel, data: Any, logger: str | None = None) -> None:
        """Send ``notifications/message`` if ``level`` is at or above the session's level
        (2026-07-28: only when the request carried a ``logLevel`` that ``level`` reaches)."""
        rctx = self._rctx  # a task's adds its related-task _meta
        env = self._request.envelope
        if env is not None and not should_log(env, level):
            return
        await self.session.send_log(
            level, data, logger, rctx.related_request_id, rctx.related_meta, env
        )

    @property
    def _route_id(self) -> RequestId | None:
        """The request whose stream carries what this handler sends: its own, or for a task
        the ``tasks/result`` blocked on it (None: none is waiting; the transport then routes
        it, e.g. Streamable HTTP holds a task's messages for its next ``tasks/result`` stream
        unless a GET stream is open)."""
        return self._rctx.related_request_id

    async def debug(self, data: Any, logger: str | None = None) -> None:
        """Log at ``debug``."""
        await self.log("debug", data, logger)

    async def info(self, data: Any, logger: str | None = None) -> None:
        """Log at ``info``."""
        await self.log("info", data, logger)

    async def notice(self, data: Any, logger: str | None = None) -> None:
        """Log at ``notice``."""
        await self.log("notice", data, logger)

    async def warning(self, data: Any, logger: str | None = None) -> None:
        """Log at ``warning``."""
        await self.log("warning", data, logger)

    async def error(self, data: Any, logger: str | None = None) -> None:
        """Log at ``error``."""
        await self.log("error", data, logger)

    async def critical(self, data: Any, logger: str | None = None) -> None:
        """Log at ``critical``."""
        await self.log("critical", data, logger)

    async def alert(self, data: Any, logger: str | None = None) -> None:
        """Log at ``alert``."""
        await self.log("alert", data, logger)

    async def emergency(self, data: Any, logger: str | None = None) -> None:
        """Log at ``emergency``."""
        await self.log("emergency", data, logger)

    # -- multi round-trip (2026-07-28) ------------------------------------------------------------

    async def _ask(self, kind: InputKind, params: JSONObject, key: str | None) -> JSONObject:
        """The client's answer to an input request of a modern request (MRTR; in a task
        of the tasks extension, the task's ``inputRequests``)."""
        from mcpkit.server.tasks_extension import ModernTaskContext

        if isinstance(self._rctx, ModernTaskContext):
            return await self._rctx.ask_input(kind, params, key)
        rnd = current_round()
        if rnd is None:
            raise McpError(
                INTERNAL_ERROR,
                f"{self._request.method} cannot ask the client for input on the 2026-07-28 "
                "wire (only tools/call, prompts/get and resources/read can)",
            )
        return await rnd.ask(kind, params, key=key)

    # -- sampling ---------------------------------------------------------------------------------

    async def sample(
        self,
        messages: str | Sequence[Any],
        *,
        max_tokens: int = 1000,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: Sequence[str] | None = None,
        model_preferences: Any = None,
        include_context: str | None = None,
        tools: Sequence[Any] | None = None,
        tool_choice: Any = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        task: Any = None,
        key: str | None = None,
    ) -> CreateMessageResult:
        """Ask the client's LLM for a completion (``sampling/createMessage``).

        ``messages`` is a string (one user message) or a list of strings / message dicts /
        ``SamplingMessage`` models. ``model_preferences`` may be a model name (a hint), a list
        of names, or a ``ModelPreferences``. Raises McpError when the client did not declare
        ``sampling`` (or ``sampling.tools`` when ``tools``, ``tool_choice`` or tool content are
        given), and ValueError when tool content breaks the spec's rules (tool results alone
        in a user message, answering every tool use of the assistant message before).

        ``task`` (``True``, a ttl in milliseconds, or a ``TaskMetadata``) runs the request as
        a task at the client (2025-11-25): sent task-augmented, then polled until the result
        is in; needs the client's ``tasks.requests.sampling.createMessage`` capability
        (McpError -32601 otherwise). ``timeout`` then bounds the whole wait.

        2026-07-28: an input request of the MRTR round (``key`` names it); -32021 when the
        request's client capabilities lack what it needs.
        """
        from mcpkit.types import CreateMessageResult

        params = _sampling.build_params(
            messages,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            temperature=temperature,
            stop_sequences=stop_sequences,
            model_preferences=model_preferences,
            include_context=include_context,
            tools=tools,
            tool_choice=tool_choice,
            metadata=metadata,
        )
        if self._request.envelope is not None:
            return CreateMessageResult.from_wire(await self._ask("sampling", params, key))
        _sampling.check_capabilities(
            self.session.client_capabilities,
            tools=bool(tools)
            or tool_choice is not None
            or _sampling.uses_tools(params["messages"]),
            include_context=include_context,
            version=self.session.protocol_version,
        )
        if task is not None:
            result = await self.request_as_task(
                "sampling/createMessage", params, task=task, timeout=timeout
            )
        else:
            result = await self._rctx.request("sampling/createMessage", params, timeout=timeout)
        return CreateMessageResult.from_wire(result)

    # -- elicitation ------------------------------------------------------------------------------

    @overload
    async def elicit(
        self,
        message: str,
        schema: type[M],
        *,
        timeout: float | None = None,
        task: Any = None,
        key: str | None = None,
    ) -> ElicitationResult[M]: ...

    @overload
    async def elicit(
        self,
        message: str,
        schema: dict[str, Any],
        *,
        timeout: float | None = None,
        task: Any = None,
        key: str | None = None,
    ) -> ElicitationResult[dict[str, Any]]: ...

    async def elicit(
        self,
        message: str,
        schema: Any,
        *,
        timeout: float | None = None,
        task: Any = None,
        key: str | None = None,
    ) -> ElicitationResult[Any]:
        """Ask the user for structured input (form mode).

        ``schema`` is a pydantic model class (the answer comes back as an instance) or a
        restricted JSON Schema dict. Raises :class:`~mcpkit.server.elicitation.ElicitationError`
        for a schema the spec does not allow or an answer that does not match it.

        ``task`` (``True``, a ttl in milliseconds, or a ``TaskMetadata``) runs the request as
        a task at the client (needs its ``tasks.requests.elicitation.create`` capability);
        see :meth:`request_as_task`.

        2026-07-28: an input request of the MRTR round (``key`` names it); -32021 when the
        request's client capabilities lack form elicitation.
        """
        if self._request.envelope is not None:
            requested = _elicitation.requested_schema(schema)
            form: JSONObject = {"mode": "form", "message": message, "requestedSchema": requested}
            answer = await self._ask("elicitation", form, key)
            return _elicitation.parse_result(answer, schema, requested)
        version = self.session.protocol_version
        _elicitation.check_form_capability(self.session.client_capabilities, version)
        requested = _elicitation.requested_schema(schema)
        params: JSONObject = {"message": message, "requestedSchema": requested}
        if version is not None and version.url_elicitation:
            params = {"mode": "form", **params}
        if task is not None:
            result = await self.request_as_task(
                "elicitation/create", params, task=task, timeout=timeout
            )
        else:
            result = await self._rctx.request("elicitation/create", params, timeout=timeout)
        return _elicitation.parse_result(result, schema, requested)

    async def elicit_url(
        self,
        message: str,
        url: str,
        elicitation_id: str | None = None,
        *,
        timeout: float | None = None,
        task: Any = None,
        key: str | None = None,
    ) -> ElicitationResult[None]:
        """Send the user to ``url`` (URL mode); the result says whether they agreed to go.

        Completion of the out-of-band interaction is announced later with
        :meth:`complete_elicitation`. ``task`` runs the request as a task at the client
        (see :meth:`request_as_task`).

        2026-07-28: an input request of the MRTR round (``key`` names it; no elicitation id
        on that wire); -32021 when the request's client capabilities lack URL mode.
        """
        if self._request.envelope is not None:
            asked: JSONObject = {"mode": "url", "message": message, "url": url}
            result = await self._ask("elicitation", asked, key)
            return _elicitation.ElicitationResult(result["action"])
        _elicitation.check_url_capability(
            self.session.client_capabilities, self.session.protocol_version
        )
        params: JSONObject = {
            "mode": "url",
            "message": message,
            "url": url,
            "elicitationId": elicitation_id or _elicitation.new_elicitation_id(),
        }
        if task is not None:
            result = await self.request_as_task(
                "elicitation/create", params, task=task, timeout=timeout
            )
        else:
            result = await self._rctx.request("elicitation/create", params, timeout=timeout)
        action = result.get("action") if isinstance(result, dict) else None
        if action not in ("accept", "decline", "cancel"):
            raise _elicitation.ElicitationError("The client sent a malformed elicitation result")
        return _elicitation.ElicitationResult(action)

    async def request_as_task(
        self,
        method: str,
        params: JSONObject,
        *,
        task: Any = True,
        timeout: float | None = None,
    ) -> JSONObject:
        """Send ``sampling/createMessage`` or ``elicitation/create`` to the client as a task
        (2025-11-25) and return the raw result once the task is done.

        The client answers a ``CreateTaskResult`` at once; this then polls ``tasks/get``
        (honouring the client's ``pollInterval``, woken early by its status notifications)
        and fetches ``tasks/result``. An error result is raised as McpError; McpError -32601
        when the client did not declare task support for ``method``. ``timeout`` (seconds)
        bounds the whole wait; a wait that is abandoned cancels the client's task.
        """
        from mcpkit.server.tasks import request_as_task

        return await request_as_task(
            self._rctx, method, params, task, timeout=timeout, spawn=self.session.spawn
        )

    def url_elicitation_required(
        self, message: str, url: str, elicitation_id: str | None = None
    ) -> McpError:
        """The -32042 error to ``raise`` when the request cannot go on before the user visits
        ``url`` (``raise ctx.url_elicitation_required(...)``)."""
        return _elicitation.url_elicitation_required(message, url, elicitation_id)

    async def complete_elicitation(self, elicitation_id: str) -> None:
        """Tell the client a URL-mode elicitation finished.

        Sends ``notifications/elicitation/complete``. 2026-07-28 has no such notification
        (the client learns the outcome by retrying the request): nothing is sent.
        """
        if self._request.envelope is not None:
            return
        await self.session.complete_elicitation(elicitation_id)

    # -- roots and resources ----------------------------------------------------------------------

    async def list_roots(self, *, key: str | None = None) -> list[Root]:
        """The client's roots (``roots/list``); McpError when it did not declare ``roots``.

        2026-07-28: an input request of the MRTR round (``key`` names it); -32021 when the
        request's client capabilities lack ``roots``."""
        if self._request.envelope is not None:
            from mcpkit.types import Root

            answer = await self._ask("roots", {}, key)
            return [Root.from_wire(r) for r in answer["roots"]]
        return await _roots.list_roots(self.session, request=self._rctx.request)

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Read one of this server's own resources."""
        from mcpkit.types import ReadResourceResult

        contents = await self.server.resources.read(uri, self._request, self._rctx)
        return ReadResourceResult.from_wire({"contents": contents})
