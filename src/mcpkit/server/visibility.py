"""Per-caller visibility: ``ctx.disable(...)`` / ``ctx.enable(...)`` hide or show tools,
prompts, resources and templates for one caller only.

```python
@app.tool()
async def unlock(ctx: Context, password: str) -> str:
    if password != "sesame":
        return "no"
    await ctx.enable(tags={"admin"})     # this session now sees (and may call) admin tools,
                                         # hidden from everyone by Server(exclude_tags=...)
    return "unlocked"

@app.tool()
async def logout(ctx: Context) -> str:
    await ctx.disable(tags={"admin"})
    return "bye"
```

The caller is the owner of ``ctx.state`` (:mod:`mcpkit.server.state`): a 2025 session, else
the authenticated principal of a 2026-07-28 request (the connection over stdio or memory).
Its rules are kept with its state (in the deployment's store when the server has one), so
every replica applies them. A rule matches the components it names (tool and prompt names,
resource URIs, URI templates) and those with one of its tags, optionally only of some
``kinds``; the latest matching rule decides (``disable`` then ``enable`` of the same thing
shows it again). An ``enable`` also shows the caller what the server hides
(``app.disable_tool``, ``Server(exclude_tags=...)``): hide admin tools from everyone and
``ctx.enable(tags={"admin"})`` for the session that proved it may use them. Scopes still
apply: a component needing scopes the caller's token lacks stays hidden.

For that caller the lists leave out what its rules hide, and a call, ``prompts/get`` or read
of it answers as if it did not exist (-32602 unknown tool/prompt, resource not found). A 2025
session is sent the list-changed notifications of the kinds a change may touch, and only
that session; on the 2026-07-28 wire they go to the ``subscriptions/listen`` streams of
that caller only (on any replica: through the server's bus), and its lists carry
``ttlMs: 0`` and ``cacheScope: "private"``.

Cost: nothing is installed until some handler calls ``ctx.enable``/``ctx.disable`` in this
process (or the server is made with ``Server(session_visibility=True)``, which a server on a
shared store needs, so that replicas that never saw such a call apply the rules too); then
each list and call reads the caller's rules once (a dict lookup in memory, one ``GET`` in
Redis).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import orjson

from mcpkit.errors import McpError, McpkitError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.caching import CacheHints
from mcpkit.server.components import normalize_tags
from mcpkit.server.registries import Registries
from mcpkit.server.resources import not_found
from mcpkit.server.state_store import StateHolder

if TYPE_CHECKING:
    from mcpkit.bus import BusRelay
    from mcpkit.server.components import ComponentControl
    from mcpkit.server.session import Caller, ServerHandler, ServerRequestContext

__all__ = ["RULES_KEY", "VisibilityNotShared", "VisibilityServer", "change", "install"]


class VisibilityServer(Registries, StateHolder, Protocol):
    """What per-caller visibility reads of a server (a :class:`~mcpkit.server.app.Server`
    is one): its registries and component control, its state store, whether rules are kept
    per session, and its relay (list changes to the caller's listen streams)."""

    @property
    def component_control(self) -> ComponentControl | None: ...

    @property
    def session_visibility(self) -> bool: ...

    @session_visibility.setter
    def session_visibility(self, on: bool) -> None: ...

    @property
    def relay(self) -> BusRelay: ...


ComponentKind = Literal["tools", "prompts", "resources", "templates"]
_KINDS: Final = frozenset({"tools", "prompts", "resources", "templates"})
#: The order the list-changed notifications of one change are sent in.
_ORDER: Final = ("tools", "resources", "templates", "prompts")
#: The state key of a caller's rules: the empty key, which ``ctx.state`` refuses, so no
#: value of the application's can collide with it.
RULES_KEY: Final = ""
#: Most rules kept per caller (the oldest are dropped past it).
MAX_RULES: Final = 64
_NOTIFY: Final = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
    "templates": "notifications/resources/list_changed",
}
#: The list a kind of component is in (templates are announced as the resources list).
_LIST_OF: Final[dict[str, Literal["tools", "prompts", "resources"]]] = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "templates": "resources",
}
_NO_CACHE: Final = CacheHints(0, "private")

