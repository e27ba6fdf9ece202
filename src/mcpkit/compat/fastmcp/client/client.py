"""fastmcp's ``Client`` on :class:`mcpkit.Client`: the same constructor (the transport
inferred from its argument, the handlers in fastmcp's signatures), ``async with`` (nested
blocks share one connection), and fastmcp's methods and results (``call_tool`` returning a
:class:`CallToolResult` with ``.data``, raising :class:`ToolError` on a failed call)."""

from __future__ import annotations

import datetime
import functools
import inspect
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import pydantic_core

import mcpkit.compat.mcp.types as t
from mcpkit._defaults import DEFAULT
from mcpkit.client import Client as NativeClient
from mcpkit.compat.fastmcp.client.data import hydrate, schema_to_type
from mcpkit.compat.fastmcp.client.transports import ClientTransport, infer_transport
from mcpkit.compat.fastmcp.exceptions import ToolError
from mcpkit.compat.mcp.shared.exceptions import McpError
from mcpkit.errors import ConnectionClosed
from mcpkit.errors import McpError as NativeMcpError
from mcpkit.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR

__all__ = ["CallToolResult", "Client"]

_server_log = logging.getLogger("fastmcp.client.from_server")
_log = logging.getLogger("fastmcp.client")
R = TypeVar("R")

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


@dataclass
class CallToolResult:
    """A tool's result as fastmcp's client returns it: ``data`` is the structured result
    as Python values (unwrapped, typed from the tool's output schema)."""

    content: list[Any]
    structured_content: dict[str, Any] | None
    meta: dict[str, Any] | None
    data: Any = None
    is_error: bool = False


async def default_log_handler(message: t.LoggingMessageNotificationParams) -> None:
    """fastmcp's default: a server's log message goes to the
    ``fastmcp.client.from_server`` logger at its level."""
    prefix = f"Received {message.level.upper()} from server"
    if message.logger:
        prefix += f" ({message.logger})"
    _server_log.log(_LEVELS.get(message.level.lower(), logging.INFO), f"{prefix}: {message.data}")


async def default_progress_handler(
    progress: float, total: float | None, message: str | None
) -> None:
    """fastmcp's default: progress is logged at debug level."""
    text = f"{progress}/{total}" if total is not None else f"{progress}"
    _log.debug(f"Progress: {text} - {message}" if message else f"Progress: {text}")


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _seconds(value: datetime.timedelta | float | int | None) -> float | None:
    if isinstance(value, datetime.timedelta):
        value = value.total_seconds()
    return None if not value else float(value)


def _mcp_error(exc: NativeMcpError) -> McpError:
    return McpError(code=exc.code, message=exc.message, data=exc.data)


