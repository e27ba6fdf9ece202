"""The official SDK's ``Context`` on mcpkit: the same names, served by mcpkit's
:class:`~mcpkit.Context` (which it wraps and exposes as :attr:`Context.native`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from mcpkit._defaults import DEFAULT
from mcpkit.server.context import Context as NativeContext

if TYPE_CHECKING:
    from pydantic import BaseModel

    from mcpkit.compat.mcp.server.mcpserver.server import MCPServer

__all__ = ["Context", "ReadResourceContents", "RequestContext", "ServerSession", "sse_closers"]

LifespanContextT = TypeVar("LifespanContextT")
RequestT = TypeVar("RequestT")


def _back_channel(native: NativeContext, method: str) -> None:
    """Refuse a request to the client where 2.x has no way to send it: a 2025-era request
    over stateless Streamable HTTP (no session, so no stream back), with the SDK's -32600
    (on 2026-07-28, where 2.x refuses them too, mcpkit carries them as input requests)."""
    info = native.session.transport.info
    if native.era == "legacy" and info.kind == "http" and info.session_id is None:
        from mcpkit.compat.mcp.shared.exceptions import McpError  # str() is its message
        from mcpkit.jsonrpc import INVALID_REQUEST

        raise McpError(
            INVALID_REQUEST,
            f"Cannot send {method!r}: this transport context has no back-channel for "
            "server-initiated requests.",
        )


def _wire_notification(notification: Any) -> dict[str, Any]:
    """A notification model (or its dict) as ``{"method", "params"}`` on the wire."""
    dump = getattr(notification, "model_dump", None)
    if dump is not None:
        out: dict[str, Any] = dump(by_alias=True, exclude_none=True, mode="json")
        return out
    to_wire = getattr(notification, "to_wire", None)
    if to_wire is not None:
        wire: dict[str, Any] = to_wire()
        return wire
    return dict(notification)


@dataclass
class ReadResourceContents:
    """One item of :meth:`Context.read_resource`: text (``str``) or binary (``bytes``)."""

    content: str | bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None


@dataclass
class RequestContext(Generic[LifespanContextT]):
    """``ctx.request_context``: the session, what the lifespan yielded, the request."""

    session: ServerSession
    lifespan_context: LifespanContextT
    request_id: str | int
    meta: Any = None
    protocol_version: str | None = None
    method: str = ""
    request: Any = None
    params: Any = field(default=None)
    #: ``await close_sse_stream()`` ends this request's SSE stream early (SSE polling), and
    #: ``close_standalone_sse_stream()`` the GET stream: None where the client could not
    #: resume (no event store, or a revision before 2025-11-25), as on 1.x.
    close_sse_stream: Any = None
    close_standalone_sse_stream: Any = None
    #: 1.x's ``ctx.experimental`` (task-augmented requests, ``run_task``).
    experimental: Any = None


def sse_closers(native: NativeContext) -> dict[str, Any]:
    """The ``close_sse_stream`` / ``close_standalone_sse_stream`` callbacks of a request's
    context, where the SDK gives them: over Streamable HTTP with an event store, to a
    client of 2025-11-25 or later (the standalone one does nothing here)."""
    version = native.protocol_version
    info = native.session.transport.info
    if not info.closable_streams or version is None or native.era != "legacy":
        return {}
    if version.name < "2025-11-25":
        return {}

    async def close_sse_stream() -> None:
        native.close_sse_stream()

    async def close_standalone_sse_stream() -> None:
        """mcpkit keeps the GET stream open: nothing happens."""

    return {
        "close_sse_stream": close_sse_stream,
        "close_standalone_sse_stream": close_standalone_sse_stream,
    }


#: The parts of the sampling capability checked one by one.
_SAMPLING = ("context", "tools")


class ServerSession:
    """``ctx.session``: requests and notifications to the client of this request."""

    def __init__(self, ctx: NativeContext) -> None:
        self._ctx = ctx

    def check_client_capability(self, capability: Any) -> bool:
        """Whether the client declared ``capability`` (a ``ClientCapabilities``): each part
        it names (with ``roots.listChanged``, ``sampling.context``/``tools``, the
        ``experimental`` entries, the extensions' identifiers), as the SDK checks it."""
        from mcpkit.server.tools import wire_dict

        want = wire_dict(capability, "capability")
        have: dict[str, Any] = dict(self._ctx.client_capabilities or {})
        for part in ("roots", "sampling", "elicitation", "experimental", "extensions"):
            wanted = want.get(part)
            if wanted is None:
                continue
            held = have.get(part)
            if not isinstance(held, dict):
                return False
            if part == "roots" and wanted.get("listChanged") and not held.get("listChanged"):
                return False
            if part == "sampling" and any(k in wanted and k not in held for k in _SAMPLING):
                return False
            if part == "experimental" and any(held.get(k, DEFAULT) != v for k, v in wanted.items()):
                return False
            if part == "extensions" and any(k not in held for k in wanted):
                return False
        return True

    @property
    def client_capabilities(self) -> Any:
        """What the client declared (``mcp.types.ClientCapabilities``, its
        ``extensions`` too)."""
        from mcpkit.compat.mcp.types import ClientCapabilities

        return ClientCapabilities.from_wire(self._ctx.client_capabilities)

    @property
    def client_params(self) -> Any:
        """The client's ``initialize`` params: its info and capabilities."""
        from mcpkit.types import InitializeRequestParams

        version = self._ctx.protocol_version
        return InitializeRequestParams.from_wire(
            {
                "protocolVersion": version.name if version is not None else "",
                "capabilities": self._ctx.client_capabilities,
                "clientInfo": self._ctx.client_info or {"name": "", "version": ""},
            }
        )

    @property
    def protocol_version(self) -> str:
        """The protocol version of this request."""
        version = self._ctx.protocol_version
        return version.name if version is not None else ""

    async def create_message(
        self,
        messages: list[Any],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        include_context: str | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        model_preferences: Any = None,
        tools: list[Any] | None = None,
        tool_choice: Any = None,
        related_request_id: Any = None,
    ) -> Any:
        """``sampling/createMessage``: :meth:`mcpkit.Context.sample`."""
        return await self._ctx.sample(
            list(messages),
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            include_context=include_context,
            temperature=temperature,
            stop_sequences=stop_sequences,
            metadata=metadata,
            model_preferences=model_preferences,
            tools=tools,
            tool_choice=tool_choice,
        )

    async def send_log_message(
        self, level: Any, data: Any, logger: str | None = None, related_request_id: Any = None
    ) -> None:
        """``notifications/message``: :meth:`mcpkit.Context.log`."""
        await self._ctx.log(level, data, logger)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Progress of this request: :meth:`mcpkit.Context.progress`."""
        await self._ctx.progress(progress, total, message)

    async def send_progress_notification(
        self,
        progress_token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
        related_request_id: Any = None,
    ) -> None:
        """``notifications/progress`` for ``progress_token``."""
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._ctx.session.notify("notifications/progress", params)

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        """Send a notification model (``mcp.types``) to the client. A log message goes as
        :meth:`mcpkit.Context.log` sends one (on 2026-07-28 only to a request that asked
        for logs), progress as :meth:`send_progress_notification`; either on this request's
        stream, in order before its result."""
        wire = _wire_notification(notification)
        method, params = wire["method"], wire.get("params") or {}
        if method == "notifications/message":
            await self._ctx.log(
                params.get("level", "info"), params.get("data"), params.get("logger")
            )
            return
        await self._ctx.session.notify(
            method, params or None, related_request_id=self._ctx.request_id
        )

    async def list_roots(self) -> Any:
        """``roots/list``: a ``ListRootsResult``."""
        from mcpkit.types import ListRootsResult

        return ListRootsResult(roots=await self._ctx.list_roots())

    async def elicit_form(
        self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None
    ) -> Any:
        """Form elicitation with a JSON schema: an ``ElicitResult``."""
        from mcpkit.server.elicitation import ElicitationError
        from mcpkit.types import ElicitResult

        try:
            answer = await self._ctx.elicit(message, requested_schema)
        except ElicitationError as refused:
            if refused.content is None:
                raise
            # The SDK's session hands the handler the answer unchecked.
            return ElicitResult(action="accept", content=refused.content)
        return ElicitResult(action=answer.action, content=answer.content)

    elicit = elicit_form

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str, related_request_id: Any = None
    ) -> Any:
        """URL elicitation: an ``ElicitResult``."""
        from mcpkit.types import ElicitResult

        answer = await self._ctx.elicit_url(message, url, elicitation_id)
        return ElicitResult(action=answer.action)

    async def send_elicit_complete(
        self, elicitation_id: str, related_request_id: Any = None
    ) -> None:
        """``notifications/elicitation/complete``."""
        await self._ctx.complete_elicitation(elicitation_id)

    async def send_ping(self) -> Any:
        """``ping`` to the client."""
        from mcpkit.types import EmptyResult

        await self._ctx.session.ping()
        return EmptyResult()

    async def send_resource_updated(self, uri: Any) -> None:
        """``notifications/resources/updated`` for ``uri`` to this client (2026-07-28: to
        the ``subscriptions/listen`` streams watching it)."""
        if self._ctx.era == "modern":
            self._ctx.server.notify_resource_updated(str(uri))
            return
        await self._ctx.session.notify("notifications/resources/updated", {"uri": str(uri)})

    async def _list_changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        if self._ctx.era == "modern":  # listen streams carry list changes there
            self._ctx.server.notify_list_changed(kind)
            return
        await self._ctx.session.notify(f"notifications/{kind}/list_changed")

    async def send_resource_list_changed(self) -> None:
        """``notifications/resources/list_changed`` to this client."""
        await self._list_changed("resources")

    async def send_tool_list_changed(self) -> None:
        """``notifications/tools/list_changed`` to this client."""
        await self._list_changed("tools")

    async def send_prompt_list_changed(self) -> None:
        """``notifications/prompts/list_changed`` to this client."""
        await self._list_changed("prompts")


class Context(Generic[LifespanContextT, RequestT]):
    """What a handler annotated ``ctx: Context`` receives (any parameter name; subscripts
    such as ``Context[ServerSession, AppContext]`` work too)."""

    if not TYPE_CHECKING:

        def __class_getitem__(cls, params: Any) -> Any:
            # Any generic arguments: 2.x's (lifespan, request), 1.x's (session, lifespan,
            # request) or fewer; the annotation names the class either way.
            return cls

    def __init__(self, native: NativeContext, server: MCPServer[Any] | None = None) -> None:
        #: The mcpkit :class:`~mcpkit.Context` serving this request.
        self.native = native
        self._server = server

    # -- the request --------------------------------------------------------------------------

    @property
    def mcp_server(self) -> MCPServer[Any]:
        """The :class:`MCPServer` serving this request."""
        if self._server is None:
            raise ValueError("Context is not available outside of a request")
        return self._server

    @property
    def request_id(self) -> str:
        """The JSON-RPC id of the request, as a string."""
        return str(self.native.request_id)

    @property
    def request_context(self) -> RequestContext[LifespanContextT]:
        """The session, ``lifespan_context`` (what the lifespan yielded) and request data
        (``request``: over HTTP, the Starlette ``Request`` that carried the message, its
        ``user`` and ``auth`` set by the server's bearer checks)."""
        version = self.native.protocol_version
        request = None
        if self.native.request is not None:
            from starlette.requests import Request

            from mcpkit.http_request import scope_var

            scope = scope_var.get()
            request = None if scope is None else Request(scope)
        from mcpkit.compat._native import lifespan_of

        meta: Any = self.native.meta
        if meta is not None and getattr(self._server, "_meta_as_model", False):
            meta = _meta_model_1x().model_validate(meta)  # 1.x: RequestParams.Meta (.progressToken)
        elif meta is not None and "progressToken" in meta:  # 2.x: its field's Python name
            meta = {("progress_token" if k == "progressToken" else k): v for k, v in meta.items()}
        return RequestContext(
            session=self.session,
            lifespan_context=lifespan_of(self.native),
            request_id=self.native.request_id,
            meta=meta,
            protocol_version=version.name if version is not None else None,
            request=request,
            **sse_closers(self.native),
        )

    @property
    def session(self) -> ServerSession:
        """Requests and notifications to this client."""
        return ServerSession(self.native)

    @property
    def client_capabilities(self) -> Any:
        """What the client declared (``ClientCapabilities``)."""
        return self.session.client_capabilities

    @property
    def protocol_version(self) -> str | None:
        """The protocol version of this request."""
        version = self.native.protocol_version
        return version.name if version is not None else None

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The answers of a 2026-07-28 retry to the input requests of the
        ``InputRequiredResult`` this handler returned, each as its result model (None on a
        first call)."""
        from mcpkit.compat.mcp.server.mcpserver.by_hand import input_responses

        return input_responses(self.native._request.params)

    @property
    def request_state(self) -> str | None:
        """The ``request_state`` this handler's ``InputRequiredResult`` carried, given back
        on the retry (None on a first call)."""
        from mcpkit.compat.mcp.server.mcpserver.by_hand import request_state

        return request_state()

    @property
    def headers(self) -> None:
        """Request headers are not exposed (None)."""
        return None

    # -- progress and logging -----------------------------------------------------------------

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress (sent when the client asked with a progress token)."""
        await self.native.progress(progress, total, message)

    async def log(self, level: Any, data: Any, *, logger_name: str | None = None) -> None:
        """Send ``notifications/message`` at ``level``."""
        await self.native.log(level, data, logger_name)

    async def debug(self, data: Any, *, logger_name: str | None = None) -> None:
        """Log at ``debug``."""
        await self.native.log("debug", data, logger_name)

    async def info(self, data: Any, *, logger_name: str | None = None) -> None:
        """Log at ``info``."""
        await self.native.log("info", data, logger_name)

    async def warning(self, data: Any, *, logger_name: str | None = None) -> None:
        """Log at ``warning``."""
        await self.native.log("warning", data, logger_name)

    async def error(self, data: Any, *, logger_name: str | None = None) -> None:
        """Log at ``error``."""
        await self.native.log("error", data, logger_name)

    # -- resources, elicitation ---------------------------------------------------------------

    async def read_resource(self, uri: Any) -> list[ReadResourceContents]:
        """Read one of this server's resources: its contents, text or bytes."""
        import base64

        result = await self.native.read_resource(str(uri))
        out = []
        for item in result.contents:
            text = getattr(item, "text", None)
            content = text if text is not None else base64.b64decode(getattr(item, "blob", ""))
            out.append(ReadResourceContents(content, item.mime_type, item.meta))
        return out

    async def elicit(self, message: str, schema: type[BaseModel]) -> Any:
        """Ask the user for input shaped by a pydantic model: ``AcceptedElicitation`` (its
        ``.data``), ``DeclinedElicitation`` or ``CancelledElicitation``
        (``mcp.server.elicitation``), each with its ``.action``. An answer the model
        refuses raises pydantic's ``ValidationError`` (1.x) or a ``ValueError`` saying so
        (2.x), as there."""
        from mcpkit.compat.mcp.server.elicitation import outcome
        from mcpkit.server.elicitation import ElicitationError

        if self._server is not None and not self._server._show_failure_text:
            _back_channel(self.native, "elicitation/create")
        try:
            return outcome(await self.native.elicit(message, schema))
        except ElicitationError as exc:
            if exc.validation_error is not None:
                if self._server is not None and not self._server._show_failure_text:
                    raise ValueError(
                        "Received an accepted elicitation whose content does not match"
                        " the requested schema"
                    ) from None
                raise exc.validation_error from None
            raise

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> Any:
        """Send the user to ``url``; ``.action`` says whether they agreed."""
        return await self.native.elicit_url(message, url, elicitation_id)

    async def close_sse_stream(self) -> None:
        """Close this request's SSE stream so the client reconnects (Streamable HTTP)."""
        self.native.close_sse_stream()

    async def close_standalone_sse_stream(self) -> None:
        """Not supported: nothing happens."""

    # -- notifications ------------------------------------------------------------------------

    # As on 2.x, these reach the subscriptions/listen streams (2026-07-28) alone; a
    # handshake-era client is told through ctx.session.send_*.

    async def notify_tools_changed(self) -> None:
        """Announce to the listen streams that the tool list changed."""
        from mcpkit.compat.mcp.server.subscriptions import publish_to_listeners

        publish_to_listeners(self.native.server, "tools")

    async def notify_prompts_changed(self) -> None:
        """Announce to the listen streams that the prompt list changed."""
        from mcpkit.compat.mcp.server.subscriptions import publish_to_listeners

        publish_to_listeners(self.native.server, "prompts")

    async def notify_resources_changed(self) -> None:
        """Announce to the listen streams that the resource list changed."""
        from mcpkit.compat.mcp.server.subscriptions import publish_to_listeners

        publish_to_listeners(self.native.server, "resources")

    async def notify_resource_updated(self, uri: Any) -> None:
        """Announce to the listen streams that the resource at ``uri`` changed."""
        from mcpkit.compat.mcp.server.subscriptions import publish_to_listeners

        publish_to_listeners(self.native.server, "resource_updated", str(uri))


@functools.cache
def _meta_model_1x() -> Any:
    """1.x's ``RequestParams.Meta``: a request's ``_meta``, ``progressToken`` and any other
    key as attributes."""
    from pydantic import BaseModel, ConfigDict

    class Meta(BaseModel):
        model_config = ConfigDict(extra="allow")

        progressToken: str | int | None = None  # (the SDK's name)

    return Meta
