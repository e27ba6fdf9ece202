"""The server's lists as a :class:`~mcpkit.Client` reads them: tools, resources, resource
templates and prompts, one page or every page, and the copies of the last full listing.

Every page leaves through the client's request pipeline (so the response cache serves a
fresh one). A 2026-07-28 HTTP ``tools/list`` page is checked for ``x-mcp-header``
annotations: a tool whose annotations are invalid is left out (with a warning), the header
parameters of the others are kept for the requests that call them. A full tool listing
refreshes the tool catalogue.

:class:`ListMethods` is the part of :class:`~mcpkit.Client` that offers them: the
``list_*_page`` and ``list_*`` calls and the ``tools`` / ``prompts`` / ``resources`` /
``resource_templates`` copies.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from mcpkit.client.cache import CachePolicy
from mcpkit.client.results import all_pages, cursor_params, parse
from mcpkit.errors import McpError
from mcpkit.http_headers import HeaderParam, InvalidHeaderAnnotation, header_params
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject

if TYPE_CHECKING:
    from mcpkit.client.catalogue import ToolCatalogue
    from mcpkit.types import (
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ListToolsResult,
        Prompt,
        Resource,
        ResourceTemplate,
        Tool,
    )

__all__ = ["ListMethods", "Lists"]

M = TypeVar("M", bound=pydantic.BaseModel)
logger = logging.getLogger("mcpkit.client")

Request = Callable[..., Awaitable[Any]]


class Lists:
    """The lists of one client. ``request(method, params, cache=...)`` sends a request
    through the client; ``checks_headers()`` tells whether tool pages carry ``x-mcp-header``
    parameters to check (the 2026-07-28 wire over HTTP)."""

    def __init__(
        self, request: Request, catalogue: ToolCatalogue, checks_headers: Callable[[], bool]
    ) -> None:
        self._request = request
        self._catalogue = catalogue
        self._checks_headers = checks_headers
        self.tools: list[Tool] | None = None
        self.prompts: list[Prompt] | None = None
        self.resources: list[Resource] | None = None
        self.resource_templates: list[ResourceTemplate] | None = None
        #: The ``x-mcp-header`` parameters of each tool (2026-07-28 over HTTP).
        self.header_params: dict[str, tuple[HeaderParam, ...]] = {}

    def forget(self) -> None:
        """Forget every list (a new connection)."""
        self.tools = self.prompts = None
        self.resources = None
        self.resource_templates = None
        self.header_params.clear()

    def params_of(self, tool: str) -> tuple[HeaderParam, ...]:
        """The ``x-mcp-header`` parameters of ``tool`` (none when unknown)."""
        return self.header_params.get(tool, ())

    async def typed(self, model: type[M], method: str, params: JSONObject | None, **kw: Any) -> M:
        """``method``'s result as ``model``."""
        return parse(model, await self._request(method, params, **kw), method)

    def usable_tools(self, raw: Any) -> Any:
        """A tools/list page without the tools whose ``x-mcp-header`` annotations are
        invalid (each logged); the header parameters of the others noted."""
        if not self._checks_headers() or not isinstance(raw, dict):
            return raw
        tools = raw.get("tools")
        if not isinstance(tools, list):
            return raw
        kept = []
        for tool in tools:
            if not isinstance(tool, dict):
                kept.append(tool)
                continue
            try:
                found = header_params(tool.get("inputSchema"))
            except InvalidHeaderAnnotation as exc:
                logger.warning("Ignoring tool %r: %s", tool.get("name"), exc)
                continue
            if isinstance(tool.get("name"), str):
                self.header_params[tool["name"]] = found
            kept.append(tool)
        return {**raw, "tools": kept}

    def _pager(self, cache: CachePolicy) -> Callable[[str, JSONObject | None], Awaitable[Any]]:
        async def fetch(method: str, params: JSONObject | None) -> Any:
            raw = await self._request(method, params, cache=cache)
            return self.usable_tools(raw) if method == "tools/list" else raw

        return fetch

    # one page

    async def tools_page(self, cursor: str | None, cache: CachePolicy) -> ListToolsResult:
        from mcpkit.types import ListToolsResult

        raw = self.usable_tools(
            await self._request("tools/list", cursor_params(cursor), cache=cache)
        )
        page = parse(ListToolsResult, raw, "tools/list")
        self._catalogue.remember(raw["tools"], replace=False)
        return page

    async def resources_page(self, cursor: str | None, cache: CachePolicy) -> ListResourcesResult:
        from mcpkit.types import ListResourcesResult

        return await self.typed(
            ListResourcesResult, "resources/list", cursor_params(cursor), cache=cache
        )

    async def resource_templates_page(
        self, cursor: str | None, cache: CachePolicy
    ) -> ListResourceTemplatesResult:
        from mcpkit.types import ListResourceTemplatesResult

        return await self.typed(
            ListResourceTemplatesResult,
            "resources/templates/list",
            cursor_params(cursor),
            cache=cache,
        )

    async def prompts_page(self, cursor: str | None, cache: CachePolicy) -> ListPromptsResult:
        from mcpkit.types import ListPromptsResult

        return await self.typed(
            ListPromptsResult, "prompts/list", cursor_params(cursor), cache=cache
        )

    # every page

    async def all_tools(self, cache: CachePolicy) -> list[Tool]:
        from mcpkit.types import ListToolsResult

        tools, raw = await all_pages(
            self._pager(cache), "tools/list", ListToolsResult, lambda p: p.tools, "tools"
        )
        self._catalogue.remember(raw, replace=True)
        self.tools = tools
        return tools

    async def all_resources(self, cache: CachePolicy) -> list[Resource]:
        from mcpkit.types import ListResourcesResult

        items, _ = await all_pages(
            self._pager(cache),
            "resources/list",
            ListResourcesResult,
            lambda p: p.resources,
            "resources",
        )
        self.resources = items
        return items

    async def all_resource_templates(self, cache: CachePolicy) -> list[ResourceTemplate]:
        from mcpkit.types import ListResourceTemplatesResult

        items, _ = await all_pages(
            self._pager(cache),
            "resources/templates/list",
            ListResourceTemplatesResult,
            lambda p: p.resource_templates,
            "resourceTemplates",
        )
        self.resource_templates = items
        return items

    async def all_prompts(self, cache: CachePolicy) -> list[Prompt]:
        from mcpkit.types import ListPromptsResult

        items, _ = await all_pages(
            self._pager(cache), "prompts/list", ListPromptsResult, lambda p: p.prompts, "prompts"
        )
        self.prompts = items
        return items

    async def refresh(self, kind: str, templates: bool) -> None:
        """List ``kind`` again after its list_changed notification (``auto_refresh``);
        ``templates``: the resource templates too, with the resources."""
        if kind == "tools":
            await self.all_tools("refresh")
        elif kind == "prompts":
            await self.all_prompts("refresh")
        else:
            await self.all_resources("refresh")
            if templates:
                try:
                    await self.all_resource_templates("refresh")
                except McpError as exc:
                    if exc.code != METHOD_NOT_FOUND:
                        raise