class Client:
    """fastmcp's MCP client, served by :class:`mcpkit.Client`.

    ``transport``: a server object (in memory), a ``Path`` or the name of an existing
    ``.py`` / ``.js`` file (over stdio), an ``http(s)`` URL, an ``mcpServers``
    configuration, or a transport of :mod:`.transports`. Handlers take
    fastmcp's signatures: ``log_handler(message)``, ``progress_handler(progress, total,
    message)``, ``sampling_handler(messages, params, context)``,
    ``elicitation_handler(message, response_type, params, context)``,
    ``message_handler(notification)`` and ``roots`` (a list or ``fn(context)``).
    """

    def __init__(
        self,
        transport: Any,
        name: str | None = None,
        roots: Any = None,
        sampling_handler: Callable[..., Any] | None = None,
        sampling_capabilities: Any = None,
        elicitation_handler: Callable[..., Any] | None = None,
        log_handler: Callable[..., Any] | None = None,
        message_handler: Callable[..., Any] | None = None,
        progress_handler: Callable[..., Any] | None = None,
        timeout: datetime.timedelta | float | int | None = None,
        auto_initialize: bool = True,
        init_timeout: datetime.timedelta | float | int | None = None,
        client_info: Any = None,
        auth: Any = None,
        verify: Any = None,
        mode: str = "auto",
        **options: Any,
    ) -> None:
        self.name = name or self.generate_name()
        self.transport: ClientTransport = infer_transport(transport)
        if auth is not None:
            self.transport._set_auth(auth)
        if verify is not None and not hasattr(self.transport, "url"):
            raise ValueError("The 'verify' parameter is only supported for HTTP transports.")
        self.mode = mode
        self._roots = roots
        self._log_handler = log_handler or default_log_handler
        self._progress_handler = progress_handler or default_progress_handler
        self._message_handler = message_handler
        self._sampling_handler = sampling_handler
        self._elicitation_handler = elicitation_handler
        self._timeout = _seconds(timeout)
        self._client_info = client_info
        self.auto_initialize = auto_initialize
        self._native: NativeClient | None = None
        self._nesting = 0
        self._tool_output_schemas: dict[str, dict[str, Any] | None] = {}

    @classmethod
    def generate_name(cls, name: str | None = None) -> str:
        """A name for a client: ``Client-<hex>`` (``Client-<name>-<hex>``)."""
        suffix = secrets.token_hex(2)
        return f"{cls.__name__}-{suffix}" if name is None else f"{cls.__name__}-{name}-{suffix}"

    # -- connection -------------------------------------------------------------------------------

    def _new_native(self) -> NativeClient:
        from mcpkit.client.notifications import ClientHooks

        options: dict[str, Any] = dict(self.transport.client_options())
        if self._sampling_handler is not None:
            options["sampling_handler"] = functools.partial(_sample, self._sampling_handler)
        if self._elicitation_handler is not None:
            options["elicitation_handler"] = functools.partial(_elicit, self._elicitation_handler)
        if self._roots is not None:
            options["roots"] = _roots_source(self._roots)
        if self._client_info is not None:
            options["client_info"] = self._client_info
        hooks = ClientHooks(
            on_log=self._log_handler,
            on_progress=_floats(self._progress_handler),
            on_notification=self._on_notification if self._message_handler else None,
        )
        era = "auto" if self.mode == "auto" else self.mode
        return NativeClient(
            self.transport.target(),
            hooks=hooks,
            timeout=self._timeout,
            era=era,  # type: ignore[arg-type]
            cache=False,
            **options,
        )

    async def _on_notification(self, method: str, params: Mapping[str, Any] | None) -> None:
        handler = self._message_handler
        if handler is None:
            return
        wire: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            wire["params"] = dict(params)
        model = _NOTIFICATIONS.get(method)
        message: Any = model.model_validate(wire) if model is not None else wire
        await _maybe(handler(message))

    async def __aenter__(self) -> Client:
        if self._nesting == 0:
            self._native = self._new_native()
            try:
                await self._native.connect()
            except NativeMcpError as exc:
                self._native = None
                if isinstance(exc.data, dict) and "exception" in exc.data:  # unreachable
                    raise RuntimeError(f"Client failed to connect: {exc.message}") from exc
                raise _mcp_error(exc) from exc
            except ConnectionClosed as exc:  # the server went away before answering
                self._native = None
                raise McpError(code=CONNECTION_CLOSED, message="Connection closed") from exc
            except Exception as exc:  # as fastmcp reports a failed connection
                self._native = None
                raise RuntimeError(f"Client failed to connect: {exc}") from exc
            except BaseException:
                self._native = None
                raise
        self._nesting += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._nesting -= 1
        if self._nesting == 0:
            await self.close()

    async def close(self) -> None:
        """End the connection."""
        native, self._native = self._native, None
        self._nesting = 0
        self._tool_output_schemas.clear()
        if native is not None:
            await native.close()

    def is_connected(self) -> bool:
        """Whether the client is connected."""
        return self._native is not None and self._native.connected

    def new(self) -> Client:
        """A client of the same transport and handlers, not connected."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._native, clone._nesting, clone._tool_output_schemas = None, 0, {}
        return clone

    @property
    def native(self) -> NativeClient:
        """The connected :class:`mcpkit.Client`."""
        if self._native is None or not self._native.connected:
            raise RuntimeError(
                "Client is not connected. Use the 'async with client:' context manager first."
            )
        return self._native

    session = native

    @property
    def initialize_result(self) -> t.InitializeResult | None:
        """What the server answered to ``initialize`` (``None`` before connecting and on the
        2026-07-28 wire, which has no handshake)."""
        if self._native is None or not self._native.connected or self._native.modern:
            return None
        native = self._native
        return t.InitializeResult(
            protocol_version=native.protocol_version or "",
            capabilities=native.server_capabilities,
            server_info=native.server_info,
            instructions=native.instructions,
        )

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision in use."""
        return self.native.protocol_version if self.is_connected() else None

    @property
    def server_capabilities(self) -> t.ServerCapabilities | None:
        """The server's capabilities."""
        return self.native.server_capabilities if self.is_connected() else None

    @property
    def server_info(self) -> t.Implementation | None:
        """The server's name and version."""
        return self.native.server_info if self.is_connected() else None

    @property
    def instructions(self) -> str | None:
        """The server's instructions."""
        return self.native.instructions if self.is_connected() else None

    async def _run(self, call: Awaitable[R]) -> R:
        try:
            return await call
        except NativeMcpError as exc:
            if isinstance(exc, McpError):
                raise
            raise _mcp_error(exc) from exc

    # -- requests ---------------------------------------------------------------------------------

    async def ping(self) -> bool:
        """Send ``ping`` (on the 2026-07-28 wire, which has none, the server's error is
        raised, as fastmcp's client does)."""
        result = await self._run(self.native.request("ping"))
        return isinstance(result, dict)

    async def set_logging_level(self, level: str) -> None:
        """Ask the server for log messages at ``level`` and above (handshake era only: on
        the 2026-07-28 wire, which has no ``logging/setLevel``, RuntimeError as fastmcp)."""
        if self.native.modern:
            raise RuntimeError(
                "logging/setLevel is not available on MCP 2026-07-28 connections; the method "
                "requires per-session server state that the modern protocol does not have. "
                "Filter incoming log messages by level in your log_handler instead."
            )
        await self._run(self.native.set_logging_level(level))

    async def cancel(self, request_id: str | int, reason: str | None = None) -> None:
        """Tell the server to cancel request ``request_id``."""
        params: dict[str, Any] = {"requestId": request_id}
        if reason is not None:
            params["reason"] = reason
        await self.native.session.notify("notifications/cancelled", params)

    async def send_roots_list_changed(self) -> None:
        """Tell the server the roots changed."""
        await self.native.session.notify("notifications/roots/list_changed", None)

    def set_roots(self, roots: Any) -> None:
        """Roots for the next connection."""
        self._roots = roots

    def set_sampling_callback(self, handler: Callable[..., Any], *_: Any) -> None:
        """The sampling handler for the next connection."""
        self._sampling_handler = handler

    def set_elicitation_callback(self, handler: Callable[..., Any]) -> None:
        """The elicitation handler for the next connection."""
        self._elicitation_handler = handler

    async def _typed(self, model: type[Any], method: str, params: dict[str, Any] | None) -> Any:
        raw = await self._run(self.native.request(method, params))
        return model.model_validate(raw)

    async def list_tools_mcp(self, *, cursor: str | None = None) -> t.ListToolsResult:
        """One ``tools/list`` page."""
        raw = await self._run(
            self.native.request("tools/list", {"cursor": cursor} if cursor else None)
        )
        tools = [t.Tool.model_validate(tool) for tool in raw.get("tools", [])]
        result: t.ListToolsResult = t.ListToolsResult.model_validate(raw).model_copy(
            update={"tools": tools}
        )
        for tool in tools:
            schema: Any = tool.output_schema
            if hasattr(schema, "model_dump"):
                schema = schema.model_dump(by_alias=True, exclude_none=True)
            self._tool_output_schemas[tool.name] = schema
        return result

    async def list_tools(self, max_pages: int = 250) -> list[t.Tool]:
        """Every tool (all pages)."""
        return await self._all(self.list_tools_mcp, "tools", max_pages)

    async def list_resources_mcp(self, *, cursor: str | None = None) -> t.ListResourcesResult:
        """One ``resources/list`` page."""
        return await self._typed(  # type: ignore[no-any-return]
            t.ListResourcesResult, "resources/list", {"cursor": cursor} if cursor else None
        )

    async def list_resources(self, max_pages: int = 250) -> list[t.Resource]:
        """Every resource (all pages)."""
        return await self._all(self.list_resources_mcp, "resources", max_pages)

    async def list_resource_templates_mcp(
        self, *, cursor: str | None = None
    ) -> t.ListResourceTemplatesResult:
        """One ``resources/templates/list`` page."""
        return await self._typed(  # type: ignore[no-any-return]
            t.ListResourceTemplatesResult,
            "resources/templates/list",
            {"cursor": cursor} if cursor else None,
        )

    async def list_resource_templates(self, max_pages: int = 250) -> list[t.ResourceTemplate]:
        """Every resource template (all pages)."""
        return await self._all(self.list_resource_templates_mcp, "resource_templates", max_pages)

    async def list_prompts_mcp(self, *, cursor: str | None = None) -> t.ListPromptsResult:
        """One ``prompts/list`` page."""
        return await self._typed(  # type: ignore[no-any-return]
            t.ListPromptsResult, "prompts/list", {"cursor": cursor} if cursor else None
        )

    async def list_prompts(self, max_pages: int = 250) -> list[t.Prompt]:
        """Every prompt (all pages)."""
        return await self._all(self.list_prompts_mcp, "prompts", max_pages)

    async def _all(
        self, page: Callable[..., Awaitable[Any]], field: str, max_pages: int
    ) -> list[Any]:
        items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            result = await page(cursor=cursor)
            items.extend(getattr(result, field))
            cursor = result.next_cursor
            if cursor is None or cursor in seen:
                return items
            seen.add(cursor)
        raise RuntimeError(
            f"[{self.name}] Reached auto-pagination limit ({max_pages} pages) for "
            f"list_{field}. Use list_{field}_mcp() with cursor for manual pagination, "
            "or increase max_pages."
        )

    async def read_resource_mcp(
        self, uri: Any, *, version: str | None = None, meta: dict[str, Any] | None = None
    ) -> t.ReadResourceResult:
        """The ``resources/read`` result."""
        params: dict[str, Any] = {"uri": str(uri)}
        request_meta = _with_version(meta, version)
        if request_meta:
            params["_meta"] = request_meta
        return await self._typed(t.ReadResourceResult, "resources/read", params)  # type: ignore[no-any-return]

    async def read_resource(
        self, uri: Any, *, version: str | None = None, meta: dict[str, Any] | None = None
    ) -> list[Any]:
        """The contents of the resource at ``uri``."""
        return list((await self.read_resource_mcp(uri, version=version, meta=meta)).contents)

    async def get_prompt_mcp(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        version: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> t.GetPromptResult:
        """The ``prompts/get`` result (non-string arguments sent as JSON)."""
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = {
                k: v if isinstance(v, str) else pydantic_core.to_json(v).decode()
                for k, v in arguments.items()
            }
        request_meta = _with_version(meta, version)
        if request_meta:
            params["_meta"] = request_meta
        return await self._typed(t.GetPromptResult, "prompts/get", params)  # type: ignore[no-any-return]

    get_prompt = get_prompt_mcp

    async def complete_mcp(
        self, ref: Any, argument: dict[str, str], context_arguments: dict[str, Any] | None = None
    ) -> t.CompleteResult:
        """The ``completion/complete`` result."""
        wire_ref = (
            ref.model_dump(by_alias=True, exclude_none=True)
            if hasattr(ref, "model_dump")
            else dict(ref)
        )
        params: dict[str, Any] = {"ref": wire_ref, "argument": dict(argument)}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        return await self._typed(t.CompleteResult, "completion/complete", params)  # type: ignore[no-any-return]

    async def complete(
        self, ref: Any, argument: dict[str, str], context_arguments: dict[str, Any] | None = None
    ) -> t.Completion:
        """The completion for ``argument`` (``{"name": ..., "value": ...}``) of ``ref``."""
        return (await self.complete_mcp(ref, argument, context_arguments)).completion

    async def call_tool_mcp(
        self,
        name: str,
        arguments: dict[str, Any],
        progress_handler: Callable[..., Any] | None = None,
        timeout: datetime.timedelta | float | int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> t.CallToolResult:
        """The ``tools/call`` result as it came (an error result is not raised)."""
        call = self.native.call_tool(
            name,
            arguments,
            on_progress=_floats(progress_handler or self._progress_handler),
            meta=meta or None,
            timeout=DEFAULT if timeout is None else _seconds(timeout),
        )
        return await self._run(call)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        version: str | None = None,
        timeout: datetime.timedelta | float | int | None = None,
        progress_handler: Callable[..., Any] | None = None,
        raise_on_error: bool = True,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        """Call tool ``name``; a failed call raises :class:`ToolError` (unless
        ``raise_on_error=False``)."""
        result = await self.call_tool_mcp(
            name,
            arguments or {},
            progress_handler=progress_handler,
            timeout=timeout,
            meta=_with_version(meta, version) or None,
        )
        return await self._parse(name, result, raise_on_error)

    async def _parse(
        self, name: str, result: t.CallToolResult, raise_on_error: bool
    ) -> CallToolResult:
        data = None
        if result.is_error and raise_on_error:
            first = result.content[0] if result.content else None
            text = first.text if isinstance(first, t.TextContent) else None
            raise ToolError(text if text is not None else f"Tool '{name}' returned an error")
        if result.structured_content is not None and not result.is_error:
            try:
                if name not in self._tool_output_schemas:
                    await self.list_tools()
                schema = self._tool_output_schemas.get(name)
                fastmcp_meta = (result.meta or {}).get("fastmcp")
                wrapped = bool(isinstance(fastmcp_meta, dict) and fastmcp_meta.get("wrap_result"))
                wrapped = wrapped or bool(schema and schema.get("x-fastmcp-wrap-result"))
                data = hydrate(result.structured_content, schema, wrapped)
            except Exception as exc:
                _log.error(f"[{self.name}] Error parsing structured content: {exc}")
        return CallToolResult(
            content=list(result.content),
            structured_content=result.structured_content,
            meta=result.meta,
            data=data,
            is_error=result.is_error,
        )


def _floats(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` given the progress numbers as floats, as fastmcp's client reads them."""

    def call(progress: float, total: float | None, message: str | None) -> Any:
        return handler(float(progress), None if total is None else float(total), message)

    return call


def _with_version(meta: dict[str, Any] | None, version: str | None) -> dict[str, Any]:
    out = dict(meta or {})
    if version is not None:
        out["fastmcp"] = {**out.get("fastmcp", {}), "version": version}
    return out


def _roots_source(roots: Any) -> Any:
    if callable(roots):

        async def current() -> Any:
            return await _maybe(roots(None))

        return current
    return roots


async def _sample(handler: Callable[..., Any], params: Any, ctx: Any) -> Any:
    try:
        result = await _maybe(handler(params.messages, params, ctx))
    except Exception as exc:
        raise NativeMcpError(INTERNAL_ERROR, str(exc)) from exc
    if isinstance(result, str):
        return {
            "role": "assistant",
            "model": "fastmcp-slim",
            "content": {"type": "text", "text": result},
        }
    return result


async def _elicit(handler: Callable[..., Any], params: Any, ctx: Any) -> Any:
    try:
        schema = getattr(params, "requested_schema", None)
        if schema is not None and hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        if schema is None or schema == {"type": "object", "properties": {}}:
            response_type = None
        else:
            response_type = schema_to_type(schema)
        result = await _maybe(handler(params.message, response_type, params, ctx))
        if isinstance(result, t.ElicitResult):
            action, content, meta = result.action, result.content, result.meta
        else:
            action, content, meta = "accept", result, None
        content = pydantic_core.to_jsonable_python(content)
        if content is not None and not isinstance(content, dict):
            if schema is not None and set(schema.get("properties", {})) == {"value"}:
                content = {"value": content}
            else:
                raise ValueError(
                    "Elicitation responses must be serializable as a JSON object (dict). "
                    f"Received: {content!r}"
                )
    except Exception as exc:
        raise NativeMcpError(INTERNAL_ERROR, str(exc)) from exc
    answer: dict[str, Any] = {"action": action}
    if content is not None:
        answer["content"] = content
    if meta:
        answer["_meta"] = meta
    return answer


_NOTIFICATIONS: dict[str, Any] = {
    "notifications/cancelled": t.CancelledNotification,
    "notifications/progress": t.ProgressNotification,
    "notifications/message": t.LoggingMessageNotification,
    "notifications/tools/list_changed": t.ToolListChangedNotification,
    "notifications/resources/list_changed": t.ResourceListChangedNotification,
    "notifications/prompts/list_changed": t.PromptListChangedNotification,
    "notifications/resources/updated": t.ResourceUpdatedNotification,
}
