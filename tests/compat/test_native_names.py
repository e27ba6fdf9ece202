"""The names users of other SDKs know, accepted by the native API itself."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpkit import Client, Context, Server
from mcpkit.testing import connected


async def test_context_report_progress_is_progress() -> None:
    app = Server("names")

    @app.tool()
    async def work(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half")
        await ctx.progress(2, 2, "done")
        return "ok"

    seen: list[tuple[float, float | None, str | None]] = []
    async with connected(app) as client:
        await client.call_tool("work", on_progress=lambda p, t, m: seen.append((p, t, m)))
    assert seen == [(1, 2, "half"), (2, 2, "done")]


async def test_run_takes_transport_as_a_keyword(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(
        "from mcpkit import Server\n"
        "app = Server('kw')\n"
        "@app.tool()\n"
        "def ping() -> str:\n"
        "    return 'pong'\n"
        "app.run(transport='stdio')\n"
    )
    async with Client([sys.executable, str(script)]) as client:
        result = await client.call_tool("ping")
    assert result.structured_content is None and result.content[0].text == "pong"