class ListMethods:
    """The list calls of :class:`~mcpkit.Client` (a base of the client), served by its
    :class:`Lists`."""

    _lists: Lists

    # the last full listings

    @property
    def tools(self) -> list[Tool] | None:
        """The tools from the last full :meth:`list_tools` (None before the first)."""
        return self._lists.tools

    @property
    def prompts(self) -> list[Prompt] | None:
        """The prompts from the last full :meth:`list_prompts`."""
        return self._lists.prompts

    @property
    def resources(self) -> list[Resource] | None:
        """The resources from the last full :meth:`list_resources`."""
        return self._lists.resources

    @property
    def resource_templates(self) -> list[ResourceTemplate] | None:
        """The templates from the last full :meth:`list_resource_templates`."""
        return self._lists.resource_templates

    # one page

    async def list_tools_page(
        self, cursor: str | None = None, *, cache: CachePolicy = "use"
    ) -> ListToolsResult:
        """One page of tools (``next_cursor`` set when there are more)."""
        return await self._lists.tools_page(cursor, cache)

    async def list_resources_page(
        self, cursor: str | None = None, *, cache: CachePolicy = "use"
    ) -> ListResourcesResult:
        """One page of resources."""
        return await self._lists.resources_page(cursor, cache)

    async def list_resource_templates_page(
        self, cursor: str | None = None, *, cache: CachePolicy = "use"
    ) -> ListResourceTemplatesResult:
        """One page of resource templates."""
        return await self._lists.resource_templates_page(cursor, cache)

    async def list_prompts_page(
        self, cursor: str | None = None, *, cache: CachePolicy = "use"
    ) -> ListPromptsResult:
        """One page of prompts."""
        return await self._lists.prompts_page(cursor, cache)

    # every page

    async def list_tools(self, *, cache: CachePolicy = "use") -> list[Tool]:
        """Every tool (all pages followed); also refreshes the tool catalogue.

        ``cache``: ``"use"`` (a fresh cached list is served without a request),
        ``"refresh"`` or ``"bypass"``. Over HTTP on the modern wire, a tool whose
        ``x-mcp-header`` annotations are invalid is left out (with a warning)."""
        return await self._lists.all_tools(cache)

    async def list_resources(self, *, cache: CachePolicy = "use") -> list[Resource]:
        """Every resource (all pages followed)."""
        return await self._lists.all_resources(cache)

    async def list_resource_templates(
        self, *, cache: CachePolicy = "use"
    ) -> list[ResourceTemplate]:
        """Every resource template (all pages followed)."""
        return await self._lists.all_resource_templates(cache)

    async def list_prompts(self, *, cache: CachePolicy = "use") -> list[Prompt]:
        """Every prompt (all pages followed)."""
        return await self._lists.all_prompts(cache)
