"""The :class:`Server`: every server feature of MCP behind decorators.

```python
app = Server("weather", version="1.0.0")

@app.tool()
async def forecast(city: str, days: int = 3, *, ctx: Context) -> Forecast: ...

app.run()            # stdio; app.run("http", port=8000) for Streamable HTTP
```

A Server is a set of features (tools, resources, prompts, completions, logging), each
owning its wire handlers, plus settings. :meth:`Server.session` makes an
:class:`~mcpkit.server.session.AppSession` on any transport and gives it the handler table
collected from the features; stdio, Streamable HTTP and the in-memory client all go through
it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import operator
import os
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
)
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, Unpack, cast, overload

from mcpkit import versions
from mcpkit._extras import needs_extra
from mcpkit._lazy import lazy_module
from mcpkit.bus import BusEvent, BusRelay, MemoryBus, NotificationBus
from mcpkit.jsonrpc import JSONObject
from mcpkit.server import logging as log_feature
from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server import scopes as scopes_feature
from mcpkit.server import subscriptions
from mcpkit.server.caching import DEFAULT_HINTS, CacheHints, CacheScope
from mcpkit.server.capabilities import Features, declare, features_of
from mcpkit.server.completion import CompletionRegistry
from mcpkit.server.context import Context, LifespanT
from mcpkit.server.discover import DISCOVER_METHOD, discover_result
from mcpkit.server.logging import McpLogHandler
from mcpkit.server.masking import mask_setting
from mcpkit.server.mcp_apps import UiKwargs
from mcpkit.server.mrtr import DEFAULT_MAX_ROUNDS
from mcpkit.server.offload import WorkerPool
from mcpkit.server.pagination import DEFAULT_PAGE_SIZE
from mcpkit.server.prompts import PromptRegistry
from mcpkit.server.registration import (
    PromptKwargs,
    Registration,
    ResourceKwargs,
    cache_keywords,
)
from mcpkit.server.registration import normalize_tags as tags_of
from mcpkit.server.resources import ResourceRegistry
from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext
from mcpkit.server.state import MAX_VALUE_BYTES as MAX_STATE_BYTES
from mcpkit.server.state import check_ttl as check_state_ttl
from mcpkit.server.state_store import DEFAULT_STATE_TTL
from mcpkit.server.tool_options import ToolKwargs, ToolOptions, item_hints
from mcpkit.server.tools import ToolRegistry, check_timeout, wire_dict
from mcpkit.session import NotificationHandler
from mcpkit.transports.base import Transport
from mcpkit.versions import Era, ProtocolVersion

if TYPE_CHECKING:
    from mcpkit import tasks as tasks_core
    from mcpkit.proxy import ProxyServer
    from mcpkit.redis.backend import RedisBackend
    from mcpkit.server import components as components_feature
    from mcpkit.server import tasks_extension
    from mcpkit.server import tool_search as tool_search_feature
    from mcpkit.server.components import ComponentControl
    from mcpkit.server.http_served import ServerServedApp
    from mcpkit.server.middleware.base import MiddlewareLike
    from mcpkit.server.mount import Mount
    from mcpkit.server.openapi import Route
    from mcpkit.server.request_state import KeyRing, RequestStateSealer
    from mcpkit.server.skills import FileSource, Skill, SkillRegistry
    from mcpkit.server.state_store import StateStore
    from mcpkit.server.tasks import TaskManager
    from mcpkit.server.tool_search import ToolSearch
    from mcpkit.server.tools import ToolEntry
    from mcpkit.server.transforms import ArgTransform, Wrap
    from mcpkit.transports.http.event_store import EventStore
    from mcpkit.transports.http.health import ObservabilityApp
    from mcpkit.transports.http.host import MemorySessionHost, SessionHost
    from mcpkit.transports.http.host_origin import HostOriginMiddleware
    from mcpkit.transports.http.options import HttpServerOptions, HttpSettings
    from mcpkit.transports.http.routes import CustomRoutes
    from mcpkit.transports.http.served import ServedApp
    from mcpkit.transports.http.server import Receive, Scope, Send, StreamableHTTPApp
    from mcpkit.transports.http.session_transport import HttpSessionTransport
else:  # optional features (tasks in either design): loaded on first use
    components_feature = lazy_module("mcpkit.server.components", globals(), "components_feature")
    tasks_core = lazy_module("mcpkit.tasks", globals(), "tasks_core")
    tasks_extension = lazy_module("mcpkit.server.tasks_extension", globals(), "tasks_extension")
    tool_search_feature = lazy_module("mcpkit.server.tool_search", globals(), "tool_search_feature")


__all__ = ["AppSession", "Server", "ServerHTTPApp"]

logger = logging.getLogger("mcpkit.server")

F = TypeVar("F", bound=Callable[..., Any])
Feature = Literal["tools", "resources", "prompts", "completions"]
_FEATURES: frozenset[str] = frozenset(("tools", "resources", "prompts", "completions"))
#: A lifespan: called with the server, it yields the state handlers reach as ``ctx.lifespan``.
Lifespan = Callable[["Server[Any]"], AbstractAsyncContextManager[LifespanT]]
RootsChangedHook = Callable[["AppSession"], Awaitable[None] | None]


class Server(Generic[LifespanT]):
    """An MCP server: register tools, resources and prompts, then :meth:`run` it.

    One object serves both protocol eras: a client that opens with ``initialize`` gets a
    2025-era session, one that sends 2026-07-28 requests is served statelessly (see
    :mod:`mcpkit.server.session`). The Server is a façade over collaborators, each in its
    own module: the registries and :class:`~mcpkit.server.registration.Registration`
    (tools, resources, prompts), :mod:`~mcpkit.server.serving` (``run``), the handler
    table, the lifespan, the bus and :class:`~mcpkit.bus.BusRelay` (changes reaching every
    replica's clients), the shared ``store``.

    The keyword options are told in docs/server.md: ``declare`` (capabilities declared
    before anything is registered), ``ttl_ms``/``cache_scope`` (default caching hints),
    ``request_state_keys`` (sealing MRTR ``requestState``), ``extensions``, ``bus``,
    ``include_tags``/``exclude_tags`` (:mod:`~mcpkit.server.components`), ``tool_search``,
    ``store`` (a ``redis://`` URL or a :class:`mcpkit.redis.RedisBackend`: sessions, events,
    bus, tasks and keys shared by replicas; docs/deploy.md), ``mask_errors``
    (:mod:`~mcpkit.server.masking`), ``middleware``, ``max_tool_concurrency``/
    ``max_tool_queued``/``tool_timeout``/``inline_schema_refs`` (defaults of every tool),
    ``state_ttl`` (:mod:`~mcpkit.server.state`) and ``session_visibility``
    (:mod:`~mcpkit.server.visibility`).
    """

    #: Makes the :class:`~mcpkit.server.context.Context` a user's function gets.
    context_type: type[Context[Any]] = Context

    def __init__(
        self,
        name: str,
        version: str = "0.0.0",
        *,
        instructions: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        website_url: str | None = None,
        lifespan: Lifespan[LifespanT] | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        debug: bool = False,
        max_workers: int | None = None,
        tasks: TaskManager | None = None,
        declare: Iterable[Feature] = (),
        auth: Any = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
        request_state_keys: KeyRing | RequestStateSealer | str | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        modern_versions: tuple[ProtocolVersion, ...] = versions.MODERN_SUPPORTED,
        bus: NotificationBus | None = None,
        middleware: Iterable[MiddlewareLike] = (),
        max_tool_concurrency: int | None = None,
        max_tool_queued: int | None = None,
        inline_schema_refs: bool = True,
        store: str | RedisBackend | None = None,
        tool_timeout: float | None = None,
        include_tags: Iterable[str] | None = None,
        exclude_tags: Iterable[str] | None = None,
        state_ttl: float | None = None,
        tool_search: ToolSearch | None = None,
        session_visibility: bool = False,
        mask_errors: bool | None = None,
    ) -> None:
        #: The shared store (``store=``: a ``redis://`` URL or a RedisBackend) every
        #: replica's sessions, events, bus, tasks and sealing keys live in; None: memory.
        self.store_backend: RedisBackend | None = None
        # What use_store() may still fill in (not given explicitly): bus, tasks, keys.
        self._store_defaults = (bus is None, tasks is None, request_state_keys is None)
        self._http_served = False
        if store is not None and store != "memory":
            from mcpkit.redis.backend import backend_from

            self.store_backend = backend_from(store)
            self.store_backend.attach(name)
            if bus is None:
                bus = self.store_backend.bus()
            if tasks is None:
                from mcpkit.server.tasks import TaskManager

                tasks = TaskManager(debug=debug, store=self.store_backend.task_store())
            if request_state_keys is None:
                request_state_keys = self.store_backend.key_ring()
        self.name = name
        self.version = version
        self.instructions = instructions
        self.debug = debug
        self._mask_errors = mask_setting(mask_errors)
        self.server_info: JSONObject = {"name": name, "version": version}
        if title:
            self.server_info["title"] = title
        if description:
            self.server_info["description"] = description
        if icons:
            self.server_info["icons"] = [wire_dict(i, "icon") for i in icons]
        if website_url:
            self.server_info["websiteUrl"] = website_url
        self.tools = ToolRegistry(page_size, Context, lambda: self._changed("tools"))
        self.tools.default_concurrency = (max_tool_concurrency, max_tool_queued)
        self.tools.inline_refs = inline_schema_refs
        self.tools.default_timeout = check_timeout(tool_timeout)
        self.resources = ResourceRegistry(page_size, Context, lambda: self._changed("resources"))
        self.prompts = PromptRegistry(page_size, Context, lambda: self._changed("prompts"))
        self.tools.owner = self.resources.owner = self.prompts.owner = self
        #: Adds and removes tools, resources and prompts (tags, app links included).
        self.registration: Registration = Registration(
            self.tools, self.resources, self.prompts, self._control, self._app_link
        )
        self.completions = CompletionRegistry(
            self.prompts, self.resources, on_change=self._forget_tables
        )
        #: Live, started sessions.
        self.sessions: set[AppSession] = set()
        #: Where list changes and resource updates are published (a shared bus, e.g. Redis,
        #: reaches the sessions and listen streams of every replica).
        self.bus: NotificationBus = bus if bus is not None else MemoryBus()
        #: This process's one subscription to :attr:`bus`, fanned out to its sessions and
        #: ``subscriptions/listen`` streams.
        self.relay = BusRelay(
            self.bus, (functools.partial(subscriptions.deliver_to_sessions, self),)
        )
        self._lifespan = lifespan
        self._lifespan_state: LifespanT | None = None
        self._lifespan_depth = 0
        self._lifespan_stack: contextlib.AsyncExitStack | None = None
        self._raw_handlers: dict[str, ServerHandler] = {}
        self._raw_notifications: dict[str, NotificationHandler] = {}
        self._roots_hooks: list[RootsChangedHook] = []
        #: The bounded pool sync tools, prompts, resources and completions run in.
        self.workers = WorkerPool(
            max_workers or min(32, (os.cpu_count() or 1) + 4), thread_name_prefix="mcpkit-tool"
        )
        self._tables: dict[tuple[bool, ...], dict[str, ServerHandler]] = {}
        #: The table :meth:`handler_table` last gave (None: to be found again).
        self._table: dict[str, ServerHandler] | None = None
        #: The middleware chain, outermost first (see :meth:`add_middleware`).
        self.middleware: list[MiddlewareLike] = list(middleware)
        self._http_gates = False
        self._caps: dict[tuple[str, tuple[bool, ...]], JSONObject] = {}
        #: True once :meth:`log_handler` made a logging bridge (records then follow requests).
        self.log_bridge = False
        declared = frozenset(declare)
        if not declared <= _FEATURES:
            raise ValueError(
                f"declare: unknown feature(s) {', '.join(sorted(declared - _FEATURES))}"
            )
        self._declared: frozenset[str] = declared
        self._task_manager = tasks
        #: A :class:`mcpkit.auth.ResourceServer` protecting :meth:`http_app` with OAuth (an
        #: :class:`mcpkit.auth.APIKeyVerifier` becomes a key-only one). What a request keeps
        #: (sessions, tasks, streams) belongs to its principal however the token was checked
        #: (:mod:`mcpkit.owner`). An authorization server or OAuth proxy given as ``auth``
        #: serves its endpoints beside the MCP endpoint and protects it with its resource
        #: server.
        installer = getattr(auth, "install", None) if auth is not None else None
        if installer is not None:
            auth = auth.resource_server()
        if auth is not None:
            from mcpkit.auth.server import as_resource_server

            auth = as_resource_server(auth)
        self.auth = auth
        #: The stateless revisions served (empty: legacy only).
        self.modern_versions = modern_versions
        #: The prototypes new sessions are copied from (kept by
        #: :mod:`mcpkit.server.request_sessions`, by kind: "modern", "new", "legacy <version>").
        self.session_prototypes: dict[str, Any] = {}
        #: Default caching hints of cacheable modern results.
        self.cache_default = (
            DEFAULT_HINTS
            if ttl_ms is None and cache_scope is None
            else CacheHints(ttl_ms or 0, cache_scope or "private")
        )
        self._hints: dict[str, CacheHints] = {}
        self._request_state: RequestStateSealer | None = None
        if request_state_keys is not None:  # checked now; the default is made on first use
            self._request_state = _sealer(request_state_keys)
        #: Most MRTR rounds one request may take.
        self.max_rounds = max_rounds
        #: Extensions advertised in ``capabilities.extensions`` (id -> settings).
        self.extensions: dict[str, dict[str, Any]] = {
            k: dict(v) for k, v in (extensions or {}).items()
        }
        self._skills: SkillRegistry | None = None
        self._components: ComponentControl | None = None
        #: Replacements of ``Depends`` functions (original -> replacement), for tests: see
        #: :mod:`mcpkit.server.dependencies`.
        self.dependency_overrides: dict[Callable[..., Any], Callable[..., Any]] = {}
        self._custom_routes: list[tuple[str, list[str] | None, Callable[..., Any], str | None]] = []
        if installer is not None:
            installer(self)
        if include_tags is not None or exclude_tags is not None:
            self._components = components_feature.ComponentControl(self, include_tags, exclude_tags)
        #: Where ``ctx.state`` keeps values (made on first use: see :attr:`state_store`).
        self._state_store: StateStore | None = None
        #: Seconds a ``ctx.state`` value set without a ttl lives after its last use.
        self.state_ttl: float = check_state_ttl(state_ttl) or DEFAULT_STATE_TTL
        #: Largest ``ctx.state`` value, in bytes of JSON.
        self.state_max_bytes = MAX_STATE_BYTES
        self._session_visibility = bool(session_visibility)
        self._tool_search: tool_search_feature.Installed | None = None
        if tool_search is not None:
            tool_search_feature.enable(self, tool_search)

    @property
    def mask_errors(self) -> bool:
        """Whether an unexpected exception of a tool, resource or prompt answers only a
        generic message and an error id (see :mod:`mcpkit.server.masking`): ``mask_errors=``,
        else ``MCPKIT_MASK_ERRORS``, else ``not debug``."""
        explicit = self._mask_errors
        return not self.debug if explicit is None else explicit

    @mask_errors.setter
    def mask_errors(self, value: bool | None) -> None:
        self._mask_errors = value

    @property
    def task_manager(self) -> TaskManager:
        """Runs task-augmented tool calls (tools registered with ``task_support``); made
        on first use unless given as ``tasks=``."""
        manager = self._task_manager
        if manager is None:
            from mcpkit.server.tasks import TaskManager

            manager = self._task_manager = TaskManager(debug=self.debug)
        return manager

    @task_manager.setter
    def task_manager(self, manager: TaskManager) -> None:
        self._task_manager = manager

    @property
    def session_visibility(self) -> bool:
        """Whether lists and calls apply each caller's ``ctx.enable``/``ctx.disable`` rules
        (:mod:`mcpkit.server.visibility`): set by ``Server(session_visibility=True)`` or the
        first such call in this process."""
        return self._session_visibility

    @session_visibility.setter
    def session_visibility(self, on: bool) -> None:
        if bool(on) != self._session_visibility:
            self._session_visibility = bool(on)
            self._reinstall()

    @property
    def state_store(self) -> StateStore:
        """Where ``ctx.state`` keeps values (:mod:`mcpkit.server.state`): the shared store's
        Redis when the server has one, else this process's memory; made on first use."""
        store = self._state_store
        if store is None:
            from mcpkit.server.state_store import MemoryStateStore, RedisStateStore

            backend = self.store_backend
            store = self._state_store = (
                MemoryStateStore(self.state_ttl)
                if backend is None
                else RedisStateStore(backend, self.state_ttl)
            )
        return store

    @state_store.setter
    def state_store(self, store: StateStore) -> None:
        self._state_store = store

    @property
    def request_state(self) -> RequestStateSealer:
        """Seals MRTR ``requestState`` (one per server, shared by every session); made on
        first use, with fresh keys, unless ``request_state_keys=`` gave them."""
        sealer = self._request_state
        if sealer is None:
            sealer = self._request_state = _sealer(None)
        return sealer

    @request_state.setter
    def request_state(self, sealer: RequestStateSealer) -> None:
        self._request_state = sealer

    def use_store(self, store: str | RedisBackend) -> None:
        """Keep this server's shared state in ``store`` (a ``redis://`` or
        ``redis+cluster://`` URL, or a :class:`mcpkit.redis.RedisBackend`) exactly as
        ``Server(store=...)`` does: the bus, 2025 sessions and their event log, tasks and the
        MRTR sealing keys (those not given to the constructor). For a store chosen at
        deployment (``mcpkit run --store``): call it before the server serves; RuntimeError
        once it serves (lifespan entered, sessions, an HTTP app made) or has a store."""
        if self.store_backend is not None:
            raise RuntimeError(f"the server already has a store ({self.store_backend!r})")
        if self.lifespan_running or self.sessions or self.relay.running or self._http_served:
            raise RuntimeError(
                "the server is already serving: attach the store before it starts "
                "(before run(), http_app() or running())"
            )
        from mcpkit.redis.backend import backend_from

        backend = backend_from(store)
        backend.attach(self.name)
        self._state_store = None  # state now lives in the store
        own_bus, own_tasks, own_keys = self._store_defaults
        keys = backend.key_ring() if own_keys else None  # may fail: then nothing changed
        self.store_backend = backend
        if own_bus:
            self.bus = backend.bus()
            self.relay = BusRelay(self.bus, tuple(self.relay.sinks))
        if own_tasks:
            if self._task_manager is None:
                from mcpkit.server.tasks import TaskManager

                self._task_manager = TaskManager(debug=self.debug, store=backend.task_store())
            else:
                self._task_manager.store = backend.task_store()
        if keys is not None:
            self._request_state = _sealer(keys)

    @classmethod
    def proxy(cls, target: Any, **options: Any) -> ProxyServer:
        """Deprecated: ``mcpkit.proxy.ProxyServer(target, **options)``, which this returns."""
        import warnings

        warnings.warn(
            "Server.proxy(target) is deprecated: use mcpkit.proxy.ProxyServer(target)",
            DeprecationWarning,
            stacklevel=2,
        )
        from mcpkit.proxy import ProxyServer

        return ProxyServer(target, **options)

    @staticmethod
    def from_openapi(
        spec: Any,
        *,
        client: Any = None,
        route_filter: Callable[[Route], bool] | None = None,
        names: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Server[Any]:
        """A server whose tools are the operations of an OpenAPI 3.x document (a dict, JSON
        text or a path), called with ``client`` (an ``httpx.AsyncClient``); ``route_filter``
        picks operations, ``names`` renames them (by operationId or ``"GET /path"``).
        ``options``: ``base_url``, ``output_schemas``, ``name``, ``version`` and Server
        options; see :mod:`mcpkit.server.openapi`."""
        from mcpkit.server.openapi import from_openapi

        return from_openapi(spec, client=client, route_filter=route_filter, names=names, **options)

    @staticmethod
    def from_fastapi(
        app: Any,
        *,
        route_filter: Callable[[Route], bool] | None = None,
        names: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Server[Any]:
        """A server whose tools are the operations of a FastAPI app, called in this process
        (through ``httpx.ASGITransport``, the app's lifespan run inside the server's);
        ``route_filter``, ``names`` and ``options`` as for :meth:`from_openapi`; see
        :func:`mcpkit.server.openapi.from_fastapi`."""
        from mcpkit.server.openapi import from_fastapi

        return from_fastapi(app, route_filter=route_filter, names=names, **options)

    # -- registration ---------------------------------------------------------------------------

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(self, name: str | None = None, **options: Unpack[ToolKwargs]) -> Callable[[F], F]: ...

    def tool(
        self, name: str | F | None = None, **options: Unpack[ToolKwargs]
    ) -> Callable[[F], F] | F:
        """Register a function (sync or async) as a tool: ``@app.tool`` or
        ``@app.tool(...)`` with the options of :class:`~mcpkit.server.tool_options.ToolOptions`.

        The name defaults to the function's name and the description to its docstring; the
        input schema comes from the type hints (or ``input_schema``), the output schema from
        the return annotation (``structured_output=False`` turns it off). ``annotations``
        (``ToolAnnotations`` or a dict), ``task_support`` (run as a task, docs/tasks.md),
        ``task_start="explicit"`` (a task only at ``await ctx.start_task()``),
        ``ttl_ms``/``cache_scope`` (2026-07-28 caching hints), ``max_concurrency``/
        ``max_queued`` (-31503 beyond), ``inline_refs``, ``timeout`` (seconds; the client
        gets an ``isError`` result), ``tags`` (:mod:`~mcpkit.server.components`), ``ui``/
        ``visibility`` (:mod:`~mcpkit.server.mcp_apps`) and ``scopes``
        (:mod:`~mcpkit.server.scopes`): see docs/server.md.
        """
        if callable(name):
            self.registration.add_tool(name, ToolOptions())
            return name
        tool_options = ToolOptions.of(name=name, **options)

        def decorator(fn: F) -> F:
            self.registration.add_tool(fn, tool_options)
            return fn

        return decorator

    def add_tool(
        self, fn: Callable[..., Any], name: str | None = None, **options: Unpack[ToolKwargs]
    ) -> None:
        """Register ``fn`` as a tool (same options as :meth:`tool`)."""
        self.registration.add_tool(fn, ToolOptions.of(name=name, **options))

    def add_resource(
        self, fn: Callable[..., Any], uri: str, **options: Unpack[ResourceKwargs]
    ) -> None:
        """Register ``fn`` for the resource or template ``uri`` (same options as
        :meth:`resource`)."""
        self.registration.add_resource(fn, uri, dict(options))

    def add_prompt(
        self, fn: Callable[..., Any], name: str | None = None, **options: Unpack[PromptKwargs]
    ) -> None:
        """Register ``fn`` as a prompt (same options as :meth:`prompt`)."""
        self.registration.add_prompt(fn, {"name": name, **options})

    # -- component control ----------------------------------------------------------------------

    @property
    def components(self) -> ComponentControl:
        """Tags, the tag filter and what is enabled (see :mod:`mcpkit.server.components`)."""
        control = self._components
        if control is None:
            control = self._components = components_feature.ComponentControl(self)
        return control

    def _control(self, make: bool) -> ComponentControl | None:
        return self.components if make else self._components

    @property
    def component_control(self) -> ComponentControl | None:
        """The component control once anything made one (None: no tag, filter or switch)."""
        return self._components

    def _app_link(
        self, tool: str, meta: dict[str, Any] | None, ui: str | None, visibility: Any
    ) -> dict[str, Any] | None:
        return apps_feature.tool_meta(self, tool, meta, ui, visibility)

    def enable_tool(self, name: str) -> None:
        """Serve a tool :meth:`disable_tool` hid (unless its tags are filtered out);
        clients get ``notifications/tools/list_changed``."""
        self.components.set_enabled("tools", name, True)

    def disable_tool(self, name: str) -> None:
        """Stop serving a tool (it stays registered): it leaves ``tools/list`` and a call of
        it is an unknown tool; clients get ``notifications/tools/list_changed``."""
        self.components.set_enabled("tools", name, False)

    def enable_prompt(self, name: str) -> None:
        """Serve a prompt :meth:`disable_prompt` hid."""
        self.components.set_enabled("prompts", name, True)

    def disable_prompt(self, name: str) -> None:
        """Stop serving a prompt (it stays registered)."""
        self.components.set_enabled("prompts", name, False)

    def enable_resource(self, uri: str) -> None:
        """Serve a resource or template :meth:`disable_resource` hid."""
        self.components.set_enabled(self.registration.resource_kind(uri), uri, True)

    def disable_resource(self, uri: str) -> None:
        """Stop serving a resource or template (by its URI or URI template)."""
        self.components.set_enabled(self.registration.resource_kind(uri), uri, False)

    def enable(self, *, tags: Iterable[str] | str) -> None:
        """Serve the components with these tags again: the tags leave the exclusion (and
        join ``include_tags`` when the server has them). Clients get list-changed."""
        self.components.set_filter(enable=tags_of(tags), disable=frozenset())

    def disable(self, *, tags: Iterable[str] | str) -> None:
        """Stop serving every component with one of these tags (now and when registered
        later). Clients get list-changed."""
        self.components.set_filter(enable=frozenset(), disable=tags_of(tags))

    def transform_tool(
        self,
        source: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        args: Mapping[str, ArgTransform] | None = None,
        wrap: Wrap | None = None,
        keep_original: bool = True,
        **options: Any,
    ) -> ToolEntry:
        """Register a new tool made from the tool ``source`` (of this server or a mounted
        one, by its name here): renamed, re-described, with arguments renamed, hidden, fixed
        or given new defaults (``args``, by the original's argument names), and ``wrap``
        (``wrap(arguments, call_next)``) around the call. ``keep_original=False`` stops
        serving a local ``source``. Other options as :meth:`tool`. See
        :mod:`mcpkit.server.transforms`."""
        from mcpkit.server.transforms import transform_tool

        return transform_tool(
            self,
            source,
            name=name,
            title=title,
            description=description,
            args=args,
            wrap=wrap,
            keep_original=keep_original,
            **options,
        )

    def tool_transform(self, source: str, **options: Any) -> Callable[[F], F]:
        """``@app.tool_transform("search", name="find", ...)`` on a ``wrap`` function: the
        same as :meth:`transform_tool` with ``wrap=`` the decorated function."""

        def decorator(fn: F) -> F:
            self.transform_tool(source, wrap=fn, **options)
            return fn

        return decorator

    def add_resource_tools(
        self, list_name: str = "list_resources", read_name: str = "read_resource"
    ) -> None:
        """Add tools that list and read this server's resources (``list_name``, and
        ``read_name`` taking ``uri``), for clients that only call tools; they answer what
        ``resources/list``, ``resources/templates/list`` and ``resources/read`` answer (see
        :mod:`mcpkit.server.component_tools`)."""
        from mcpkit.server.component_tools import add_resource_tools

        add_resource_tools(self, list_name, read_name)

    def add_prompt_tools(
        self, list_name: str = "list_prompts", get_name: str = "get_prompt"
    ) -> None:
        """Add tools that list and get this server's prompts (``list_name``, and
        ``get_name`` taking ``name`` and ``arguments``), for clients that only call tools
        (see :mod:`mcpkit.server.component_tools`)."""
        from mcpkit.server.component_tools import add_prompt_tools

        add_prompt_tools(self, list_name, get_name)

    def remove_tool(self, name: str) -> None:
        """Unregister a tool; connected clients get ``notifications/tools/list_changed``."""
        self.registration.remove_tool(name)

    def resource(self, uri: str, **options: Unpack[ResourceKwargs]) -> Callable[[F], F]:
        """Register a resource (``"file:///x"``) or a template (``"weather://{city}/current"``).

        Template variables are passed to the function as typed arguments. The function returns
        ``str`` (text), ``bytes`` (a base64 blob), contents dicts/models, or any JSON-able value.
        ``ttl_ms``/``cache_scope``: caching hints of its ``resources/read`` (2026-07-28);
        ``tags`` and ``scopes`` as for :meth:`tool`.
        """

        def decorator(fn: F) -> F:
            self.registration.add_resource(fn, uri, dict(options))
            return fn

        return decorator

    def ui(self, uri: str, **options: Unpack[UiKwargs]) -> Callable[[F], F]:
        """Register an MCP App: a function returning the HTML (str) of the ``ui://``
        resource ``uri``, served as ``text/html;profile=mcp-app`` with its ``_meta.ui``:
        ``csp`` (a :class:`mcpkit.apps.Csp` or a dict of its domain lists), ``permissions``
        (``["camera", "microphone", "geolocation", "clipboardWrite"]``), ``domain`` and
        ``prefers_border``. Link tools to it with ``@app.tool(ui=uri)`` (see
        :mod:`mcpkit.server.mcp_apps`)."""

        def decorator(fn: F) -> F:
            self.add_ui(uri, fn, **options)
            return fn

        return decorator

    def add_ui(
        self,
        uri: str,
        html: str | os.PathLike[str] | Callable[..., Any],
        **options: Unpack[UiKwargs],
    ) -> None:
        """Register the MCP App ``uri`` serving ``html``: a string, a path (read at each
        ``resources/read``, so edits show at once) or a function (same options as
        :meth:`ui`)."""
        import pathlib

        source = pathlib.Path(html) if isinstance(html, os.PathLike) else html
        apps_feature.register_ui(self, uri, source, **cache_keywords(dict(options)))

    def remove_resource(self, uri: str) -> None:
        """Unregister a resource or template; clients get ``resources/list_changed``."""
        self.registration.remove_resource(uri)

    @overload
    def prompt(self, name: F, /) -> F: ...

    @overload
    def prompt(
        self, name: str | None = None, **options: Unpack[PromptKwargs]
    ) -> Callable[[F], F]: ...

    def prompt(
        self, name: str | F | None = None, **options: Unpack[PromptKwargs]
    ) -> Callable[[F], F] | F:
        """Register a prompt (``@app.prompt`` or ``@app.prompt(...)`` with options); its
        arguments come from the function's parameters. ``tags`` and ``scopes`` as for
        :meth:`tool`."""
        if callable(name):
            self.registration.add_prompt(name, {})
            return name

        def decorator(fn: F) -> F:
            self.registration.add_prompt(fn, {"name": name, **options})
            return fn

        return decorator

    # -- skills (io.modelcontextprotocol/skills) ----------------------------------------------

    @property
    def skills(self) -> SkillRegistry:
        """The skills this server serves (see :mod:`mcpkit.server.skills`)."""
        registry = self._skills
        if registry is None:
            from mcpkit.server.skills import SkillRegistry

            registry = self._skills = SkillRegistry(self)
        return registry

    def add_skill(
        self,
        source: FileSource,
        *,
        path: str | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> Skill:
        """Serve a skill (the Skills extension): ``source`` is its directory (read at each
        request) or a mapping of relative file paths to text or bytes (a snapshot).
        ``path``: where it lives in the skill namespace (``"acme/billing/refunds"``; default
        the directory's name); its last segment must be the ``name`` of its ``SKILL.md``
        frontmatter. ``ttl_ms``/``cache_scope``: caching hints of its entries (2026-07-28).
        The files are served as ``skill://<path>/<file>`` resources; ``skills/list``,
        ``skills/get`` and ``resources/directory/read`` are answered (see
        :mod:`mcpkit.server.skills`)."""
        return self.skills.add(source, path=path, cache=item_hints(ttl_ms, cache_scope))

    def add_skills(
        self,
        root: str | os.PathLike[str],
        *,
        prefix: str | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> list[Skill]:
        """Serve every directory under ``root`` that holds a ``SKILL.md`` (nested skills
        too), each at its path relative to ``root``, under ``prefix`` when given."""
        return self.skills.add_tree(root, prefix=prefix, cache=item_hints(ttl_ms, cache_scope))

    def skill(
        self,
        path: str,
        *,
        dynamic: bool = False,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> Callable[[F], F]:
        """Serve the skill a function returns (a directory or a mapping of files) at
        ``path``. The function is called once, now; with ``dynamic=True`` it is called (sync
        or async) at each request instead, and the skill's entries say
        ``"resources": "dynamic"`` (no digests: hosts may decline it)."""

        def decorator(fn: F) -> F:
            cache = item_hints(ttl_ms, cache_scope)
            if dynamic:
                self.skills.add(path=path, dynamic=fn, cache=cache)
            else:
                self.skills.add(fn(), path=path, cache=cache)
            return fn

        return decorator

    def remove_skill(self, path_or_uri: str) -> None:
        """Stop serving a skill (by path or ``SKILL.md`` URI); clients get
        ``resources/list_changed``."""
        self.skills.remove(path_or_uri)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt; clients get ``notifications/prompts/list_changed``."""
        self.registration.remove_prompt(name)

    def completion(
        self,
        *,
        prompt: str | None = None,
        resource_template: str | None = None,
        argument: str | None = None,
    ) -> Callable[[F], F]:
        """Register a completion handler for a prompt argument or a template variable.

        The handler is ``fn(value)`` or ``fn(value, arguments)`` (the already resolved
        ``context.arguments``) and returns a list of strings (or a dict with ``values``,
        ``total``, ``hasMore``); sync or async. Without ``argument`` it serves every argument
        of that prompt/template as ``fn(argument, value, arguments)``.
        """

        def decorator(fn: F) -> F:
            self.completions.add(
                fn, prompt=prompt, resource_template=resource_template, argument=argument
            )
            return fn

        return decorator

    def custom_route(
        self, path: str, methods: Iterable[str] | None = None, *, name: str | None = None
    ) -> Callable[[F], F]:
        """Serve a plain HTTP route beside the MCP endpoint of :meth:`http_app` (and
        ``run("http")``): a Starlette-style handler taking a ``starlette.requests.Request``
        and returning a ``starlette.responses.Response``, sync or async. ``path`` may have
        parameters (``"/items/{id}"``, in ``request.path_params``); ``methods`` default to
        GET (and HEAD). The route is not behind the endpoint's Host/Origin or OAuth checks
        (see :mod:`mcpkit.transports.http.routes`)."""
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"a route path starts with '/', not {path!r}")
        chosen = None if methods is None else [m.upper() for m in methods]

        def decorator(fn: F) -> F:
            self._custom_routes.append((path, chosen, fn, name))
            return fn

        return decorator

    def on_roots_changed(self, fn: F) -> F:
        """Call ``fn(session)`` when a client sends ``notifications/roots/list_changed``."""
        self._roots_hooks.append(fn)
        return fn

    def request_handler(self, method: str) -> Callable[[F], F]:
        """Low level: serve ``method`` with a raw ``async (params, request_ctx) -> dict``.

        Replaces the built-in handler for that method, if any.
        """

        def decorator(fn: F) -> F:
            self._raw_handlers[method] = fn
            self._reinstall()
            return fn

        return decorator

    def add_middleware(self, middleware: MiddlewareLike) -> None:
        """Run ``middleware`` around every request and notification (see
        :mod:`mcpkit.server.middleware`): a :class:`~mcpkit.server.middleware.Middleware`
        or an ``async (ctx, call_next) -> result`` function. The first added is the
        outermost. Live sessions' requests go through it from now on; their notifications
        only on sessions made after."""
        if not callable(middleware) and not hasattr(middleware, "hooks_for"):
            raise TypeError(
                "middleware must be a Middleware or an async (ctx, call_next) function, "
                f"not {type(middleware).__name__}"
            )
        self.middleware.append(middleware)
        self._reinstall()

    @property
    def declared(self) -> frozenset[str]:
        """Features declared even while nothing is registered for them (``declare=``)."""
        return self._declared

    @declared.setter
    def declared(self, features: frozenset[str]) -> None:
        self._declared = frozenset(features)
        self._table = None

    def _forget_tables(self) -> None:
        # Something the handler table is made of changed: found again on the next request.
        self._tables.clear()
        self._table = None

    def _reinstall(self) -> None:
        self._forget_tables()
        table = self.handler_table()
        for session in list(self.sessions):
            session.install(table)

    def _chain(self) -> list[MiddlewareLike]:
        if not self._http_gates:
            return self.middleware
        from mcpkit.server.middleware.concurrency import http_gate

        return [http_gate, *self.middleware]

    @property
    def wraps_handlers(self) -> bool:
        """True when middleware (or an HTTP concurrency gate) wraps the handlers: sessions
        are then made by :meth:`session`, not copied from a prototype."""
        return self._http_gates or bool(self.middleware)

    @property
    def notification_handler_count(self) -> int:
        """How many notification handlers :meth:`notification_handler` registered (a
        session prototype made before one more is stale)."""
        return len(self._raw_notifications)

    def notification_handler(self, method: str) -> Callable[[F], F]:
        """Low level: call ``fn(params)`` (sync or async) for each ``method`` notification."""

        def decorator(fn: F) -> F:
            self._raw_notifications[method] = fn
            return fn

        return decorator

    def log_handler(self, level: int = logging.NOTSET) -> logging.Handler:
        """A :mod:`logging` handler that forwards records to clients as log notifications."""
        self.log_bridge = True
        return McpLogHandler(self, level)

    def mount(self, server: Server[Any], prefix: str | None = None) -> Mount:
        """Serve ``server``'s tools, prompts, resources and templates from this one, under
        ``prefix`` (tool ``forecast`` -> ``weather_forecast``, resource ``file:///x`` ->
        ``weather+file:///x``; None keeps names and URIs, refusing collisions). Live (what
        ``server`` registers later appears), with its notifications, Context features and
        lifespan forwarded; see :mod:`mcpkit.server.mount`. Returns the
        :class:`~mcpkit.server.mount.Mount` (``.unmount()``)."""
        from mcpkit.server.mount import mount

        return mount(self, server, prefix)

    # -- notifications to clients ---------------------------------------------------------------

    def _changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        self._forget_tables()
        self._hints.clear()
        self._caps.clear()
        table = self.handler_table()
        for session in list(self.sessions):
            session.install(table)
        if self.relay.running:  # registering before serving tells no one (no replica either)
            self.notify_list_changed(kind)

    @contextlib.asynccontextmanager
    async def hold_resources(self, uris: Collection[str]) -> AsyncIterator[None]:
        """Keep the updates of ``uris`` flowing to this server's bus for the block. A local
        server's updates always do; a server that must ask its source for them (a proxy)
        overrides this."""
        yield

    def notify_list_changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        """Announce that the ``kind`` list changed for a reason registration does not see
        (tools that differ per user, a catalogue reloaded from disk): 2025-era clients get
        ``notifications/<kind>/list_changed``, 2026 ``subscriptions/listen`` streams that
        asked for it likewise. Registering and removing announce themselves. Safe to call
        from any thread; goes through :attr:`bus` (so every replica's clients hear it)."""
        if kind not in subscriptions.LIST_KINDS:
            raise ValueError(f"kind must be one of {', '.join(subscriptions.LIST_KINDS)}")
        self.relay.publish(BusEvent.list_changed(kind))

    def notify_resource_updated(self, uri: str) -> None:
        """Announce that the resource at ``uri`` changed: ``notifications/resources/updated``
        to the 2025-era sessions subscribed to ``uri`` and the ``subscriptions/listen``
        streams watching it. Safe to call from any thread; goes through :attr:`bus`."""
        self.relay.publish(BusEvent.resource_updated(uri))

    async def end_listens(self) -> None:
        """End this process's ``subscriptions/listen`` streams gracefully (each answers its
        closing result); clients re-listen elsewhere. Shutdown does it for you."""
        self.relay.end_listens()
        for _ in range(3):  # let each listen answer before its transport goes
            await asyncio.sleep(0)

    def session_closed(self, session: AppSession) -> None:
        """Forget a session that closed: out of :attr:`sessions`, its ``ctx.state`` values
        dropped (when some handler used ``ctx.state``)."""
        self.sessions.discard(session)
        state = self._state_store
        if state is not None:
            state.session_closed(session)

    async def send_log(self, level: str, data: Any, logger_name: str | None = None) -> None:
        """Log to every connected client (each filtered by its own level)."""
        for session in list(self.sessions):
            await session.send_log(level, data, logger_name)

    # -- lifespan -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Server[LifespanT]]:
        """Enter the lifespan (nested entries share one); stdio and HTTP do this for you."""
        if self._lifespan_depth == 0:
            apps_feature.check_links(self)
        if self._lifespan_depth == 0 and self._lifespan is not None:
            stack = contextlib.AsyncExitStack()
            self._lifespan_state = await stack.enter_async_context(self._lifespan(self))
            self._lifespan_stack = stack
        self._lifespan_depth += 1
        self.relay.start()
        try:
            yield self
        finally:
            self._lifespan_depth -= 1
            if self._lifespan_depth == 0:
                self.relay.stop()  # listen streams end gracefully
                stack_ = self._lifespan_stack
                self._lifespan_stack = None
                if stack_ is not None:
                    await stack_.aclose()
                self._lifespan_state = None
                if self._task_manager is not None:
                    await self._task_manager.shutdown()
                self.workers.shutdown()

    @property
    def lifespan_state(self) -> LifespanT:
        """What the lifespan yielded (None without a lifespan); RuntimeError when the server
        has one and it is not entered."""
        if self._lifespan is not None and self._lifespan_depth == 0:
            raise RuntimeError(
                "The server's lifespan is not running: use `async with app.running():` "
                "(app.run() and the HTTP app enter it for you)"
            )
        return cast("LifespanT", self._lifespan_state)

    @property
    def lifespan_running(self) -> bool:
        """True while the lifespan is entered (:meth:`running`; stdio and HTTP enter it)."""
        return self._lifespan_depth > 0

    # -- sessions -------------------------------------------------------------------------------

    def _features(self) -> Features:
        tools, resources = self.tools, self.resources
        return features_of(
            tools=len(tools.tools),
            resources=len(resources.resources),
            templates=len(resources.templates),
            prompts=len(self.prompts.prompts),
            completions=self.completions.any,
            task_tools=tools.task_tools,
            declared=self.declared,
        )

    def capabilities(self, version: ProtocolVersion = versions.LATEST) -> JSONObject:
        """The capabilities this server declares to a client on ``version``."""
        features = self._features()
        key = (version.name, features)
        caps = self._caps.get(key)
        if caps is None:
            caps = declare(version, features, modern=bool(self.modern_versions))
            apps_feature.advertise(self, caps)
            if self._skills is not None:
                self._skills.advertise(caps)
            mounts = self.__dict__.get("_mcpkit_mounts")
            if mounts is not None:  # skills of mounted servers
                from mcpkit.server.mount_skills import advertise

                advertise(mounts, caps, version)
            self._caps[key] = caps
        return caps

    def handler_table(self) -> Mapping[str, ServerHandler]:
        """The request handlers of what is registered now, collected from the features (and
        :meth:`request_handler`'s, which replace them); kept until a registration changes."""
        table = self._table
        if table is not None:  # every request asks: nothing changed since the last one
            return table
        features = self._features()
        table = self._tables.get(features)
        if table is not None:
            self._table = table
            return table
        tools, resources, prompts, completions, tasks = features
        table = log_feature.handlers()
        if tools:
            table.update(self.tools.handlers())
            apps_feature.install_visibility(self, table)
        if resources:
            table.update(self.resources.handlers())
            if self._skills is not None:
                table.update(self._skills.handlers())
        if prompts:
            table.update(self.prompts.handlers())
        if completions:
            table.update(self.completions.handlers())
        if tasks:
            for method, handler in self.task_manager.handlers().items():
                table[method] = tasks_core.tasks_only(handler)
        if self.modern_versions:
            table[DISCOVER_METHOD] = self._discover
            table.update(subscriptions.handlers())
        chain = self._chain()
        if chain:
            from mcpkit.server.middleware.chain import ping, serve_initialize

            table.setdefault("ping", ping)
            table.setdefault("initialize", serve_initialize)
        table.update(self._raw_handlers)
        # per-user visibility, around raw handlers too (a mount's); nothing when unused
        scopes_feature.install(self, table, replaced=self._raw_handlers)
        if self._session_visibility:  # each caller's ctx.enable/ctx.disable rules
            from mcpkit.server import visibility

            visibility.install(self, table)
        if self._tool_search is not None:  # lists the pinned tools only (nothing when off)
            self._tool_search.install(table)
        if chain:
            from mcpkit.server.middleware.chain import wrap_request

            table = {method: wrap_request(method, h, chain, self) for method, h in table.items()}
        self._tables[features] = self._table = table
        return table

    def cache_hints(self, method: str) -> CacheHints:
        """The caching hints of a cacheable ``method``'s result when its handler set none:
        a list's combine its items' (:meth:`CacheHints.combine`; an item without its own
        has the server's), anything else the server's default. Kept until a registration
        changes."""
        hints = self._hints.get(method)
        if hints is not None:
            return hints
        default = self.cache_default
        items: list[CacheHints | None]
        if method == "tools/list":
            items = [t.cache for t in self.tools.tools.values()]
        elif method == "prompts/list":
            items = [p.cache for p in self.prompts.prompts.values()]
        elif method == "resources/list":
            items = [r.cache for r in self.resources.resources.values()]
        elif method == "resources/templates/list":
            items = [r.cache for r in self.resources.templates.values()]
        else:
            items = []
        hints = CacheHints.combine(*(h or default for h in items)) if items else default
        self._hints[method] = hints
        return hints

    def discover(self) -> JSONObject:
        """The ``server/discover`` result: the modern versions served, the capabilities of
        what is registered now (and :attr:`extensions`), instructions, caching hints."""
        return discover_result(
            server_info=self.server_info,
            capabilities=self.capabilities(self.modern_versions[0]),
            supported_versions=self.modern_versions,
            instructions=self.instructions,
            extensions=(
                {**self.extensions, tasks_extension.EXTENSION_ID: {}}
                if self.tools.task_tools
                else self.extensions
            ),
            cache=self.cache_hints(DISCOVER_METHOD),
        )

    async def _discover(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        return self.discover()

    def served_app(self) -> ServerServedApp:
        """What this server hands the Streamable HTTP app serving it (see
        :mod:`mcpkit.transports.http.served`)."""
        from mcpkit.server.http_served import ServerServedApp

        return ServerServedApp(self)

    def session(
        self, transport: Transport, *, era: Era | None = None, **session_kwargs: Any
    ) -> AppSession:
        """A server session on ``transport`` with all of this server's handlers (not started).

        ``era``: None lets the first request decide (``initialize``: legacy; a request with
        the modern ``_meta`` envelope: modern); ``"modern"`` serves only stateless requests
        (a per-request session of Streamable HTTP); ``"legacy"`` only the handshake era.
        ``session_kwargs`` go to :class:`~mcpkit.session.ServerSession` (``tracer``,
        ``max_in_flight``, ``default_timeout``, ...).
        """
        session_kwargs.setdefault("debug", self.debug)
        session = AppSession(
            self,
            transport,
            server_info=self.server_info,
            capabilities=self.capabilities,
            instructions=self.instructions,
            **session_kwargs,
        )
        session.install(self.handler_table())
        self.relay.start()
        session.set_notification_handler(
            "notifications/roots/list_changed", functools.partial(self._roots_changed, session)
        )
        for method, nhandler in self._raw_notifications.items():
            session.set_notification_handler(method, nhandler)
        chain = self._chain()
        if chain:
            from mcpkit.server.middleware.chain import wrap_notification

            for method, nhandler in list(session._notification_handlers.items()):
                session.set_notification_handler(
                    method,
                    wrap_notification(
                        method,
                        nhandler,
                        chain,
                        session,
                        eager=method == "notifications/initialized",
                    ),
                )
        if era == "modern":
            session.enter_modern()
        elif era == "legacy":
            session.era = "legacy"
        elif era is not None:
            raise ValueError(f"era must be 'legacy', 'modern' or None, not {era!r}")
        return session

    # -- running --------------------------------------------------------------------------------

    @overload
    def run(self, transport: Literal["stdio"] | None = None, **session_kwargs: Any) -> None: ...

    @overload
    def run(
        self,
        transport: Literal["http", "streamable-http", "sse"],
        *,
        log_level: str | None = None,
        host: str = "127.0.0.1",
        port: int = 8000,
        path: str = "/mcp",
        options: HttpServerOptions | None = None,
        health: bool = False,
        metrics: bool = False,
        observability_port: int | None = None,
        max_in_flight: int | None = None,
        max_queued: int | None = None,
        server: Literal["auto", "uvicorn", "granian"] = "auto",
        workers: int | None = None,
        **settings: Unpack[HttpSettings],
    ) -> None: ...

    def run(self, transport: str | None = None, **options: Any) -> None:
        """Serve until the client goes away (stdio) or the process is stopped (HTTP); Ctrl-C
        ends it quietly.

        What is not given comes from the ``MCPKIT_*`` environment variables
        (:func:`mcpkit.settings.run_options`): the transport (``MCPKIT_TRANSPORT``, else
        stdio), ``log_level`` (``MCPKIT_LOG_LEVEL``: records of that level and above to
        stderr), the store of a server made without one (``MCPKIT_STORE``, see
        :meth:`use_store`), and for HTTP ``host``, ``port``, ``path`` and the other options
        of the settings table (docs/configuration.md).

        ``app.run("http", host="127.0.0.1", port=8000, path="/mcp", stateless=False,
        json_response=False)`` serves Streamable HTTP (needs the ``http`` extra) and prints its
        URL to stderr; ``"sse"`` serves it with the 2024-11-05 HTTP+SSE endpoints (``/sse``,
        ``/messages``) beside it. The app's settings are ``options``, an
        :class:`~mcpkit.transports.http.HttpServerOptions`, or any of its fields as a
        keyword (as :meth:`http_app` takes them). For stdio, ``options`` go to
        :meth:`session`.
        ``health=True`` / ``metrics=True`` serve ``/healthz`` and ``/readyz`` / ``/metrics``
        beside the endpoint, or on ``observability_port`` when given (health then by
        default; see :mod:`mcpkit.transports.http.health`). ``server``: the ASGI server
        (``"uvicorn"``, ``"granian"`` with the ``granian`` extra, or ``"auto"``: see
        :func:`mcpkit.transports.http.serve.choose_server`). ``workers=N`` serves the port
        from N processes (:mod:`mcpkit.transports.http.workers`; without a store they serve
        stateless HTTP only, and say so).
        """
        from mcpkit.server import serving

        serving.run(self, transport, options)

    async def run_stdio(self, **session_kwargs: Any) -> None:
        """Serve one client over this process's stdin/stdout (``max_message_size``, bytes,
        and ``drain_timeout``, the seconds requests received before stdin's end of file get
        to finish, go to the transport; the rest to the session)."""
        from mcpkit.server.serving import serve_stdio

        await serve_stdio(self, **session_kwargs)

    def http_app(
        self,
        path: str = "/mcp",
        options: HttpServerOptions | None = None,
        *,
        max_in_flight: int | None = None,
        max_queued: int | None = None,
        health: bool = False,
        metrics: bool = False,
        auth: Any = None,
        **settings: Unpack[HttpSettings],
    ) -> ServerHTTPApp:
        """The Streamable HTTP ASGI app serving this server (needs the ``http`` extra).

        ``options``: an :class:`~mcpkit.transports.http.HttpServerOptions`; any of its
        fields may also be given as a keyword (``http_app(stateless=True)``), replacing the
        field of ``options``. ``auth``: a :class:`mcpkit.auth.ResourceServer` protecting
        this app (default: the server's own ``auth``).

        ``max_in_flight``: at most this many requests of this app (every session, both
        eras; ``subscriptions/listen`` streams not counted) are handled at once; up to
        ``max_queued`` more wait (default 4 times ``max_in_flight``), the rest are answered
        -31503 (:class:`~mcpkit.server.middleware.InFlightLimit`). Over HTTP a session's
        own ``max_in_flight`` (the engine's read backpressure) has nothing to pause, so this
        is the HTTP app's limit instead.

        Mounted inside another ASGI app, give the host its ``lifespan``
        (``Starlette(..., lifespan=asgi.lifespan)``) so the server's lifespan runs and its
        sessions end at shutdown.

        ``health=True`` answers ``/healthz`` and ``/readyz``, ``metrics=True`` ``/metrics``
        (the ``metrics`` extra) on this app, ahead of the endpoint's Host/Origin and OAuth
        checks (see :mod:`mcpkit.transports.http.health`)."""
        try:
            from mcpkit.transports.http import HttpServerOptions, StreamableHTTPApp
        except ImportError as exc:
            raise needs_extra("Streamable HTTP", "http", exc.name) from exc
        self._http_served = True
        shared = None
        options = HttpServerOptions.merged(options, settings)
        if self.store_backend is not None and not options.stateless:
            from mcpkit.redis.sessions import shared_sessions

            shared = shared_sessions(self.store_backend)
        inner = StreamableHTTPApp(
            self.session,
            path,
            options,
            auth=self.auth if auth is None else auth,
            shared=shared,
            served=self.served_app(),
        )
        gate = None
        if max_in_flight is not None:
            from mcpkit.server.middleware.concurrency import InFlightLimit

            gate = InFlightLimit(max_in_flight, max_queued)
            if not self._http_gates:
                self._http_gates = True
                self._reinstall()
        asgi = ServerHTTPApp(inner, self, gate)
        if self._custom_routes:
            from mcpkit.transports.http.routes import CustomRoutes

            clash = [p for p, *_ in self._custom_routes if p.rstrip("/") == path.rstrip("/")]
            if clash:
                raise ValueError(f"custom route {clash[0]!r} is the MCP endpoint's path")
            asgi.routes = CustomRoutes(self._custom_routes)
        if health or metrics:
            asgi.probes = self.probe_app(inner, health=health, metrics=metrics)
        return asgi

    def probe_app(
        self, http_app: StreamableHTTPApp | None = None, *, health: bool, metrics: bool
    ) -> ObservabilityApp:
        """The ``/healthz``, ``/readyz`` and ``/metrics`` app of this server (and of its
        Streamable HTTP app); see :mod:`mcpkit.transports.http.health`."""
        from mcpkit.server.probes import probes_for

        return probes_for(self, http_app, health=health, metrics=metrics)

    # -- notifications from clients -------------------------------------------------------------

    def _roots_changed(
        self, session: AppSession, params: JSONObject | None = None
    ) -> Awaitable[None] | None:
        if not self._roots_hooks:
            return None
        return self._run_roots_hooks(session)

    async def _run_roots_hooks(self, session: AppSession) -> None:
        for hook in self._roots_hooks:
            outcome = hook(session)
            if inspect.isawaitable(outcome):
                await outcome


def _sealer(keys: KeyRing | RequestStateSealer | str | None) -> RequestStateSealer:
    """The ``requestState`` sealer of ``request_state_keys=`` (fresh keys for None)."""
    from mcpkit.server.request_state import KeyRing, RequestStateSealer

    if isinstance(keys, RequestStateSealer):
        return keys
    return RequestStateSealer(KeyRing.from_base64(keys) if isinstance(keys, str) else keys)


class _StartupFailed(Exception):
    """The server's lifespan failed at the ASGI ``lifespan.startup``."""


class ServerHTTPApp:
    """What :meth:`Server.http_app` returns: the :class:`StreamableHTTPApp` serving the server
    (``app``), wrapped to enter the server's lifespan on ``lifespan.startup`` (and leave it on
    shutdown); everything else passes straight through, and so do the inner app's attributes
    (``sessions``, ``options``, ``max_body_size``, ``terminate_session``, ...: read from
    ``app``, and those the inner app lets be assigned assigned there).

    Mounted inside another app it gets no lifespan events: pass :meth:`lifespan` to the host
    (``Starlette(..., lifespan=asgi.lifespan)``, ``FastAPI(lifespan=asgi.lifespan)``)."""

    if TYPE_CHECKING:
        # Forwarded to ``app`` by the properties made below the class (no __getattr__: it
        # would keep CPython from specializing this class's own attribute reads, which
        # every request makes). The settings of ``options`` are forwarded too, untyped.
        options: HttpServerOptions
        session_factory: Callable[[Transport], Any]
        served: ServedApp | None
        shared: Any
        auth: Any
        path: str
        stateless: bool
        json_response: bool
        event_store: EventStore | None
        host_origin: HostOriginMiddleware
        allowed_hosts: Any
        allowed_origins: Any
        table: MemorySessionHost
        host: SessionHost
        supported_names: dict[str, ProtocolVersion]
        shutting_down: bool
        shutdown_hooks: list[Callable[[], None]]
        shutdown_grace: float
        legacy: Any
        sessions: dict[str, HttpSessionTransport]
        session_idle_timeout: float | None
        initialize_timeout: float | None
        modern_versions: tuple[ProtocolVersion, ...]

        def served_app(self) -> ServedApp | None: ...
        async def start_shared(self) -> None: ...
        async def terminate_session(self, session_id: str) -> bool: ...
        def close_streams(self) -> None: ...

    def __init__(self, app: StreamableHTTPApp, server: Server[Any], gate: Any = None) -> None:
        self.app = app
        self.server = server
        #: The :class:`~mcpkit.server.middleware.InFlightLimit` of ``max_in_flight``, or None.
        self.gate = gate
        self._probes: ObservabilityApp | None = None
        self._routes: CustomRoutes | None = None
        # What answers ahead of the endpoint (probes, custom routes); None: nothing.
        self._front: Callable[[Scope, Receive, Send], Awaitable[bool]] | None = None
        #: What the server's lifespan raised at the ASGI ``lifespan.startup`` (the ASGI
        #: server is told the startup failed; None: it did not fail).
        self.startup_error: Exception | None = None
        # At shutdown listen streams end first, each answering its closing result.
        app.shutdown_hooks.append(server.relay.end_listens)

    @property
    def probes(self) -> ObservabilityApp | None:
        """The ``/healthz``, ``/readyz`` and ``/metrics`` app (``http_app(health=,
        metrics=)``), answered ahead of everything else; None: no such paths."""
        return self._probes

    @probes.setter
    def probes(self, probes: ObservabilityApp | None) -> None:
        self._probes = probes
        self._front = self._answer_front if probes is not None or self._routes else None

    @property
    def routes(self) -> CustomRoutes | None:
        """The plain routes of :meth:`Server.custom_route`, answered ahead of the endpoint
        (after the probes); None: no such routes."""
        return self._routes

    @routes.setter
    def routes(self, routes: CustomRoutes | None) -> None:
        self._routes = routes
        self._front = self._answer_front if routes is not None or self._probes else None

    async def _answer_front(self, scope: Scope, receive: Receive, send: Send) -> bool:
        probes = self._probes
        if probes is not None and scope["type"] == "http" and probes.route_of(scope):
            await probes.answer(scope, send)
            return True
        routes = self._routes
        if routes is not None and routes.route_of(scope):
            await routes(scope, receive, send)
            return True
        return False

    async def aclose(self) -> None:
        """End every ``subscriptions/listen`` stream gracefully, then every session (what
        the ASGI lifespan's shutdown does)."""
        await self.server.end_listens()
        await self.app.aclose()

    @contextlib.asynccontextmanager
    async def lifespan(self, host_app: object = None) -> AsyncIterator[None]:
        """A lifespan for the application this app is mounted in: enters the server's
        lifespan, and on exit ends every session (then leaves the lifespan).

        ``host_app`` (what Starlette and FastAPI pass) is ignored; to combine with a lifespan
        of your own, ``async with asgi.lifespan(app):`` inside it."""
        async with self.server.running():
            try:
                yield
            finally:
                await self.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "lifespan":
            front = self._front  # probes and custom routes, when there are any
            if front is not None and await front(scope, receive, send):
                return
            if self.gate is None and not self.server.middleware:
                await self.app(scope, receive, send)
                return
            # Middleware learn where the request came from (its handler task inherits this).
            from mcpkit.server.middleware.base import _HttpOrigin, http_origin

            client = scope.get("client")
            token = http_origin.set(_HttpOrigin(client[0] if client else None, self.gate))
            try:
                await self.app(scope, receive, send)
            finally:
                http_origin.reset(token)
            return
        stack = contextlib.AsyncExitStack()

        async def wrapped_receive() -> Any:
            message = await receive()
            kind = message.get("type")
            if kind == "lifespan.startup":
                try:
                    await stack.enter_async_context(self.server.running())
                except Exception as exc:
                    self.startup_error = exc
                    raise _StartupFailed from exc
            elif kind == "lifespan.shutdown":
                await self.aclose()  # sessions end while the lifespan still runs
                await stack.aclose()
            return message

        try:
            await self.app(scope, wrapped_receive, send)
        except _StartupFailed:
            # Reported, not logged: whoever serves the app raises startup_error itself
            # (mcpkit.transports.http.running does), as run_stdio would.
            await send({"type": "lifespan.startup.failed", "message": ""})
        finally:
            await stack.aclose()


#: The attributes of :class:`StreamableHTTPApp` a :class:`ServerHTTPApp` forwards: its data
#: (read from and assigned to the inner app; a read-only one stays read-only) ...
_FORWARDED_DATA = (
    "options",
    "session_factory",
    "served",
    "shared",
    "auth",
    "path",
    "stateless",
    "json_response",
    "event_store",
    "host_origin",
    "allowed_hosts",
    "allowed_origins",
    "table",
    "host",
    "supported_names",
    "modern_streams",
    "disconnect_watch",
    "shutting_down",
    "shutdown_hooks",
    "shutdown_grace",
    "legacy",
    "sessions",
    "session_idle_timeout",
    "initialize_timeout",
    "modern_versions",
    # the settings of ``options``, read-only properties of the inner app
    "dns_rebinding_protection",
    "max_body_size",
    "max_header_bytes",
    "max_header_count",
    "body_timeout",
    "min_body_rate",
    "body_rate_grace",
    "max_sessions",
    "max_sessions_per_client",
    "sse_retry_ms",
    "keepalive_interval",
    "max_stream_buffer",
    "slow_reader_timeout",
    "supported_versions",
    "legacy_sse",
    "legacy_sse_path",
    "legacy_messages_path",
)
#: ... and its methods (read from the inner app).
_FORWARDED_METHODS = (
    "start_shared",
    "served_app",
    "session_here",
    "session_of",
    "serve_requests",
    "not_found",
    "terminate_session",
    "close_streams",
    "stream_sse",
    "cancel_is_quiet",
    "stream_ended",
)


def _forward(name: str, settable: bool) -> property:
    get = operator.attrgetter("app." + name)
    doc = f"``app.{name}`` (see :class:`~mcpkit.transports.http.StreamableHTTPApp`)."
    if not settable:
        return property(get, doc=doc)

    def assign(self: ServerHTTPApp, value: Any) -> None:
        setattr(self.app, name, value)

    return property(get, assign, doc=doc)


for _name in _FORWARDED_DATA:
    setattr(ServerHTTPApp, _name, _forward(_name, True))
for _name in _FORWARDED_METHODS:
    setattr(ServerHTTPApp, _name, _forward(_name, False))
del _name
