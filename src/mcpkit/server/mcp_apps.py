"""MCP Apps on the server: ``ui://`` app resources, tools linked to them, the extension's
capability and its visibility rules.

```python
app = Server("weather")

@app.ui("ui://weather/view", csp={"connectDomains": ["https://api.example.com"]})
def view() -> str:
    return HTML                           # served as text/html;profile=mcp-app

@app.tool(ui="ui://weather/view")         # _meta.ui.resourceUri (+ the flat legacy key)
def forecast(city: str) -> Forecast: ...

@app.tool(ui="ui://weather/view", visibility=["app"])   # only the app calls it
def refresh(city: str) -> Forecast: ...
```

- An app resource is a plain resource whose MIME type is ``text/html;profile=mcp-app`` and
  whose ``_meta.ui`` (csp, permissions, domain, prefersBorder) is on both its
  ``resources/list`` entry and its ``resources/read`` contents (the contents' copy is the
  one hosts read first).
- A server with an app resource or a linked tool advertises
  ``capabilities.extensions["io.modelcontextprotocol/ui"]`` (``initialize`` and
  ``server/discover``).
- App-only tools (``visibility=["app"]``) exist for apps: a client that did not declare the
  extension (``capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`` with
  ``text/html;profile=mcp-app``) neither lists nor calls them (-32602 unknown tool). A
  client that did gets every tool with its ``_meta.ui.visibility``; keeping app-only tools
  out of the model's list is the host's part (see :mod:`mcpkit.client.apps`).
- A tool linked to a ``ui://`` URI no resource serves is an error when the server starts
  (or at once, for a tool registered while it serves).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from mcpkit._lazy import lazy_module
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.caching import CacheHints, CacheScope
from mcpkit.server.pagination import Paginator
from mcpkit.server.registries import Registries

if TYPE_CHECKING:
    import pathlib as _pathlib
    from pathlib import Path

    from mcpkit import apps as _apps
    from mcpkit.apps import EXTENSION_ID as EXTENSION_ID
    from mcpkit.apps import MIME_TYPE as MIME_TYPE
    from mcpkit.apps import Csp, Permissions, ToolUi, UiResourceMeta
    from mcpkit.bus import BusRelay
    from mcpkit.server.context import Context
    from mcpkit.server.session import ServerHandler, ServerRequestContext
else:  # MCP Apps load with the first app resource or linked tool (pathlib with an HTML file)
    _apps = lazy_module("mcpkit.apps", globals(), "_apps")
    _pathlib = lazy_module("pathlib", globals(), "_pathlib")

__all__ = [
    "EXTENSION_ID",
    "MIME_TYPE",
    "AppsServer",
    "UiKwargs",
    "advertise",
    "check_links",
    "client_supports_apps",
    "install_visibility",
    "register_ui",
    "tool_meta",
]

UI_SCHEME = "ui://"


class UiKwargs(TypedDict, total=False):
    """The keywords of ``@app.ui(uri, ...)`` and :meth:`mcpkit.Server.add_ui`."""

    name: str | None
    title: str | None
    description: str | None
    csp: Csp | Mapping[str, Any] | None
    permissions: Permissions | Mapping[str, Any] | Iterable[str] | None
    domain: str | None
    prefers_border: bool | None
    meta: Mapping[str, Any] | None
    ttl_ms: int | None
    cache_scope: CacheScope | None


def __getattr__(name: str) -> Any:
    # EXTENSION_ID and MIME_TYPE are re-exported from mcpkit.apps, which loads on first use
    if name in ("EXTENSION_ID", "MIME_TYPE"):
        return getattr(_apps, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _tool_ui(meta: Any) -> ToolUi | None:
    """:meth:`ToolUi.from_tool_meta`; a tool with no ``_meta`` has none (nothing loaded)."""
    return None if meta is None else _apps.ToolUi.from_tool_meta(meta)


def _is_app_type(mime_type: str | None) -> bool:
    """True for the app MIME type (an HTML type: no other type loads mcpkit.apps)."""
    return (
        mime_type is not None and mime_type.startswith("text/html") and mime_type == _apps.MIME_TYPE
    )


def client_supports_apps(ctx: Context[Any]) -> bool:
    """True when the client of this request declared the MCP Apps extension (so a tool can
    fall back to text for one that did not)."""
    return _apps.declares_apps(ctx.client_capabilities)


def _check_ui_uri(uri: Any, what: str) -> str:
    if not isinstance(uri, str) or not uri.startswith(UI_SCHEME) or len(uri) == len(UI_SCHEME):
        raise ValueError(f"{what} must be a ui:// URI (e.g. 'ui://weather/view'), not {uri!r}")
    if "{" in uri:
        raise ValueError(f"{what} {uri!r}: an app resource is one document, not a template")
    return uri


def resource_meta(
    csp: Csp | Mapping[str, Any] | None = None,
    permissions: Permissions | Mapping[str, Any] | Iterable[str] | None = None,
    domain: str | None = None,
    prefers_border: bool | None = None,
) -> UiResourceMeta:
    """The validated ``_meta.ui`` of an app resource (ValueError naming what is wrong)."""
    return _apps.UiResourceMeta(
        _apps.Csp.of(csp), _apps.Permissions.of(permissions), domain, prefers_border
    )


def _html_reader(source: str | Path | Callable[..., Any], ui: JSONObject) -> Callable[..., Any]:
    """A resource function returning the app's contents (its HTML with ``_meta.ui``)."""

    def contents(value: Any) -> Any:
        if isinstance(value, (bytes, bytearray)):
            value = bytes(value).decode("utf-8")
        if not isinstance(value, str):
            return value  # contents dicts or models, as for any resource
        item: JSONObject = {"text": value, "mimeType": _apps.MIME_TYPE}
        if ui:
            item["_meta"] = {"ui": ui}
        return item

    if isinstance(source, _pathlib.Path):
        path = source

        def read_file() -> Any:
            return contents(path.read_text(encoding="utf-8"))  # read each time: edits show

        return read_file
    if isinstance(source, str):
        static = contents(source)

        def read_static() -> Any:
            return static

        return read_static
    fn = source
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def read_async(*args: Any, **kwargs: Any) -> Any:
            return contents(await fn(*args, **kwargs))

        return read_async

    @functools.wraps(fn)
    def read_sync(*args: Any, **kwargs: Any) -> Any:
        return contents(fn(*args, **kwargs))

    return read_sync


