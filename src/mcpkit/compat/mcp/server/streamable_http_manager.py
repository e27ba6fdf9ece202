"""``mcp.server.streamable_http_manager`` on mcpkit: the session manager a low-level server
is served over Streamable HTTP with, inside an ASGI application of one's own::

    manager = StreamableHTTPSessionManager(app=server, stateless=True)
    starlette = Starlette(routes=[Mount("/mcp", app=manager.handle_request)],
                          lifespan=lambda app: manager.run())

It is mcpkit's Streamable HTTP app (both protocol eras) for ``app``'s :attr:`native` server.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from mcpkit.compat.mcp.server.streamable_http import native_event_store
from mcpkit.compat.mcp.server.transport_security import native_host_origin
from mcpkit.server.app import ServerHTTPApp

__all__ = ["StreamableHTTPASGIApp", "StreamableHTTPSessionManager"]


class StreamableHTTPSessionManager:
    """Serves ``app`` at whatever path it is mounted on; :meth:`run` is its lifespan."""

    def __init__(
        self,
        app: Any,
        event_store: Any = None,
        json_response: bool = False,
        stateless: bool = False,
        security_settings: Any = None,
        retry_interval: int | None = None,
        session_idle_timeout: float | None = None,
        max_sessions: int | None = None,
        **_options: Any,
    ) -> None:
        native = getattr(app, "native", app)
        options: dict[str, Any] = {"stateless": stateless, "json_response": json_response}
        if event_store is not None:
            options["event_store"] = native_event_store(event_store)
        if retry_interval is not None:
            options["sse_retry_ms"] = retry_interval
        if session_idle_timeout is not None:
            options["session_idle_timeout"] = session_idle_timeout
        if max_sessions is not None:
            options["max_sessions"] = max_sessions
        options.update(native_host_origin(security_settings))
        self.app = app
        self.stateless = stateless
        self.json_response = json_response
        self._asgi: ServerHTTPApp = native.http_app("/", **options)
        if hasattr(app, "_session_manager"):
            app._session_manager = self

    def run(self) -> AbstractAsyncContextManager[None]:
        """Enter the server's lifespan; on exit end every session."""
        return self._asgi.lifespan()

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve one ASGI request (whatever path it was routed by)."""
        await self._asgi({**scope, "path": "/", "root_path": ""}, receive, send)


class StreamableHTTPASGIApp:
    """The ASGI app of a :class:`StreamableHTTPSessionManager`."""

    def __init__(self, session_manager: StreamableHTTPSessionManager) -> None:
        self.session_manager = session_manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.session_manager.handle_request(scope, receive, send)
