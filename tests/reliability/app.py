"""The server the reliability suite and ``bench/soak.py`` drive: an mcpkit ``Server`` with
tools that return large results, send bursts and progress, wait, and fail; a resource and a
prompt. ``python -m tests.reliability.app stdio`` serves stdio; ``... http [--json]
[--stateless]`` serves Streamable HTTP on 127.0.0.1 (a free port, printed to stderr)."""

from __future__ import annotations

import asyncio
import sys

from mcpkit import Context, Server


def make_app() -> Server:
    app = Server("reliability", version="1")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def blob(size: int) -> str:
        return "x" * size

    @app.tool()
    async def burst(count: int, size: int, ctx: Context) -> str:
        pad = "y" * size
        for i in range(count):
            await ctx.info({"i": i, "pad": pad})
        return f"sent {count}"

    @app.tool()
    async def steps(count: int, delay: float, ctx: Context) -> str:
        for i in range(count):
            await ctx.progress(i + 1, count, f"step {i + 1}")
            await asyncio.sleep(delay)
        return f"done {count}"

    @app.tool()
    async def hang() -> str:
        await asyncio.sleep(3600)
        return "never"

    @app.tool()
    async def fail(text: str) -> str:
        raise ValueError(text)

    @app.resource("mem://doc/{name}")
    async def doc(name: str) -> str:
        return f"document {name}"

    @app.prompt()
    async def greet(name: str) -> str:
        return f"Hello, {name}"

    return app


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    server = make_app()
    if mode == "stdio":
        server.run("stdio")
    else:
        server.run(
            "http",
            port=0,
            json_response="--json" in sys.argv,
            stateless="--stateless" in sys.argv,
        )