class AppsServer(Registries, Protocol):
    """What MCP Apps read of a server (a :class:`~mcpkit.server.app.Server` is one): its
    registries, whether it is serving (its relay runs) and its caching hints."""

    @property
    def relay(self) -> BusRelay: ...

    def cache_hints(self, method: str) -> CacheHints: ...


def register_ui(
    server: AppsServer,
    uri: str,
    source: str | Path | Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    csp: Csp | Mapping[str, Any] | None = None,
    permissions: Permissions | Mapping[str, Any] | Iterable[str] | None = None,
    domain: str | None = None,
    prefers_border: bool | None = None,
    meta: Mapping[str, Any] | None = None,
    cache: CacheHints | None = None,
) -> None:
    """Register the app resource ``uri`` (see :meth:`mcpkit.Server.ui`)."""
    _check_ui_uri(uri, "An app resource URI")
    if meta and "ui" in meta:
        raise ValueError(
            "_meta['ui'] of an app resource comes from csp=, permissions=, "
            "domain= and prefers_border=: pass those instead"
        )
    ui = resource_meta(csp, permissions, domain, prefers_border).to_wire()
    if isinstance(source, _pathlib.Path) and not source.is_file():
        raise FileNotFoundError(f"App resource {uri}: no HTML file at {source}")
    if not isinstance(source, (str, _pathlib.Path)) and not callable(source):
        raise TypeError("An app's HTML is a string, a pathlib.Path or a function returning it")
    full_meta = {**(meta or {}), **({"ui": ui} if ui else {})}
    default_name = uri[len(UI_SCHEME) :]
    if callable(source) and not isinstance(source, (str, _pathlib.Path)):
        default_name = getattr(source, "__name__", default_name)
        doc = inspect.getdoc(source)
    else:
        doc = None
    server.resources.add(
        _html_reader(source, ui),
        uri,
        name=name or default_name,
        title=title,
        description=description if description is not None else doc,
        mime_type=_apps.MIME_TYPE,
        meta=full_meta or None,
        cache=cache,
    )


def tool_meta(
    server: AppsServer,
    tool: str,
    meta: Mapping[str, Any] | None,
    ui: str | None,
    visibility: Any,
) -> dict[str, Any] | None:
    """A tool's ``_meta`` with its app link: ``ui.resourceUri`` (and the flat
    ``ui/resourceUri`` older hosts read) and ``ui.visibility`` when given. ValueError for a
    URI that is not ``ui://``, a bad visibility, or (while serving) a URI nothing serves."""
    if ui is None and visibility is None:
        return dict(meta) if meta else None
    if meta and "ui" in meta:
        raise ValueError(f"Tool {tool!r}: pass ui= and visibility=, not a 'ui' key in meta")
    entry: dict[str, Any] = {}
    out = dict(meta or {})
    if ui is not None:
        entry["resourceUri"] = _check_ui_uri(ui, f"Tool {tool!r}: ui")
        out[_apps.RESOURCE_URI_KEY] = ui
    if visibility is not None:
        try:
            entry["visibility"] = list(_apps.parse_visibility(visibility))
        except ValueError as exc:
            raise ValueError(f"Tool {tool!r}: {exc}") from None
    out["ui"] = entry
    if ui is not None and server.relay.running:
        _check_link(server, tool, ui)
    return out


