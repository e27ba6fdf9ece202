"""Mounting: one :class:`~mcpkit.server.app.Server` served inside another.

```python
weather = Server("weather")
app = Server("gateway")
app.mount(weather, prefix="weather")   # tool forecast -> weather_forecast
```

The parent serves its own tools, prompts, resources and templates first, then each mounted
server's, in the order they were mounted, under the mount's namespace:

- tools and prompts: ``<prefix>_<name>`` (``weather_forecast``);
- resource URIs and templates: ``<scheme prefix>+<uri>``, where the scheme prefix is the
  prefix in lower case with ``_`` written ``-`` (``weather+file:///data.csv``,
  ``my-tools+weather://{city}/now``). Only the scheme grows, so every URI stays a URI,
  a template stays a template with the same variables, and the rule is undone exactly by
  removing ``<scheme prefix>+``. Resource contents, resource links and embedded resources
  the child serves are rewritten likewise on the way out.

Without a prefix the names and URIs stay as they are; :func:`mount` refuses a server whose
names collide with the parent's or another mount's (a later collision is served by the first
in the order above).

Mounting is in process and live: every request is answered by the child's own handler table
(its handlers, low-level ``request_handler``'s and nested mounts) at the time of the
request, so what the child registers or removes later appears or disappears at once, and
its list changes and resource updates reach the parent's clients (2025-era notifications
and 2026-07-28 ``subscriptions/listen`` streams alike). The child's handlers run with the
parent's request: progress, logging, cancellation, sampling, elicitation (MRTR rounds on
the 2026-07-28 wire) and roots go to the parent's client, while ``ctx.server``,
``ctx.lifespan`` and ``ctx.read_resource`` are the child's. The child's lifespan is entered
when the parent's is (before it; left after it); ``on_roots_changed`` hooks of the child
run when the parent's client changes its roots. A 2026-07-28 ``subscriptions/listen`` on the
parent holds the resource URIs it names in each child while it is open (a mounted proxy
subscribes to them upstream, see :func:`hold_resources`).

The parent declares the features the child has when it is mounted (a child that registers a
feature only later passes ``declare=(...)``). Mounted tools that run as tasks make the
parent declare tasks; their task-augmented calls (2025-11-25 tasks, the 2026-07-28 tasks
extension) run in the parent's task manager.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import weakref
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal, cast

import orjson

from mcpkit._cursor import decode_cursor, encode_cursor
from mcpkit.bus import LISTEN_METHOD, BusEvent, parse_listen_params
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.completion import parse_request
from mcpkit.server.logging import current_context
from mcpkit.server.uri_template import URITemplate
from mcpkit.session import RequestContext

if TYPE_CHECKING:
    from mcpkit.server.configured import Feature
    from mcpkit.server.context import Context
    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext

__all__ = ["Mount", "hold_resources", "mount", "mounts_of"]

logger = logging.getLogger("mcpkit.server.mount")

_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
Kind = Literal["tools", "prompts", "resources", "templates"]
_LIST: dict[Kind, tuple[str, str, str]] = {
    # kind: (method, result key, the field that names an item)
    "tools": ("tools/list", "tools", "name"),
    "prompts": ("prompts/list", "prompts", "name"),
    "resources": ("resources/list", "resources", "uri"),
    "templates": ("resources/templates/list", "resourceTemplates", "uriTemplate"),
}
_METHODS = (
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
)

_FEATURE_METHODS: tuple[tuple[Feature, str], ...] = (
    ("tools", "tools/list"),
    ("prompts", "prompts/list"),
    ("resources", "resources/list"),
    ("completions", "completion/complete"),
)

#: The attribute of a Server holding its mounts (on the server itself, so that a parent
#: and its mounts are freed together).
_ATTR = "_mcpkit_mounts"


def _mounts(server: Server[Any]) -> _Mounts | None:
    mounts: _Mounts | None = server.__dict__.get(_ATTR)
    return mounts


def mounts_of(server: Server[Any]) -> tuple[Mount, ...]:
    """The servers mounted in ``server``, in the order they are consulted."""
    mounts = _mounts(server)
    return tuple(mounts.mounts) if mounts is not None else ()


def mount(
    parent: Server[Any],
    child: Server[Any],
    prefix: str | None = None,
    *,
    kind: type[Mount] | None = None,
) -> Mount:
    """Serve ``child`` inside ``parent`` under ``prefix`` (see the module docstring).
    ``kind``: a :class:`Mount` subclass naming the child's components its own way (its
    :meth:`Mount.name`, :meth:`Mount.uri` and their inverses), as a compat layer does.

    ValueError for a server mounted in itself (or in one of its own mounts), a prefix that
    is not a letter followed by letters, digits, ``_`` or ``-`` (at most 64), a prefix
    already used, or (without a prefix, or with one) names or URIs that collide with what
    the parent already serves."""
    if child is parent or _contains(child, parent):
        raise ValueError("mount: a server cannot be mounted in itself")
    if child.bus is parent.bus:
        raise ValueError(
            "mount: the server shares the parent's notification bus; give it its own "
            "(its changes are forwarded to the parent's bus, rewritten)"
        )
    if prefix is not None and not _PREFIX.fullmatch(prefix):
        raise ValueError(
            f"mount: prefix {prefix!r} must be a letter followed by letters, digits, '_' or "
            "'-' (at most 64 characters)"
        )
    mounts = _mounts(parent)
    if mounts is None:
        mounts = _Mounts(parent)
        parent.__dict__[_ATTR] = mounts
    entry = (kind or Mount)(parent, child, prefix)
    for other in mounts.mounts:
        if other.server is child:
            raise ValueError(f"mount: {child.name!r} is already mounted here")
        if prefix is not None and other.uri_prefix == entry.uri_prefix:
            raise ValueError(f"mount: prefix {prefix!r} is already used by another mount")
    clashes = mounts.collisions(entry)
    if clashes:
        raise ValueError(
            f"mount: {child.name!r} would shadow or be shadowed by what the parent serves: "
            f"{', '.join(clashes)} (mount it with a prefix)"
        )
    mounts.add(entry)
    return entry


def _contains(server: Server[Any], other: Server[Any]) -> bool:
    return any(m.server is other or _contains(m.server, other) for m in mounts_of(server))


class Mount:
    """One server mounted in another: its namespace, and :meth:`unmount`."""

    def __init__(self, parent: Server[Any], server: Server[Any], prefix: str | None) -> None:
        #: The server it is mounted in.
        self.parent = parent
        #: The mounted server.
        self.server = server
        #: The namespace (None: names and URIs as they are).
        self.prefix = prefix
        #: What tool and prompt names start with (``"weather_"``; empty without a prefix).
        self.name_prefix = f"{prefix}_" if prefix else ""
        #: What resource URIs start with (``"weather+"``; empty without a prefix).
        self.uri_prefix = f"{prefix.lower().replace('_', '-')}+" if prefix else ""
        #: What the child's ``skill://`` URIs start with in the parent: its prefix is an
        #: organizational prefix of the skill paths (``"skill://weather/"``; see
        #: :mod:`mcpkit.server.mount_skills`).
        self.skill_prefix = f"skill://{self.uri_prefix[:-1]}/" if prefix else "skill://"
        # The child's names seen in its last listings (a child serving lists of its own
        # making, a proxy say, has nothing in its registries).
        self._listed: dict[Kind, frozenset[str]] = {}
        # The child's relay holds the mount weakly: a parent that goes away is freed.
        ref = weakref.ref(self)

        def sink(event: BusEvent) -> None:
            mount = ref()
            if mount is not None:
                mount.forward(event)

        #: What the child's relay is given (:meth:`forward`, through a weak reference).
        self.sink = sink

    def __repr__(self) -> str:
        return f"Mount({self.server.name!r}, prefix={self.prefix!r})"

    # -- the namespace ---------------------------------------------------------------------------

    def name(self, local: str) -> str:
        """The parent's name of the child's tool or prompt ``local``."""
        return self.name_prefix + local

    def local_name(self, name: str) -> str | None:
        """The child's name behind the parent's ``name`` (None: not in this namespace)."""
        p = self.name_prefix
        if not p:
            return name
        return name[len(p) :] if name.startswith(p) and len(name) > len(p) else None

    def uri(self, local: str) -> str:
        """The parent's URI (or template) of the child's ``local`` one (a ``skill://`` URI
        gets the prefix as the first segment of its path)."""
        if self.uri_prefix and local.startswith("skill://"):
            return self.skill_prefix + local[len("skill://") :]
        return self.uri_prefix + local

    def local_uri(self, uri: str) -> str | None:
        """The child's URI behind the parent's ``uri`` (None: not in this namespace)."""
        p = self.uri_prefix
        if not p:
            return uri
        if uri.startswith("skill://"):
            sp = self.skill_prefix
            return (
                "skill://" + uri[len(sp) :] if uri.startswith(sp) and len(uri) > len(sp) else None
            )
        local = uri[len(p) :] if uri.startswith(p) and len(uri) > len(p) else None
        return None if local is not None and local.startswith("skill://") else local

    # -- what the child serves -------------------------------------------------------------------

    def has_tool(self, local: str) -> bool:
        """True when the child (or one of its mounts) has a tool named ``local``."""
        return (
            local in self.server.tools.tools
            or local in self._listed.get("tools", ())
            or _find(self.server, "tool", local) is not None
        )

    def has_prompt(self, local: str) -> bool:
        """True when the child (or one of its mounts) has a prompt named ``local``."""
        return (
            local in self.server.prompts.prompts or _find(self.server, "prompt", local) is not None
        )

    def serves_uri(self, local: str) -> bool:
        """True when the child (or one of its mounts) serves the resource ``local``."""
        return (
            self.server.resources.find(local) is not None
            or local in self._listed.get("resources", ())
            or any(_template(t).match(local) is not None for t in self._listed.get("templates", ()))
            or _find(self.server, "uri", local) is not None
        )

    def has_template(self, local: str) -> bool:
        """True when ``local`` is a template (or resource) URI of the child, as registered."""
        res = self.server.resources
        return (
            local in res.templates
            or local in res.resources
            or local in self._listed.get("templates", ())
            or _find(self.server, "template", local) is not None
        )

    def unmount(self) -> None:
        """Stop serving the child (clients hear that the lists changed); its lifespan, if
        entered, is left when the parent's is."""
        mounts = _mounts(self.parent)
        if mounts is not None:
            mounts.remove(self)

    # -- forwarding ------------------------------------------------------------------------------

    async def call(self, method: str, params: JSONObject, rctx: ServerRequestContext) -> Any:
        """Answer ``method`` (params already in the child's names) with the child's handler,
        on the parent's request."""
        handler = self.server.handler_table().get(method)
        if handler is None:
            raise McpError(INVALID_PARAMS, f"{self.server.name!r} does not serve {method}")
        return await handler(params, _child_request(rctx, self.server, method, params))

    async def list_all(self, kind: Kind, rctx: ServerRequestContext) -> list[JSONObject]:
        """Every item of one of the child's lists, every page followed, in the parent's
        names."""
        method, key, field = _LIST[kind]
        handler = self.server.handler_table().get(method)
        if handler is None:
            return []
        request = _child_request(rctx, self.server, method, None)
        items: list[JSONObject] = []
        names: set[str] = set()
        meta = rctx.params.get("_meta") if type(rctx.params) is dict else None
        base: JSONObject = {"_meta": meta} if meta is not None else {}  # the envelope, if any
        params: JSONObject = dict(base)
        for _ in range(10_000):  # bounded: a child that pages forever is cut off
            object.__setattr__(request, "params", params)
            page = await handler(params, request)
            page = orjson.loads(orjson.dumps(page))  # pages may hold pre-encoded fragments
            for item in page.get(key) or ():
                if type(item) is dict and type(item.get(field)) is str:
                    renamed = dict(item)
                    local = item[field]
                    names.add(local)
                    renamed[field] = self.uri(local) if field != "name" else self.name(local)
                    items.append(renamed)
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
            params = {**base, "cursor": cursor}
        self._listed[kind] = frozenset(names)
        return items

    async def rewrite_content(self, blocks: Any, rctx: ServerRequestContext) -> Any:
        """Content blocks with the links and embedded resources the child serves in the
        parent's URIs."""
        if not self.uri_prefix or type(blocks) is not list:
            return blocks
        out = []
        for block in blocks:
            if type(block) is dict:
                kind = block.get("type")
                if kind == "resource_link" and await self._ours(block.get("uri"), rctx):
                    block = {**block, "uri": self.uri(block["uri"])}
                elif kind == "resource" and type(block.get("resource")) is dict:
                    inner = block["resource"]
                    if await self._ours(inner.get("uri"), rctx):
                        block = {**block, "resource": {**inner, "uri": self.uri(inner["uri"])}}
            out.append(block)
        return out

    async def _ours(self, uri: Any, rctx: ServerRequestContext) -> bool:
        if not isinstance(uri, str):
            return False
        if self.serves_uri(uri):
            return True
        table = self.server.handler_table()
        if "resources" in self._listed or "resources/list" not in table:
            return False
        # A child that serves lists of its own making (a proxy): learn what it has, once.
        await self.list_all("resources", rctx)
        await self.list_all("templates", rctx)
        return self.serves_uri(uri)

    def forward(self, event: BusEvent) -> None:
        """The child's relay sink: its changes, in the parent's URIs, on the parent's bus."""
        mounts = _mounts(self.parent)
        if mounts is None or self not in mounts.mounts:
            return
        if event.uri is not None:
            self.parent.notify_resource_updated(self.uri(event.uri))
        elif event.kind in ("tools", "prompts", "resources"):
            if event.kind == "tools" and mounts.sync_tasks():
                mounts.reinstall()
            self.parent.notify_list_changed(event.kind)


