"""The :class:`ProxyServer`: a :class:`~mcpkit.server.app.Server` serving another server.

```python
app = Server.proxy("python weather.py")        # or a URL, an mcpServers entry, a Server
app.run("http", port=8000)                      # a stdio server published over HTTP
```

Every request the proxy gets is forwarded to the upstream server and its answer (result
or error, code, message and data unchanged) goes back; what the upstream sends while it
serves (progress, logs, sampling, elicitation in form and URL mode, roots, list changes,
resource updates, task status) reaches the client it serves, and the client's cancellations
reach the upstream. The proxy presents itself as the upstream does (its serverInfo,
instructions and capabilities).

Upstream connections (clients of :mod:`mcpkit.client`, see :mod:`mcpkit.proxy.upstream`):

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

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from mcpkit import versions
from mcpkit.bus import LISTEN_METHOD, BusEvent, BusRelay, parse_listen_params
from mcpkit.envelope import build_request_meta
from mcpkit.errors import ConnectionClosed, McpError, TransportError
from mcpkit.http_headers import HeaderParam, definition_header_params
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.owner import principal, task_owner
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
from mcpkit.proxy.tasks import (
    LEGACY_TASKS_CAPABILITY,
    TASK_METHODS,
    LegacyRequestor,
    TaskQuestions,
    modern_task_request,
    opt_in,
)
from mcpkit.proxy.upstream import Link, upstream_client
from mcpkit.server import subscriptions
from mcpkit.server.app import Server
from mcpkit.server.caching import CacheHints
from mcpkit.server.discover import DISCOVER_METHOD, discover_result
from mcpkit.server.logging import LEVELS
from mcpkit.server.mrtr import MRTR_METHODS
from mcpkit.server.tasks_extension import EXTENSION_ID, opted_in
from mcpkit.skills import EXTENSION_ID as SKILLS_EXTENSION_ID

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.client.client import Era
    from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext
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
_MODERN: Final = versions.V2026_07_28
logger = logging.getLogger("mcpkit.proxy")
#: Default of ``ProxyServer(max_upstreams=)`` and ``mcpkit proxy --max-upstreams``.
DEFAULT_MAX_UPSTREAMS = 4
_PROXY_INFO: Final = {"name": "mcpkit-proxy", "version": "1"}
#: Seconds a call of a 2026-07-28 client waits for a handshake-era upstream that keeps
#: its roots to ask them again (see :meth:`~mcpkit.proxy.upstream.Link.refresh_roots`).
ROOTS_REFRESH_WAIT: Final = 5.0


@dataclass
class UpstreamTool:
    """What the proxy knows of an upstream tool: its definition (the HTTP layer checks a
    call's ``Mcp-Param-*`` headers against its ``x-mcp-header`` parameters, as for a tool
    of its own). Kept in the proxy's ``tools.tools`` by name."""

    definition: JSONObject
    cache: CacheHints | None = None
    accepts_tasks: bool = False

    def header_params(self) -> tuple[HeaderParam, ...] | None:
        """The ``x-mcp-header`` parameters of its definition (as a local tool's)."""
        return definition_header_params(self.definition)


