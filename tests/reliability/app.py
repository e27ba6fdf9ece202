"""The server the reliability suite and ``bench/soak.py`` drive: an mcpkit ``Server`` with
tools that return large results, send bursts and progress, wait, and fail; a resource and a
prompt. ``python -m tests.reliability.app stdio`` serves stdio; ``... http [--json]
[--stateless] [--head-timeout S ...]`` serves Streamable HTTP on 127.0.0.1 (a free port,
printed to stderr) with the limits given."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


async def serve_http(args: argparse.Namespace) -> None:
    """Serve Streamable HTTP on 127.0.0.1 with the limits given on the command line."""
    from mcpkit.transports.http import MemoryEventStore, running

    store = MemoryEventStore(max_bytes_per_session=args.event_store_kb * 1024)
    asgi = make_app().http_app(
        event_store=store,
        json_response=args.json,
        stateless=args.stateless,
        body_timeout=args.body_timeout,
        slow_reader_timeout=args.slow_reader_timeout,
        max_stream_buffer=args.max_stream_buffer,
        # every attack here comes from 127.0.0.1 and counts what is left behind: no cap on
        # sessions per client (tests/security covers the cap)
        max_sessions_per_client=None,
    )
    async with running(
        asgi, head_timeout=args.head_timeout, timeout_keep_alive=args.keep_alive
    ) as base:
        sys.stderr.write(f"mcpkit: serving reliability on {base}/mcp (Streamable HTTP)\n")
        sys.stderr.flush()
        await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["stdio", "http"])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--head-timeout", type=float, default=10.0)
    parser.add_argument("--body-timeout", type=float, default=30.0)
    parser.add_argument("--keep-alive", type=float, default=5.0)
    parser.add_argument("--slow-reader-timeout", type=float, default=30.0)
    parser.add_argument("--max-stream-buffer", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--event-store-kb", type=int, default=16 * 1024)
    args = parser.parse_args()
    if args.mode == "stdio":
        make_app().run("stdio")
    else:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_http(args))


if __name__ == "__main__":
    main()
