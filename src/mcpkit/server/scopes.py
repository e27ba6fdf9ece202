"""Per-user visibility: tools, prompts and resources registered with ``scopes=[...]``.

A principal whose token (an OAuth access token or an API key) lacks any of a component's
scopes neither sees it in the lists nor can use it, in both eras: ``tools/call`` and
``prompts/get`` answer -32602 ``Unknown tool``/``Unknown prompt``, ``resources/read`` and
``resources/subscribe`` resource-not-found, ``completion/complete`` -32602, and a
``subscriptions/listen`` stream never carries its updates, exactly as for a component that
does not exist, so a list and a refusal tell nothing of what is hidden. (A
server that wants clients to step up to more scopes instead, 403 ``insufficient_scope`` at
the HTTP layer, says so with ``ResourceServer(scopes_for=...)``; that component is listed to
everyone.)

Who is asked: over HTTP, the scopes of the request's validated token; a request without one
sees only the components without scopes. Over stdio and in memory nobody authenticates (the
process trusts whoever started it) and every component is visible.

Lists are pages of a per-audience view (the scopes granted among those any component needs,
and for tools whether the client declared MCP Apps), built once and kept until a
registration changes. On the 2026-07-28 wire a list holding scoped components, and the read
of a scoped resource, carry ``cacheScope: "private"``: one user's list never serves another
from a shared cache. A server with no scoped component installs nothing (no cost).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.bus import LISTEN_METHOD
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server import subscriptions
from mcpkit.server.caching import CacheHints
from mcpkit.server.pagination import Paginator
from mcpkit.server.registries import Registries
from mcpkit.server.resources import not_found

if TYPE_CHECKING:
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["install"]

#: Transports whose peer nobody authenticates: everything is visible there.
_LOCAL: Final = frozenset({"stdio", "memory"})
_LISTS: Final = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
#: Views kept (distinct audiences); the oldest goes past this.
_MAX_VIEWS: Final = 256


def _scoped(entries: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    return {key: e.scopes for key, e in entries.items() if e.scopes}


class _View:
    """The lists one audience sees (pages built on first use)."""

    __slots__ = ("_pages", "gate", "granted", "hidden_tools")

    def __init__(self, gate: _Gate, granted: frozenset[str], apps: bool) -> None:
        self.gate = gate
        self.granted = granted
        hidden = {n for n, s in gate.tools.items() if not s <= granted}
        if not apps:
            hidden |= gate.app_only
        self.hidden_tools = frozenset(hidden)
        self._pages: dict[str, Paginator] = {}

    def page(self, method: str, params: JSONObject | None) -> JSONObject:
        paginator = self._pages.get(method)
        if paginator is None:
            paginator = self._pages[method] = self._paginator(method)
        return paginator.page(params)

    def _paginator(self, method: str) -> Paginator:
        gate, granted = self.gate, self.granted
        server = gate.server
        size = server.tools.paginator.page_size
        items: list[JSONObject]
        if method == "tools/list":
            hidden = self.hidden_tools
            items = [e.definition for n, e in server.tools.tools.items() if n not in hidden]
            return Paginator("tools", lambda: items, size)
        if method == "prompts/list":
            items = [
                e.definition
                for n, e in server.prompts.prompts.items()
                if gate.allows(gate.prompts.get(n), granted)
            ]
            return Paginator("prompts", lambda: items, size)
        if method == "resources/list":
            items = [
                e.definition
                for u, e in server.resources.resources.items()
                if gate.allows(gate.resources.get(u), granted)
            ]
            return Paginator("resources", lambda: items, size)
        items = [
            e.definition
            for u, e in server.resources.templates.items()
            if gate.allows(gate.templates.get(u), granted)
        ]
        return Paginator("resourceTemplates", lambda: items, size)


class _Gate:
    """The scope rules of one registration state and the views made of them."""

    def __init__(self, server: Registries) -> None:
        self.server = server
        self.tools = _scoped(server.tools.tools)
        self.prompts = _scoped(server.prompts.prompts)
        self.resources = _scoped(server.resources.resources)
        self.templates = _scoped(server.resources.templates)
        self.relevant: frozenset[str] = frozenset().union(
            *self.tools.values(),
            *self.prompts.values(),
            *self.resources.values(),
            *self.templates.values(),
        )
        self.app_only = apps_feature.app_only_tools(server) if self.tools else frozenset()
        self._views: OrderedDict[tuple[frozenset[str], bool], _View] = OrderedDict()

    @property
    def active(self) -> bool:
        return bool(self.relevant)

    def granted(self, rctx: ServerRequestContext) -> frozenset[str] | None:
        """The relevant scopes this request's principal holds; None: everything (a local
        transport)."""
        if rctx.session.transport.info.kind in _LOCAL:
            return None
        from mcpkit.auth.server import get_access_token

        token = get_access_token()
        return frozenset() if token is None else token.scopes & self.relevant

    @staticmethod
    def allows(needed: frozenset[str] | None, granted: frozenset[str] | None) -> bool:
        return needed is None or granted is None or needed <= granted

    def hidden_tools(self, granted: frozenset[str], rctx: ServerRequestContext) -> frozenset[str]:
        apps = not self.app_only or apps_feature.request_declares_apps(rctx)
        return self.view(granted, apps).hidden_tools

    @staticmethod
    def _hidden(rules: Mapping[str, frozenset[str]], granted: frozenset[str]) -> frozenset[str]:
        return frozenset(k for k, s in rules.items() if not s <= granted)

    def hidden_prompts(self, granted: frozenset[str], rctx: ServerRequestContext) -> frozenset[str]:
        return self._hidden(self.prompts, granted)

    def hidden_resources(
        self, granted: frozenset[str], rctx: ServerRequestContext
    ) -> frozenset[str]:
        return self._hidden(self.resources, granted)

    def hidden_templates(
        self, granted: frozenset[str], rctx: ServerRequestContext
    ) -> frozenset[str]:
        return self._hidden(self.templates, granted)

    def view(self, granted: frozenset[str], apps: bool) -> _View:
        key = (granted, apps)
        views = self._views
        view = views.get(key)
        if view is None:
            view = views[key] = _View(self, granted, apps)
            if len(views) > _MAX_VIEWS:
                views.popitem(last=False)
        return view

    def resource_needs(self, uri: str) -> frozenset[str] | None:
        """The scopes of what serves ``uri`` (a resource, else the first matching
        template), None for everyone or nothing serving it."""
        found = self.server.resources.find(uri)
        if found is None:
            return None
        entry = found[0]
        return entry.scopes


def _private(rctx: ServerRequestContext, method: str) -> None:
    """A modern result that depends on the principal: never shared between them."""
    if rctx.envelope is not None:
        hints = rctx.cache_hints or rctx.server.cache_hints(method)
        rctx.cache_hints = CacheHints(hints.ttl_ms, "private")


def install(
    server: Registries, table: dict[str, ServerHandler], replaced: Collection[str] = ()
) -> None:
    """Serve ``table``'s lists and lookups with the scope rules of what is registered now
    (see the module docstring); nothing changes when no component has scopes. The lists
    of ``replaced`` methods (low-level handlers, a mount's) are the handler's own, with
    the hidden components taken out."""
    gate = _Gate(server)
    if not gate.active:
        return
    own_lists: dict[str, ServerHandler] = {
        m: table[m] for m in _LISTS if m in replaced and m in table
    }
    if gate.tools:
        _install_tools(gate, table)
    if gate.prompts:
        _install_prompts(gate, table)
    if gate.resources or gate.templates:
        _install_resources(gate, table)
    if (gate.prompts or gate.resources or gate.templates) and "completion/complete" in table:
        _install_completion(gate, table)
    for method, key, field, hidden in (
        ("tools/list", "tools", "name", gate.hidden_tools),
        ("prompts/list", "prompts", "name", gate.hidden_prompts),
        ("resources/list", "resources", "uri", gate.hidden_resources),
        ("resources/templates/list", "resourceTemplates", "uriTemplate", gate.hidden_templates),
    ):
        inner = own_lists.get(method)
        if inner is not None:
            table[method] = _filtered(gate, method, inner, key, field, hidden)


def _filtered(
    gate: _Gate,
    method: str,
    inner: ServerHandler,
    key: str,
    field: str,
    hidden_of: Callable[[frozenset[str], ServerRequestContext], frozenset[str]],
) -> ServerHandler:
    """A list handler's answer without what this request's principal may not see."""

    async def handler(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        result = await inner(params, rctx)
        granted = gate.granted(rctx)
        if granted is None or type(result) is not dict:
            return result
        hidden = hidden_of(granted, rctx)
        if not hidden:
            return result
        _private(rctx, method)
        plain = orjson.loads(orjson.dumps(result))  # pages may hold pre-encoded fragments
        plain[key] = [
            item
            for item in plain.get(key) or ()
            if not (type(item) is dict and item.get(field) in hidden)
        ]
        return plain

    return handler


def _install_tools(gate: _Gate, table: dict[str, ServerHandler]) -> None:
    list_all, call = table.get("tools/list"), table.get("tools/call")
    if list_all is None or call is None:
        return
    app_only = gate.app_only

    async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        granted = gate.granted(rctx)
        if granted is None:
            return await list_all(params, rctx)
        _private(rctx, "tools/list")
        apps = not app_only or apps_feature.request_declares_apps(rctx)
        return gate.view(granted, apps).page("tools/list", params)

    async def call_tool(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        name = params.get("name") if type(params) is dict else None
        needed = gate.tools.get(name) if type(name) is str else None
        if needed is not None and not gate.allows(needed, gate.granted(rctx)):
            # as the registry answers a tool it does not have (an error result, for some)
            unknown = getattr(gate.server.tools, "unknown_result", None)
            if unknown is not None:
                return unknown(name)
            raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")
        return await call(params, rctx)

    table["tools/list"] = list_tools
    table["tools/call"] = call_tool


def _install_prompts(gate: _Gate, table: dict[str, ServerHandler]) -> None:
    list_all, get = table.get("prompts/list"), table.get("prompts/get")
    if list_all is None or get is None:
        return

    async def list_prompts(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        granted = gate.granted(rctx)
        if granted is None:
            return await list_all(params, rctx)
        _private(rctx, "prompts/list")
        return gate.view(granted, True).page("prompts/list", params)

    async def get_prompt(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        name = params.get("name") if type(params) is dict else None
        needed = gate.prompts.get(name) if type(name) is str else None
        if needed is not None and not gate.allows(needed, gate.granted(rctx)):
            unknown = getattr(gate.server.prompts, "unknown_error", None)  # the registry's own
            if unknown is not None:
                raise unknown(name)
            raise McpError(INVALID_PARAMS, f"Unknown prompt: {name}")
        return await get(params, rctx)

    table["prompts/list"] = list_prompts
    table["prompts/get"] = get_prompt


def _install_resources(gate: _Gate, table: dict[str, ServerHandler]) -> None:
    def lister(method: str) -> ServerHandler | None:
        inner = table.get(method)
        if inner is None:
            return None

        async def list_some(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            granted = gate.granted(rctx)
            if granted is None:
                return await inner(params, rctx)
            _private(rctx, method)
            return gate.view(granted, True).page(method, params)

        return list_some

    for method, scoped in (
        ("resources/list", gate.resources),
        ("resources/templates/list", gate.templates),
    ):
        wrapped = lister(method) if scoped else None
        if wrapped is not None:
            table[method] = wrapped

    def by_uri(method: str, inner: ServerHandler) -> ServerHandler:
        async def guarded(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            uri = params.get("uri") if type(params) is dict else None
            needed = gate.resource_needs(uri) if type(uri) is str else None
            if needed is None:
                return await inner(params, rctx)
            if not gate.allows(needed, gate.granted(rctx)):
                unknown = getattr(gate.server.resources, "not_found_error", None)
                if unknown is not None:  # the registry's own answer
                    raise unknown(str(uri))
                raise not_found(rctx, str(uri))
            result = await inner(params, rctx)
            _private(rctx, method)
            return result

        return guarded

    for method in ("resources/read", "resources/subscribe"):
        inner = table.get(method)
        if inner is not None:
            table[method] = by_uri(method, inner)
    if table.get(LISTEN_METHOD) is subscriptions.listen:

        async def listen(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            granted = gate.granted(rctx)
            if granted is None:
                return await subscriptions.listen(params, rctx)

            def hidden(uri: str) -> bool:  # as for a URI nothing serves: no update ever
                return not gate.allows(gate.resource_needs(uri), granted)

            return await subscriptions.listen(params, rctx, hidden)

        table[LISTEN_METHOD] = listen


def _install_completion(gate: _Gate, table: dict[str, ServerHandler]) -> None:
    complete = table["completion/complete"]

    async def guarded(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        ref = params.get("ref") if type(params) is dict else None
        if type(ref) is dict:
            kind = ref.get("type")
            if kind == "ref/prompt":
                name = ref.get("name")
                needed = gate.prompts.get(name) if type(name) is str else None
                if needed is not None and not gate.allows(needed, gate.granted(rctx)):
                    raise McpError(INVALID_PARAMS, f"Unknown prompt: {name}")
            elif kind == "ref/resource":
                uri = ref.get("uri")
                needed = None
                if type(uri) is str:
                    needed = gate.templates.get(uri) or gate.resources.get(uri)
                if needed is not None and not gate.allows(needed, gate.granted(rctx)):
                    raise McpError(INVALID_PARAMS, f"Unknown resource template: {uri}")
        return await complete(params, rctx)

    table["completion/complete"] = guarded