Rule = dict[str, Any]  # {"on": bool, "names": [...], "tags": [...], "kinds": [...]}


class VisibilityNotShared(McpkitError, RuntimeError):
    """``ctx.enable``/``ctx.disable`` on a server with a shared store that was not made
    with ``Server(session_visibility=True)``: other replicas would not apply the rules."""


def _rule(
    on: bool, names: Iterable[str], tags: Iterable[str] | str | None, kinds: Iterable[str] | None
) -> Rule:
    name_list = sorted({n for n in names})
    if not all(isinstance(n, str) and n for n in name_list):
        raise TypeError("component names must be non-empty strings")
    tag_list = sorted(normalize_tags(tags))
    if not name_list and not tag_list:
        raise TypeError("name at least one component or tag")
    kind_list = sorted(set(kinds)) if kinds is not None else []
    if not set(kind_list) <= _KINDS:
        raise ValueError(f"kinds are among {sorted(_KINDS)}, not {kind_list}")
    return {"on": on, "names": name_list, "tags": tag_list, "kinds": kind_list}


def _matches(rule: Rule, kind: str, name: str, tags: frozenset[str]) -> bool:
    kinds = rule["kinds"]
    if kinds and kind not in kinds:
        return False
    return name in rule["names"] or not tags.isdisjoint(rule["tags"])


def _shown(rules: list[Rule], server: VisibilityServer, kind: str, name: str) -> bool:
    control = server.component_control
    tags = frozenset() if control is None else control.tags.get((kind, name), frozenset())  # type: ignore[arg-type]
    for rule in reversed(rules):
        if _matches(rule, kind, name, tags):
            return bool(rule["on"])
    return True


def _revealed(
    rules: list[Rule], server: VisibilityServer, rctx: ServerRequestContext
) -> dict[tuple[str, str], Any]:
    """The components the server hides that ``rules`` show (the latest matching rule is
    an ``enable``), within the scopes of the request's principal."""
    control = server.component_control
    if control is None or not control.hidden or not any(r["on"] for r in rules):
        return {}
    granted: frozenset[str] | None = None  # None: a local transport, every scope
    if rctx.session.transport.info.kind not in ("stdio", "memory"):
        from mcpkit.auth.server import get_access_token

        token = get_access_token()
        granted = frozenset() if token is None else frozenset(token.scopes)
    out: dict[tuple[str, str], Any] = {}
    for (kind, name), entry in control.hidden.items():
        needed = getattr(entry, "scopes", None)
        if needed and granted is not None and not needed <= granted:
            continue
        tags = control.tags.get((kind, name), frozenset())
        for rule in reversed(rules):
            if _matches(rule, kind, name, tags):
                if rule["on"]:
                    out[(kind, name)] = entry
                break
    return out


async def _rules(server: VisibilityServer, ctx: Caller) -> list[Rule]:
    """The rules of ``ctx``'s caller kept by ``server`` (the server whose table is served:
    a mounted child's own, though its requests carry the parent's)."""
    from mcpkit.server.state import StateOwnerMissing, state_owner

    try:
        owner = state_owner(ctx)
    except StateOwnerMissing:
        return []
    data = await server.state_store.get(owner, RULES_KEY)
    return [] if data is None else list(orjson.loads(data))


async def change(
    ctx: Caller,
    on: bool,
    names: Iterable[str],
    tags: Iterable[str] | str | None,
    kinds: Iterable[str] | None,
) -> None:
    """Add a rule for ``ctx``'s caller (see the module); install the filter if needed."""
    from mcpkit.server.state import encode, state_owner

    server = ctx.server
    rule = _rule(on, names, tags, kinds)
    if not server.session_visibility:
        if server.store_backend is not None or getattr(server.state_store, "shared", False):
            raise VisibilityNotShared(
                "ctx.enable/ctx.disable on a server with a shared store needs "
                "Server(..., session_visibility=True), so that every replica applies the rules"
            )
        server.session_visibility = True
    owner = state_owner(ctx)
    store = server.state_store
    data = await store.get(owner, RULES_KEY)
    rules: list[Rule] = [] if data is None else list(orjson.loads(data))
    same = {k: v for k, v in rule.items() if k != "on"}
    rules = [r for r in rules if {k: v for k, v in r.items() if k != "on"} != same]
    rules.append(rule)
    await store.set(owner, RULES_KEY, encode(rules[-MAX_RULES:], 1 << 20), None)
    if ctx.envelope is None:  # a 2025 session: tell it, and it alone (in a fixed order)
        kinds = rule["kinds"] or _KINDS
        for method in dict.fromkeys(_NOTIFY[k] for k in _ORDER if k in kinds):
            await ctx.session.send_quietly(method)
        return
    from mcpkit.bus import BusEvent
    from mcpkit.server.subscriptions import audience

    to = audience(owner)  # the listen streams of this caller, on any replica
    for kind in sorted({_LIST_OF[k] for k in (rule["kinds"] or _KINDS)}):
        server.relay.publish(BusEvent.list_changed(kind, to))


