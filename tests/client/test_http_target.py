"""``Client("http://...")``: the client over Streamable HTTP against a real mcpkit Server."""

from __future__ import annotations

from typing import Any

from mcpkit.client import Client
from mcpkit.transports.http import running
from tests.client import app_server


async def test_client_over_streamable_http(wire: Any) -> None:
    def sample(params: Any, ctx: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "pong"}, "model": "m"}

    async with running(app_server.app.http_app(path="/mcp")) as base:
        url = base.rstrip("/") + "/mcp"
        async with Client(url, tracer=wire(), sampling_handler=sample) as c:
            assert c.server_url == url
            assert c.server_info.name == "client-test-app"
            result = await c.call_tool("forecast", {"city": "Bergen"})
            assert result.structured_content == {"city": "Bergen", "temp": 21.5}
            asked = await c.call_tool("ask", {"question": "ping?"})
            assert asked.content[0].text == "pong"  # type: ignore[union-attr]
            assert [r.uri for r in await c.list_resources()] == ["res://hello"]