class ProxyServer(Server):
    """A server that serves ``target`` (anything :class:`~mcpkit.client.Client` takes: a
    command line, a URL, an ``mcpServers`` entry, a :class:`Server`) as if it were local;
    see the module docstring. Made by :meth:`Server.proxy`.

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
        self._subscribed: dict[str, int] = {}
        self._task_tools: set[str] = set()
        self._traits: set[str] = set()  # what the upstream was seen doing (see Link)
        self._task_support: dict[str, str] = {}  # upstream tool -> its taskSupport
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

    async def _prime_tools(self) -> None:
        """Learn the upstream's tools from the shared connection: their ``x-mcp-header``
        parameters are checked here (2026-07-28 over HTTP) and sent upstream."""
        main = self.upstreams.main
        if main is None or not main.connected or "tools" not in self._upstream_caps:
            return
        try:
            tools = await main.list_tools()
        except (McpError, TransportError) as exc:
            logger.debug("Could not list the upstream's tools: %s", exc)
            return
        self._know_tools(
            [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
        )

    def _know_tools(self, tools: list[Any]) -> None:
        known = cast("dict[str, Any]", self.tools.tools)
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                known[tool["name"]] = UpstreamTool(tool)
                self._learn_task_support(tool)

    def _learn_task_support(self, tool: Any) -> None:
        execution = tool.get("execution") if isinstance(tool, dict) else None
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if isinstance(support, str):
            self._task_support[str(tool.get("name"))] = support
            if support == "required":
                self._task_tools.add(str(tool.get("name")))

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
        self._learn(client)
        await self._prime_tools()

    def _learn(self, client: Client) -> None:
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

    # -- running ----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Server]:
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
        if caps is not None:
            return caps
        upstream = self._upstream_caps
        caps = {k: v for k, v in upstream.items() if k not in ("tasks", "extensions")}
        modern_upstream = self.upstream_modern
        if version.era == "modern":
            if modern_upstream and "extensions" in upstream:
                caps["extensions"] = upstream["extensions"]
            if modern_upstream and "tasks" in upstream:
                caps["tasks"] = upstream["tasks"]
            if not modern_upstream and _tool_tasks(upstream):
                # 2025-11-25 task-augmented calls, offered as the tasks extension
                caps["extensions"] = {EXTENSION_ID: {}}
        else:
            if not modern_upstream and "tasks" in upstream and version.tasks:
                caps["tasks"] = upstream["tasks"]
            extensions = upstream.get("extensions")
            if modern_upstream and version.tasks and EXTENSION_ID in (extensions or {}):
                # the tasks extension, offered as 2025-11-25 tasks
                caps["tasks"] = dict(LEGACY_TASKS_CAPABILITY)
            if "completions" in caps and not version.audio:
                del caps["completions"]
        skills = (upstream.get("extensions") or {}).get(SKILLS_EXTENSION_ID)
        if isinstance(skills, dict):  # the Skills extension: its methods are forwarded
            caps["extensions"] = {**(caps.get("extensions") or {}), SKILLS_EXTENSION_ID: skills}
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
            if self._tool_search is not None:  # Server.proxy(..., tool_search=...)
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
            await _call(owned[0], owned[1], rctx, "logging/setLevel", params)
        return {}

    async def _subscribe(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        owned = self.upstreams.owned.get(rctx.session)
        if owned is not None:
            await _call(owned[0], owned[1], rctx, "resources/subscribe", params)
            return {}
        uri = _uri(params)
        if uri not in rctx.session.subscriptions:
            rctx.session.subscriptions.add(uri)
            await self._retain(uri)
        return {}

    async def _unsubscribe(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        owned = self.upstreams.owned.get(rctx.session)
        if owned is not None:
            await _call(owned[0], owned[1], rctx, "resources/unsubscribe", params)
            return {}
        uri = _uri(params)
        if uri in rctx.session.subscriptions:
            rctx.session.subscriptions.discard(uri)
            await self._release(uri)
        return {}

    async def _retain(self, uri: str) -> None:
        count = self._subscribed.get(uri, 0)
        self._subscribed[uri] = count + 1
        if count == 0:
            main = self.upstream
            if main.supports("resources", "subscribe") or main.modern:
                try:
                    await main.subscribe_resource(uri)
                except McpError:
                    self._subscribed.pop(uri, None)
                    raise

    async def _release(self, uri: str) -> None:
        count = self._subscribed.get(uri, 0) - 1
        if count > 0:
            self._subscribed[uri] = count
            return
        self._subscribed.pop(uri, None)
        main = self.upstreams.main
        if main is not None and main.connected:
            with contextlib.suppress(McpError, ConnectionClosed):
                await main.unsubscribe_resource(uri)

    @contextlib.asynccontextmanager
    async def hold_resources(self, uris: Collection[str]) -> AsyncIterator[None]:
        """Subscribe to ``uris`` upstream for the duration of the block (counted with
        every other holder: the last one out unsubscribes); their updates reach this
        proxy's bus, hence its listen streams and the parent of a mounted proxy."""
        retained: list[str] = []
        try:
            for uri in uris:
                await self._retain(uri)
                retained.append(uri)
            yield
        finally:
            for uri in retained:
                await self._release(uri)

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
                self._know_tools(tools)
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
                return await _call(client, link, rctx, method, params)
            if method in TASK_METHODS or (
                method == "tools/call" and isinstance((params or {}).get("task"), dict)
            ):
                # 2025-11-25 tasks, served by the upstream's tasks extension

                async def through(m: str, p: JSONObject) -> Any:
                    return await drive_rounds(
                        lambda q: _call(client, link, rctx, m, q),
                        opt_in(self._envelope_for(rctx, p)),
                        rctx,
                        max_rounds=self.max_rounds,
                    )

                return await self._requestor.serve(method, params, rctx, through)
            body = self._envelope_for(rctx, params)
            result = await drive_rounds(
                lambda p: _call(client, link, rctx, method, p),
                body,
                rctx,
                max_rounds=self.max_rounds,
            )
            return legacy_result(result)
        main, link = await self.upstreams.of(rctx)
        if main.modern:
            if method not in MRTR_METHODS:
                return await _call(main, link, rctx, method, params)
            # the upstream binds its requestState to the proxy: bind it to the principal
            who = principal()
            sealer = self.request_state
            upstream = open_upstream_state(sealer, method, params, who)
            result = await _call(main, link, rctx, method, upstream)
            return seal_upstream_state(sealer, method, params, who, result)
        if method in TASK_METHODS or (
            method == "tools/call"
            and opted_in(rctx.envelope)
            and self._task_support.get(str((params or {}).get("name"))) in ("optional", "required")
        ):
            # the tasks extension, served by 2025-11-25 task-augmented calls

            async def plain(m: str, p: JSONObject) -> Any:
                return await _call(main, link, rctx, m, p)

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
            result = await _call(main, link, rctx, method, strip_envelope(params))
            if method == "tools/list":
                return self._plain_tools(result, keep_tasks=opted_in(rctx.envelope))
            return result
        return await self._parked_round(method, params, rctx)

    def _plain_tools(self, result: Any, *, keep_tasks: bool = False) -> Any:
        """A handshake-era ``tools/list`` for a 2026-07-28 client: to a client that opted
        in to the tasks extension as it is; to others the tools that must run as
        2025-11-25 tasks are offered as plain tools (the proxy runs the task and answers
        with its result)."""
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return result
        for tool in tools:
            self._learn_task_support(tool)
        if keep_tasks:
            return result
        listed = []
        for tool in tools:
            execution = tool.get("execution") if isinstance(tool, dict) else None
            if isinstance(execution, dict) and "taskSupport" in execution:
                rest = {k: v for k, v in execution.items() if k != "taskSupport"}
                tool = {k: v for k, v in tool.items() if k != "execution"}
                if rest:
                    tool["execution"] = rest
            listed.append(tool)
        return {**result, "tools": listed}

    def _envelope_for(self, rctx: ServerRequestContext, params: JSONObject | None) -> JSONObject:
        """``params`` for a 2026-07-28 upstream on behalf of a handshake-era client: its
        capabilities, identity and log level in the envelope."""
        session = rctx.session
        body = dict(params or {})
        meta = body.get("_meta")
        extra = (
            {k: v for k, v in meta.items() if k != "progressToken"}
            if isinstance(meta, dict)
            else None
        )
        body["_meta"] = build_request_meta(
            _MODERN.name,
            session.client_capabilities,
            session.client_info or None,
            # a handshake-era session hears everything until it sets a level
            log_level=self.upstreams.levels.get(session, "debug"),
            extra=extra,
        )
        return body

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
        if method == "tools/call" and (body or {}).get("name") in self._task_tools:
            run = _as_task(client, body or {}, on_progress=call.progress)
        else:
            run = _send(client, method, body, on_progress=call.progress)
        caps = rctx.envelope.client_capabilities if rctx.envelope is not None else {}
        if "keeps_roots" in link.traits and isinstance(caps.get("roots"), dict):
            run = _after(link.refresh_roots(ROOTS_REFRESH_WAIT), run)
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
        return _notify_quietly(owned[0], "notifications/roots/list_changed")

    def _deliver(self, event: BusEvent) -> None:
        """The relay's sink: an event to the sessions that have no upstream of their own."""
        owned = self.upstreams.owned
        for session in list(self.sessions):
            if session.era == "modern" or session in owned:
                continue
            if event.uri is not None:
                if event.uri in session.subscriptions:
                    params: JSONObject = {"uri": event.uri}
                    session.call_soon(
                        lambda s=session, p=params: s.send_quietly(event.method, p)  # type: ignore[misc]
                    )
            elif session.operating:
                session.call_soon(lambda s=session: s.send_quietly(event.method))  # type: ignore[misc]


