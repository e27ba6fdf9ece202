"""``mcp.client.Client`` (2.x) on mcpkit: the official high-level client over
:class:`mcpkit.Client`. Given a server object (an ``MCPServer``, a low-level ``Server``,
mcpkit's own) it talks to it in memory; a ``StdioServerParameters`` it starts as the SDK
does; a URL or a command line as mcpkit's client does.
Each method sends its request and answers with the ``mcp.types`` model of the result."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mcpkit._defaults import DEFAULT
from mcpkit.client.client import Client as NativeClient
from mcpkit.compat.mcp.client.bindings import BoundNotifications, MessageTee

__all__ = ["Client", "ClientSessionView"]

#: What the SDK's client sends whether or not the capability it needs was declared.
_UNCHECKED = frozenset(
    {"resources/subscribe", "resources/unsubscribe", "notifications/roots/list_changed"}
)

#: Server notifications the SDK 2.x client does not define (by whether the revision is
#: modern): it drops them (an extension may still bind them), never to ``message_handler``.
_UNDEFINED: dict[bool, frozenset[str]] = {
    False: frozenset({"notifications/tasks/status"}),
    True: frozenset({"notifications/tasks/status", "notifications/elicitation/complete"}),
}

#: The modern revisions a client may pin with ``mode=``.
MODERN = ("2026-07-28",)


#: ``cache=`` not given: mcpkit's own cache (the SDK's default ``CacheConfig()`` too).


def _answering(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The SDK's ``callback(context, params)`` as mcpkit's ``handler(params, context)``."""

    async def handler(params: Any, native: Any) -> Any:
        from mcpkit.compat.mcp.client.context import request_context

        answer = callback(request_context(native), params)
        return await answer if inspect.isawaitable(answer) else answer

    return handler


def _roots(callback: Callable[..., Any]) -> Callable[[], Any]:
    """The SDK's ``list_roots_callback(context)`` as mcpkit's roots source."""

    async def roots() -> Any:
        from mcpkit.compat.mcp.client.context import ClientRequestContext

        answer = callback(ClientRequestContext(session=None, request_id=None))
        result = await answer if inspect.isawaitable(answer) else answer
        return list(getattr(result, "roots", result))

    return roots


