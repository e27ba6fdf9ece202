"""The :class:`ProxyServer`: a :class:`~mcpkit.server.app.Server` serving another server.

```python
app = ProxyServer("python weather.py")        # or a URL, an mcpServers entry, a Server
app.run("http", port=8000)                      # a stdio server published over HTTP
```

Every request the proxy gets is forwarded to the upstream server and its answer (result
or error, code, message and data unchanged) goes back; what the upstream sends while it
serves (progress, logs, sampling, elicitation in form and URL mode, roots, list changes,
resource updates, task status) reaches the client it serves, and the client's cancellations
reach the upstream. The proxy presents itself as the upstream does (its serverInfo,
instructions and capabilities).

Upstream connections (held by :mod:`mcpkit.proxy.connections`; their clients are made in
:mod:`mcpkit.proxy.upstream`):

- one shared connection, opened when the proxy starts (the server's lifespan): it tells
  the era, capabilities and identity of the upstream, and serves every 2026-07-28 upstream
  request (that era is stateless: one connection is safe for all clients);
- for a handshake-era upstream, each handshake-era client gets an upstream session of its
  own, opened at its ``initialize`` with its capabilities and closed with it (its log level,
  subscriptions, roots and tasks are its own upstream too); over stdio (one client) it is
  the shared connection itself;
- 2026-07-28 clients of a handshake-era upstream lease a connection (a pool of at most
  ``pool_size``) for each ``tools/call``, ``prompts/get`` and ``resources/read``, so the
  questions the upstream asks belong to that call alone (see :mod:`mcpkit.proxy.rounds`).

Era bridging (see :mod:`mcpkit.proxy.rounds`): the upstream's live sampling, elicitation
and roots requests become MRTR rounds for 2026-07-28 clients, and a 2026-07-28 upstream's
``InputRequiredResult`` becomes live requests to a handshake-era client. Tasks are
forwarded as they are within an era and translated across eras (2025-11-25 task-augmented
calls and the tasks extension, see :mod:`mcpkit.proxy.tasks`). A handshake-era upstream
that keeps the roots it fetched on its own is told they changed before each call of a
2026-07-28 client (see :meth:`~mcpkit.proxy.upstream.Link.refresh_roots`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Collection, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Self, cast

from mcpkit import versions
from mcpkit.bus import LISTEN_METHOD, BusEvent, BusRelay, parse_listen_params
from mcpkit.errors import ConnectionClosed, McpError, TransportError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.owner import principal, task_owner
from mcpkit.proxy.calls import (
    after,
    as_task,
    call_upstream,
    notify_quietly,
    send,
    with_envelope,
)
from mcpkit.proxy.capabilities import proxied_capabilities
from mcpkit.proxy.connections import Upstreams
from mcpkit.proxy.owners import TaskOwners, open_upstream_state, seal_upstream_state
from mcpkit.proxy.rounds import (
    STATE_PREFIX,
    ParkedCall,
    check_state,
    drive_rounds,
    legacy_result,
    strip_envelope,
)
from mcpkit.proxy.subscriptions import SharedSubscriptions, deliver, uri_param
from mcpkit.proxy.tasks import (
    TASK_METHODS,
    LegacyRequestor,
    TaskQuestions,
    modern_task_request,
    opt_in,
)
from mcpkit.proxy.tools import UpstreamTool, UpstreamTools
from mcpkit.proxy.transforms import ProxyTransforms
from mcpkit.proxy.upstream import Link, upstream_client
from mcpkit.server import subscriptions
from mcpkit.server.app import Server
from mcpkit.server.discover import DISCOVER_METHOD, discover_result
from mcpkit.server.logging import LEVELS
from mcpkit.server.mrtr import MRTR_METHODS
from mcpkit.server.tasks_extension import opted_in

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.client.client import Era
    from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext
    from mcpkit.server.tools import ToolEntry
    from mcpkit.server.transforms import ArgTransform, Wrap
    from mcpkit.versions import ProtocolVersion

__all__ = ["FORWARDED_METHODS", "ProxyServer", "Sharing", "UpstreamTool"]

#: The requests forwarded as they are (besides initialize, logging, subscriptions, discover).
FORWARDED_METHODS: Final = (
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "skills/list",
    "skills/get",
    "resources/directory/read",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
)
#: ``"auto"``: a session of its own per handshake-era client when the upstream is of that
#: era (the shared one over stdio); ``"shared"``: every client on the shared connection.
Sharing = Literal["auto", "shared"]
logger = logging.getLogger("mcpkit.proxy")
#: Default of ``ProxyServer(max_upstreams=)`` and ``mcpkit proxy --max-upstreams``.
DEFAULT_MAX_UPSTREAMS = 4
_PROXY_INFO: Final = {"name": "mcpkit-proxy", "version": "1"}
#: Seconds a call of a 2026-07-28 client waits for a handshake-era upstream that keeps
#: its roots to ask them again (see :meth:`~mcpkit.proxy.upstream.Link.refresh_roots`).
ROOTS_REFRESH_WAIT: Final = 5.0


class ProxyServer(Server):
    """A server that serves ``target`` (anything :class:`~mcpkit.client.Client` takes: a
    command line, a URL, an ``mcpServers`` entry, a :class:`Server`) as if it were local;
    see the module docstring. (``Server.proxy`` is its deprecated name.)

    ``era``: which wire the proxy speaks to the upstream (``"auto"``, ``"legacy"``,
    ``"2026-07-28"``; clients of either era are served whatever it is). ``sharing``: see
    :data:`Sharing`. ``pool_size``: most upstream connections leased to 2026-07-28 calls
    of a handshake-era upstream at once. ``max_upstreams``: most upstream connections of
    their own that handshake-era clients hold at once (one process each for a command-line
    upstream); an ``initialize`` beyond them answers :class:`~mcpkit.errors.Overloaded`
    (-31503, ``data.retryAfterMs``) unless a connection idle for ``upstream_idle_timeout``
    seconds can be reclaimed (idle ones are also closed in the background, with their
    client's session). ``round_ttl``: seconds a parked call waits for
    the client's next round. ``client_options`` go to every upstream
    :class:`~mcpkit.client.Client` (``headers``, ``auth``, ``env``, ``timeout``...).
    Other keyword arguments go to :class:`Server`; ``name``/``version`` default to the
    upstream's.
    """

    def __init__(
        self,
        target: Any,
        *,
        name: str | None = None,
        version: str | None = None,
        era: Era = "auto",
        sharing: Sharing = "auto",
        pool_size: int = 8,
        max_upstreams: int = DEFAULT_MAX_UPSTREAMS,
        upstream_idle_timeout: float = 300.0,
        round_ttl: float = 300.0,
        client_options: Mapping[str, Any] | None = None,
        **server_options: Any,
    ) -> None:
        if sharing not in ("auto", "shared"):
            raise ValueError("sharing must be 'auto' or 'shared'")
        if pool_size < 1:
            raise ValueError("pool_size must be >= 1")
        if max_upstreams < 1:
            raise ValueError("max_upstreams must be >= 1")
        if upstream_idle_timeout <= 0:
            raise ValueError("upstream_idle_timeout must be > 0")
        #: Tools made from the upstream's (see :meth:`transform_tool`).
        self.transforms = ProxyTransforms(self, self._forward)
        super().__init__(name or "proxy", version or "0.0.0", **server_options)
        self.target = target
        self.upstream_era: Era = era
        self.sharing: Sharing = sharing
        self.pool_size = pool_size
        self.max_upstreams = max_upstreams
        self.upstream_idle_timeout = upstream_idle_timeout
        self.round_ttl = round_ttl
        self.client_options: dict[str, Any] = dict(client_options or {})
        self._own_name = name
        self._own_version = version
        # Changes of the shared connection reach the sessions without an upstream of
        # their own (the others hear their own upstream) and the listen streams.
        self.relay = BusRelay(self.bus, (self._deliver,))
        self._upstream_caps: JSONObject = {}
        self._depth = 0
        self._parked: dict[str, ParkedCall] = {}
        self._traits: set[str] = set()  # what the upstream was seen doing (see Link)
        #: What the proxy knows of the upstream's tools.
        self.upstream_tools = UpstreamTools(lambda: cast("dict[str, Any]", self.tools.tools))
        self._requestor = LegacyRequestor()
        self._task_owners: TaskOwners | None = None
        self._task_questions = TaskQuestions()
        #: The upstream connections (see :mod:`mcpkit.proxy.connections`).
        self.upstreams = Upstreams(
            link=self._link,
            client=self._client,
            connected=self._connected,
            pool_size=pool_size,
            max_upstreams=max_upstreams,
            idle_timeout=upstream_idle_timeout,
        )
        #: Resource subscriptions held on the shared connection.
        self.subscribed = SharedSubscriptions(lambda: self.upstreams.main)
        self.on_roots_changed(self._roots_changed_upstream)

    @property
    def task_owners(self) -> TaskOwners:
        """The downstream owner of each task created through the proxy (the upstream sees
        one owner for every client sharing a connection): in the shared store when the
        proxy has one (so every replica checks it), else in this process; made on first use.
        """
        owners = self._task_owners
        if owners is None:
            backend = self.store_backend
            if backend is None:
                owners = TaskOwners()
            else:
                from mcpkit.redis.task_owners import RedisOwnerRecords

                owners = TaskOwners(RedisOwnerRecords(backend))
            self._task_owners = owners
        return owners

    # -- the upstream -----------------------------------------------------------------------

    def _link(self, session: AppSession | None, shared: bool) -> Link:
        return Link(
            publish_list_changed=self._publish_list_changed,
            publish_resource_updated=self.notify_resource_updated,
            session=session,
            shared=shared,
            traits=self._traits,
            task_questions=self._task_questions,
        )

    def _publish_list_changed(self, kind: str) -> None:
        if kind in subscriptions.LIST_KINDS:
            self.notify_list_changed(kind)  # type: ignore[arg-type]
        if kind == "tools":
            self.upstreams.spawn(self._prime_tools())

    async def _prime_tools(self, *, starting: bool = False) -> None:
        """Learn the upstream's tools from the shared connection: their ``x-mcp-header``
        parameters are checked here (2026-07-28 over HTTP) and sent upstream, and the tool
        transforms are made from them (one that does not fit fails the start)."""
        main = self.upstreams.main
        strict = starting and bool(self.transforms.specs)
        if main is None or not main.connected or "tools" not in self._upstream_caps:
            if strict:
                raise ValueError("the upstream serves no tools to transform")
            return
        try:
            tools = await main.list_tools()
        except (McpError, TransportError) as exc:
            if strict:
                raise
            logger.debug("Could not list the upstream's tools: %s", exc)
            return
        self.upstream_tools.know(
            [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
        )
        self.transforms.primed = True
        if self.transforms.specs:
            self.transforms.resolve(strict=strict, listed={t.name for t in tools})

    def transform_tool(  # type: ignore[override]
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
    ) -> ToolEntry | None:
        """A new tool made from the upstream's tool ``source`` (as
        :meth:`Server.transform_tool <mcpkit.server.app.Server.transform_tool>`; ``name`` is
        required): made when the proxy lists the upstream's tools (see
        :mod:`mcpkit.proxy.transforms`), so this returns None before the proxy has listed
        them and its entry (or raises ``ValueError``) after."""
        if name is None:
            raise ValueError(f"the new tool needs a name of its own (name=...), not {source!r}")
        made = dict(title=title, description=description, args=args, wrap=wrap, **options)
        self.transforms.add(source, name, keep_original, made)
        self._forget_tables()
        if not self.transforms.primed:
            return None
        try:
            self.transforms.resolve(strict=True)
        except BaseException:
            del self.transforms.specs[name]
            self.transforms.resolve(strict=False)
            raise
        return self.tools.tools[name]

    def _transform_source(self, name: str) -> Any:
        return self.transforms.source(name)

    def _client(
        self, link: Link, capabilities: Mapping[str, Any] | None, era: Era | None
    ) -> Client:
        return upstream_client(
            self.target,
            link,
            capabilities=capabilities,
            era=era or self.upstream_era,
            client_info=_PROXY_INFO,
            options=self.client_options,
        )

    @property
    def upstream(self) -> Client:
        """The shared upstream connection (open while the proxy runs)."""
        main = self.upstreams.main
        if main is None:
            raise ConnectionClosed("The proxy is not running (use `async with app.running():`)")
        return main

    @property
    def session_upstreams(self) -> Mapping[AppSession, Client]:
        """The upstream connection of each handshake-era client that has one of its own."""
        return {session: client for session, (client, _) in self.upstreams.owned.items()}

    @property
    def upstream_modern(self) -> bool:
        """True when the upstream speaks the 2026-07-28 wire."""
        main = self.upstreams.main
        return main is not None and main.modern

    async def _connected(self, client: Client) -> None:
        """The shared connection opened: the proxy presents itself as the upstream does."""
        session = client.session
        if client.modern:
            discovered = client.discover_result or {}
            caps = discovered.get("capabilities")
            self._upstream_caps = dict(caps) if isinstance(caps, dict) else {}
        else:
            self._upstream_caps = dict(session.server_capabilities)
        info = client.server_info.model_dump(by_alias=True, exclude_none=True, mode="json")
        if self._own_name is not None:
            info["name"] = self._own_name
        if self._own_version is not None:
            info["version"] = self._own_version
        self.server_info.clear()
        self.server_info.update(info)
        self.name = str(info.get("name", self.name))
        self.version = str(info.get("version", self.version))
        self.instructions = client.instructions
        self._caps.clear()
        await self._prime_tools(starting=True)

    # -- running ----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Self]:
        """Enter the lifespan: the shared upstream connection opens first (its failure
        fails the start) and everything upstream closes last."""
        if self._depth == 0:
            await self.upstreams.connect()
            self.upstreams.open = True
        self._depth += 1
        try:
            async with super().running() as server:
                yield server
        finally:
            self._depth -= 1
            if self._depth == 0:
                for call in list(self._parked.values()):
                    call.cancel()
                await self.upstreams.close()

    async def run_stdio(self, **session_kwargs: Any) -> None:
        """Serve one client over stdio: its upstream is the shared connection."""
        self.upstreams.single = True
        await super().run_stdio(**session_kwargs)

    # -- what it declares -------------------------------------------------------------------

    def capabilities(self, version: ProtocolVersion = versions.LATEST) -> JSONObject:
        """The upstream's capabilities as ``version`` has them (tasks within their era)."""
        key = (version.name, ())
        caps = self._caps.get(key)
        if caps is None:
            caps = proxied_capabilities(self._upstream_caps, version, self.upstream_modern)
            self._caps[key] = caps
        return caps

    def discover(self) -> JSONObject:
        """A 2026-07-28 upstream's ``server/discover`` result, else one describing the
        handshake-era upstream."""
        main = self.upstreams.main
        if main is not None and main.modern:
            return dict(main.discover_result or {})
        return discover_result(
            server_info=self.server_info,
            capabilities=self.capabilities(self.modern_versions[0]),
            supported_versions=self.modern_versions,
            instructions=self.instructions,
            extensions=self.extensions,
            cache=self.cache_default,
        )

    def handler_table(self) -> Mapping[str, ServerHandler]:
        """Every method forwarded (see :data:`FORWARDED_METHODS`)."""
        table = self._tables.get(())  # cleared by the server when its handlers change
        if table is None:
            table = {method: self._forward for method in FORWARDED_METHODS}
            table["initialize"] = self._initialize
            table["logging/setLevel"] = self._set_level
            table["resources/subscribe"] = self._subscribe
            table["resources/unsubscribe"] = self._unsubscribe
            if self.modern_versions:
                table[DISCOVER_METHOD] = self._discover_request
                table[LISTEN_METHOD] = self._listen
            table.update(self._raw_handlers)
            if self.transforms.specs:  # its tools made from the upstream's
                self.transforms.install(table)
            if self._tool_search is not None:  # ProxyServer(..., tool_search=...)
                self._tool_search.install(table)
            chain = self._chain()
            if chain:  # the server's middleware runs around what is forwarded too
                from mcpkit.server.middleware.chain import ping, wrap_request

                table.setdefault("ping", ping)
                table = {m: wrap_request(m, h, chain, self) for m, h in table.items()}
            self._tables[()] = table
        return table

    # -- handlers ---------------------------------------------------------------------------

    async def _initialize(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        session = rctx.session
        version = session.lifecycle.version
        if version is None:
            session.accept_initialize(params)
            version = session.lifecycle.version
            assert version is not None
        if not self.upstream_modern and self.sharing == "auto":
            await self.upstreams.open_for(session)
        session.lifecycle.capabilities = self.capabilities(version)
        result: JSONObject = {
            "protocolVersion": version.name,
            "capabilities": session.lifecycle.capabilities,
            "serverInfo": self.server_info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    async def _discover_request(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        return self.discover()

    async def _set_level(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        level = (params or {}).get("level")
        if not isinstance(level, str) or level not in LEVELS:
            raise McpError(INVALID_PARAMS, f"Unknown logging level {level!r}")
        session = rctx.session
        session.log_level = LEVELS[level]
        self.upstreams.levels[session] = level
        owned = self.upstreams.owned.get(session)
        if owned is not None and owned[0].supports("logging"):
            await call_upstream(owned[0], owned[1], rctx, "logging/setLevel", params)
        return {}

    async def _subscribe(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        owned = self.upstreams.owned.get(rctx.session)
        if owned is not None:
            await call_upstream(owned[0], owned[1], rctx, "resources/subscribe", params)
            return {}
        uri = uri_param(params)
        if uri not in rctx.session.subscriptions:
            rctx.session.subscriptions.add(uri)
            await self.subscribed.retain(uri)
        return {}

    async def _unsubscribe(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        owned = self.upstreams.owned.get(rctx.session)
        if owned is not None:
            await call_upstream(owned[0], owned[1], rctx, "resources/unsubscribe", params)
            return {}
        uri = uri_param(params)
        if uri in rctx.session.subscriptions:
            rctx.session.subscriptions.discard(uri)
            await self.subscribed.release(uri)
        return {}

    @contextlib.asynccontextmanager
    async def hold_resources(self, uris: Collection[str]) -> AsyncIterator[None]:
        """Subscribe to ``uris`` upstream for the duration of the block (counted with
        every other holder: the last one out unsubscribes); their updates reach this
        proxy's bus, hence its listen streams and the parent of a mounted proxy."""
        async with self.subscribed.hold(uris):
            yield

    async def _listen(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        uris = parse_listen_params(params).resource_uris
        async with self.hold_resources(uris):
            return await subscriptions.listen(params, rctx)

    async def _forward(self, params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        method = rctx.method
        if (
            method in TASK_METHODS
            and method != "tasks/list"
            and (rctx.envelope is None or opted_in(rctx.envelope))  # else -32021 first
        ):
            await self.task_owners.check((params or {}).get("taskId"), task_owner(rctx.session))
        result = await self._forward_one(params, rctx)
        if method == "tools/list" and isinstance(result, dict):
            tools = result.get("tools")
            if isinstance(tools, list):
                self.upstream_tools.know(tools)
        elif method == "tools/call":
            await self.task_owners.created(result, task_owner(rctx.session))
        elif method == "tasks/list":
            result = await self.task_owners.visible(result, task_owner(rctx.session))
        return result

    async def _forward_one(self, params: JSONObject | None, rctx: ServerRequestContext) -> Any:
        method = rctx.method
        if rctx.envelope is None:  # a handshake-era client
            client, link = await self.upstreams.of(rctx)
            if not client.modern:
                return await call_upstream(client, link, rctx, method, params)
            if method in TASK_METHODS or (
                method == "tools/call" and isinstance((params or {}).get("task"), dict)
            ):
                # 2025-11-25 tasks, served by the upstream's tasks extension

                async def through(m: str, p: JSONObject) -> Any:
                    return await drive_rounds(
                        lambda q: call_upstream(client, link, rctx, m, q),
                        opt_in(self._envelope_for(rctx, p)),
                        rctx,
                        max_rounds=self.max_rounds,
                    )

                return await self._requestor.serve(method, params, rctx, through)
            body = self._envelope_for(rctx, params)
            result = await drive_rounds(
                lambda p: call_upstream(client, link, rctx, method, p),
                body,
                rctx,
                max_rounds=self.max_rounds,
            )
            return legacy_result(result)
        main, link = await self.upstreams.of(rctx)
        if main.modern:
            if method not in MRTR_METHODS:
                return await call_upstream(main, link, rctx, method, params)
            # the upstream binds its requestState to the proxy: bind it to the principal
            who = principal()
            sealer = self.request_state
            upstream = open_upstream_state(sealer, method, params, who)
            result = await call_upstream(main, link, rctx, method, upstream)
            return seal_upstream_state(sealer, method, params, who, result)
        if method in TASK_METHODS or (
            method == "tools/call"
            and opted_in(rctx.envelope)
            and self.upstream_tools.accepts_tasks((params or {}).get("name"))
        ):
            # the tasks extension, served by 2025-11-25 task-augmented calls

            async def plain(m: str, p: JSONObject) -> Any:
                return await call_upstream(main, link, rctx, m, p)

            upstream_params = strip_envelope(params)
            if method == "tasks/update" and upstream_params is not None and params is not None:
                # the extension's own inputResponses (strip_envelope drops MRTR's)
                upstream_params["inputResponses"] = params.get("inputResponses")
            return await modern_task_request(
                method,
                upstream_params,
                rctx,
                plain,
                questions=self._task_questions,
                wait=lambda task_id: self._wait_task(main, task_id),
            )
        if method not in MRTR_METHODS:
            result = await call_upstream(main, link, rctx, method, strip_envelope(params))
            if method == "tools/list":
                return self.upstream_tools.plain(result, keep_tasks=opted_in(rctx.envelope))
            return result
        return await self._parked_round(method, params, rctx)

    def _envelope_for(self, rctx: ServerRequestContext, params: JSONObject | None) -> JSONObject:
        session = rctx.session  # a handshake-era client: hears everything until it sets a level
        level = self.upstreams.levels.get(session, "debug")
        return with_envelope(params, session.client_capabilities, session.client_info, level)

    async def _parked_round(
        self, method: str, params: JSONObject | None, rctx: ServerRequestContext
    ) -> Any:
        state = (params or {}).get("requestState")
        if isinstance(state, str) and state.startswith(STATE_PREFIX):
            call = check_state(self._parked.get(state), principal())
            return await call.round(rctx, params)
        pair = await self.upstreams.lease()
        client, link = pair

        def ended(done: ParkedCall) -> None:
            self._parked.pop(done.state, None)
            self.upstreams.give_back(pair)

        call = ParkedCall(ttl=self.round_ttl, principal=principal(), on_end=ended)
        link.call = call
        self._parked[call.state] = call
        body = strip_envelope(params)
        if method == "tools/call" and (body or {}).get("name") in self.upstream_tools.task_only:
            run = as_task(client, body or {}, on_progress=call.progress)
        else:
            run = send(client, method, body, on_progress=call.progress)
        caps = rctx.envelope.client_capabilities if rctx.envelope is not None else {}
        if "keeps_roots" in link.traits and isinstance(caps.get("roots"), dict):
            run = after(link.refresh_roots(ROOTS_REFRESH_WAIT), run)
        call.start(run)
        return await call.round(rctx, params)

    def _wait_task(self, client: Client, task_id: str) -> None:
        """Wait on a handshake-era task's ``tasks/result`` (its questions come meanwhile)
        until it ends or the proxy stops."""

        async def wait() -> None:
            with contextlib.suppress(McpError, TransportError):
                await client.session.request("tasks/result", {"taskId": task_id}, timeout=None)
            self._task_questions.forget(task_id)

        self.upstreams.watch(wait())

    def _roots_changed_upstream(self, session: AppSession) -> Any:
        owned = self.upstreams.owned.get(session)
        if owned is None or not owned[0].connected:
            return None
        return notify_quietly(owned[0], "notifications/roots/list_changed")

    def _deliver(self, event: BusEvent) -> None:
        """The relay's sink: an event to the sessions that have no upstream of their own."""
        deliver(event, self.sessions, self.upstreams.owned)
