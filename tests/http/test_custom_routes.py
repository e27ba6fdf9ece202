"""@app.custom_route: plain HTTP routes beside the MCP endpoint, served by the same app
(both eras of MCP keep working on it)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from mcpkit import Client, Server
from mcpkit.transports.http import running


def make_server() -> tuple[Server, list[Any]]:
    app = Server("routes")
    received: list[Any] = []

    @app.tool()
    def echo(text: str) -> str:
        return text

    @app.custom_route("/health")
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "tools": len(app.tools.tools)})

    @app.custom_route("/webhooks/{source}", methods=["POST"])
    async def webhook(request: Request) -> Response:
        received.append((request.path_params["source"], await request.json()))
        return Response(status_code=204)

    @app.custom_route("/version", methods=["GET"], name="version")
    def version(request: Request) -> Response:  # a sync handler runs in a thread
        return PlainTextResponse("1.0")

    return app, received


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_routes_beside_the_mcp_endpoint(era: str, wire: Any) -> None:
    app, received = make_server()
    async with running(app.http_app()) as base:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            health = await http.get("/health")
            assert health.status_code == 200 and health.json() == {"status": "ok", "tools": 1}
            hook = await http.post("/webhooks/github", json={"action": "opened"})
            assert hook.status_code == 204
            assert received == [("github", {"action": "opened"})]
            assert (await http.get("/version")).text == "1.0"
            # The path matches but not the method: 405 from the route, not the MCP app.
            wrong = await http.get("/webhooks/github")
            assert wrong.status_code == 405
            assert (await http.get("/nothing-here")).status_code == 404
        async with Client(f"{base}/mcp", era=era, tracer=wire()) as client:
            assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"  # type: ignore[union-attr]


def test_a_route_on_the_mcp_path_is_refused() -> None:
    app = Server("s")

    @app.custom_route("/mcp/")
    async def clash(request: Request) -> Response:
        return Response()

    with pytest.raises(ValueError, match="MCP endpoint's path"):
        app.http_app()
    with pytest.raises(ValueError, match="starts with '/'"):
        app.custom_route("health")


def test_no_routes_no_router() -> None:
    app = Server("s")
    assert app.http_app().routes is None


async def test_routes_and_probes_together() -> None:
    app, _ = make_server()
    asgi = app.http_app(health=True)
    async with running(asgi) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/health")).json()["status"] == "ok"
    asgi.routes = None
    asgi.probes = None
    assert asgi._front is None  # nothing left to look at ahead of the endpoint
