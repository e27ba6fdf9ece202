"""``mcpkit dev FILE[:app]``: run a server, restart it on every change, and drive it from the
web inspector (see :mod:`mcpkit.dev`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpkit.cli.errors import EXIT_USAGE, CliError

__all__ = ["add_dev_parser", "run_dev"]

_EXAMPLES = """
mcpkit dev server.py                     # http://127.0.0.1:PORT/?token=... (printed)
mcpkit dev examples/weather_app/server.py --open   # and open it in the browser
mcpkit dev server.py:app --port 6274 --era 2026-07-28
mcpkit dev my_package.server:app
mcpkit dev                               # the project's server (mcpkit.toml, [tool.mcpkit])
"""


def add_dev_parser(sub: Any, command: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``dev`` on the subparsers ``sub`` (``command`` makes a command's parser)."""
    parser = command(
        sub,
        "dev",
        "run a server with reload on changes and a web inspector to try it in the browser",
        _EXAMPLES,
        description=textwrap.fill(
            "Run the Server of FILE[:app] (or module:app) as a subprocess, restart it whenever "
            "a .py/.html/.css/.js/.json file in its folder changes, and serve a web inspector "
            "on 127.0.0.1 (a random token in the URL guards it): tools with forms, resources, "
            "prompts, completion, progress and logs, elicitation and sampling answered in the "
            "page, tasks, and MCP Apps rendered in a sandboxed iframe.",
            width=88,
        ),
    )
    parser.add_argument(
        "server",
        metavar="SERVER",
        nargs="?",
        help="path/to/file.py[:object] or module:object (default: the project's server, "
        "from MCPKIT_SERVER, mcpkit.toml or [tool.mcpkit] in pyproject.toml)",
    )
    parser.add_argument("--port", type=int, default=0, help="the inspector's port (0: a free one)")
    parser.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="files whose changes never restart the server (repeatable; matched against the "
        "path relative to the server's folder and the file name, e.g. 'notes.json', 'data/*'); "
        "data files the server changes while it runs a call never restart it",
    )
    parser.add_argument(
        "--era",
        choices=("auto", "legacy", "2026-07-28"),
        default="auto",
        help="the protocol era to connect in first (the page can switch; default: auto)",
    )
    opening = parser.add_mutually_exclusive_group()
    opening.add_argument("--open", dest="open", action="store_true", help="open the browser")
    opening.add_argument(
        "--no-open", dest="open", action="store_false", help="do not open a browser (default)"
    )
    parser.set_defaults(open=False)


def run_dev(args: argparse.Namespace) -> int:
    """Run the dev server until Ctrl-C."""
    from mcpkit.client.targets import parse_server_ref

    spec: str = args.server if args.server is not None else _project_server()
    ref = parse_server_ref(spec)
    if ref is None:
        raise CliError(
            f"not a server file or module: {spec}",
            "give path/to/file.py, path/to/file.py:app or package.module:app",
            code=EXIT_USAGE,
        )
    if ref.path is not None and not ref.path.is_file():
        raise CliError(f"no such file: {ref.path}", "check the path of the server's file")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(spec, args))
    return 0


def _project_server() -> str:
    """The server the settings name (``mcpkit run`` alone serves the same one)."""
    from mcpkit import settings as config

    try:
        server = config.load({}, None, config.find_project()).server
    except config.SettingsError as exc:
        raise CliError(str(exc), "see docs/configuration.md", EXIT_USAGE) from None
    if server is None:
        raise CliError(
            "no server to run: give one (mcpkit dev server.py) or name it in mcpkit.toml: "
            'server = "server.py:app"',
            code=EXIT_USAGE,
        )
    return server


async def _serve(spec: str, args: argparse.Namespace) -> None:
    from mcpkit.dev import DevServer

    dev = DevServer(spec, port=args.port, era=args.era, exclude=args.exclude)

    def reloaded(changed: list[Path]) -> None:
        names = ", ".join(p.name for p in changed[:3]) + (" ..." if len(changed) > 3 else "")
        sys.stderr.write(f"mcpkit dev: {names} changed, restarting the server\n")

    dev.on_reload = reloaded
    try:
        await dev.start()
    except OSError as exc:
        raise CliError(
            f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}", "pick another --port"
        ) from exc
    try:
        sys.stdout.write(f"mcpkit dev: inspector at {dev.url}\n")
        if dev.upstream.error:
            sys.stdout.write(f"mcpkit dev: the server did not start: {dev.upstream.error}\n")
        sys.stdout.write(f"mcpkit dev: watching {dev.root} (Ctrl-C stops)\n")
        sys.stdout.flush()
        if args.open:
            import webbrowser

            webbrowser.open(dev.url)
        await dev.wait()
    finally:
        await dev.stop()