def _find(server: Server[Any], what: str, local: str) -> Mount | None:
    """The mount of ``server`` serving ``local`` (a tool, prompt, uri or template)."""
    mounts = _mounts(server)
    if mounts is None:
        return None
    found = mounts.find(what, local)
    return found[0] if found is not None else None


class _Mounts:
    """The mounts of one parent, and the handlers that serve them with the parent's own."""

    def __init__(self, parent: Server[Any]) -> None:
        self.parent = parent
        self.mounts: list[Mount] = []
        own = parent._lifespan  # the parent's own lifespan, entered after the children's
        ref = weakref.ref(self)

        @contextlib.asynccontextmanager
        async def lifespan(server: Server[Any]) -> AsyncIterator[Any]:
            mounts = ref()
            async with contextlib.AsyncExitStack() as stack:
                for m in list(mounts.mounts) if mounts is not None else ():
                    await stack.enter_async_context(m.server.running())
                state = await stack.enter_async_context(own(server)) if own is not None else None
                yield state

        parent._lifespan = lifespan
        handlers: dict[str, ServerHandler] = {
            "tools/list": self.list_tools,
            "tools/call": self.call_tool,
            "prompts/list": self.list_prompts,
            "prompts/get": self.get_prompt,
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
            "completion/complete": self.complete,
        }
        from mcpkit.server import mount_skills

        handlers.update(mount_skills.handlers(self))
        # the skills extension is declared when a mounted server serves skills
        parent._advertisers.append(functools.partial(mount_skills.advertise, self))
        parent._caps.clear()
        for method in (*_METHODS, "skills/list", "skills/get", "resources/directory/read"):
            parent.request_handler(method)(handlers[method])
        if parent.modern_versions:
            parent.request_handler(LISTEN_METHOD)(self.listen)
        parent.on_roots_changed(self.roots_changed)

    # -- bookkeeping -----------------------------------------------------------------------------

    def add(self, entry: Mount) -> None:
        child = entry.server
        caps = child.capabilities()
        features: set[Feature] = {
            f for f in ("tools", "resources", "prompts", "completions") if f in caps
        }
        table = child.handler_table()  # a child serving its own lists (a proxy) has them
        features.update(f for f, method in _FEATURE_METHODS if method in table)
        parent = self.parent
        parent.declared = parent.declared | frozenset(features) | child.declared
        if child.store_backend is None and child._state_store is None:
            # ctx.state and per-caller visibility of the child live in the parent's store
            from mcpkit.server.state_store import NamespacedStateStore

            child.state_store = NamespacedStateStore(parent, f"{entry.prefix or child.name}\x1f")
            if parent.session_visibility:
                child.session_visibility = True
        self.mounts.append(entry)
        child.relay.sinks.append(entry.sink)
        self._changed()

    def remove(self, entry: Mount) -> None:
        if entry in self.mounts:
            self.mounts.remove(entry)
            from mcpkit.server.state_store import NamespacedStateStore

            if isinstance(entry.server._state_store, NamespacedStateStore):
                entry.server._state_store = None  # its own store again, made on first use
            with contextlib.suppress(ValueError):
                entry.server.relay.sinks.remove(entry.sink)
            self._changed()

    def sync_tasks(self) -> bool:
        """Count the mounted task tools in the parent's (so it declares tasks and serves
        ``tasks/*``; task-augmented calls of mounted tools run in its task manager); True
        when the count changed."""
        tools = self.parent.tools
        own = sum(1 for t in tools.tools.values() if t.accepts_tasks)
        count = own + sum(m.server.tools.task_tools for m in self.mounts)
        if count == tools.task_tools:
            return False
        tools.task_tools = count
        return True

    def _changed(self) -> None:
        parent = self.parent
        self.sync_tasks()
        self.reinstall()
        if parent.relay.running:
            for kind in ("tools", "prompts", "resources"):
                parent.notify_list_changed(kind)

    def reinstall(self) -> None:
        """The parent's sessions serve its handler table as it is now."""
        parent = self.parent
        parent._forget_tables()
        table = parent.handler_table()
        for session in list(parent.sessions):
            session.install(table)

    def collisions(self, entry: Mount) -> list[str]:
        """The parent's names ``entry`` would collide with (as the child is now)."""
        child = entry.server
        clashes: list[str] = []
        for name in _local_names(child, "tool"):
            if self._owner("tool", entry.name(name)) is not None:
                clashes.append(f"tool {entry.name(name)!r}")
        for name in _local_names(child, "prompt"):
            if self._owner("prompt", entry.name(name)) is not None:
                clashes.append(f"prompt {entry.name(name)!r}")
        for uri in _local_names(child, "uri"):
            if self._owner("template", entry.uri(uri)) is not None:
                clashes.append(f"resource {entry.uri(uri)!r}")
        return clashes

    def _owner(self, what: str, name: str) -> object | None:
        """Who serves ``name`` now: the parent itself, a mount, or None."""
        parent = self.parent
        if what == "tool" and name in parent.tools.tools:
            return parent
        if what == "prompt" and name in parent.prompts.prompts:
            return parent
        if what == "template" and (
            name in parent.resources.templates or name in parent.resources.resources
        ):
            return parent
        found = self.find(what, name)
        return found[0] if found is not None else None

    def find(self, what: str, name: str) -> tuple[Mount, str] | None:
        """The first mount serving the parent's ``name`` (a tool, prompt, uri or template)
        and the child's name for it."""
        for m in self.mounts:
            if what in ("tool", "prompt"):
                local = m.local_name(name)
                if local is not None and (
                    m.has_tool(local) if what == "tool" else m.has_prompt(local)
                ):
                    return m, local
                continue
            local = m.local_uri(name)
            if local is None:
                continue
            if what == "template":
                if m.has_template(local):
                    return m, local
            elif m.prefix is not None or m.serves_uri(local):
                # A prefixed mount answers for its whole namespace (its not-found included).
                return m, local
        if what in ("tool", "prompt"):
            for m in self.mounts:  # nobody has it: the first namespace it falls in answers
                local = m.local_name(name)
                if m.prefix is not None and local is not None:
                    return m, local
        return None

    # -- lists -----------------------------------------------------------------------------------

    async def _list(
        self, kind: Kind, own: list[JSONObject], params: JSONObject | None, rctx: Any
    ) -> JSONObject:
        _, key, field = _LIST[kind]
        items = list(own)
        seen = {item.get(field) for item in items}
        for m in list(self.mounts):
            for item in await m.list_all(kind, rctx):
                if item[field] in seen:
                    logger.debug("%s %s of %r is shadowed", kind, item[field], m.server.name)
                    continue
                seen.add(item[field])
                items.append(item)
        return _page(key, items, params, self.parent.tools.paginator.page_size)

    async def list_tools(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        own = [t.definition for t in self.parent.tools.tools.values()]
        return await self._list("tools", own, params, rctx)

    async def list_prompts(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        own = [p.definition for p in self.parent.prompts.prompts.values()]
        return await self._list("prompts", own, params, rctx)

    async def list_resources(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        own = [r.definition for r in self.parent.resources.resources.values()]
        return await self._list("resources", own, params, rctx)

    async def list_templates(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        own = [t.definition for t in self.parent.resources.templates.values()]
        return await self._list("templates", own, params, rctx)

    # -- calls -----------------------------------------------------------------------------------

    async def call_tool(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        name = params.get("name") if type(params) is dict else None
        found = None
        if type(name) is str and name not in self.parent.tools.tools:
            found = self.find("tool", name)
        if found is None:
            return await self.parent.tools.call_tool(params, rctx)
        m, local = found
        try:
            result = await m.call("tools/call", {**params, "name": local}, rctx)  # type: ignore[dict-item]
        except McpError as exc:
            raise _renamed_name_error(exc, local, name) from None  # type: ignore[arg-type]
        if type(result) is dict and "content" in result:
            result = {**result, "content": await m.rewrite_content(result["content"], rctx)}
        return cast("JSONObject", result)

    async def get_prompt(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        name = params.get("name") if type(params) is dict else None
        found = None
        if type(name) is str and name not in self.parent.prompts.prompts:
            found = self.find("prompt", name)
        if found is None:
            return await self.parent.prompts.get_prompt(params, rctx)
        m, local = found
        try:
            result = await m.call("prompts/get", {**params, "name": local}, rctx)  # type: ignore[dict-item]
        except McpError as exc:
            raise _renamed_name_error(exc, local, name) from None  # type: ignore[arg-type]
        if type(result) is dict and type(result.get("messages")) is list:
            messages = []
            for msg in result["messages"]:
                if type(msg) is dict and "content" in msg:
                    content = msg["content"]
                    rewritten = (await m.rewrite_content([content], rctx))[0]
                    msg = {**msg, "content": rewritten}
                messages.append(msg)
            result = {**result, "messages": messages}
        return cast("JSONObject", result)

    def _resource(self, params: JSONObject | None) -> tuple[Mount, str] | None:
        uri = params.get("uri") if type(params) is dict else None
        if type(uri) is str and uri.startswith("skill://"):
            for m in self.mounts:  # a prefixed mount's skills, before the parent's template
                local = m.local_uri(uri) if m.prefix is not None else None
                if local is not None:
                    return m, local
        if type(uri) is not str or self.parent.resources.find(uri) is not None:
            return None
        return self.find("uri", uri)

    async def read_resource(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        found = self._resource(params)
        if found is None:
            return await self.parent.resources.read_resource(params, rctx)
        m, local = found
        try:
            result = await m.call("resources/read", {**params, "uri": local}, rctx)  # type: ignore[dict-item]
        except McpError as exc:
            raise _renamed_error(exc, m) from None
        if type(result) is dict and type(result.get("contents")) is list:
            result = {
                **result,
                "contents": [
                    {**c, "uri": m.uri(c["uri"])}
                    if type(c) is dict and type(c.get("uri")) is str
                    else c
                    for c in result["contents"]
                ],
            }
        return cast("JSONObject", result)

    async def subscribe(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        found = self._resource(params)
        if found is None:
            return await self.parent.resources.subscribe(params, rctx)
        m, local = found
        if not await m._ours(local, rctx):  # a proxy's: learnt from its listing
            from mcpkit.server.resources import not_found

            raise not_found(rctx, params["uri"])  # type: ignore[index]
        await self._tell_child(m, "resources/subscribe", params, local, rctx)
        rctx.session.subscriptions.add(params["uri"])  # type: ignore[index]
        return {}

    async def unsubscribe(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        found = self._resource(params)
        if found is not None:
            await self._tell_child(found[0], "resources/unsubscribe", params, found[1], rctx)
        return await self.parent.resources.unsubscribe(params, rctx)

    async def _tell_child(
        self,
        m: Mount,
        method: str,
        params: JSONObject | None,
        local: str,
        rctx: ServerRequestContext,
    ) -> None:
        """Let the child see a (un)subscription (a proxy subscribes upstream); what it
        records on the session in its own URI is undone (the parent's URI is kept)."""
        if method not in m.server.handler_table():
            return
        subs = rctx.session.subscriptions
        had = local in subs
        await m.call(method, {**(params or {}), "uri": local}, rctx)
        if not had:
            subs.discard(local)

    async def listen(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``subscriptions/listen`` of the parent: the resource URIs it names in a mount's
        namespace are held in that child for as long as the stream is open (a proxy
        subscribes to them upstream), then the parent's own stream serves it."""
        from mcpkit.server import subscriptions

        try:
            uris = parse_listen_params(params).resource_uris
        except McpError:
            uris = ()  # the stream itself answers the error
        async with contextlib.AsyncExitStack() as stack:
            for m in list(self.mounts):
                local = [u for u in (m.local_uri(uri) for uri in uris) if u is not None]
                if local:
                    await stack.enter_async_context(hold_resources(m.server, local))
            return await subscriptions.listen(params, rctx)

    async def complete(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        kind, target, _, _, _ = parse_request(params)
        parent = self.parent
        found: tuple[Mount, str] | None = None
        if kind == "ref/prompt":
            if target not in parent.prompts.prompts:
                found = self.find("prompt", target)
        elif target not in parent.resources.templates and target not in parent.resources.resources:
            found = self.find("template", target)
        if found is None:
            return await parent.completions.handle_complete(params, rctx)
        m, local = found
        ref = dict(params["ref"])  # type: ignore[index]
        ref["name" if kind == "ref/prompt" else "uri"] = local
        return cast("JSONObject", await m.call("completion/complete", {**params, "ref": ref}, rctx))  # type: ignore[dict-item]

    async def roots_changed(self, session: AppSession) -> None:
        for m in list(self.mounts):
            outcome = m.server._roots_changed(session)
            if outcome is not None:
                await outcome


@contextlib.asynccontextmanager
async def hold_resources(server: Server[Any], uris: list[str]) -> AsyncIterator[None]:
    """Keep the updates of ``uris`` (in ``server``'s own names) flowing to ``server``'s
    bus for the duration of the block: ``server`` itself (:meth:`Server.hold_resources`:
    a proxy asks its upstream), and the servers mounted in it, in their names."""
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(server.hold_resources(uris))
        mounts = _mounts(server)
        for m in list(mounts.mounts) if mounts is not None else ():
            local = [u for u in (m.local_uri(uri) for uri in uris) if u is not None]
            if local:
                await stack.enter_async_context(hold_resources(m.server, local))
        yield


def _local_names(server: Server[Any], what: str) -> list[str]:
    """The names (``tool``, ``prompt``) or URIs and templates (``uri``) ``server`` has now,
    its mounts' included."""
    if what == "tool":
        names = list(server.tools.tools)
    elif what == "prompt":
        names = list(server.prompts.prompts)
    else:
        names = [*server.resources.resources, *server.resources.templates]
    for m in mounts_of(server):
        conv: Callable[[str], str] = m.name if what != "uri" else m.uri
        names.extend(conv(n) for n in _local_names(m.server, what))
    return names


@functools.lru_cache(maxsize=1024)
def _template(template: str) -> URITemplate:
    return URITemplate(template)


def _renamed_name_error(exc: McpError, local: str, name: str) -> McpError:
    """The child's error about its tool or prompt ``local``, about the parent's ``name``."""
    for kind in ("tool", "prompt"):
        unknown = f"Unknown {kind}: {local}"
        if exc.message == unknown:
            return McpError(exc.code, f"Unknown {kind}: {name}", exc.data)
    return exc


def _renamed_error(exc: McpError, m: Mount) -> McpError:
    data = exc.data
    if type(data) is dict and type(data.get("uri")) is str:
        uri = m.uri(data["uri"])
        message = exc.message.replace(data["uri"], uri) if m.uri_prefix else exc.message
        return McpError(exc.code, message, {**data, "uri": uri})
    return exc


def _page(key: str, items: list[JSONObject], params: JSONObject | None, size: int) -> JSONObject:
    cursor = params.get("cursor") if type(params) is dict else None
    offset = 0 if cursor is None else decode_cursor(cursor)
    if offset > len(items) or (offset and offset == len(items)):
        raise McpError(INVALID_PARAMS, "Invalid cursor")
    end = offset + size
    result: JSONObject = {key: items[offset:end]}
    if end < len(items):
        result["nextCursor"] = encode_cursor(end)
    return result


class _ChildRequest:
    """The parent's request as the child's handlers see it: everything is the parent's
    request (so what they send reaches the parent's client, and what they set is seen by
    the parent's session), except the method and params (the child's, in its names) and the
    :class:`Context` they make, which names the child as its server."""

    __slots__ = ("_child", "_request", "method", "params")

    def __init__(
        self,
        request: ServerRequestContext,
        child: Server[Any],
        method: str,
        params: JSONObject | None,
    ) -> None:
        object.__setattr__(self, "_request", request)
        object.__setattr__(self, "_child", child)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "params", params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._request, name, value)

    def context(self, rctx: RequestContext | None = None) -> Context:
        ctx: Context = self._request.context(rctx)
        ctx.server = self._child
        if self._child.log_bridge:
            current_context.set(ctx)
        return ctx

    def bind_logging(self, rctx: RequestContext | None = None) -> None:
        if self._child.log_bridge:
            self.context(rctx)
        else:
            self._request.bind_logging(rctx)


def _child_request(
    rctx: ServerRequestContext, child: Server[Any], method: str, params: JSONObject | None
) -> ServerRequestContext:
    return cast("ServerRequestContext", _ChildRequest(rctx, child, method, params))
