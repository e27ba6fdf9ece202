"""mcpkit, written only with the public API of DESIGN.md.

Usage: python mcpkit_server.py stdio [--tools N]
       python mcpkit_server.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

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
    args = parser.parse_args()

    app = Server("bench", version="1.0")

    @app.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    for i in range(args.tools):
        app.tool(name=f"tool_{i}")(make_echo())

    if args.transport == "stdio":
        app.run()
    else:
        app.run("http", host="127.0.0.1", port=args.port, stateless=args.stateless,
                json_response=args.json_response)


if __name__ == "__main__":
    main()
