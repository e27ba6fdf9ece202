"""The handler table of a server: what it answers, declares and announces.

:class:`HandlingServer` collects the request handlers of what is registered (from the
features, :meth:`~HandlingServer.request_handler`'s replacing them, wrapped in the middleware
chain), the capabilities and caching hints they imply and the ``server/discover`` result,
keeps them until a registration changes, and tells clients what changed (through the bus).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Collection, Mapping
from typing import TYPE_CHECKING, Any, Literal

from mcpkit import versions
from mcpkit._lazy import lazy_module
from mcpkit.bus import BusEvent
from mcpkit.jsonrpc import JSONObject
from mcpkit.server import logging as log_feature
from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server import scopes as scopes_feature
from mcpkit.server import subscriptions
from mcpkit.server.caching import CacheHints
from mcpkit.server.capabilities import Features, declare, features_of
from mcpkit.server.configured import ConfiguredServer
from mcpkit.server.context import LifespanT
from mcpkit.server.discover import DISCOVER_METHOD, discover_result
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    from mcpkit import tasks as tasks_core
    from mcpkit.server import tasks_extension
    from mcpkit.server.middleware.base import MiddlewareLike
    from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext
else:  # optional features (tasks in either design): loaded on first use
    tasks_core = lazy_module("mcpkit.tasks", globals(), "tasks_core")
    tasks_extension = lazy_module("mcpkit.server.tasks_extension", globals(), "tasks_extension")

__all__ = ["HandlingServer"]


class HandlingServer(ConfiguredServer[LifespanT]):
    """A server's handler table, capabilities, caching hints and notifications to clients."""

    def _forget_tables(self) -> None:
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

    # -- the handler table ---------------------------------------------------------------------

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
            for advertise in self._advertisers:  # a mount's: its servers' skills
                advertise(caps, version)
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