def _tool_tasks(capabilities: Mapping[str, Any]) -> bool:
    """True when 2025-11-25 ``capabilities`` declare task-augmented ``tools/call``."""
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def _uri(params: JSONObject | None) -> str:
    uri = (params or {}).get("uri")
    if not isinstance(uri, str):
        raise McpError(INVALID_PARAMS, "'uri' must be a string")
    return uri


async def _notify_quietly(client: Client, method: str) -> None:
    with contextlib.suppress(McpError, ConnectionClosed):
        await client.session.notify(method)


async def _after(first: Awaitable[None], then: Awaitable[Any]) -> Any:
    await first
    return await then


async def _send(
    client: Client, method: str, params: JSONObject | None, *, on_progress: Any = None
) -> Any:
    """One request upstream, as it is; a broken connection is -32603 for the client."""
    try:
        return await client.session.request(method, params, timeout=None, on_progress=on_progress)
    except McpError:
        raise
    except TransportError as exc:
        raise McpError(INTERNAL_ERROR, f"The upstream server is unreachable: {exc}") from None


async def _as_task(client: Client, params: JSONObject, *, on_progress: Any = None) -> Any:
    """Run a tool that must be a 2025-11-25 task as one and return its result
    (``tasks/result`` waits for it); cancelled, the task is cancelled upstream."""
    created = await _send(client, "tools/call", {**params, "task": {}}, on_progress=on_progress)
    task = created.get("task") if isinstance(created, dict) else None
    task_id = task.get("taskId") if isinstance(task, dict) else None
    if not isinstance(task_id, str):
        return created  # it ran as a plain call after all
    try:
        return await _send(client, "tasks/result", {"taskId": task_id})
    except asyncio.CancelledError:
        with contextlib.suppress(McpError, ConnectionClosed):
            await asyncio.shield(
                client.session.request("tasks/cancel", {"taskId": task_id}, timeout=10)
            )
        raise


async def _call(
    client: Client,
    link: Link,
    rctx: ServerRequestContext,
    method: str,
    params: JSONObject | None,
) -> Any:
    """Forward ``method`` for ``rctx`` on ``client``: its progress to the client that asked
    for it, what the upstream says meanwhile related to it."""
    token = rctx.progress_token
    on_progress = None
    if token is not None:

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            note: JSONObject = {"progressToken": token, "progress": progress}
            if total is not None:
                note["total"] = total
            if message is not None:
                note["message"] = message
            with contextlib.suppress(ConnectionClosed, McpError):
                await rctx.notify("notifications/progress", note)

    link.in_flight.append(rctx)
    scope = link.scope_for(rctx)
    try:
        if scope is None:
            return await _send(client, method, params, on_progress=on_progress)
        with scope:
            return await _send(client, method, params, on_progress=on_progress)
    finally:
        link.in_flight.remove(rctx)
