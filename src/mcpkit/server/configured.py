"""The settings and state of a server: what :class:`ConfiguredServer` is made with.

The bottom of the :class:`~mcpkit.server.app.Server`'s classes, each one concept:
:class:`ConfiguredServer` (this module: identity, options, the registries, the stores, the
lifespan), :class:`~mcpkit.server.handling.HandlingServer` (the handler table, capabilities,
notifications to clients), :class:`~mcpkit.server.registering.RegisteringServer` (the
decorators), :class:`~mcpkit.server.core.ServerCore` (sessions and serving) and
:class:`~mcpkit.server.app.Server` (the methods that build compositions: mount, OpenAPI,
transforms).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, cast

from mcpkit import versions
from mcpkit._lazy import lazy_module
from mcpkit.bus import BusRelay, MemoryBus, NotificationBus
from mcpkit.jsonrpc import JSONObject
from mcpkit.server import subscriptions
from mcpkit.server.caching import DEFAULT_HINTS, CacheHints, CacheScope
from mcpkit.server.completion import CompletionRegistry
from mcpkit.server.context import Context, LifespanT
from mcpkit.server.masking import mask_setting
from mcpkit.server.mrtr import DEFAULT_MAX_ROUNDS
from mcpkit.server.offload import WorkerPool
from mcpkit.server.pagination import DEFAULT_PAGE_SIZE
from mcpkit.server.prompts import PromptRegistry
from mcpkit.server.registration import Registration
from mcpkit.server.resources import ResourceRegistry
from mcpkit.server.state import MAX_VALUE_BYTES as MAX_STATE_BYTES
from mcpkit.server.state import check_ttl as check_state_ttl
from mcpkit.server.state_store import DEFAULT_STATE_TTL
from mcpkit.server.tools import ToolRegistry, check_timeout, wire_dict
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend
    from mcpkit.server import components as components_feature
    from mcpkit.server.components import ComponentControl
    from mcpkit.server.middleware.base import MiddlewareLike
    from mcpkit.server.request_state import KeyRing, RequestStateSealer
    from mcpkit.server.session import AppSession, ServerHandler
    from mcpkit.server.skills import SkillRegistry
    from mcpkit.server.state_store import StateStore
    from mcpkit.server.tasks import TaskManager
    from mcpkit.session import NotificationHandler
else:  # loaded on first use
    components_feature = lazy_module("mcpkit.server.components", globals(), "components_feature")

__all__ = ["ConfiguredServer", "Feature", "Lifespan", "TableHook", "ToolSearchOption"]

Feature = Literal["tools", "resources", "prompts", "completions"]
_FEATURES: frozenset[str] = frozenset(("tools", "resources", "prompts", "completions"))
#: A lifespan: called with the server, it yields the state handlers reach as ``ctx.lifespan``.
Lifespan = Callable[[Any], AbstractAsyncContextManager[LifespanT]]
RootsChangedHook = Callable[["AppSession"], Awaitable[None] | None]


class TableHook(Protocol):
    """What changes the handler table once it is made (tool search lists only its pinned
    tools and its search tool)."""

    def install(self, table: dict[str, ServerHandler]) -> None: ...


class ToolSearchOption(Protocol):
    """``Server(tool_search=...)``: an option that turns itself on for the server it is given
    (a :class:`mcpkit.server.tool_search.ToolSearch`)."""

    def enable_on(self, server: Any) -> TableHook: ...


class ConfiguredServer(Generic[LifespanT]):
    """A server's identity, options, registries and stores, and its lifespan (see
    :class:`mcpkit.Server` for the options)."""

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
        tool_search: ToolSearchOption | None = None,
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
        #: Functions adding to the declared capabilities (a mount's: its servers' skills).
        self._advertisers: list[Callable[[JSONObject, ProtocolVersion], None]] = []
        self._tool_search: TableHook | None = None
        if tool_search is not None:
            tool_search.enable_on(self)

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

    @property
    def declared(self) -> frozenset[str]:
        """Features declared even while nothing is registered for them (``declare=``)."""
        return self._declared

    @declared.setter
    def declared(self, features: frozenset[str]) -> None:
        self._declared = frozenset(features)
        self._table = None

    # -- what the classes above supply (mcpkit.server.handling, mcpkit.server.registering) ------

    def _changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        """A registry changed: the handler table is made again and clients are told."""
        raise NotImplementedError

    def _forget_tables(self) -> None:
        """Something the handler table is made of changed: made again on the next request."""
        raise NotImplementedError

    def _reinstall(self) -> None:
        """Make the handler table again and give it to every live session."""
        raise NotImplementedError

    def _app_link(
        self, tool: str, meta: dict[str, Any] | None, ui: str | None, visibility: Any
    ) -> dict[str, Any] | None:
        """The ``_meta`` of a tool linked to an MCP App (``ui=``, ``visibility=``)."""
        raise NotImplementedError


def _sealer(keys: KeyRing | RequestStateSealer | str | None) -> RequestStateSealer:
    """The ``requestState`` sealer of ``request_state_keys=`` (fresh keys for None)."""
    from mcpkit.server.request_state import KeyRing, RequestStateSealer

    if isinstance(keys, RequestStateSealer):
        return keys
    return RequestStateSealer(KeyRing.from_base64(keys) if isinstance(keys, str) else keys)
