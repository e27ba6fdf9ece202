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

The client is in parts: this module holds the connection and the typed calls;
:mod:`~mcpkit.client.catalogue` what is known of each tool (output schemas, task support),
:mod:`~mcpkit.client.task_requestor` the task methods, :mod:`~mcpkit.client.url_elicitation`
the URL elicitations, :mod:`~mcpkit.client.targets` how a target becomes a connection and
:mod:`~mcpkit.client.results` how raw results become models. Every request leaves through
:meth:`Client.request`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pydantic

from mcpkit import versions
from mcpkit._defaults import DEFAULT
from mcpkit.client.arguments import Arguments, CompletionRef
from mcpkit.client.background import BackgroundListen, open_listener
from mcpkit.client.cache import (
    INVALIDATING_NOTIFICATIONS,
    CachePolicy,
    MemoryResponseCache,
    ResponseCache,
    apply_notification,
    evictions_for,
)
from mcpkit.client.calls import Calls
from mcpkit.client.catalogue import ToolCatalogue
from mcpkit.client.connector import Connector
from mcpkit.client.elicitation import (
    Elicitation,
    ElicitationHandler,
)
from mcpkit.client.errors import InvalidServerResponse
from mcpkit.client.handlers import ClientHandlers
from mcpkit.client.listen import Listener, Subscriptions, listen_filter
from mcpkit.client.lists import Lists
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
from mcpkit.client.task_requestor import TaskHandle, TaskRequestor
from mcpkit.client.url_elicitation import UrlElicitations
from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.session import ClientSession, ProgressCallback
from mcpkit.tasks import TaskReceiver, TaskStore
from mcpkit.timeouts import Timeout, TimeoutTypes, resolve
from mcpkit.transports.base import Transport
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    import httpx

    from mcpkit.client.icons import FetchedIcon
    from mcpkit.client.skills import Skills
    from mcpkit.telemetry.client import ClientTelemetry
    from mcpkit.types import (
        CallToolResult,
        CancelTaskResult,
        CompleteResult,
        GetPromptResult,
        GetTaskResult,
        Icon,
        Implementation,
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ListTasksResult,
        ListToolsResult,
        Prompt,
        ReadResourceResult,
        Resource,
        ResourceTemplate,
        ServerCapabilities,
        Task,
        Tool,
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


class Client:
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

    # -- state ----------------------------------------------------------------------------------

    @property
    def session(self) -> ClientSession:
        """The raw :class:`~mcpkit.session.ClientSession` (for requests mcpkit has no call for)."""
        if self._connector.session is None:
            raise ConnectionClosed("Client is not connected (use 'async with Client(...)')")
        return self._connector.session

    @property
    def connected(self) -> bool:
        """True while the connection is open."""
        return self._connector.session is not None and not self._connector.session.closed

    @property
    def server_info(self) -> Implementation:
        """The server's name, version and presentation details."""
        if self._server_info is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_info

    @property
    def server_capabilities(self) -> ServerCapabilities:
        """What the server declared it supports."""
        if self._server_caps is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_caps

    @property
    def negotiated_version(self) -> ProtocolVersion | None:
        """The negotiated revision with its feature flags (on the modern wire the one
        chosen from ``server/discover``)."""
        if self._wire is not None:
            return versions.get(self._wire.version)
        return (
            self._connector.session.protocol_version
            if self._connector.session is not None
            else None
        )

    @property
    def modern(self) -> bool:
        """True when this connection speaks the stateless (2026-07-28) wire."""
        return self._wire is not None

    @property
    def discover_result(self) -> JSONObject | None:
        """The raw ``server/discover`` result on the modern wire (None on the legacy one)."""
        return dict(self._wire.discover) if self._wire is not None else None

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache (None when caching is off)."""
        return self._cache

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version, e.g. ``"2025-11-25"``."""
        v = self.negotiated_version
        return v.name if v is not None else None

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, if it gave any."""
        if self._wire is not None:
            return self._wire.instructions
        return self._connector.session.instructions if self._connector.session is not None else None

    @property
    def server_url(self) -> str | None:
        """The server's URL when it is remote (HTTP), else None."""
        return self._connector.server_url

    @property
    def transport(self) -> Transport:
        """The transport under the session."""
        conn = self._connector.conn
        if conn is None:
            raise ConnectionClosed("Client is not connected")
        return conn.transport

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

    def supports(self, *path: str) -> bool:
        """True when the server declared the capability ``path`` (e.g. ``"resources",
        "subscribe"``)."""
        return has_capability(self.session.server_capabilities, path)

    # -- requests -------------------------------------------------------------------------------

    def _timeout(self, timeout: TimeoutTypes, max_total_timeout: float | None) -> Timeout:
        chosen = self.timeout if timeout is DEFAULT else resolve(timeout, self.timeout)
        if max_total_timeout is not DEFAULT:
            chosen = replace(chosen, max_total=max_total_timeout)
        return chosen

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

    # pages

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

    # tools

    async def call_tool(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        timeout: TimeoutTypes = DEFAULT,
        max_total_timeout: float | None = DEFAULT,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
        raise_on_error: bool = False,
        on_log: LogHook | None = None,
    ) -> CallToolResult:
        """Call tool ``name``; return its :class:`~mcpkit.types.CallToolResult`.

        ``arguments`` is a mapping of JSON values or a pydantic model; argument values that
        are models (protocol models included) are sent in their wire form.

        A tool that failed answers ``is_error=True`` (or raises :class:`ToolError` with
        ``raise_on_error``). When the tool declares an ``outputSchema``, ``structuredContent``
        is checked against it (:class:`OutputSchemaError` on a mismatch).

        A tool whose ``execution.taskSupport`` is ``"required"`` must be called with
        :meth:`call_tool_as_task` (:class:`TaskNotSupported` here).

        ``on_log``: this call's own log messages, where the transport tells which call
        they belong to (see :meth:`request`).
        """
        return await self._calls.call_tool(
            name,
            arguments,
            timeout=self._timeout(timeout, max_total_timeout),
            on_progress=on_progress or self._on_progress,
            meta=meta,
            raise_on_error=raise_on_error,
            on_log=on_log,
            validate=self.validate_output,
        )

    # tasks: this client as the requestor (see mcpkit.client.task_requestor)

    async def start_tool_task(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes = DEFAULT,
        meta: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskHandle:
        """Run tool ``name`` as a task, whichever design the connection speaks (2025-11-25
        task-augmented calls, or the 2026-07-28 tasks extension), and return its
        :class:`~mcpkit.client.task_requestor.TaskHandle`: ``await handle.result()``,
        ``handle.status``, ``await handle.cancel()``. See
        :func:`~mcpkit.client.task_requestor.start_tool_task`."""
        return await self._task_requestor.start(
            name, arguments, ttl=ttl, timeout=timeout, meta=meta, on_progress=on_progress
        )

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes = DEFAULT,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Task:
        """Call tool ``name`` as a task; return the created :class:`~mcpkit.types.Task` at
        once (the tool runs on at the server).

        ``on_progress(progress, total, message)`` (default: the client's ``on_progress``)
        receives the tool's progress for the task's whole lifetime, not just until the task
        is created: until this client sees the task terminal (a status notification,
        :meth:`get_task`, :meth:`wait_task`, :meth:`get_task_result`, :meth:`cancel_task`,
        :meth:`list_tasks`), its ``ttl`` runs out, or the connection closes.

        ``ttl`` (milliseconds) asks how long the server keeps the task and its result (the
        server may cap it; the returned task says what it chose). Follow up with
        :meth:`wait_task`, :meth:`get_task_result` (blocks, returns the ``CallToolResult``)
        or :meth:`cancel_task`. Raises :class:`TaskNotSupported` before sending when the
        server did not declare ``tasks.requests.tools.call`` or the tool's
        ``execution.taskSupport`` is absent or ``"forbidden"`` (the tool list is fetched
        first when it is not known yet).
        """
        return await self._task_requestor.call_tool(
            name, arguments, ttl=ttl, timeout=timeout, on_progress=on_progress, meta=meta
        )

    async def get_task(self, task_id: str) -> GetTaskResult:
        """The task's current state (``tasks/get``)."""
        return await self._task_requestor.get(task_id)

    async def get_task_result(
        self,
        task_id: str,
        *,
        timeout: TimeoutTypes = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """The tool's result (``tasks/result``), blocking until the task ends (``timeout``
        seconds; None waits as long as it takes).

        As :meth:`call_tool`: ``structuredContent`` is checked against the tool's
        ``outputSchema`` (for tasks this client created) and ``raise_on_error`` raises
        :class:`ToolError`. A task that failed with a protocol error raises that
        :class:`~mcpkit.errors.McpError`; a cancelled one raises -32602.
        """
        return await self._task_requestor.result(
            task_id, timeout=timeout, raise_on_error=raise_on_error
        )

    async def wait_task(
        self, task_id: str, *, poll: bool = True, timeout: float | None = None
    ) -> GetTaskResult:
        """Wait until the task is ``completed``, ``failed`` or ``cancelled``; return its
        final state (``TimeoutError`` after ``timeout`` seconds).

        ``poll=True`` polls ``tasks/get`` at the server's ``pollInterval``, woken early by
        ``notifications/tasks/status``; on ``input_required`` it calls ``tasks/result`` so
        the server can deliver its requests (elicitation, sampling) for the task.
        ``poll=False`` blocks on ``tasks/result`` instead, then reads the final state.
        """
        return await self._task_requestor.wait(task_id, poll=poll, timeout=timeout)

    async def list_tasks_page(self, cursor: str | None = None) -> ListTasksResult:
        """One page of the server's tasks for this client (``tasks/list``)."""
        return await self._task_requestor.list_page(cursor)

    async def list_tasks(self) -> list[Task]:
        """Every task the server keeps for this client (all pages followed)."""
        return await self._task_requestor.list_all()

    async def cancel_task(self, task_id: str) -> CancelTaskResult:
        """Cancel a task (``tasks/cancel``); returns its state, now ``cancelled``. A task
        already finished answers -32602."""
        return await self._task_requestor.cancel(task_id)

    # resources, prompts, completion, logging

    async def read_resource(
        self, uri: str, *, cache: CachePolicy = "use", on_log: LogHook | None = None
    ) -> ReadResourceResult:
        """Read the resource at ``uri`` (``on_log``: its own log messages, see
        :meth:`request`)."""
        return await self._calls.read_resource(uri, cache, on_log)

    async def subscribe_resource(self, uri: str) -> None:
        """Ask for ``notifications/resources/updated`` when ``uri`` changes (they reach
        ``on_resource_updated``). On the modern wire this (re)opens a background
        ``subscriptions/listen`` for every subscribed URI."""
        if self._wire is None:
            await self._calls.empty("resources/subscribe", {"uri": str(uri)})
        else:
            await self._background.subscribe(str(uri))

    async def unsubscribe_resource(self, uri: str) -> None:
        """Stop the updates for ``uri``."""
        if self._wire is None:
            await self._calls.empty("resources/unsubscribe", {"uri": str(uri)})
        else:
            await self._background.unsubscribe(str(uri))

    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resource_list: bool = False,
        resources: Collection[str] = (),
    ) -> Listener:
        """A notification stream: ``async with c.listen(tools=True) as events: async for ev
        in events: ...`` (see :mod:`mcpkit.client.listen`).

        ``tools``/``prompts``/``resource_list``: the list-changed notifications of that list;
        ``resources``: ``notifications/resources/updated`` of these URIs. On the modern wire
        a ``subscriptions/listen`` request (entering waits for its acknowledgment); on a
        legacy server the session's notifications (and ``resources/subscribe``)."""
        return self._open_listener(tools, prompts, resource_list, resources)

    def _open_listener(
        self, tools: bool, prompts: bool, resource_list: bool, resources: Collection[str]
    ) -> Listener:
        can_subscribe = (
            bool(resources) and self._wire is None and self.supports("resources", "subscribe")
        )
        return open_listener(
            self._subscriptions,
            self.session,
            self._wire,
            listen_filter(
                tools=tools, prompts=prompts, resource_list=resource_list, resources=resources
            ),
            subscribe=self.subscribe_resource if can_subscribe else None,
            unsubscribe=self.unsubscribe_resource if can_subscribe else None,
        )

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        on_log: LogHook | None = None,
    ) -> GetPromptResult:
        """Get prompt ``name`` filled with ``arguments`` (non-string values are sent as JSON;
        ``on_log``: its own log messages, see :meth:`request`)."""
        return await self._calls.get_prompt(name, arguments, on_log)

    async def complete(
        self,
        ref: CompletionRef,
        argument_name: str,
        value: str,
        *,
        context: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Completion options for argument ``argument_name`` of ``ref``.

        ``ref``: a :class:`~mcpkit.types.PromptReference` /
        :class:`~mcpkit.types.ResourceTemplateReference`, its wire dict, or a string (a URI
        template when it contains ``://`` or ``{``, else a prompt name). ``context``: values
        of arguments already chosen.
        """
        return await self._calls.complete(ref, argument_name, value, context)

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
