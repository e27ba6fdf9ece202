"""The public Server API served over Streamable HTTP (``app.http_app()``) under uvicorn."""

from __future__ import annotations

from typing import Any

from mcpkit import Context, Server
from mcpkit.session import ClientSession
from mcpkit.transports.http import StreamableHTTPClientTransport, running
from tests.http.conftest import CLIENT_INFO


async def test_server_http_app_end_to_end(wire: Any) -> None:
    app = Server("http-api", version="1.0.0")

    @app.tool()
    async def shout(text: str, ctx: Context) -> str:
        """Upper-case a text, reporting progress."""
        await ctx.progress(0.5, total=1)
        return text.upper()

    asgi = app.http_app()
    async with running(asgi) as base:
        client = ClientSession(StreamableHTTPClientTransport(base + "/mcp"), tracer=wire())
        await client.start()
        try:
            await client.initialize(CLIENT_INFO, timeout=10)
            seen: list[float] = []
            result = await client.request(
                "tools/call",
                {"name": "shout", "arguments": {"text": "hello"}},
                timeout=10,
                on_progress=lambda p, t, m: seen.append(p),
            )
            assert result["content"][0]["text"] == "HELLO"
            assert seen == [0.5]
        finally:
            await client.close()
        assert asgi.sessions == {}
