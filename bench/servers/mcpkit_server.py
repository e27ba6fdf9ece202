"""mcpkit, written only with the public API of DESIGN.md.

Usage: python mcpkit_server.py stdio [--tools N] [--sync-tool]
       python mcpkit_server.py http --port P [--stateless] [--json-response] [--tools N]
                                    [--sync-tool] [--server auto|uvicorn|granian]

``echo`` is ``async def`` (the idiomatic form of non-blocking code in an asyncio SDK: it
runs on the event loop). ``--sync-tool`` registers it as a plain ``def`` instead, which
mcpkit (like the official SDK's MCPServer) runs in a worker thread so that it can never
block the loop; the harness measures both (the "mcpkit sync tool" column). The same goes
for ``large`` (the tool and the resource).
Every server also offers the 1 MiB text of ``payload.py`` as the resource ``bench://large``
and as the result of the tool ``large``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from payload import LARGE_TEXT, LARGE_TOOL, LARGE_URI

from mcpkit import Server


def make_echo() -> Callable[[str], str]:
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return echo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--sync-tool", action="store_true")
    parser.add_argument("--workers", type=int, default=None, help="HTTP: worker processes")
    parser.add_argument(
        "--server",
        choices=["auto", "uvicorn", "granian"],
        default="auto",
        help="HTTP: the ASGI server (auto: mcpkit's default)",
    )
    args = parser.parse_args()

    app = Server("bench", version="1.0")

    if args.sync_tool:

        @app.tool()
        def echo(text: str) -> str:
            """Echo the text."""
            return text

        def large() -> str:
            """1 MiB of text."""
            return LARGE_TEXT

        app.tool(name=LARGE_TOOL)(large)
        app.resource(LARGE_URI, name="large", mime_type="text/plain")(large)

    else:

        @app.tool(name="echo")
        async def async_echo(text: str) -> str:
            """Echo the text."""
            return text

        async def async_large() -> str:
            """1 MiB of text."""
            return LARGE_TEXT

        app.tool(name=LARGE_TOOL)(async_large)
        app.resource(LARGE_URI, name="large", mime_type="text/plain")(async_large)

    for i in range(args.tools):
        app.tool(name=f"tool_{i}")(make_echo())

    if args.transport == "stdio":
        app.run()
    else:
        app.run(
            "http",
            host="127.0.0.1",
            port=args.port,
            stateless=args.stateless,
            json_response=args.json_response,
            server=args.server,
            workers=args.workers,
            # The benchmark client opens every session from 127.0.0.1: no per-client cap.
            max_sessions_per_client=None,
        )


if __name__ == "__main__":
    main()
