"""Registration: what ``@app.tool``, ``@app.resource`` and ``@app.prompt`` do.

The registries (:mod:`~mcpkit.server.tools`, :mod:`~mcpkit.server.resources`,
:mod:`~mcpkit.server.prompts`) build the wire definitions; a :class:`Registration` adds
what the server layers on them: the tags of the component filter
(:mod:`mcpkit.server.components`) and a tool's MCP Apps link (``ui``/``visibility``,
:mod:`mcpkit.server.mcp_apps`), and removes through the filter so that a hidden component
goes too. :class:`ResourceKwargs` and :class:`PromptKwargs` type the keywords of the
resource and prompt decorators, as :class:`~mcpkit.server.tool_options.ToolKwargs` does
for tools.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypedDict

from mcpkit._lazy import lazy_module
from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server.caching import CacheScope
from mcpkit.server.tool_options import ToolOptions, item_hints

if TYPE_CHECKING:
    from mcpkit.server import components as components_feature
    from mcpkit.server.app import Server
    from mcpkit.server.components import Kind
    from mcpkit.server.prompts import PromptEntry
    from mcpkit.server.resources import ResourceEntry
    from mcpkit.server.tools import ToolEntry
else:
    components_feature = lazy_module("mcpkit.server.components", globals(), "components_feature")

__all__ = ["PromptKwargs", "Registration", "ResourceKwargs"]


class ResourceKwargs(TypedDict, total=False):
    """The keywords of ``@app.resource(uri, ...)``."""

    name: str | None
    title: str | None
    description: str | None
    mime_type: str | None
    size: int | None
    annotations: Any
    icons: list[Any] | None
    meta: dict[str, Any] | None
    ttl_ms: int | None
    cache_scope: CacheScope | None
    tags: Iterable[str] | None
    scopes: Iterable[str] | None


class PromptKwargs(TypedDict, total=False):
    """The keywords of ``@app.prompt(...)`` besides ``name``."""

    title: str | None
    description: str | None
    icons: list[Any] | None
    meta: dict[str, Any] | None
    ttl_ms: int | None
    cache_scope: CacheScope | None
    tags: Iterable[str] | None
    scopes: Iterable[str] | None


def tags_of(tags: Iterable[str] | str | None) -> frozenset[str]:
    """``tags`` as the component filter keeps them."""
    return components_feature.normalize_tags(tags)


def _cached(options: dict[str, Any]) -> dict[str, Any]:
    """Registry keywords: ``ttl_ms``/``cache_scope`` become ``cache``."""
    ttl_ms, scope = options.pop("ttl_ms", None), options.pop("cache_scope", None)
    if "cache" not in options:
        options["cache"] = item_hints(ttl_ms, scope)
    return options


class Registration:
    """Adds and removes the tools, resources and prompts of one server."""

    def __init__(self, server: Server[Any]) -> None:
        self.server = server

    def _tagged(self, kind: Kind, name: str, tags: Iterable[str] | str | None) -> None:
        server = self.server
        if tags is not None or server._components is not None:
            server.components.registered(kind, name, tags_of(tags))

    def add_tool(self, fn: Callable[..., Any], options: ToolOptions) -> ToolEntry:
        """Register ``fn`` as a tool with ``options``."""
        if options.ui is not None or options.visibility is not None:
            name = str(options.name or getattr(fn, "__name__", ""))
            meta = apps_feature.tool_meta(
                self.server, name, options.meta, options.ui, options.visibility
            )
            options = options.replace(meta=meta)
        entry = self.server.tools.add(fn, options)
        self._tagged("tools", entry.name, options.tags)
        return entry

    def add_resource(
        self, fn: Callable[..., Any], uri: str, options: dict[str, Any]
    ) -> ResourceEntry:
        """Register ``fn`` for the resource or template ``uri`` (``options``: those of
        :class:`ResourceKwargs`)."""
        tags = options.pop("tags", None)
        entry = self.server.resources.add(fn, uri, **_cached(options))
        self._tagged("templates" if entry.template is not None else "resources", uri, tags)
        return entry

    def add_prompt(self, fn: Callable[..., Any], options: dict[str, Any]) -> PromptEntry:
        """Register ``fn`` as a prompt (``options``: ``name`` and those of
        :class:`PromptKwargs`)."""
        tags = options.pop("tags", None)
        entry = self.server.prompts.add(fn, **_cached(options))
        self._tagged("prompts", entry.name, tags)
        return entry

    def remove_tool(self, name: str) -> None:
        """Unregister a tool (hidden by the filter or not)."""
        control = self.server._components
        if control is not None and control.forget("tools", name):
            return
        self.server.tools.remove(name)

    def remove_resource(self, uri: str) -> None:
        """Unregister a resource or template (hidden by the filter or not)."""
        control = self.server._components
        if control is not None and (
            control.forget("resources", uri) | control.forget("templates", uri)
        ):
            return
        self.server.resources.remove(uri)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt (hidden by the filter or not)."""
        control = self.server._components
        if control is not None and control.forget("prompts", name):
            return
        self.server.prompts.remove(name)

    def resource_kind(self, uri: str) -> Kind:
        """Whether ``uri`` names a template or a resource (a hidden one too)."""
        control = self.server._components
        hidden = control is not None and ("templates", uri) in control.hidden
        return "templates" if hidden or uri in self.server.resources.templates else "resources"