def _check_link(server: AppsServer, tool: str, uri: str) -> None:
    found = server.resources.find(uri)
    if found is None:
        known = sorted(u for u in server.resources.resources if u.startswith(UI_SCHEME))
        raise ValueError(
            f"Tool {tool!r} links to the app {uri}, but no resource is registered at that URI "
            f"(app resources: {', '.join(known) or 'none'}; register it with @app.ui({uri!r}))"
        )
    entry, _ = found
    if entry.mime_type != _apps.MIME_TYPE:
        raise ValueError(
            f"Tool {tool!r} links to {uri}, whose MIME type is {entry.mime_type!r}: an app "
            f"resource is served as {_apps.MIME_TYPE!r} (register it with @app.ui)"
        )


def check_links(server: AppsServer) -> None:
    """ValueError for the first tool whose ``_meta.ui.resourceUri`` (or flat
    ``ui/resourceUri``) names no app resource of ``server``."""
    for name, entry in server.tools.tools.items():
        ui = _tool_ui(entry.definition.get("_meta"))
        if ui is not None and ui.resource_uri is not None:
            _check_link(server, name, ui.resource_uri)


def uses_apps(server: AppsServer) -> bool:
    """True when ``server`` has an app resource or a tool with ``_meta.ui``."""
    registry = server.resources
    for entry in (*registry.resources.values(), *registry.templates.values()):
        if _is_app_type(entry.mime_type):
            return True
    return any(_tool_ui(t.definition.get("_meta")) is not None for t in server.tools.tools.values())


def advertise(server: AppsServer, capabilities: JSONObject) -> None:
    """Add the extension to ``capabilities.extensions`` when ``server`` uses apps."""
    if uses_apps(server):
        extensions = capabilities.get("extensions")
        capabilities["extensions"] = {**(extensions or {}), _apps.EXTENSION_ID: {}}


def _request_declares_apps(rctx: ServerRequestContext) -> bool:
    env = rctx.envelope
    caps = env.client_capabilities if env is not None else rctx.session.client_capabilities
    return _apps.declares_apps(caps)


def request_declares_apps(rctx: ServerRequestContext) -> bool:
    """Whether the client of this request declared the MCP Apps extension."""
    return _request_declares_apps(rctx)


def app_only_tools(server: Registries) -> frozenset[str]:
    """The names of the tools only apps may call (hidden from clients without MCP Apps)."""
    return frozenset(
        name
        for name, entry in server.tools.tools.items()
        if (ui := _tool_ui(entry.definition.get("_meta"))) is not None and not ui.model_visible
    )


def install_visibility(server: AppsServer, table: dict[str, ServerHandler]) -> None:
    """Serve ``tools/list`` and ``tools/call`` of ``table`` with the visibility rule: app-only
    tools only for clients that declared the extension. Nothing changes (no cost) when the
    server has no app-only tool, or sets ``app_only_hidden = False`` (a compat server: fastmcp
    lists and calls app-only tools for every client)."""
    if getattr(server, "app_only_hidden", True) is False:
        return
    registry = server.tools
    hidden = app_only_tools(server)
    list_all = table.get("tools/list")
    call = table.get("tools/call")
    if not hidden or list_all is None or call is None:
        return
    visible = [t.definition for name, t in registry.tools.items() if name not in hidden]
    paginator = Paginator("tools", lambda: visible, registry.paginator.page_size)

    async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        if rctx.envelope is not None:  # the answer depends on who asks: never shared
            hints = server.cache_hints("tools/list")
            rctx.cache_hints = CacheHints(hints.ttl_ms, "private")
        if _request_declares_apps(rctx):
            return await list_all(params, rctx)
        return paginator.page(params)

    async def call_tool(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        if (
            type(params) is dict
            and params.get("name") in hidden
            and not _request_declares_apps(rctx)
        ):
            raise McpError(INVALID_PARAMS, f"Unknown tool: {params['name']}")
        return await call(params, rctx)

    table["tools/list"] = list_tools
    table["tools/call"] = call_tool
