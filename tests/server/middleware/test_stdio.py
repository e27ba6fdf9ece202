"""Middleware over stdio: a server process with a middleware, called in both eras."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpkit import Client, McpError

SERVER = """
from mcpkit import McpError, Server
from mcpkit.server.middleware import Middleware


class Policy(Middleware):
    async def on_call_tool(self, ctx, call_next):
        if ctx.name == "forbidden":
            raise McpError(-31000, "not on stdio either")
        result = dict(await call_next(ctx))
        result["content"] = [*result["content"], {"type": "text", "text": ctx.era}]
        return result


app = Server("stdio-mw", middleware=[Policy()])


@app.tool()
def echo(text: str) -> str:
    return text


@app.tool()
def forbidden() -> str:
    return "never"


app.run()
"""


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_a_stdio_server_runs_its_middleware(era: str, tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    async with Client([sys.executable, str(script)], era=era, timeout=20) as client:  # type: ignore[arg-type]
        result = await client.call_tool("echo", {"text": "hi"})
        expected = "legacy" if era == "legacy" else "modern"
        assert [c.text for c in result.content] == ["hi", expected]  # type: ignore[union-attr]
        with pytest.raises(McpError) as refused:
            await client.call_tool("forbidden", {})
        assert refused.value.code == -31000
