"""``mcp.client.Client`` (2.x) on mcpkit: the official high-level client over
:class:`mcpkit.Client`. Given a server object (an ``MCPServer``, a low-level ``Server``,
mcpkit's own) it talks to it in memory; a URL or a command line as mcpkit's client does.
Each method sends its request and answers with the ``mcp.types`` model of the result."""

from __future__ import annotations

from typing import Any

from mcpkit.client.client import Client as NativeClient

__all__ = ["Client"]


def _params(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class Client:
    """``async with Client(server) as client:``, then ``call_tool``, ``list_tools``,
    ``read_resource``, ``get_prompt``, ... as on the official SDK."""

    def __init__(self, server: Any, *, read_timeout_seconds: float | None = None, **_: Any) -> None:
        target = getattr(server, "native", server)
        options: dict[str, Any] = {}
        if read_timeout_seconds is not None:
            options["timeout"] = read_timeout_seconds
        self._client = NativeClient(target, **options)

    async def __aenter__(self) -> Client:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._client.__aexit__(*exc_info)

    async def _send(self, model: str, method: str, params: dict[str, Any] | None) -> Any:
        import mcpkit.compat.mcp.types as types

        raw = await self._client.request(method, params)
        return getattr(types, model).model_validate(raw)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
        *,
        meta: dict[str, Any] | None = None,
        **_: Any,
    ) -> Any:
        """Call a tool: its ``CallToolResult`` (a tool's error is a result with
        ``is_error``)."""
        params = _params(name=name, arguments=arguments or {}, _meta=meta)
        return await self._send("CallToolResult", "tools/call", params)

    async def list_tools(self, *, cursor: str | None = None, **_: Any) -> Any:
        """One page of tools: a ``ListToolsResult``."""
        return await self._send("ListToolsResult", "tools/list", _params(cursor=cursor))

    async def list_resources(self, *, cursor: str | None = None, **_: Any) -> Any:
        """One page of resources: a ``ListResourcesResult``."""
        return await self._send("ListResourcesResult", "resources/list", _params(cursor=cursor))

    async def list_resource_templates(self, *, cursor: str | None = None, **_: Any) -> Any:
        """One page of resource templates: a ``ListResourceTemplatesResult``."""
        return await self._send(
            "ListResourceTemplatesResult", "resources/templates/list", _params(cursor=cursor)
        )

    async def list_prompts(self, *, cursor: str | None = None, **_: Any) -> Any:
        """One page of prompts: a ``ListPromptsResult``."""
        return await self._send("ListPromptsResult", "prompts/list", _params(cursor=cursor))

    async def read_resource(self, uri: str, **_: Any) -> Any:
        """Read a resource: a ``ReadResourceResult``."""
        return await self._send("ReadResourceResult", "resources/read", {"uri": str(uri)})

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, **_: Any) -> Any:
        """Get a prompt: a ``GetPromptResult``."""
        params = _params(name=name, arguments=arguments)
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

    async def send_ping(self, **_: Any) -> Any:
        """Ping the server: an ``EmptyResult``."""
        await self._client.ping()
        import mcpkit.compat.mcp.types as types

        return types.EmptyResult()

    async def set_logging_level(self, level: str, **_: Any) -> Any:
        """Set the server's log level: an ``EmptyResult``."""
        await self._client.set_logging_level(level)
        import mcpkit.compat.mcp.types as types

        return types.EmptyResult()
