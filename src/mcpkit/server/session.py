"""The server's session: :class:`AppSession` (a :class:`~mcpkit.session.ServerSession`
belonging to a :class:`~mcpkit.server.app.Server`) and the request context it gives every
handler, :class:`ServerRequestContext`, which knows its server and worker pool so features
make the user's :class:`~mcpkit.server.context.Context` from it directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import JSONObject, RequestId
from mcpkit.lifecycle import Phase
from mcpkit.server.context import Context
from mcpkit.server.logging import LEVELS, current_context
from mcpkit.server.offload import WorkerPool
from mcpkit.server.roots import list_roots
from mcpkit.session import RequestContext, RequestHandler, ServerSession
from mcpkit.transports.base import Transport

if TYPE_CHECKING:
    from mcpkit.server.app import Server
    from mcpkit.types import Root

__all__ = ["AppSession", "ServerHandler", "ServerRequestContext"]

logger = logging.getLogger("mcpkit.server")


class ServerRequestContext(RequestContext):
    """The request context of an :class:`AppSession`: the engine's context plus the server
    serving it (its settings, worker pool and logging bridge)."""

    __slots__ = ()

    session: AppSession

    @property
    def server(self) -> Server:
        """The server this request is served by."""
        return self.session.server

    @property
    def workers(self) -> WorkerPool:
        """The pool sync user functions run in."""
        return self.session.workers

    def context(self, rctx: RequestContext | None = None) -> Context:
        """The :class:`Context` for the user's function; ``rctx`` is the context it talks
        back through when that is not this one (a task's). Becomes the logging bridge's
        current context when the server has one."""
        ctx = Context(self, rctx)
        if self.session.server.log_bridge:
            current_context.set(ctx)
        return ctx

    def bind_logging(self, rctx: RequestContext | None = None) -> None:
        """Route the logging bridge's records to this request's client (a function that
        takes no Context still logs to the client it serves)."""
        if self.session.server.log_bridge:
            current_context.set(Context(self, rctx))


#: A request handler of a server feature: served only by an :class:`AppSession`.
ServerHandler = Callable[[JSONObject | None, ServerRequestContext], Awaitable[Any]]


class AppSession(ServerSession):
    """A server session belonging to a :class:`Server`: it keeps the client's logging level
    and resource subscriptions, and takes part in the server's broadcasts."""

    def __init__(self, server: Server, transport: Transport, **kwargs: Any) -> None:
        super().__init__(transport, **kwargs)
        self.server = server
        #: Where sync user functions run (the server's pool).
        self.workers = server.workers
        self.loop = asyncio.get_running_loop()
        #: Minimum severity of ``notifications/message`` (everything until the client sets one).
        self.log_level = 0
        #: Resource URIs this client subscribed to.
        self.subscriptions: set[str] = set()
        self._app_tasks: set[asyncio.Task[Any]] = set()
        self._task_owner_key: str | None = None
        #: The server's handler table this session was last given.
        self.handler_table: Mapping[str, ServerHandler] | None = None

    def build_context(
        self, request_id: RequestId, method: str, params: JSONObject | None
    ) -> ServerRequestContext:
        return ServerRequestContext(self, request_id, method, params)

    def install(self, table: Mapping[str, ServerHandler]) -> None:
        """Serve the methods of ``table`` (a server's handler table) with its handlers."""
        if self.handler_table is table:
            return
        self.handler_table = table
        # Every context this session builds is a ServerRequestContext (build_context above),
        # so its handlers may take one.
        self._handlers.update(cast("Mapping[str, RequestHandler]", table))

    @property
    def task_owner_key(self) -> str:
        """Identifies this session as the owner of the tasks it creates (see TaskManager)."""
        key = self._task_owner_key
        if key is None:
            key = self._task_owner_key = uuid.uuid4().hex  # made on first use: ~2 µs
        return key

    async def start(self) -> None:
        self.install(self.server.handler_table())  # registrations made since session() count
        self.server.sessions.add(self)
        await super().start()

    def on_closed(self, exc: BaseException | None) -> None:
        self.server.sessions.discard(self)
        for task in list(self._app_tasks):
            task.cancel()
        # Handlers bound to this session (initialize, roots hooks) make reference cycles;
        # a closed session serves nothing, so drop them and let refcounting free it at once.
        self._handlers.clear()
        self._notification_handlers.clear()

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` in the background, tied to this session."""
        task: asyncio.Task[Any] = self.loop.create_task(coro)  # type: ignore[arg-type]
        self._app_tasks.add(task)
        task.add_done_callback(self._app_tasks.discard)

    def call_soon(self, coro_fn: Callable[[], Awaitable[Any]]) -> None:
        """Spawn ``coro_fn()`` from any thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.spawn(coro_fn())
        else:
            self.loop.call_soon_threadsafe(lambda: self.spawn(coro_fn()))

    @property
    def operating(self) -> bool:
        """True once initialized and still open."""
        return self.lifecycle.phase is Phase.OPERATING and not self.closed

    async def send_log(
        self,
        level: str,
        data: Any,
        logger_name: str | None = None,
        related_request_id: RequestId | None = None,
        meta: JSONObject | None = None,
    ) -> None:
        """``notifications/message`` when ``level`` passes this session's threshold."""
        if LEVELS[level] < self.log_level or self.closed:
            return
        params: JSONObject = {"level": level, "data": data}
        if logger_name is not None:
            params["logger"] = logger_name
        if meta:
            params["_meta"] = meta
        with contextlib.suppress(ConnectionClosed):
            await self.notify(
                "notifications/message", params, related_request_id=related_request_id
            )

    async def send_quietly(self, method: str, params: JSONObject | None = None) -> None:
        """A notification that is dropped when the session cannot carry it."""
        if not self.operating:
            return
        try:
            await self.notify(method, params)
        except (ConnectionClosed, McpError) as exc:
            logger.debug("Not sending %s: %s", method, exc)

    async def complete_elicitation(self, elicitation_id: str) -> None:
        """``notifications/elicitation/complete`` for a URL-mode elicitation."""
        await self.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})

    async def list_roots(self) -> list[Root]:
        """The client's roots (``roots/list``)."""
        return await list_roots(self)