async def _with_revealed(
    server: VisibilityServer,
    rules: list[Rule],
    rctx: ServerRequestContext,
    inner: ServerHandler,
    params: Any,
) -> Any:
    """``inner`` with what ``rules`` reveal of ``server`` reachable by name or URI."""
    from mcpkit.server._revealed import revealed

    shown = _revealed(rules, server, rctx)
    if not shown:
        return await inner(params, rctx)
    token = revealed.set(shown)
    try:
        return await inner(params, rctx)
    finally:
        revealed.reset(token)


def install(server: VisibilityServer, table: dict[str, ServerHandler]) -> None:
    """Wrap ``table``'s lists and lookups with the callers' rules."""

    def lister(method: str, field: str, kind: str, key: str) -> None:
        inner = table.get(method)
        if inner is None:
            return

        async def list_some(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            rules = await _rules(server, rctx)
            result = await inner(params, rctx)
            if not rules or type(result) is not dict:
                return result
            if rctx.envelope is not None:
                rctx.cache_hints = _NO_CACHE
            items = result.get(field)
            if isinstance(items, orjson.Fragment):  # a cached page, as JSON
                items = orjson.loads(orjson.dumps(items))
            if type(items) is list:
                result = dict(result)
                kept = [
                    item
                    for item in items
                    if type(item) is not dict or _shown(rules, server, kind, str(item.get(key, "")))
                ]
                if "nextCursor" not in result:  # the last page: what only this caller sees
                    extra = [
                        entry.definition
                        for (k, _), entry in _revealed(rules, server, rctx).items()
                        if k == kind
                    ]
                    control = server.component_control
                    if extra and control is not None:  # in their registration places
                        kept = control.in_order(kind, kept, key, extra)  # type: ignore[arg-type]
                result[field] = kept
            return result

        table[method] = list_some

    lister("tools/list", "tools", "tools", "name")
    lister("prompts/list", "prompts", "prompts", "name")
    lister("resources/list", "resources", "resources", "uri")
    lister("resources/templates/list", "resourceTemplates", "templates", "uriTemplate")

    def by_name(method: str, kind: str, what: str) -> None:
        inner = table.get(method)
        if inner is None:
            return

        async def guarded(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            name = params.get("name") if type(params) is dict else None
            if type(name) is str:
                rules = await _rules(server, rctx)
                if rules:
                    if not _shown(rules, server, kind, name):
                        raise McpError(INVALID_PARAMS, f"Unknown {what}: {name}")
                    return await _with_revealed(server, rules, rctx, inner, params)
            return await inner(params, rctx)

        table[method] = guarded

    by_name("tools/call", "tools", "tool")
    by_name("prompts/get", "prompts", "prompt")

    for method in ("resources/read", "resources/subscribe"):
        inner = table.get(method)
        if inner is None:
            continue

        def read_guard(inner: ServerHandler = inner) -> ServerHandler:
            async def guarded(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
                uri = params.get("uri") if type(params) is dict else None
                if type(uri) is str:
                    rules = await _rules(server, rctx)
                    if rules:
                        found = server.resources.find(uri)
                        if found is not None:
                            entry = found[0]
                            kind = "resources" if entry.template is None else "templates"
                            if not _shown(rules, server, kind, entry.uri):
                                raise not_found(rctx, uri)
                        return await _with_revealed(server, rules, rctx, inner, params)
                return await inner(params, rctx)

            return guarded

        table[method] = read_guard()
