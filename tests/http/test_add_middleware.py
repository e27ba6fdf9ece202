"""``ServerHTTPApp.add_middleware``: an ASGI middleware around every HTTP request of the app
(the MCP endpoint, the custom routes), in Starlette's order (the last added outermost)."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse

from mcpkit import Server
from tests.http import raw


class Tagging:
    """Records the order it ran in and tags the answer with a header."""

    def __init__(self, app: Any, name: str, seen: list[str]) -> None:
        self.app = app
        self.name = name
        self.seen = seen

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.seen.append(self.name)

        async def tagged(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"x-" + self.name.encode(), b"1")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, tagged)


async def test_middleware_wraps_the_endpoint_and_the_routes_last_added_outermost() -> None:
    server = Server("mw")

    @server.custom_route("/health")
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    app = server.http_app(dns_rebinding_protection=False)
    seen: list[str] = []
    app.add_middleware(Tagging, "inner", seen)
    app.add_middleware(Tagging, name="outer", seen=seen)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
    ):
        init = await client.post("/mcp", json=raw.init_message(), headers=raw.headers())
        assert init.status_code == 200 and "mcp-session-id" in init.headers
        assert init.headers["x-inner"] == init.headers["x-outer"] == "1"
        assert seen == ["outer", "inner"]
        ok = await client.get("/health")
        assert ok.json() == {"ok": True} and ok.headers["x-outer"] == "1"
        assert seen == ["outer", "inner", "outer", "inner"]
