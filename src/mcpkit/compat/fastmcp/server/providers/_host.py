"""How a :class:`~mcpkit.compat.fastmcp.FastMCP` serves its providers: one mcpkit server
of its own (the host) answering the list, call, get and read requests by asking every
provider at that moment, mounted without a namespace in the FastMCP's native server
(:mod:`mcpkit.server.mount`), so the server's own components come first, then the
providers', in the order they were added, as fastmcp serves them.

A name or URI nothing serves is answered by the host as fastmcp answers it
(``Unknown tool: '<name>'``, ``Unknown prompt: '<name>'``, ``Resource not found:
'<uri>'``). A provider failing while it lists is left out of the list, as fastmcp does; a
``get_*`` hook that cannot be called with fastmcp's arguments ``(name, version)`` fails
the request. The server's tag rules (``mcp.disable(tags=...)``) apply to the providers'
components too.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.mount import Mount, mount, mounts_of
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.compat.fastmcp.server.providers.base import Provider
    from mcpkit.server.app import Server

__all__ = ["ProviderHost", "host_of"]

logger = logging.getLogger("mcpkit.compat.fastmcp.providers")


class ProviderMount(Mount):
    """The host's mount: it claims every tool, prompt and resource no other mount serves
    (the host answers what no provider has as fastmcp does)."""

    def _others(self) -> list[Mount]:
        return [m for m in mounts_of(self.parent) if m is not self]

    def has_tool(self, local: str) -> bool:
        """Every tool name no other mount has."""
        return not any(m.local_name(local) and m.has_tool(local) for m in self._others())

    def has_prompt(self, local: str) -> bool:
        """Every prompt name no other mount has."""
        return not any(m.local_name(local) and m.has_prompt(local) for m in self._others())

    def serves_uri(self, local: str) -> bool:
        """Every URI no other mount serves."""
        return not any(m.local_uri(local) and m.serves_uri(local) for m in self._others())


def host_of(server: FastMCPView) -> ProviderHost:
    """``server``'s provider host (made and mounted on first use)."""
    host: ProviderHost | None = server.__dict__.get("_provider_host")
    if host is None:
        from mcpkit.compat.fastmcp._base import OWNERS

        host = ProviderHost(server)
        server.__dict__["_provider_host"] = host
        OWNERS[server.native] = server
        mount(server.native, host.native, None, kind=ProviderMount)
    return host