def float_progress(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The SDK's ``progress_callback(progress, total, message)``, numbers as floats."""

    async def report(progress: float, total: float | None, message: str | None) -> None:
        answer = callback(float(progress), None if total is None else float(total), message)
        if inspect.isawaitable(answer):
            await answer

    return report


def _drop(params: Any) -> None:
    """No log message goes anywhere but the ``logging_callback``."""


def _round(responses: dict[str, Any] | None, state: str | None) -> dict[str, Any]:
    """``inputResponses`` (result models by key, as the wire's objects) and
    ``requestState`` of a retry, those given."""
    out: dict[str, Any] = {}
    if responses is not None:
        out["inputResponses"] = {
            key: r.model_dump(mode="json", by_alias=True, exclude_none=True)
            if hasattr(r, "model_dump")
            else r
            for key, r in responses.items()
        }
    if state is not None:
        out["requestState"] = state
    return out


@contextlib.contextmanager
def sdk_errors() -> Iterator[None]:
    """An error answer (or a request timing out) raised as the SDK's ``MCPError``
    (``mcp.shared.exceptions``; its code, message and data), as the SDK's client raises
    it, so ``except MCPError`` catches it."""
    from mcpkit.compat.mcp.shared.exceptions import McpError as SdkError
    from mcpkit.errors import McpError

    try:
        yield
    except SdkError:
        raise
    except McpError as exc:
        raise SdkError(exc.code, exc.message, exc.data) from exc


def _empty() -> Any:
    import mcpkit.compat.mcp.types as types

    return types.EmptyResult()


def _params(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


#: The model of each kind of input request, by method.
_INPUT_REQUESTS = {
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
}


def input_required_result(raw: dict[str, Any]) -> Any:
    """``mcp.types.InputRequiredResult`` of a wire result, each input request as its
    request model (``ElicitRequest``, ...), as the official client parses it."""
    import mcpkit.compat.mcp.types as types

    requests = {}
    for key, request in (raw.get("inputRequests") or {}).items():
        method = request.get("method") if isinstance(request, dict) else None
        model = _INPUT_REQUESTS.get(method) if isinstance(method, str) else None
        requests[key] = getattr(types, model).model_validate(request) if model else request
    result = types.InputRequiredResult.model_validate(raw)  # type: ignore[attr-defined]
    # typed for the caller (the model keeps them as the wire's objects)
    result.__dict__["input_requests"] = requests if "inputRequests" in raw else None
    return result


#: mcpkit's OAuth errors (as an HTTP transport reports them) and the SDK's for them.
_OAUTH_ERRORS = {
    "OAuthError": "OAuthTokenError",
    "OAuthTokenError": "OAuthTokenError",
    "OAuthFlowError": "OAuthFlowError",
    "OAuthRegistrationError": "OAuthRegistrationError",
    "AuthorizationServerMismatchError": "OAuthFlowError",
    "IssuerMismatchError": "OAuthFlowError",
    "ResourceMismatchError": "OAuthFlowError",
}


def _oauth_error(exc: Any) -> Exception | None:
    """The SDK's ``mcp.client.auth`` error for a connection that failed in its OAuth flow
    (``OAuthTokenError`` for a refused token request, ``OAuthFlowError`` for a server the
    credentials do not belong to), as the SDK's providers raise them; else None."""
    data = exc.data if isinstance(exc.data, dict) else {}
    name = _OAUTH_ERRORS.get(str(data.get("exception")))
    if name is None:
        return None
    from mcpkit.compat.mcp.client.auth import exceptions

    error: Exception = getattr(exceptions, name)(exc.message)
    return error


class _SdkNative(NativeClient):
    """mcpkit's client as the SDK's behaves: a server's line that is not JSON goes
    unanswered, and the requests of :data:`_UNCHECKED` are sent whatever it declared."""

    #: Where a server served in memory keeps its handlers' exceptions for the client
    #: (``raise_exceptions=True``; see :func:`mcpkit.compat._native.handler_failed`).
    raised: list[BaseException] | None = None

    def _install(self, session: Any) -> None:
        super()._install(session)
        session.answers_parse_errors = False
        session.lifecycle.unchecked = _UNCHECKED
        conn = self._connector.conn
        server_session = conn.server_session if conn is not None else None
        if self.raised is not None and server_session is not None:
            server_session.compat_raised = self.raised


class Client:
    """``async with Client(server) as client:``, then ``call_tool``, ``list_tools``,
    ``read_resource``, ``get_prompt``, ... as on the official SDK."""

    def __init__(
        self,
        server: Any,
        *,
        read_timeout_seconds: float | None = None,
        mode: str = "auto",
        extensions: Sequence[Any] | None = None,
        sampling_callback: Any = None,
        elicitation_callback: Any = None,
        list_roots_callback: Any = None,
        logging_callback: Any = None,
        message_handler: Any = None,
        log_level: str | None = None,
        client_info: Any = None,
        sampling_capabilities: Any = None,
        input_required_max_rounds: int = 10,
        raise_exceptions: bool = False,
        prior_discover: Any = None,
        cache: Any = DEFAULT,
        **unknown: Any,
    ) -> None:
        # prior_discover (a saved DiscoverResult) is accepted: mcpkit's client sends its own
        # server/discover on a modern revision, so the server's identity is known either way.
        # raise_exceptions: a server served in memory keeps its handlers' exceptions for
        # this client (see __aexit__ and mcpkit.compat._native.handler_failed).
        from mcpkit.client.options import ProtocolOptions
        from mcpkit.compat.mcp.client.extension import fold_extensions

        if unknown:
            raise TypeError(f"Client() got unexpected keyword arguments: {sorted(unknown)}")
        # The SDK's Client is a dataclass: what it was given stays readable.
        self.server = server
        self.raise_exceptions = raise_exceptions
        self.read_timeout_seconds = read_timeout_seconds
        self.sampling_callback = sampling_callback
        self.sampling_capabilities = sampling_capabilities
        self.list_roots_callback = list_roots_callback
        self.logging_callback = logging_callback
        self.log_level = log_level
        self.message_handler = message_handler
        self.client_info = client_info
        self.mode = mode
        self.prior_discover = prior_discover
        self.elicitation_callback = elicitation_callback
        self.input_required_max_rounds = input_required_max_rounds
        self.extensions = extensions
        if cache is DEFAULT:
            from mcpkit.compat.mcp.client.caching import CacheConfig

            self.cache: Any = CacheConfig()
        else:
            self.cache = cache

        if mode not in ("auto", "legacy") and mode not in MODERN:
            raise ValueError(
                f"mode must be 'legacy', 'auto', or one of {list(MODERN)}; got {mode!r}"
            )
        from mcpkit.compat.mcp.client.stdio import StdioServerParameters, stdio_transport
        from mcpkit.compat.mcp.client.streamable_http import StreamableHttpTarget

        target = getattr(server, "native", server)
        http: dict[str, Any] = {}
        if isinstance(server, StdioServerParameters):
            target = stdio_transport(server)
        elif isinstance(server, StreamableHttpTarget):
            target = server.url
            http = {"headers": server.headers or None, "auth": server.auth}
        self._extensions = fold_extensions(extensions)
        options: dict[str, Any] = {"era": mode, **{k: v for k, v in http.items() if v}}
        self._bound: BoundNotifications | None = None
        if self._extensions.bindings:  # the notifications the extensions observe
            self._bound = BoundNotifications(
                self._extensions.bindings, lambda: self.protocol_version
            )
        self._tee = MessageTee(logging_callback, message_handler)
        options["on_notification"] = self._notified
        options["tracer"] = self._traced
        # The SDK's default logging_callback drops log messages (none go to `logging`).
        options["on_log"] = _drop
        # What is declared: a claiming extension only where its claims apply (a modern
        # revision; ``auto`` declares it as the modern wire would).
        declared = self._extensions.declared(None if mode == "legacy" else MODERN[-1])
        protocol: dict[str, Any] = {}
        if declared:
            protocol["extensions"] = declared
        # the SDK's cap on input rounds (10 by default; mcpkit's own is 8)
        protocol["max_input_rounds"] = input_required_max_rounds
        options["protocol"] = ProtocolOptions(**protocol)
        if client_info is not None:
            options["client_info"] = (
                client_info.model_dump(by_alias=True, exclude_none=True)
                if hasattr(client_info, "model_dump")
                else client_info
            )
        if read_timeout_seconds is not None:
            options["timeout"] = read_timeout_seconds
        if sampling_callback is not None:
            from mcpkit.client.sampling import Sampling

            tools = getattr(sampling_capabilities, "tools", None) is not None
            context = getattr(sampling_capabilities, "context", None) is not None
            options["sampling_handler"] = Sampling(
                _answering(sampling_callback),
                tools=tools or None,
                context=context or None,
            )
        if elicitation_callback is not None:
            options["elicitation_handler"] = _answering(elicitation_callback)
        if list_roots_callback is not None:
            options["roots"] = _roots(list_roots_callback)
        if cache is not DEFAULT:
            from mcpkit.compat.mcp.client.caching import native_cache

            options["cache"] = native_cache(cache)
        self._read_timeout = read_timeout_seconds
        #: A handler's exceptions, with ``raise_exceptions`` (a server served in memory).
        self._raised: list[BaseException] = []
        self._client = _SdkNative(target, **options)
        if raise_exceptions:
            self._client.raised = self._raised
        # Modern requests opt in to log messages at ``log_level`` only, as the SDK's do (a
        # logging_callback alone is no opt-in); the handshake era is governed by
        # logging/setLevel.
        self._client._log_level = log_level

    def _traced(self, direction: str, message: Any) -> None:
        if direction == "recv-invalid":
            self._tee.invalid(message)

    def _notified(self, method: str, params: Any) -> None:
        if self._bound is not None:
            self._bound(method, params)
        if method in _UNDEFINED.get(self.protocol_version in MODERN, ()):
            return  # not a notification of the SDK's tables at this revision: dropped
        self._tee(method, params)

    async def __aenter__(self) -> Client:
        from mcpkit.errors import McpError

        if self._bound is not None:
            self._bound.start()
        self._tee.start()
        try:
            await self._client.__aenter__()
        except McpError as exc:
            await self._stop_delivery()
            raise _oauth_error(exc) or exc from None
        except BaseException:
            await self._stop_delivery()
            raise
        return self

    async def _stop_delivery(self) -> None:
        if self._bound is not None:
            await self._bound.stop()
        await self._tee.stop()

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self._client.__aexit__(*exc_info)
        finally:
            await self._stop_delivery()
        if self._raised and self.protocol_version not in MODERN and exc_info[0] is None:
            # the SDK's in-process server raises its handler's exception out of the
            # client's task group (the request was answered with its text already)
            raised = list(self._raised)
            self._raised.clear()
            raise BaseExceptionGroup("unhandled errors in a TaskGroup", raised)

    @property
    def session(self) -> ClientSessionView:
        """The session under this client: ``send_request`` for a request of the server's
        own (an extension's method), and the calls of :class:`Client`."""
        return ClientSessionView(self)

    @property
    def protocol_version(self) -> str | None:
        """The revision this connection speaks."""
        version = self._client.negotiated_version
        return version.name if version is not None else None

    @property
    def server_capabilities(self) -> Any:
        """What the server declared (``mcp.types.ServerCapabilities``, with the
        ``extensions`` it declared)."""
        from mcpkit.compat.mcp.client._printed import ServerCapabilities

        caps = self._client.server_capabilities
        wire = caps.model_dump(by_alias=True, exclude_none=True) if caps is not None else {}
        return ServerCapabilities.model_validate(wire)

    @property
    def instructions(self) -> str | None:
        """The server's instructions, if it gave any."""
        return self._client.instructions

    @property
    def server_info(self) -> Any:
        """The server's identity (``mcp.types.Implementation``)."""
        from mcpkit.compat.mcp.client._printed import Implementation

        info = self._client.server_info
        return Implementation.model_validate(info.model_dump(by_alias=True))

    async def _send(
        self, model: str, method: str, params: dict[str, Any] | None, cache_mode: Any = "use"
    ) -> Any:
        import mcpkit.compat.mcp.types as types
        from mcpkit.compat.mcp.client._printed import RESULTS

        with sdk_errors():
            raw = await self._client.request(method, params, cache=cache_mode)
        return (RESULTS.get(model) or getattr(types, model)).model_validate(raw)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        *,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Call a tool: its ``CallToolResult`` (a tool's error is a result with
        ``is_error``); a result of a shape an extension claims is finished by the claim.
        ``input_responses`` / ``request_state`` answer a round the caller already got;
        further rounds are answered with the client's callbacks."""
        result, claim = await self._call_tool(
            name,
            arguments,
            meta,
            progress_callback,
            read_timeout_seconds,
            _round(input_responses, request_state),
        )
        if claim is not None:
            from mcpkit.compat.mcp.client.extension import ClaimContext

            context = ClaimContext(
                session=self.session,
                tool_name=name,
                read_timeout_seconds=read_timeout_seconds or self._read_timeout,
            )
            return await claim.resolve(result, context)
        return result

    async def _call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        meta: dict[str, Any] | None,
        progress_callback: Any = None,
        read_timeout_seconds: float | None = None,
        answered: dict[str, Any] | None = None,
    ) -> tuple[Any, Any]:
        """``tools/call``: its ``CallToolResult``, or the model of the claim an extension
        of this client makes on the result's shape, with that claim."""
        from mcpkit.compat.mcp.client._printed import CallToolResult

        params = _params(name=name, arguments=arguments or {}, **(answered or {}), _meta=meta)
        options: dict[str, Any] = {}
        if progress_callback is not None:
            options["on_progress"] = float_progress(progress_callback)
        if read_timeout_seconds is not None:
            options["timeout"] = read_timeout_seconds
        with sdk_errors():
            raw = await self._client.request("tools/call", params, **options)
        claim = self._extensions.claims.get(raw.get("resultType")) if raw else None
        if claim is not None and claim.active_at(self.protocol_version):
            return claim.model.model_validate(raw), claim
        return CallToolResult.model_validate(raw), None

    async def _call_tool_round(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        meta: dict[str, Any] | None,
        responses: dict[str, Any] | None,
        state: str | None,
        allow_input_required: bool,
        progress_callback: Any = None,
        read_timeout_seconds: float | None = None,
    ) -> Any:
        """One ``tools/call`` of a multi round-trip exchange, run by the caller."""
        import mcpkit.compat.mcp.types as types

        params = _params(
            name=name, arguments=arguments or {}, **_round(responses, state), _meta=meta
        )
        options: dict[str, Any] = {}
        if progress_callback is not None:
            options["on_progress"] = float_progress(progress_callback)
        if read_timeout_seconds is not None:
            options["timeout"] = read_timeout_seconds
        with sdk_errors():
            raw = await self._client.request("tools/call", params, mrtr=False, **options)
        if not (isinstance(raw, dict) and raw.get("resultType") == "input_required"):
            return types.CallToolResult.model_validate(raw)
        if not allow_input_required:
            raise RuntimeError(
                "call_tool received an InputRequiredResult; pass allow_input_required=True "
                "to resolve it yourself"
            )
        return input_required_result(raw)

    def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resource_subscriptions: Sequence[str] = (),
    ) -> Any:
        """Open a ``subscriptions/listen`` stream of typed change events (2026-07-28 only):
        ``async with client.listen(tools_list_changed=True) as sub: async for event in
        sub: ...`` (see :mod:`mcp.client.subscriptions`)."""
        from mcpkit.compat.mcp.client.subscriptions import listen

        return listen(
            self,
            tools_list_changed=tools_list_changed,
            prompts_list_changed=prompts_list_changed,
            resources_list_changed=resources_list_changed,
            resource_subscriptions=resource_subscriptions,
        )

    async def list_tools(
        self,
        *,
        cursor: str | None = None,
        meta: dict[str, Any] | None = None,
        cache_mode: Any = "use",
    ) -> Any:
        """One page of tools: a ``ListToolsResult``."""
        params = _params(cursor=cursor, _meta=meta)
        return await self._send("ListToolsResult", "tools/list", params, cache_mode)

    async def list_resources(
        self,
        *,
        cursor: str | None = None,
        meta: dict[str, Any] | None = None,
        cache_mode: Any = "use",
    ) -> Any:
        """One page of resources: a ``ListResourcesResult``."""
        params = _params(cursor=cursor, _meta=meta)
        return await self._send("ListResourcesResult", "resources/list", params, cache_mode)

    async def list_resource_templates(
        self,
        *,
        cursor: str | None = None,
        meta: dict[str, Any] | None = None,
        cache_mode: Any = "use",
    ) -> Any:
        """One page of resource templates: a ``ListResourceTemplatesResult``."""
        params = _params(cursor=cursor, _meta=meta)
        return await self._send(
            "ListResourceTemplatesResult", "resources/templates/list", params, cache_mode
        )

    async def list_prompts(
        self,
        *,
        cursor: str | None = None,
        meta: dict[str, Any] | None = None,
        cache_mode: Any = "use",
    ) -> Any:
        """One page of prompts: a ``ListPromptsResult``."""
        params = _params(cursor=cursor, _meta=meta)
        return await self._send("ListPromptsResult", "prompts/list", params, cache_mode)

    async def read_resource(
        self,
        uri: str,
        *,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
        meta: dict[str, Any] | None = None,
        cache_mode: Any = "use",
    ) -> Any:
        """Read a resource: a ``ReadResourceResult``."""
        params = _params(uri=str(uri), **_round(input_responses, request_state), _meta=meta)
        return await self._send("ReadResourceResult", "resources/read", params, cache_mode)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Get a prompt: a ``GetPromptResult``."""
        params = _params(
            name=name,
            arguments=arguments,
            **_round(input_responses, request_state),
            _meta=meta,
        )
        return await self._send("GetPromptResult", "prompts/get", params)

    async def complete(
        self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None
    ) -> Any:
        """Ask for completions: a ``CompleteResult``."""
        wire_ref = (
            ref.model_dump(by_alias=True, exclude_none=True) if hasattr(ref, "model_dump") else ref
        )
        params = _params(
            ref=wire_ref,
            argument=argument,
            context={"arguments": context_arguments} if context_arguments else None,
        )
        return await self._send("CompleteResult", "completion/complete", params)

    async def send_ping(self, *, meta: dict[str, Any] | None = None) -> Any:
        """Ping the server: an ``EmptyResult``."""
        with sdk_errors():
            if meta is not None and self.protocol_version not in MODERN:
                await self._client.request("ping", {"_meta": meta})
            else:
                await self._client.ping()
        import mcpkit.compat.mcp.types as types

        return types.EmptyResult()

    async def set_logging_level(self, level: str, *, meta: dict[str, Any] | None = None) -> Any:
        """Set the server's log level: an ``EmptyResult`` (on 2026-07-28 the level asked
        for by the requests that follow)."""
        with sdk_errors():
            if meta is not None and self.protocol_version not in MODERN:
                await self._client.request("logging/setLevel", {"level": level, "_meta": meta})
            else:
                await self._client.set_logging_level(level)
        return _empty()

    async def subscribe_resource(self, uri: str, *, meta: dict[str, Any] | None = None) -> Any:
        """``resources/subscribe`` (handshake-era servers): an ``EmptyResult``."""
        with sdk_errors():
            await self._client.request("resources/subscribe", _params(uri=str(uri), _meta=meta))
        return _empty()

    async def unsubscribe_resource(self, uri: str, *, meta: dict[str, Any] | None = None) -> Any:
        """``resources/unsubscribe`` (handshake-era servers): an ``EmptyResult``."""
        with sdk_errors():
            await self._client.request("resources/unsubscribe", _params(uri=str(uri), _meta=meta))
        return _empty()

    async def _notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """A notification to the server on the handshake era (the modern wire has no
        stream for a client's notifications; dropped there, as the SDK's direct peer drops
        them). Fire-and-forget: dropped once the connection is closed."""
        session = self._client._connector.session
        if session is None or session.closed or self.protocol_version in MODERN:
            return
        await session.notify(method, params)

    async def send_progress_notification(
        self,
        progress_token: str | int,
        progress: float,
        total: float | None = None,
        message: str | None = None,
    ) -> None:
        """Send ``notifications/progress`` to the server."""
        await self._notify(
            "notifications/progress",
            _params(progressToken=progress_token, progress=progress, total=total, message=message),
        )

    async def send_roots_list_changed(self) -> None:
        """Send ``notifications/roots/list_changed`` to the server."""
        await self._notify("notifications/roots/list_changed")


class ClientSessionView:
    """``client.session``: the requests of a :class:`Client`, and ``send_request`` for any
    other (a request model of ``mcp.types.Request``, answered as ``result_type``)."""

    def __init__(self, client: Client) -> None:
        self._owner = client

    async def send_request(
        self,
        request: Any,
        result_type: Any,
        request_read_timeout_seconds: float | None = None,
        metadata: Any = None,
        progress_callback: Any = None,
    ) -> Any:
        """Send ``request`` and validate its result as ``result_type`` (a model or a
        pydantic ``TypeAdapter``)."""
        from mcpkit.compat.mcp.types._generic import wire_params

        options: dict[str, Any] = {}
        if request_read_timeout_seconds is not None:
            options["timeout"] = request_read_timeout_seconds
        params = wire_params(request)
        key = getattr(type(request), "name_param", None)
        if key is not None:  # mirrored into the Mcp-Name header over HTTP, as the SDK does
            if not isinstance((params or {}).get(key), str):
                raise ValueError(f"{request.method} requires params[{key!r}] for Mcp-Name")
            transport = self._owner._client.transport
            names = getattr(transport, "name_params", None)
            if names is not None:
                names[request.method] = key
        with sdk_errors():
            raw = await self._owner._client.request(request.method, params, **options)
        validate = getattr(result_type, "validate_python", None) or result_type.model_validate
        return validate(raw)

    @property
    def discover_result(self) -> Any:
        """The ``server/discover`` result (``mcp.types.DiscoverResult``) on 2026-07-28, None
        on the handshake era; it may be handed to another ``Client(prior_discover=...)``."""
        from mcpkit.compat.mcp.types import DiscoverResult

        raw = self._owner._client.discover_result
        return None if raw is None else DiscoverResult.from_wire(raw)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        *,
        meta: dict[str, Any] | None = None,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
        allow_input_required: bool = False,
        allow_claimed: bool = False,
    ) -> Any:
        """Call a tool without finishing a claimed result: its ``CallToolResult``; for a
        shape an extension claims, the claim's model with ``allow_claimed``, else
        ``UnexpectedClaimedResult`` carrying it. With ``allow_input_required`` one round of
        2026-07-28's multi round-trip requests: an ``InputRequiredResult`` is returned (its
        input requests as ``ElicitRequest``, ``CreateMessageRequest``, ``ListRootsRequest``),
        for a retry with ``input_responses`` (result models by key) and ``request_state``."""
        if allow_input_required or input_responses is not None or request_state is not None:
            return await self._owner._call_tool_round(
                name,
                arguments,
                meta,
                input_responses,
                request_state,
                allow_input_required,
                progress_callback,
                read_timeout_seconds,
            )
        result, claim = await self._owner._call_tool(
            name, arguments, meta, progress_callback, read_timeout_seconds
        )
        if claim is not None and not allow_claimed:
            from mcpkit.compat.mcp.client.extension import UnexpectedClaimedResult

            raise UnexpectedClaimedResult(result)
        return result

    def __getattr__(self, name: str) -> Any:  # list_tools, read_resource, ... of the client
        return getattr(self._owner, name)
