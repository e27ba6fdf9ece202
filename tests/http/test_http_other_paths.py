"""GET on a path other than the MCP endpoint says where the endpoint is (the endpoint and
other methods elsewhere are unchanged)."""

from __future__ import annotations

import httpx

from mcpkit import Server
from mcpkit.transports.http import running


async def test_get_root_says_where_to_post_and_other_paths_404_with_the_hint() -> None:
    asgi = Server("hint").http_app()
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        root = await http.get(base + "/")
        assert root.status_code == 200
        assert root.headers["content-type"].startswith("text/plain")
        assert root.text == "MCP server: POST JSON-RPC to /mcp (Streamable HTTP)\n"
        other = await http.get(base + "/elsewhere")
        assert other.status_code == 404
        assert "POST JSON-RPC to /mcp" in other.text
        posted = await http.post(base + "/elsewhere", json={})  # a client with a wrong URL
        assert posted.status_code == 404 and posted.text == "Not Found"
        head = await http.head(base + "/")
        assert head.status_code == 200 and head.content == b""
        # The endpoint itself still asks for JSON-RPC.
        endpoint = await http.get(base + "/mcp", headers={"accept": "text/event-stream"})
        assert endpoint.status_code == 400
    await asgi.aclose()


async def test_mounted_the_hint_names_the_mounted_endpoint() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    asgi = Server("hint").http_app()
    host = Starlette(routes=[Mount("/tools", app=asgi)], lifespan=asgi.lifespan)
    async with running(host) as base, httpx.AsyncClient(timeout=10) as http:
        root = await http.get(base + "/tools/")
        assert root.status_code == 200
        assert "POST JSON-RPC to /tools/mcp" in root.text
