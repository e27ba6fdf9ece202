"""What the commands that talk to a server share: options, the connection, error lines."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcpkit.cli.errors import EXIT_USAGE, CliError, Declined
from mcpkit.cli.interactive import TerminalHandlers
from mcpkit.cli.render import LOG_LEVELS, Output
from mcpkit.cli.targets import resolve_target

__all__ = [
    "add_connection_options",
    "connect",
    "make_client",
    "make_handlers",
    "make_output",
    "parse_header",
]

TARGET_HELP = (
    "the server: a command line ('python server.py', quoted), an http(s):// URL, "
    "path/to/file.py[:object], module:object, or a server name from --config"
)


def add_connection_options(parser: argparse.ArgumentParser, *, answers: bool = True) -> None:
    """The options every command that connects to a server accepts."""
    parser.add_argument("target", metavar="TARGET", help=TARGET_HELP)
    group = parser.add_argument_group("connection")
    group.add_argument(
        "--config",
        metavar="FILE",
        help="an mcpServers JSON config (Claude Desktop / Cursor / VS Code style); "
        "TARGET is then a server name in it",
    )
    group.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for URL targets (repeatable), e.g. -H 'Authorization: Bearer T'",
    )
    group.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for a command-line server (repeatable)",
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="seconds to wait for each response; progress restarts it (default 60)",
    )
    group.add_argument(
        "--protocol-version",
        metavar="VERSION",
        help="ask for this protocol revision (e.g. 2025-06-18) instead of the latest",
    )
    group.add_argument(
        "--era",
        choices=("auto", "legacy", "2026-07-28"),
        default="auto",
        help="auto (default): the stateless 2026-07-28 wire when the server speaks it, else "
        "the initialize handshake; legacy or 2026-07-28: only that one",
    )
    if answers:
        group = parser.add_argument_group("answering the server")
        group.add_argument(
            "--no-input",
            action="store_true",
            help="never ask: decline elicitations and refuse sampling requests "
            "(the default when stdin is not a terminal)",
        )
        group.add_argument(
            "--root",
            action="append",
            default=[],
            metavar="PATH",
            help="offer this directory to the server as a root (repeatable); "
            "without it no roots are offered",
        )
    group = parser.add_argument_group("output")
    group.add_argument("--json", action="store_true", help="print JSON instead of tables/text")
    group.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        metavar="LEVEL",
        help="show the server's log messages at LEVEL and above (asks the server with "
        f"logging/setLevel when it offers logging); one of {', '.join(LOG_LEVELS)}",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="show no server log messages and no progress: only the result and errors",
    )
    group.add_argument(
        "--save-dir",
        metavar="DIR",
        help="save images, audio and blobs in this folder (default: not saved)",
    )


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` (or ``Name=value``) as a pair; CliError when malformed."""
    for sep in (":", "="):
        name, found, value = text.partition(sep)
        if found and name.strip():
            return name.strip(), value.strip()
    raise CliError(f"bad header {text!r}", "write it as 'Name: value'", code=EXIT_USAGE)


def _env(pairs: list[str]) -> dict[str, str] | None:
    if not pairs:
        return None
    import os

    env = dict(os.environ)
    for pair in pairs:
        name, found, value = pair.partition("=")
        if not found or not name:
            raise CliError(f"bad --env {pair!r}", "write it as NAME=VALUE", code=EXIT_USAGE)
        env[name] = value
    return env


def make_output(args: argparse.Namespace) -> Output:
    """The Output for a command's options."""
    return Output(
        save_dir=getattr(args, "save_dir", None),
        log_level=getattr(args, "log_level", None),
        quiet=bool(getattr(args, "quiet", False)),
    )


def make_handlers(args: argparse.Namespace, output: Output) -> TerminalHandlers:
    """The terminal's answers to sampling and elicitation (refusals with ``--no-input`` or
    without a terminal on stdin)."""
    interactive = not getattr(args, "no_input", True) and sys.stdin.isatty()
    reason = "--no-input" if getattr(args, "no_input", False) else "stdin is not a terminal"
    return TerminalHandlers(output, interactive=interactive, reason=reason)


def make_client(
    args: argparse.Namespace,
    output: Output,
    *,
    handlers: TerminalHandlers | None = None,
    on_progress: Any = None,
) -> Any:
    """A :class:`~mcpkit.Client` for ``args.target`` with the terminal handlers and hooks."""
    from mcpkit import Client
    from mcpkit.client import ClientHooks, Elicitation, ProtocolOptions, StdioOptions

    if args.protocol_version is not None:
        from mcpkit.versions import SUPPORTED_VERSIONS, get

        if get(args.protocol_version) is None:
            raise CliError(
                f"unknown protocol version {args.protocol_version!r}",
                f"mcpkit speaks {', '.join(SUPPORTED_VERSIONS)}",
                code=EXIT_USAGE,
            )
    target = resolve_target(args.target, args.config)
    if handlers is None:
        handlers = make_handlers(args, output)
    roots = None
    if getattr(args, "root", None):
        roots = []
        for path in args.root:
            folder = Path(path).expanduser().resolve()
            roots.append({"uri": folder.as_uri(), "name": folder.name or str(folder)})
    headers = dict(parse_header(h) for h in args.header) or None
    kwargs: dict[str, Any] = {
        "sampling_handler": handlers.sampling,
        "elicitation_handler": Elicitation(handlers.elicitation, modes=("form", "url")),
        "roots": roots,
        "on_log": output.log,
        "timeout": args.timeout,
        "headers": headers,
        "era": getattr(args, "era", "auto"),
        "client_info": {"name": "mcpkit-cli", "version": _version()},
        "protocol": ProtocolOptions(
            version=args.protocol_version, debug=bool(getattr(args, "debug", False))
        ),
        "hooks": ClientHooks(on_progress=on_progress),
    }
    on_stderr = None
    if getattr(args, "debug", False):

        def on_stderr(line: str) -> None:
            output.err.print(f"server stderr: {line}", markup=False, style="dim")

    kwargs["connection"] = StdioOptions(env=_env(args.env), on_stderr=on_stderr)
    return Client(target, **kwargs)


@contextlib.asynccontextmanager
async def connect(
    args: argparse.Namespace,
    output: Output,
    *,
    handlers: TerminalHandlers | None = None,
    on_progress: Any = None,
) -> AsyncIterator[Any]:
    """The connected client of :func:`make_client`. While it is open, ``sys.stdout`` is
    stderr: a file target's server runs in this process, and its ``print()`` calls (at import
    or in a tool) must not mix with the results, as the stdio server keeps them off its
    JSON-RPC stream. ``output`` still prints to the real stdout.

    A request the server fails with the spec's "user rejected" code (-1) after the user
    declined its sampling request raises :class:`~mcpkit.cli.errors.Declined` (exit 0): a
    decline is the user's answer, as with elicitation, not a failure of the command."""
    from mcpkit.client.sampling import USER_REJECTED
    from mcpkit.errors import McpError

    handlers = handlers if handlers is not None else make_handlers(args, output)
    with contextlib.redirect_stdout(sys.stderr):
        client = make_client(args, output, handlers=handlers, on_progress=on_progress)
        async with client:
            level = getattr(args, "log_level", None)
            if level is not None and client.supports("logging"):
                await client.set_logging_level(level)
            try:
                yield client
            except McpError as exc:
                if exc.code != USER_REJECTED or not handlers.sampling_declined:
                    raise
                output.end_progress()
                raise Declined(
                    f"the server gave up after the sampling request was declined: {exc.message}"
                ) from exc


def _version() -> str:
    from mcpkit._version import __version__

    return __version__
