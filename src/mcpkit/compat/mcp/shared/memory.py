"""``mcp.shared.memory`` on mcpkit: the official SDK's in-memory test connection,
``create_connected_server_and_client_session(server)``, as server test code uses it::

    async with create_connected_server_and_client_session(server) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result.content[0].text == "3"

It connects an initialized client session (:class:`MemoryClientSession`, the official
``ClientSession``'s request methods, results as ``mcp.types`` models and errors as
``McpError``) to the server (a low-level ``Server``, an ``MCPServer`` or a 1.x
``FastMCP``) through mcpkit's in-memory client, on the handshake era as the SDK does.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

from mcpkit.jsonrpc import JSONObject

__all__ = ["MemoryClientSession", "create_connected_server_and_client_session"]


def _types() -> Any:
    import mcpkit.compat.mcp.types

    return mcpkit.compat.mcp.types


def _wire(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_none=True, mode="json")
    return value


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class _CallbackContext:
    """What a client callback receives as its ``context``: ``session`` is the session."""

    def __init__(self, session: MemoryClientSession) -> None:
        self.session = session


class MemoryClientSession:
    """The official ``ClientSession``'s requests on mcpkit's in-memory client."""

    def __init__(self, client: Any, read_timeout_seconds: timedelta | None = None) -> None:
        self._client = client
        self._timeout = read_timeout_seconds.total_seconds() if read_timeout_seconds else None

    async def _request(
        self,
        method: str,
        params: JSONObject | None,
        result: str,
        timeout: timedelta | None = None,
        **options: Any,
    ) -> Any:
        from mcpkit.compat.mcp.shared.exceptions import McpError
        from mcpkit.errors import McpError as NativeMcpError

        seconds = timeout.total_seconds() if timeout else self._timeout
        if seconds is not None:
            options["timeout"] = seconds
        try:
            raw = await self._client.request(method, params, cache="bypass", **options)
        except NativeMcpError as exc:
            if isinstance(exc, McpError):
                raise
            raise McpError(exc.code, exc.message, exc.data) from None
        raw = dict(raw or {})
        if result == "CallToolResult":
            raw.setdefault("isError", False)  # the SDK's model says False when not sent
        from mcpkit.compat.mcp.client._printed import RESULTS, as_sdk1

        return as_sdk1((RESULTS.get(result) or getattr(_types(), result)).model_validate(raw))

    async def initialize(self) -> Any:
        """The server's ``initialize`` result (the session is initialized already)."""
        from mcpkit.compat.mcp.client._printed import InitializeResult, as_sdk1

        client = self._client
        return as_sdk1(
            InitializeResult.model_validate(
                {
                    "protocolVersion": client.protocol_version,
                    "capabilities": _wire(client.server_capabilities),
                    "serverInfo": _wire(client.server_info),
                    "instructions": client.instructions,
                }
            )
        )

    def get_server_capabilities(self) -> Any:
        """The capabilities the server declared."""
        return self._client.server_capabilities

    async def send_ping(self) -> Any:
        return await self._request("ping", None, "EmptyResult")

    async def list_tools(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._request("tools/list", _page(cursor, params), "ListToolsResult")

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: timedelta | None = None,
        progress_callback: Callable[[float, float | None, str | None], Awaitable[None]]
        | None = None,
        *,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        params: JSONObject = {"name": name, "arguments": arguments or {}}
        if meta is not None:
            params["_meta"] = meta
        options: dict[str, Any] = {}
        if progress_callback is not None:
            from mcpkit.compat.mcp.client.client import float_progress

            options["on_progress"] = float_progress(progress_callback)
        return await self._request(
            "tools/call", params, "CallToolResult", read_timeout_seconds, **options
        )

    async def list_resources(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._request("resources/list", _page(cursor, params), "ListResourcesResult")

    async def list_resource_templates(
        self, cursor: str | None = None, *, params: Any = None
    ) -> Any:
        return await self._request(
            "resources/templates/list", _page(cursor, params), "ListResourceTemplatesResult"
        )

    async def read_resource(self, uri: Any) -> Any:
        return await self._request("resources/read", {"uri": str(uri)}, "ReadResourceResult")

    async def subscribe_resource(self, uri: Any) -> Any:
        return await self._request("resources/subscribe", {"uri": str(uri)}, "EmptyResult")

    async def unsubscribe_resource(self, uri: Any) -> Any:
        return await self._request("resources/unsubscribe", {"uri": str(uri)}, "EmptyResult")

    async def list_prompts(self, cursor: str | None = None, *, params: Any = None) -> Any:
        return await self._request("prompts/list", _page(cursor, params), "ListPromptsResult")

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self._request("prompts/get", params, "GetPromptResult")

    async def complete(
        self, ref: Any, argument: dict[str, str], context_arguments: dict[str, str] | None = None
    ) -> Any:
        params: JSONObject = {"ref": _wire(ref), "argument": argument}
        if context_arguments:
            params["context"] = {"arguments": context_arguments}
        return await self._request("completion/complete", params, "CompleteResult")

    async def set_logging_level(self, level: str) -> Any:
        return await self._request("logging/setLevel", {"level": level}, "EmptyResult")


def _page(cursor: str | None, params: Any) -> JSONObject | None:
    if params is not None:
        wired = _wire(params)
        return wired if isinstance(wired, dict) else None
    return {"cursor": cursor} if cursor is not None else None


def _native(server: Any) -> Any:
    """The mcpkit server behind a compat server, with the identity and capabilities
    ``create_initialization_options()`` gives (what ``run`` serves with)."""
    from mcpkit.compat.mcp.server.lowlevel.server import Server
    from mcpkit.server.app import Server as NativeServer

    if isinstance(server, Server):
        server._apply(server.create_initialization_options())
        return server.native
    native = getattr(server, "native", server)
    if not isinstance(native, NativeServer):
        raise TypeError(f"not a server: {server!r}")
    return native


def _sampling(callback: Any, session: MemoryClientSession) -> Any:
    async def handle(params: Any, _ctx: Any) -> Any:
        return _answer(await _maybe(callback(_CallbackContext(session), params)))

    return handle


def _elicitation(callback: Any, session: MemoryClientSession) -> Any:
    async def handle(params: Any, _ctx: Any) -> Any:
        return _answer(await _maybe(callback(_CallbackContext(session), params)))

    return handle


def _roots(callback: Any, session: MemoryClientSession) -> Any:
    async def roots() -> Any:
        result = _answer(await _maybe(callback(_CallbackContext(session))))
        return [_wire(root) for root in result.roots]

    return roots


def _answer(value: Any) -> Any:
    """A callback's answer; an ``ErrorData`` answers with that error."""
    if type(value).__name__ in ("ErrorData", "Error") and hasattr(value, "code"):
        from mcpkit.errors import McpError

        raise McpError(value.code, value.message, getattr(value, "data", None))
    return value


@contextlib.asynccontextmanager
async def create_connected_server_and_client_session(
    server: Any,
    read_timeout_seconds: timedelta | None = None,
    sampling_callback: Any = None,
    list_roots_callback: Any = None,
    logging_callback: Any = None,
    message_handler: Any = None,
    client_info: Any = None,
    raise_exceptions: bool = False,
    elicitation_callback: Any = None,
) -> AsyncIterator[MemoryClientSession]:
    """An initialized client session connected in memory to ``server``; the callbacks
    answer the server's sampling, roots and elicitation requests, ``logging_callback``
    gets its log messages and ``message_handler`` every notification, as the official
    ``ClientSession``'s do."""
    from mcpkit.client.client import Client
    from mcpkit.compat.mcp.client.bindings import MessageTee

    native = _native(server)
    holder: list[MemoryClientSession] = []

    def session() -> MemoryClientSession:
        return holder[0]

    options: dict[str, Any] = {}
    if sampling_callback is not None:
        options["sampling_handler"] = _lazy(_sampling, sampling_callback, session)
    if elicitation_callback is not None:
        options["elicitation_handler"] = _lazy(_elicitation, elicitation_callback, session)
    if list_roots_callback is not None:
        options["roots"] = _lazy_roots(list_roots_callback, session)
    if client_info is not None:
        options["client_info"] = _wire(client_info)
    # a log message to logging_callback, then each notification to message_handler (as
    # 1.x's ServerNotification: the model is its own ``root``), in arrival order
    tee = MessageTee(logging_callback, message_handler, _rooted)
    options["on_notification"] = tee
    options["on_log"] = _drop
    tee.start()
    try:
        async with Client(native, era="legacy", **options) as client:
            holder.append(MemoryClientSession(client, read_timeout_seconds))
            yield holder[0]
    finally:
        await tee.stop()


def _rooted(notification: Any) -> Any:
    """A notification model as 1.x's ``ServerNotification`` root model wraps it: the model
    with ``root`` (itself)."""
    notification.__dict__["root"] = notification
    return notification


def _drop(params: Any) -> None:
    """Log messages reach the ``logging_callback`` alone (the SDK's default drops them)."""


def _lazy(make: Any, callback: Any, session: Callable[[], MemoryClientSession]) -> Any:
    async def handle(params: Any, ctx: Any) -> Any:
        return await make(callback, session())(params, ctx)

    return handle


def _lazy_roots(callback: Any, session: Callable[[], MemoryClientSession]) -> Any:
    async def roots() -> Any:
        return await _roots(callback, session())()

    return roots
