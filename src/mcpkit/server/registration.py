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

from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any, Literal, Protocol, TypedDict

from mcpkit.server.caching import CacheScope
from mcpkit.server.tool_options import ToolOptions, item_hints

__all__ = [
    "AppLink",
    "PromptKwargs",
    "Registration",
    "ResourceKwargs",
    "cache_keywords",
    "normalize_tags",
]

Kind = Literal["tools", "prompts", "resources", "templates"]


class Filter(Protocol):
    """What registration needs of the component filter
    (:class:`mcpkit.server.components.ComponentControl`)."""

    @property
    def hidden(self) -> Container[tuple[Kind, str]]: ...

    def registered(self, kind: Kind, name: str, tags: frozenset[str]) -> None: ...

    def forget(self, kind: Kind, name: str) -> bool: ...


class Registry(Protocol):
    """A registry of tools or prompts (:mod:`mcpkit.server.tools`,
    :mod:`mcpkit.server.prompts`): ``add`` returns the entry (with its ``name``)."""

    @property
    def add(self) -> Callable[..., Any]: ...

    def remove(self, name: str) -> None: ...


class ResourceRegistry(Registry, Protocol):
    """The resource registry (:mod:`mcpkit.server.resources`)."""

    @property
    def templates(self) -> Mapping[str, Any]: ...


#: A tool's ``_meta`` with its MCP App link: ``(tool name, meta, ui, visibility) -> meta``
#: (:func:`mcpkit.server.mcp_apps.tool_meta` for the server).
AppLink = Callable[[str, "dict[str, Any] | None", "str | None", Any], "dict[str, Any] | None"]
#: The server's component control: made when asked with True, else None until it exists.
Control = Callable[[bool], "Filter | None"]


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


def normalize_tags(tags: Iterable[str] | str | None) -> frozenset[str]:
    """A set of tags from an iterable of strings (one string is one tag)."""
    if tags is None:
        return frozenset()
    if isinstance(tags, str):
        return frozenset((tags,))
    out = frozenset(tags)
    if not all(isinstance(t, str) and t for t in out):
        raise TypeError("tags must be non-empty strings")
    return out


def cache_keywords(options: dict[str, Any]) -> dict[str, Any]:
    """Registry keywords: ``ttl_ms``/``cache_scope`` (popped) become ``cache``."""
    ttl_ms, scope = options.pop("ttl_ms", None), options.pop("cache_scope", None)
    if "cache" not in options:
        options["cache"] = item_hints(ttl_ms, scope)
    return options


class Registration:
    """Adds and removes the tools, resources and prompts of one server: ``tools``,
    ``resources`` and ``prompts`` are its registries, ``control`` its component filter
    and ``app_link`` what links a tool to its MCP App."""

    def __init__(
        self,
        tools: Registry,
        resources: ResourceRegistry,
        prompts: Registry,
        control: Control,
        app_link: AppLink,
    ) -> None:
        self.tools = tools
        self.resources = resources
        self.prompts = prompts
        self._control = control
        self._app_link = app_link

    def _tagged(self, kind: Kind, name: str, tags: Iterable[str] | str | None) -> None:
        control = self._control(tags is not None)
        if control is not None:
            control.registered(kind, name, normalize_tags(tags))

    def add_tool(self, fn: Callable[..., Any], options: ToolOptions) -> Any:
        """Register ``fn`` as a tool with ``options``."""
        if options.ui is not None or options.visibility is not None:
            name = str(options.name or getattr(fn, "__name__", ""))
            meta = self._app_link(name, options.meta, options.ui, options.visibility)
            options = options.replace(meta=meta)
        entry = self.tools.add(fn, options)
        self._tagged("tools", entry.name, options.tags)
        return entry

    def add_resource(self, fn: Callable[..., Any], uri: str, options: dict[str, Any]) -> Any:
        """Register ``fn`` for the resource or template ``uri`` (``options``: those of
        :class:`ResourceKwargs`)."""
        tags = options.pop("tags", None)
        entry = self.resources.add(fn, uri, **cache_keywords(options))
        self._tagged("templates" if entry.template is not None else "resources", uri, tags)
        return entry

    def add_prompt(self, fn: Callable[..., Any], options: dict[str, Any]) -> Any:
        """Register ``fn`` as a prompt (``options``: ``name`` and those of
        :class:`PromptKwargs`)."""
        tags = options.pop("tags", None)
        entry = self.prompts.add(fn, **cache_keywords(options))
        self._tagged("prompts", entry.name, tags)
        return entry

    def remove_tool(self, name: str) -> None:
        """Unregister a tool (hidden by the filter or not)."""
        control = self._control(False)
        if control is not None and control.forget("tools", name):
            return
        self.tools.remove(name)

    def remove_resource(self, uri: str) -> None:
        """Unregister a resource or template (hidden by the filter or not)."""
        control = self._control(False)
        if control is not None and (
            control.forget("resources", uri) | control.forget("templates", uri)
        ):
            return
        self.resources.remove(uri)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt (hidden by the filter or not)."""
        control = self._control(False)
        if control is not None and control.forget("prompts", name):
            return
        self.prompts.remove(name)

    def resource_kind(self, uri: str) -> Kind:
        """Whether ``uri`` names a template or a resource (a hidden one too)."""
        control = self._control(False)
        hidden = control is not None and ("templates", uri) in control.hidden
        return "templates" if hidden or uri in self.resources.templates else "resources"
