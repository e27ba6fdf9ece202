"""``mcpkit proxy TARGET``: serve another MCP server as if it were local.

``mcpkit proxy "python server.py" --transport http`` publishes a stdio server over
Streamable HTTP; ``mcpkit proxy http://127.0.0.1:8000/mcp`` offers an HTTP server over
stdio (to a desktop client that only spawns commands). Clients of either protocol era are
served, whatever era the upstream speaks (``--era`` picks the wire to the upstream); see
:mod:`mcpkit.proxy`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["add_proxy_parser", "run_proxy"]

_EXAMPLES = """
mcpkit proxy "python server.py" --transport http --port 8000   # stdio server -> HTTP
mcpkit proxy http://127.0.0.1:8000/mcp                          # HTTP server -> stdio
mcpkit proxy "npx -y @modelcontextprotocol/server-everything" -t http
mcpkit proxy --config ~/.cursor/mcp.json github -t http --port 9000
mcpkit proxy http://127.0.0.1:8000/mcp --era legacy   # speak the handshake era upstream
"""


def add_proxy_parser(sub: Any, command: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``proxy`` on the subparsers ``sub`` (``command`` makes a command's parser)."""
    parser = command(
        sub,
        "proxy",
        "serve another MCP server as if it were local (stdio <-> HTTP, either protocol era)",
        _EXAMPLES,
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="the upstream server: a command line, an http(s) URL, or with --config a name",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="an mcpServers JSON config; TARGET is a name in it"
    )
    parser.add_argument(
        "-t",
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="how the proxy is served (default: stdio)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP: port (8000; 0: a free one)")
    parser.add_argument("--path", default="/mcp", help="HTTP: endpoint path (/mcp)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        dest="allowed_hosts",
        metavar="HOST",
        help="HTTP: accept requests whose Host is HOST besides the loopback names (repeatable)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        dest="allowed_origins",
        metavar="ORIGIN",
        help="HTTP: accept browser requests from ORIGIN (repeatable)",
    )
    parser.add_argument(
        "--era",
        choices=("auto", "legacy", "2026-07-28"),
        default="auto",
        help="the wire to the upstream: auto (default: 2026-07-28 when it speaks it), legacy "
        "or 2026-07-28; clients of both eras are served either way",
    )
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL upstream (repeatable)",
    )
    parser.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for a command-line upstream (repeatable)",
    )
    parser.add_argument("--name", help="the name the proxy gives itself (default: the upstream's)")
    parser.add_argument(
        "--max-upstreams",
        type=int,
        default=None,
        metavar="N",
        help="most upstream connections (processes, for a command) handshake-era clients "
        "hold at once; beyond them initialize answers -31503 overloaded (default 4)",
    )
    parser.add_argument(
        "--upstream-idle-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="a client's upstream connection unused this long is closed (default 300)",
    )


def run_proxy(args: argparse.Namespace) -> int:
    """Serve the proxy until the client goes away (stdio) or Ctrl-C (HTTP)."""
    from mcpkit.cli.common import parse_header
    from mcpkit.cli.errors import EXIT_USAGE, CliError
    from mcpkit.cli.targets import resolve_target
    from mcpkit.proxy import ProxyServer

    target = resolve_target(args.target, args.config)
    options: dict[str, Any] = {}
    if args.header:
        options["headers"] = dict(parse_header(h) for h in args.header)
    if args.env:
        env: dict[str, str] = {}
        for pair in args.env:
            name, sep, value = pair.partition("=")
            if not sep or not name:
                raise CliError(f"bad --env {pair!r}", "write NAME=VALUE", code=EXIT_USAGE)
            env[name] = value
        options["env"] = env
    from mcpkit.proxy.server import DEFAULT_MAX_UPSTREAMS

    max_upstreams = DEFAULT_MAX_UPSTREAMS if args.max_upstreams is None else args.max_upstreams
    if max_upstreams < 1 or args.upstream_idle_timeout <= 0:
        raise CliError(
            "--max-upstreams must be at least 1 and --upstream-idle-timeout above 0",
            code=EXIT_USAGE,
        )
    app = ProxyServer(
        target,
        name=args.name,
        era=args.era,
        max_upstreams=max_upstreams,
        upstream_idle_timeout=args.upstream_idle_timeout,
        client_options=options,
        debug=bool(getattr(args, "debug", False)),
    )
    if args.transport == "http":
        app.run(
            "http",
            host=args.host,
            port=args.port,
            path=args.path,
            allowed_hosts=args.allowed_hosts,
            allowed_origins=args.allowed_origins,
        )
    else:
        app.run()
    return 0
