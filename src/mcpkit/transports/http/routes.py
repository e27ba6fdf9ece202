"""Plain HTTP routes served beside the MCP endpoint (``@app.custom_route``): health-style
endpoints, webhooks, OAuth callbacks.

Each route is a Starlette route (path parameters such as ``/items/{id}``, a method list)
whose handler takes a ``starlette.requests.Request`` and returns a
``starlette.responses.Response`` (sync handlers run in a thread). A request whose path
matches a route is answered by it (a wrong method: 405); every other request goes to the MCP
app. Routes are not behind the MCP endpoint's Host/Origin or OAuth checks: a handler that
needs protection checks the request itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from starlette.routing import Match, Route, Router

from mcpkit.asgi_types import Scope

__all__ = ["CustomRoutes"]


class CustomRoutes:
    """The custom routes of one HTTP app."""

    def __init__(
        self, routes: Iterable[tuple[str, Sequence[str] | None, Callable[..., Any], str | None]]
    ) -> None:
        self.routes = [
            Route(path, endpoint, methods=list(methods) if methods else None, name=name)
            for path, methods, endpoint, name in routes
        ]
        self.router = Router(routes=self.routes)

    def route_of(self, scope: Scope) -> bool:
        """True when a route answers this request (its path matches, whatever the method)."""
        if scope["type"] != "http":
            return False
        for route in self.routes:
            match, _ = route.matches(scope)
            if match is not Match.NONE:
                return True
        return False

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        await self.router(scope, receive, send)
