"""The reliability server of ``app.py`` written with the official Python SDK (``mcp`` 2.x):
the same tools, resource and prompt, so ``bench/soak.py --server official`` and
``bench/reliability.py`` drive both implementations with one harness.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/reliability/official_app.py stdio
    .cache/peers/py/bin/python tests/reliability/official_app.py http [--json] [--stateless]

Over HTTP it listens on a free port of 127.0.0.1 and, once listening, writes the same line
as ``app.py`` to stderr: ``... serving reliability on http://127.0.0.1:PORT/mcp (Streamable
HTTP)``.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import warnings
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

warnings.simplefilter("ignore")  # ctx.info is deprecated for 2026-07-28; the harness is 2025


def make_app() -> MCPServer[Any]:
    # WARNING keeps uvicorn's per-request access log off.
    app: MCPServer[Any] = MCPServer("reliability", version="1", log_level="WARNING")

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
            await ctx.report_progress(i + 1, count, f"step {i + 1}")
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


async def serve_http(args: argparse.Namespace) -> None:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    starlette_app = make_app().streamable_http_app(
        json_response=args.json, stateless_http=args.stateless, host="127.0.0.1"
    )
    config = uvicorn.Config(starlette_app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    serving = asyncio.ensure_future(server.serve())
    while not server.started:
        if serving.done():
            serving.result()
        await asyncio.sleep(0.02)
    base = f"http://127.0.0.1:{port}"
    sys.stderr.write(f"official: serving reliability on {base}/mcp (Streamable HTTP)\n")
    sys.stderr.flush()
    await serving


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["stdio", "http"])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    args, _ = parser.parse_known_args()  # app.py's limit flags have no equivalent here
    if args.mode == "stdio":
        make_app().run("stdio")
    else:
        asyncio.run(serve_http(args))


if __name__ == "__main__":
    main()
