"""The :class:`Client`: a typed client for any MCP server.

```python
async with Client("server.py") as c:
    tools = await c.list_tools()
    result = await c.call_tool("forecast", {"city": "Oslo"}, on_progress=print)
```

Results are the protocol models of :mod:`mcpkit.types` (validated; a result that does not
match fails that call with :class:`InvalidServerResponse` and the session goes on). Protocol
errors raise :class:`~mcpkit.errors.McpError`; transport failures raise
:class:`~mcpkit.errors.ConnectionClosed` / :class:`~mcpkit.errors.ProcessExited`; timeouts
raise :class:`~mcpkit.errors.RequestTimeout` (and the request is cancelled at the server).

The client is in parts. This module holds the connection (connect, close, the session's
handlers) and :meth:`Client.request`, through which every request leaves. Its bases offer
the rest of its methods, each beside the part that serves it:
:class:`~mcpkit.client.calls.CallMethods` the typed calls (tools, resources, prompts,
completion), :class:`~mcpkit.client.lists.ListMethods` the lists,
:class:`~mcpkit.client.task_methods.TaskMethods` the task methods,
:class:`~mcpkit.client.background.Subscribing` listen streams and resource subscriptions,
:class:`~mcpkit.client.state.ConnectionState` what the connection established (session,
server info and capabilities, negotiated revision). The parts it holds:
:mod:`~mcpkit.client.catalogue` what is known of each tool (output schemas, task support),
:mod:`~mcpkit.client.task_requestor` the task requestor, :mod:`~mcpkit.client.url_elicitation`
the URL elicitations, :mod:`~mcpkit.client.targets` how a target becomes a connection,
:mod:`~mcpkit.client.pipeline` the request path and :mod:`~mcpkit.client.results` how raw
results become models.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pydantic

from mcpkit import versions
from mcpkit._defaults import DEFAULT
from mcpkit.client.background import BackgroundListen, Subscribing
from mcpkit.client.cache import (
    INVALIDATING_NOTIFICATIONS,
    CachePolicy,
    MemoryResponseCache,
    ResponseCache,
    apply_notification,
    evictions_for,
)
from mcpkit.client.calls import CallMethods, Calls
from mcpkit.client.catalogue import ToolCatalogue
from mcpkit.client.connector import Connector
from mcpkit.client.elicitation import (
    Elicitation,
    ElicitationHandler,
)
from mcpkit.client.errors import InvalidServerResponse
from mcpkit.client.handlers import ClientHandlers
from mcpkit.client.listen import Subscriptions
from mcpkit.client.lists import ListMethods, Lists
from mcpkit.client.modern import (
    ModernWire,
)
from mcpkit.client.notifications import (
    LOG_LEVELS,
    CancelledHook,
    ClientHooks,
    ListKind,
    LogHook,
    NotificationHook,
    NotificationRouter,
    TaskStatusHook,
)
from mcpkit.client.opening import ERA_MEMO, Era, EraNegotiator, check_era
from mcpkit.client.options import (
    CacheOptions,
    Folded,
    HttpOptions,
    ProtocolOptions,
    StdioOptions,
    fold_deprecated,
)
from mcpkit.client.pipeline import RequestPipeline
from mcpkit.client.results import lenient
from mcpkit.client.retry import Retry
from mcpkit.client.roots import RootsSource
from mcpkit.client.sampling import Sampling, SamplingHandler
from mcpkit.client.targets import Target, config_entry, open_target
from mcpkit.client.task_methods import TaskMethods
from mcpkit.client.task_requestor import TaskRequestor
from mcpkit.client.url_elicitation import UrlElicitations
from mcpkit.jsonrpc import JSONObject
from mcpkit.session import ClientSession, ProgressCallback
from mcpkit.tasks import TaskReceiver, TaskStore
from mcpkit.timeouts import Timeout, TimeoutTypes
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    import httpx

    from mcpkit.client.icons import FetchedIcon
    from mcpkit.client.skills import Skills
    from mcpkit.telemetry.client import ClientTelemetry
    from mcpkit.types import (
        Icon,
        Implementation,
        ServerCapabilities,
    )

__all__ = [
    "DEFAULT_TIMEOUT",
    "ERA_MEMO",
    "CancelledHook",
    "Client",
    "Era",
    "ListKind",
    "LogHook",
    "NotificationHook",
    "TaskStatusHook",
]

#: Seconds a request may wait for its response unless told otherwise (progress restarts it).
DEFAULT_TIMEOUT: Final = 60.0

M = TypeVar("M", bound=pydantic.BaseModel)
logger = logging.getLogger("mcpkit.client")

_DEFAULT_PROTOCOL: Final = ProtocolOptions()
_DEFAULT_STDIO: Final = StdioOptions()


class Client(CallMethods, Subscribing, ListMethods, TaskMethods):
    """A connection to one MCP server. Use as ``async with Client(target) as c:``.

    ``target`` (see :data:`~mcpkit.client.targets.Target`): a Python file (``"server.py"``,
    run with this interpreter over stdio), ``"server.py:app"`` or ``"module:app"`` (that
    mcpkit ``Server``, in memory), a command line (``"npx -y @scope/server"``) or an argv
    list, an ``http(s)://`` URL, an mcpkit ``Server``, a
    :class:`~mcpkit.transports.base.Transport`, or an entry of an ``mcpServers`` config
    (see :meth:`from_config`).

    Handlers (each optional; the client declares exactly the capabilities it has handlers
    for): ``sampling_handler(params, ctx)``, ``elicitation_handler(params, ctx)``, ``roots``
    (a list or a callable returning one). A handler's own settings travel with it:
    :class:`~mcpkit.client.sampling.Sampling` (``tools``, ``context``) and
    :class:`~mcpkit.client.elicitation.Elicitation` (``modes``).

    Hooks (sync or async): ``on_log(LoggingMessageNotificationParams)`` (default: the
    ``mcpkit.client.server`` logger) and ``on_notification(method, params)`` for every
    notification (including ones mcpkit does not know); the others in ``hooks``, a
    :class:`~mcpkit.client.notifications.ClientHooks`: ``on_progress(progress, total,
    message)`` (default for calls without their own), ``on_list_changed(kind)`` with kind
    ``"tools"`` / ``"prompts"`` / ``"resources"`` (with ``auto_refresh=True`` the cached list
    is refreshed first), ``on_resource_updated(uri)``,
    ``on_elicitation_complete(elicitation_id)``, ``on_cancelled(CancelledNotificationParams)``
    and ``on_task_status(Task)`` (a task's ``notifications/tasks/status``).

    Tasks (2025-11-25): :meth:`call_tool_as_task`, :meth:`get_task`, :meth:`wait_task`,
    :meth:`get_task_result`, :meth:`list_tasks`, :meth:`cancel_task` make this client a
    requestor. ``tasks=True`` (or a :class:`~mcpkit.tasks.TaskStore` /
    :class:`~mcpkit.tasks.TaskReceiver`) makes it a receiver: the server may then run
    sampling and elicitation requests as tasks (see :mod:`mcpkit.client.tasks`).

    Connection: ``headers``/``auth`` (an ``httpx.Auth``) for HTTP servers; ``connection``
    a :class:`~mcpkit.client.options.StdioOptions` (env, cwd, stderr, start-up times) for a
    stdio server or a :class:`~mcpkit.client.options.HttpOptions` (more keyword arguments of
    :class:`~mcpkit.transports.http.StreamableHTTPClientTransport`); ``tracer`` sees every
    message. ``protocol`` (a :class:`~mcpkit.client.options.ProtocolOptions`): the revision
    to ask for, the ones accepted, ``extensions`` declared in ``capabilities.extensions``
    on both eras (e.g. :data:`mcpkit.client.apps.APPS_EXTENSION`), output validation, and
    ``request_handlers``, raw session handlers of server-to-client methods installed over
    the typed ones (a proxy forwards them as they are).

    Tracing (the ``otel`` extra): ``tracing=True`` makes an OpenTelemetry ``CLIENT`` span of
    every request (the global providers; or pass a
    :class:`~mcpkit.telemetry.client.ClientTelemetry`) and puts its trace context in the
    request's ``params._meta`` (see :mod:`mcpkit.telemetry.client`).

    Time: ``timeout`` (a :class:`~mcpkit.Timeout`, or seconds per request; ``None`` waits
    forever) restarts whenever the server reports progress, but never runs past its
    ``max_total``; each call can override it. ``retry`` (a
    :class:`~mcpkit.client.retry.Retry`) sends a failed request again when the server said
    it did not run it (rate limited, overloaded, HTTP 429/503, after the time it asked
    for), when the connection could not be made, or when it broke mid-way and the request
    is safe to repeat; default: never.

    Era (see :data:`Era`): ``era="auto"`` (the default) opens with ``server/discover`` and
    speaks the stateless 2026-07-28 wire to a server that answers it, the ``initialize``
    handshake to any other (remembered per target in :data:`ERA_MEMO`); ``"legacy"`` or
    ``"2026-07-28"`` pin one. On the modern wire every request carries the ``_meta``
    envelope, an ``InputRequiredResult`` is answered with the handlers above and retried
    (at most ``protocol.max_input_rounds`` rounds; ``request(..., mrtr=False)`` returns it
    instead), and results are kept while their ``ttlMs`` says they are fresh: ``cache`` is
    a :class:`~mcpkit.client.cache.ResponseCache` (default: a private
    :class:`~mcpkit.client.cache.MemoryResponseCache`; ``False`` turns caching off) or a
    :class:`~mcpkit.client.options.CacheOptions` with the ``principal`` naming the
    authorization context of private entries in a shared store.

    The keyword arguments these option objects replaced (``env=``, ``on_list_changed=``,
    ``max_total_timeout=``, ``protocol_version=``, ...) still work, with a
    :class:`DeprecationWarning` naming the new spelling.
    """

    def __init__(
        self,
        target: Target,
        *,
        sampling_handler: SamplingHandler | Sampling | None = None,
        elicitation_handler: ElicitationHandler | Elicitation | None = None,
        roots: RootsSource | None = None,
        tasks: bool | TaskStore | TaskReceiver | None = None,
        on_log: LogHook | None = None,
        on_notification: NotificationHook | None = None,
        hooks: ClientHooks | None = None,
        timeout: TimeoutTypes = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        client_info: Implementation | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        auth: httpx.Auth | None = None,
        connection: StdioOptions | HttpOptions | None = None,
        era: Era = "auto",
        cache: ResponseCache | CacheOptions | bool = True,
        protocol: ProtocolOptions | None = None,
        tracing: bool | ClientTelemetry | None = None,
        tracer: Callable[[str, Any], None] | None = None,
        **deprecated: Any,
    ) -> None:
        if deprecated:
            folded = fold_deprecated(
                deprecated,
                Folded(
                    hooks or ClientHooks(),
                    timeout,
                    connection,
                    protocol or ProtocolOptions(),
                    cache,
                    sampling_handler,
                    elicitation_handler,
                ),
            )
            hooks, timeout, connection = folded.hooks, folded.timeout, folded.connection
            protocol, cache = folded.protocol, folded.cache
            sampling_handler, elicitation_handler = (
                folded.sampling_handler,
                folded.elicitation_handler,
            )
        hooks = _hooks(hooks, on_log, on_notification)
        protocol = protocol or _DEFAULT_PROTOCOL
        stdio = connection if isinstance(connection, StdioOptions) else _DEFAULT_STDIO
        check_era(era, protocol.version)
        if protocol.max_input_rounds < 0:
            raise ValueError("max_input_rounds must be >= 0")
        self.target = target
        self.era: Era = era
        #: How a stdio server is started (the defaults for any other target).
        self.stdio = stdio
        #: Seconds a stdio server has to answer ``server/discover`` once it has read it.
        self.probe_timeout = stdio.probe_timeout
        #: Seconds a stdio server may take to start reading its stdin (None: no limit).
        self.start_timeout = stdio.start_timeout
        self.max_input_rounds = protocol.max_input_rounds
        #: When failed requests are sent again (None: never); see :mod:`mcpkit.client.retry`.
        self.retry = retry
        self._cache, self._principal = _response_cache(cache)
        self._wire: ModernWire | None = None
        # The log level of modern requests: an on_log hook asks for everything, as a legacy
        # server sends everything until logging/setLevel.
        self._log_level: str | None = "debug" if hooks.on_log is not None else None
        self._subscriptions = Subscriptions()
        self._stale: set[tuple[str, Any]] = set()
        self._url_elicitations = UrlElicitations()
        self._handlers = ClientHandlers(
            sampling=sampling_handler,
            elicitation=elicitation_handler,
            roots=roots,
            tasks=tasks,
            url_elicitations=self._url_elicitations,
            request_handlers=protocol.request_handlers,
            extensions=protocol.extensions,
            debug=protocol.debug,
        )
        self._on_progress = hooks.on_progress
        self.timeout: Timeout = timeout if isinstance(timeout, Timeout) else Timeout(timeout)
        self._client_info = _info_dict(client_info)
        self._opening = EraNegotiator(
            protocol_version=protocol.version, client_info=self._client_info
        )
        self._http_options = connection.options if isinstance(connection, HttpOptions) else None
        self._connector = Connector(
            target,
            functools.partial(
                open_target,
                target,
                env=stdio.env,
                cwd=stdio.cwd,
                headers=headers,
                auth=auth,
                stderr=stdio.stderr,
                on_stderr=stdio.on_stderr,
                http_options=self._http_options,
            ),
        )
        self._supported = _versions(protocol.supported_versions)
        self.validate_output = protocol.validate_output
        self._tracer = tracer
        self._debug = protocol.debug
        # OpenTelemetry spans of every request (the ``otel`` extra): None costs nothing.
        self._telemetry: ClientTelemetry | None = None
        if tracing:
            from mcpkit.telemetry.client import client_telemetry

            self._telemetry = client_telemetry(tracing)
        self._server_info: Implementation | None = None
        self._server_caps: ServerCapabilities | None = None
        self._catalogue = ToolCatalogue(self.list_tools)
        self._lists = Lists(self.request, self._catalogue, self._checks_headers)
        self._background = BackgroundListen(self._open_listener, self._spawn)
        self._pipeline = RequestPipeline(self)
        self._task_requestor = TaskRequestor(
            self, self._pipeline, self._handlers, on_progress=self._on_progress
        )
        self._calls = Calls(self.request, self._catalogue, self._task_requestor)
        self._skills: Skills | None = None
        self._notifications = NotificationRouter(
            hooks,
            catalogue=self._catalogue,
            tasks=self._task_requestor,
            elicitations=self._url_elicitations,
            refresh=self._refresh,
            spawn=self._spawn,
            observers=(self._evict, self._subscriptions.route),
        )
        self.auto_refresh = hooks.auto_refresh
        self._tasks: set[asyncio.Task[Any]] = set()

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any] | str | os.PathLike[str], name: str, **kwargs: Any
    ) -> Client:
        """A client for server ``name`` of an ``mcpServers`` config (dict, JSON text or path).

        Stdio entries use ``command``/``args``/``env``/``cwd``; HTTP entries ``url`` (or
        ``serverUrl``) and ``headers``.
        """
        return cls(config_entry(config, name), **kwargs)

    # -- connection -----------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Start the transport (and the server, in memory) and run the handshake."""
        if self._connector.session is not None:
            raise RuntimeError("Client is already connected")
        self._reset_caches()
        options: dict[str, Any] = {"default_timeout": self.timeout.timeout, "debug": self._debug}
        if self._telemetry is not None:
            options["tracer"] = self._telemetry.session_tracer(self._tracer)
        elif self._tracer is not None:
            options["tracer"] = self._tracer
        if self._supported is not None:
            options["supported_versions"] = self._supported
        session = self._connector.new_session(self._install, **options)
        try:
            await self._connector.start()
            result, self._wire = await self._opening.open(
                session,
                self.era,
                probe_timeout=self.probe_timeout,
                start_timeout=self.start_timeout,
                capabilities=self._handlers.capabilities,
                log_level=self._log_level,
                memo_key=self._connector.memo_key(),
                http=self._http(),
                unread=self._connector.unread_input(),
                request_timeout=self.timeout.timeout,
                header_params=self._lists.params_of,
            )
        except BaseException as exc:
            await self._teardown()
            better = self._connector.explain(exc)
            if better is not None:
                raise better from exc
            raise
        from mcpkit.types import Implementation, ServerCapabilities

        wire = self._wire
        info = result.get("serverInfo") if wire is None else wire.server_info
        caps = result.get("capabilities") if wire is None else wire.server_capabilities
        self._server_info = lenient(Implementation, info)
        self._server_caps = lenient(ServerCapabilities, caps)
        if wire is not None and (
            self.auto_refresh or self._notifications.hooks.on_list_changed is not None
        ):
            # list changes come only on a listen stream there: the hooks want them
            await self._background.listen_for_hooks(wire.server_capabilities)

    def _http(self) -> Any:
        return self._connector.http()

    async def close(self) -> None:
        """End the connection (a stdio server is shut down: stdin closed, then signals)."""
        await self._teardown()

    async def _teardown(self) -> None:
        if self._handlers.task_receiver is not None:
            await self._handlers.task_receiver.shutdown()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._subscriptions.close_all()
        self._background.clear()
        await self._connector.close()
        self._url_elicitations.clear()
        self._task_requestor.close()

    def _reset_caches(self) -> None:
        self._catalogue.forget()
        self._lists.forget()
        self._server_info = None
        self._server_caps = None
        self._wire = None
        self._subscriptions = Subscriptions()
        self._notifications.observers = (self._evict, self._subscriptions.route)

    def _install(self, session: ClientSession) -> None:
        self._handlers.install(session)
        self._notifications.install(session)
        self._handlers.install_raw(session)

    # -- settings and parts ---------------------------------------------------------------------

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache (None when caching is off)."""
        return self._cache

    @property
    def auto_refresh(self) -> bool:
        """Refresh a cached list when the server says it changed (before ``on_list_changed``)."""
        return self._notifications.auto_refresh

    @auto_refresh.setter
    def auto_refresh(self, value: bool) -> None:
        self._notifications.auto_refresh = value

    @property
    def tool_catalogue(self) -> ToolCatalogue:
        """What is known of each tool: output schemas, their validators, task support."""
        return self._catalogue

    @property
    def task_receiver(self) -> TaskReceiver | None:
        """The receiver running the server's task-augmented requests (``tasks=...``)."""
        return self._handlers.task_receiver

    @property
    def skills(self) -> Skills:
        """The server's skills (the Skills extension), verified against their entries: see
        :mod:`mcpkit.client.skills`."""
        skills = self._skills
        if skills is None:
            from mcpkit.client.skills import Skills

            skills = self._skills = Skills(self)
        return skills

    # -- requests -------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: TimeoutTypes = DEFAULT,
        on_progress: ProgressCallback | None = None,
        max_total_timeout: float | None = DEFAULT,
        cache: CachePolicy = "use",
        mrtr: bool = True,
        on_log: LogHook | None = None,
    ) -> Any:
        """Send any request and return the raw ``result`` (a dict), unvalidated.

        Every request of this client leaves here and every raw result comes back here.
        ``timeout``: a :class:`~mcpkit.Timeout` or seconds (the client's other time settings
        kept); ``max_total_timeout`` replaces the total cap alone.

        On the modern wire the params get the ``_meta`` envelope; an
        ``InputRequiredResult`` is answered with the client's handlers and the request sent
        again with a new id (``mrtr=False`` returns the first ``InputRequiredResult`` as it
        is, for callers that run the rounds themselves, see :func:`mcpkit.client.mrtr.drive`);
        cacheable results go through the response cache under ``cache`` (``"use"``,
        ``"refresh"`` or ``"bypass"``; continuation pages and results that needed input are
        never stored).

        ``on_log`` gets the log messages that come on this request's own response stream
        (Streamable HTTP, both eras; on the modern wire the request then asks for every
        level unless a level was set) instead of the client's ``on_log``; over stdio and in
        memory, one channel for all, they go to the client's (see
        :mod:`mcpkit.client.request_scope`)."""
        return await self._pipeline.send(
            method,
            params,
            self._timeout(timeout, max_total_timeout),
            on_progress=on_progress,
            cache=cache,
            mrtr=mrtr,
            on_log=on_log,
        )

    def _cache_target(self) -> str:
        return self._connector.memo_key() or f"memory:{id(self.target):x}"

    def _evict(self, method: str, params: JSONObject | None) -> None:
        """A change notification: what it makes stale is refetched by the next request."""
        store = self._cache
        if store is None or method not in INVALIDATING_NOTIFICATIONS:
            return
        for eviction in evictions_for(self._cache_target(), method, params):
            self._stale.add((eviction.method, eviction.uri))
        self._spawn(apply_notification(store, self._cache_target(), method, params))

    def _checks_headers(self) -> bool:
        """Whether tool pages carry ``x-mcp-header`` parameters (2026-07-28 over HTTP)."""
        return self._wire is not None and self._http() is not None

    async def ping(self, *, timeout: TimeoutTypes = DEFAULT) -> None:
        """Check the server is alive (raises on timeout or a closed connection).

        The modern wire has no ``ping``: ``server/discover`` is sent instead (never
        answered from the cache)."""
        if self._wire is not None:
            result = await self.request("server/discover", {}, timeout=timeout, cache="bypass")
        else:
            result = await self.request("ping", timeout=timeout)
        if not isinstance(result, dict):
            raise InvalidServerResponse("ping", "expected an empty object")

    async def set_logging_level(self, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above."""
        if level not in LOG_LEVELS:
            raise ValueError(f"Unknown logging level {level!r}; one of {', '.join(LOG_LEVELS)}")
        if self._wire is not None:  # no logging/setLevel on the modern wire: per request
            self._wire.log_level = self._log_level = level
            return
        await self._calls.empty("logging/setLevel", {"level": level})

    # roots

    async def set_roots(self, roots: RootsSource) -> None:
        """Replace the roots and send ``notifications/roots/list_changed``.

        ``roots`` as for ``Client(roots=...)``; a list with an invalid root (not a ``file://``
        URI, or with ``..`` segments) raises ValueError and changes nothing."""
        self._handlers.set_roots(roots)
        if self._wire is not None:
            return  # the modern wire asks for roots per request (MRTR)
        if self._connector.session is not None and not self._connector.session.closed:
            await self._connector.session.notify("notifications/roots/list_changed")

    # URL elicitation (see mcpkit.client.url_elicitation)

    async def wait_elicitation_complete(
        self, elicitation_id: str, timeout: float | None = None
    ) -> None:
        """Wait for ``notifications/elicitation/complete`` for a URL elicitation this client
        has seen (from ``elicitation/create`` or a -32042 error); TimeoutError on timeout.

        Returns at once if that notification already arrived before the call (the client
        remembers the last 1,000 completed ids)."""
        await self._url_elicitations.wait(elicitation_id, timeout)

    # icons

    async def fetch_icon(self, icon: Icon | str, **options: Any) -> FetchedIcon:
        """Fetch an icon safely (https/data only, same origin as a remote server, limits,
        content sniffed); see :class:`mcpkit.client.icons.IconFetcher`."""
        from mcpkit.client.icons import IconFetcher

        return await IconFetcher(**options).fetch(icon, server_url=self.server_url)

    # -- background work ------------------------------------------------------------------------

    async def _refresh(self, kind: ListKind) -> None:
        """List ``kind`` again after its list_changed notification (``auto_refresh``)."""
        await self._lists.refresh(
            kind, templates=kind == "resources" and self.supports("resources")
        )

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def __repr__(self) -> str:
        state = "connected" if self.connected else "not connected"
        return f"<Client {self.target!r} {state}>"


# -- helpers ------------------------------------------------------------------------------------


def _response_cache(
    cache: ResponseCache | CacheOptions | bool,
) -> tuple[ResponseCache | None, str]:
    """The response cache ``cache`` asks for (None: caching off) and the principal naming
    the authorization context of its private entries (random unless given)."""
    principal = None
    if isinstance(cache, CacheOptions):
        principal = cache.principal
        store = cache.store
        cache = (
            MemoryResponseCache() if isinstance(store, str) else (False if store is None else store)
        )
    if cache is True:
        chosen: ResponseCache | None = MemoryResponseCache()
    else:
        chosen = None if cache is False else cache
    return chosen, principal or f"client-{secrets.token_hex(8)}"


def _hooks(
    hooks: ClientHooks | None, on_log: LogHook | None, on_notification: NotificationHook | None
) -> ClientHooks:
    """``hooks`` with the ``on_log`` / ``on_notification`` keywords in (given once)."""
    if hooks is None:
        return ClientHooks(on_log=on_log, on_notification=on_notification)
    if on_log is not None:
        if hooks.on_log is not None:
            raise TypeError("on_log given twice: as a keyword and in hooks=ClientHooks(...)")
        hooks = replace(hooks, on_log=on_log)
    if on_notification is not None:
        if hooks.on_notification is not None:
            raise TypeError(
                "on_notification given twice: as a keyword and in hooks=ClientHooks(...)"
            )
        hooks = replace(hooks, on_notification=on_notification)
    return hooks


def _info_dict(info: Implementation | Mapping[str, Any] | None) -> JSONObject:
    if info is None:
        from mcpkit._version import __version__

        return {"name": "mcpkit", "version": __version__}
    if isinstance(info, pydantic.BaseModel):
        return info.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dict(info)


def _versions(names: Sequence[str] | None) -> tuple[ProtocolVersion, ...] | None:
    if names is None:
        return None
    out: list[ProtocolVersion] = []
    for name in names:
        v = versions.get(name)
        if v is None:
            raise ValueError(f"Unsupported protocol version {name!r}")
        out.append(v)
    return tuple(out)