class ProviderHost:
    """The providers of one FastMCP, served by a server of their own (see the module)."""

    def __init__(self, server: FastMCPView) -> None:
        from mcpkit.server.app import Server

        self.owner = server.native
        self.providers: list[Provider] = []
        self.versions = server._versions  # the server's version filters apply here too
        ref = self

        @contextlib.asynccontextmanager
        async def lifespan(_: Any) -> AsyncIterator[None]:
            async with contextlib.AsyncExitStack() as stack:
                for provider in list(ref.providers):
                    await stack.enter_async_context(provider.lifespan())
                yield None

        self.native: Server[Any] = Server(f"{server.name} providers", lifespan=lifespan)
        handlers: dict[str, Callable[[Any, Any], Awaitable[Any]]] = {
            "tools/list": self.list_tools,
            "tools/call": self.call_tool,
            "prompts/list": self.list_prompts,
            "prompts/get": self.get_prompt,
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
        }
        for method, handler in handlers.items():
            self.native.request_handler(method)(handler)

    def add(self, provider: Provider) -> None:
        """Serve ``provider`` after those added before it."""
        self.providers.append(provider)
        if self.native.relay.running:
            for kind in ("tools", "prompts", "resources"):
                self.native.notify_list_changed(kind)

    def visible(self, component: Any) -> bool:
        """Whether the server's tag rules (``mcp.disable(tags=...)``, ``enable``) let
        ``component`` be served."""
        control = self.owner._components
        if control is None:
            return True
        tags = frozenset(component.tags)
        if control.include is not None and not tags & control.include:
            return False
        return not tags & control.exclude

    # -- lists -------------------------------------------------------------------------------

    async def _listed(self, hook: str, field: str) -> list[JSONObject]:
        """Every provider's components, one per name or URI: its highest version, listed
        with all of them (``_meta.fastmcp.versions``), those the server's
        ``VersionFilter`` passes (:func:`~mcpkit.compat.fastmcp._versions.listed`)."""
        from mcpkit.compat.fastmcp._versions import listed

        found_all: list[tuple[str, str | None, Any]] = []
        for provider in list(self.providers):
            try:
                found = await getattr(provider, hook)()
            except Exception as exc:
                logger.warning("Error during %s from provider %r: %s", hook, provider, exc)
                continue
            for component in found:
                if not self.visible(component):
                    continue
                item = component.to_mcp()
                found_all.append((item.get(field), getattr(component, "version", None), item))
        items: list[JSONObject] = []
        for item, versions in listed(self.versions.filters, found_all):
            if versions is not None:
                meta = item.setdefault("_meta", {})
                meta["fastmcp"] = {**meta.get("fastmcp", {}), "versions": versions}
            items.append(item)
        return items

    async def list_tools(self, params: Any, rctx: Any) -> JSONObject:
        return {"tools": await self._listed("list_tools", "name")}

    async def list_prompts(self, params: Any, rctx: Any) -> JSONObject:
        return {"prompts": await self._listed("list_prompts", "name")}

    async def list_resources(self, params: Any, rctx: Any) -> JSONObject:
        return {"resources": await self._listed("list_resources", "uri")}

    async def list_templates(self, params: Any, rctx: Any) -> JSONObject:
        return {"resourceTemplates": await self._listed("list_resource_templates", "uriTemplate")}

    # -- lookups -----------------------------------------------------------------------------

    async def _find(self, hook: str, key: str, params: Any = None) -> Any:
        """The first provider's answer to ``hook(key, version)`` (a hook raising while it
        runs is skipped, as fastmcp skips it); ``version`` is what the request's
        ``_meta.fastmcp.version`` and the server's ``VersionFilter`` accept."""
        from mcpkit.compat.fastmcp._versions import lookup_spec, passes

        filters = self.versions.filters
        spec = lookup_spec(filters, params)
        for provider in list(self.providers):
            pending = getattr(provider, hook)(key, spec)  # fastmcp's call: (name, version)
            try:
                found = await pending
            except Exception as exc:
                logger.warning("Error during %s(%r) from provider %r: %s", hook, key, provider, exc)
                continue
            if (
                found is not None
                and passes(filters, getattr(found, "version", None))
                and self.visible(found)
            ):
                return found
        return None

    async def call_tool(self, params: Any, rctx: Any) -> JSONObject:
        name = params.get("name") if type(params) is dict else None
        if type(name) is not str:
            raise McpError(INVALID_PARAMS, "tools/call needs a tool name")
        tool = await self._find("get_tool", name, params)
        if tool is None:
            return error_result(f"Unknown tool: {name!r}")
        result: JSONObject = await tool.answer(params, rctx)
        return result

    async def get_prompt(self, params: Any, rctx: Any) -> JSONObject:
        name = params.get("name") if type(params) is dict else None
        if type(name) is not str:
            raise McpError(INVALID_PARAMS, "prompts/get needs a prompt name")
        prompt = await self._find("get_prompt", name, params)
        if prompt is None:
            raise McpError(INVALID_PARAMS, f"Unknown prompt: {name!r}")
        result: JSONObject = await prompt.answer(params, rctx)
        return result

    async def read_resource(self, params: Any, rctx: Any) -> JSONObject:
        uri = params.get("uri") if type(params) is dict else None
        if type(uri) is not str:
            raise McpError(INVALID_PARAMS, "resources/read needs a uri")
        found = await self._find("get_resource", uri, params)
        if found is None:
            found = await self._find("get_resource_template", uri, params)
        if found is None:
            raise McpError(INVALID_PARAMS, f"Resource not found: {uri!r}", {"uri": uri})
        result: JSONObject = await found.answer(uri, rctx)
        return result
