"""The ``mcpkit`` command: argument parsing and the one place errors become messages.

Every failure is one ``error:`` line plus a ``hint:`` line on stderr and a non-zero exit code
(1 failure, 2 bad usage, 3 the tool reported an error, 130 interrupted); ``--debug`` shows
the traceback instead. A declined sampling request or elicitation is the user's answer, not a
failure: exit 0 unless the tool's result says ``isError``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from mcpkit.cli.errors import EXIT_ERROR, EXIT_USAGE, INSTALL_HINT, CliError, Declined

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors in the CLI's style."""

    def error(self, message: str) -> Any:
        raise CliError(message, f"see: {self.prog} --help", code=EXIT_USAGE)


def _examples(text: str) -> str:
    return "examples:\n" + textwrap.indent(textwrap.dedent(text).strip(), "  ")


def _command(
    sub: Any, name: str, summary: str, examples: str, description: str | None = None
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=description or summary,
        epilog=_examples(examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,  # keep a --debug given before the command
        help="show tracebacks and server stderr",
    )
    return parser


def _add_args_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--args-json",
        "--args",
        "-a",
        dest="json_args",
        metavar="JSON",
        help="the arguments as one JSON object (KEY=VALUE pairs given too win over it)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``mcpkit`` and its commands."""
    from mcpkit._version import __version__
    from mcpkit.cli.common import add_connection_options

    parser = _Parser(
        prog="mcpkit",
        description="Run, inspect and call Model Context Protocol servers.",
        epilog=_examples(
            """
            mcpkit run server.py                          # serve over stdio
            mcpkit run server.py:app --transport http --port 8000 --reload
            mcpkit inspect "python server.py"
            mcpkit call http://127.0.0.1:8000/mcp add a=2 b=3
            mcpkit read server.py test://static-text
            mcpkit prompt server.py review code='print(1)'
            mcpkit inspect --config ~/.cursor/mcp.json github
            mcpkit demo
            mcpkit dev server.py                          # reload + web inspector
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcpkit {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and server stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = _command(
        sub,
        "run",
        "serve the Server of a Python file or module (stdio or Streamable HTTP)",
        """
        mcpkit run server.py              # the Server named app, server or mcp (or the only one)
        mcpkit run server.py:weather      # the object named weather (or make() -> Server)
        mcpkit run my_package.server:app  # from an importable module
        mcpkit run server.py --transport http --port 8000        # http://127.0.0.1:8000/mcp
        mcpkit run server.py --transport http --reload           # restart on .py changes
        mcpkit run server.py -t http --host 0.0.0.0 --allowed-host mcp.example.com
        mcpkit run server.py -t http --health --metrics          # + /healthz /readyz /metrics
        mcpkit run server.py -t http --store redis://127.0.0.1:6379/0  # one of N replicas
        mcpkit run --compat official_server.py         # a server written for mcp/fastmcp
        mcpkit run --compat mcp-server-time --local-timezone UTC  # a console script, its args
        mcpkit run                        # the project's server (mcpkit.toml, [tool.mcpkit])
        mcpkit run server.py --with httpx --python 3.12  # through uv run --with
        """,
        description=(
            "Serve the Server of a Python file or module over stdio or Streamable HTTP. "
            "Every option can also come from an MCPKIT_* environment variable or the "
            "project file (mcpkit.toml, or [tool.mcpkit] in pyproject.toml); the command "
            "line wins, then the environment, then the file (docs/configuration.md)."
        ),
    )
    run.add_argument(
        "server",
        metavar="SERVER",
        nargs="?",
        help="path/to/file.py[:object] or module:object (default: server in mcpkit.toml)",
    )
    run.add_argument(
        "-t",
        "--transport",
        choices=("stdio", "http"),
        default=None,
        help="default: stdio, or http when --host, --port or --path is given",
    )
    run.add_argument("--host", help="HTTP: address to bind (127.0.0.1)")
    run.add_argument("--port", type=int, help="HTTP: port (8000; 0 picks a free one)")
    run.add_argument("--path", help="HTTP: endpoint path (/mcp)")
    run.add_argument(
        "--event-store",
        metavar="FILE",
        help="HTTP: keep stream events in this SQLite file for resumption (default: in memory)",
    )
    run.add_argument(
        "--store",
        metavar="URL",
        help="the shared store of several replicas: redis://HOST:PORT/DB or "
        "redis+cluster://HOST:PORT,HOST:PORT/ (default: $MCPKIT_STORE, else this process's "
        "memory; see docs/deploy.md)",
    )
    run.add_argument(
        "--allowed-host",
        action="append",
        dest="allowed_hosts",
        metavar="HOST",
        help="HTTP: accept requests whose Host is HOST (mcp.example.com, mcp.example.com:8443, "
        "mcp.example.com:*) besides the loopback names, e.g. when serving on 0.0.0.0 behind "
        "that name (repeatable; with none, a loopback bind accepts only loopback names)",
    )
    run.add_argument(
        "--allowed-origin",
        action="append",
        dest="allowed_origins",
        metavar="ORIGIN",
        help="HTTP: accept browser requests from ORIGIN (https://app.example.com, "
        "http://localhost:*, or *) besides the server's own origin (repeatable)",
    )
    run.add_argument("--stateless", action=argparse.BooleanOptionalAction, help="HTTP: no sessions")
    run.add_argument(
        "--json-response",
        action=argparse.BooleanOptionalAction,
        help="HTTP: answer POSTs with JSON, not SSE",
    )
    run.add_argument(
        "--max-in-flight",
        type=int,
        metavar="N",
        help="HTTP: at most N requests served at once across all clients; more wait in line "
        "(see --max-queued), the rest are refused with -31503",
    )
    run.add_argument(
        "--max-queued",
        type=int,
        metavar="N",
        help="HTTP: with --max-in-flight, how many requests may wait (default 4 x N)",
    )
    run.add_argument(
        "--max-sessions",
        type=int,
        metavar="N",
        help="HTTP: at most N open 2025 sessions in all (default 10,000)",
    )
    run.add_argument(
        "--max-sessions-per-client",
        type=int,
        metavar="N",
        help="HTTP: at most N open 2025 sessions per principal, else per remote address "
        "(default 100; 0: no limit, e.g. behind a proxy that hides the client's address)",
    )
    run.add_argument(
        "--health",
        action=argparse.BooleanOptionalAction,
        help="HTTP: answer /healthz (live) and /readyz (ready: lifespan started, stores reachable)",
    )
    run.add_argument(
        "--metrics",
        action=argparse.BooleanOptionalAction,
        help="HTTP: Prometheus metrics on /metrics (needs prometheus-client: the metrics extra)",
    )
    run.add_argument(
        "--server",
        dest="http_server",
        choices=("auto", "uvicorn", "granian"),
        help="HTTP: the ASGI server (auto: $MCPKIT_HTTP_SERVER, else mcpkit's default; "
        "granian needs the granian extra)",
    )
    run.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="HTTP: serve the port from N processes (all cores); 2025 sessions then need "
        "--store, without it the workers serve stateless HTTP (SIGHUP restarts them)",
    )
    run.add_argument(
        "--observability-port",
        type=int,
        metavar="PORT",
        help="HTTP: serve /healthz, /readyz (and /metrics with --metrics) on this port of "
        "their own instead of beside the endpoint",
    )
    run.add_argument(
        "--drain-timeout",
        type=float,
        metavar="SECONDS",
        help="stdio: at end of input, seconds the requests already received get to finish "
        "before they are cancelled and answered with an error (default 10)",
    )
    run.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error", "critical"),
        help="log records of this level and above go to stderr (default: the HTTP server's "
        "warnings only)",
    )
    run.add_argument(
        "--mask-errors",
        action=argparse.BooleanOptionalAction,
        help="answer unexpected exceptions with a generic message and an error id (default: "
        "on, unless the Server says debug=True)",
    )
    run.add_argument(
        "--with",
        action="append",
        dest="with_packages",
        metavar="PKG",
        help="serve in an environment that also has PKG, made by uv run --with (repeatable; "
        "adds to the project's dependencies)",
    )
    run.add_argument(
        "--python",
        metavar="X",
        help="serve with this Python (a version such as 3.12, or a path), through uv run",
    )
    run.add_argument(
        "--compat",
        action="store_true",
        help="the rest of the line is a server written for the official SDK (mcp 1.x/2.x) or "
        "fastmcp and its arguments: a file, an installed console script or a module, run "
        "unchanged with `mcp`/`fastmcp` served by mcpkit.compat (file.py:object, or "
        "--transport http, serves the object with these options instead)",
    )
    run.add_argument(
        "--reload",
        action="store_true",
        help="restart the server when a .py file next to it changes (for development; "
        "over stdio the client has to reconnect)",
    )

    inspect = _command(
        sub,
        "inspect",
        "show a server's info, capabilities, tools, resources, templates and prompts",
        """
        mcpkit inspect server.py
        mcpkit inspect "uvx mcp-server-time"
        mcpkit inspect http://127.0.0.1:8000/mcp -H "Authorization: Bearer TOKEN"
        mcpkit inspect --config claude_desktop_config.json filesystem
        mcpkit inspect server.py --json | jq '.tools[].name'
        """,
    )
    add_connection_options(inspect)

    call = _command(
        sub,
        "call",
        "call one tool and print its result",
        """
        mcpkit call server.py add a=2 b=3                # typed from the inputSchema: 5
        mcpkit call server.py forecast city=Oslo days=3  # progress and logs on stderr
        mcpkit call server.py search tags:='["a","b"]'   # key:=JSON for any JSON value
        mcpkit call server.py create --args-json '{"name": "x", "size": 2}'
        mcpkit call server.py add a=2 b=3 --json         # the whole result as JSON
        mcpkit call server.py pixel --save-dir out/      # images saved, path printed
        mcpkit call server.py ask_user --no-input        # elicitation declined
        mcpkit call server.py render frames=3 --task     # as a task: id and status shown
        """,
        description=(
            "Call one tool and print its result. Arguments are typed from the tool's "
            "inputSchema (integers, numbers, booleans, JSON for arrays and objects). Text "
            "goes to stdout, images and audio are saved to --save-dir, structuredContent is "
            "printed as JSON. --args-json '{...}' gives the arguments as one JSON object; "
            "--json prints the whole result as JSON. Exit code: 0 ok, 3 the tool "
            "reported an error (isError), 1 any other failure, 2 bad usage."
        ),
    )
    add_connection_options(call)
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument(
        "arguments",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="arguments (KEY:=JSON for raw JSON)",
    )
    _add_args_json(call)
    call.add_argument(
        "--task",
        action="store_true",
        help="run the tool as a task: its id and status are shown as it runs, Ctrl-C cancels it",
    )
    call.add_argument(
        "--task-ttl",
        type=float,
        metavar="SECONDS",
        help="with --task: how long the server should keep the task and its result",
    )

    read = _command(
        sub,
        "read",
        "read one resource",
        """
        mcpkit read server.py test://static-text
        mcpkit read server.py weather://Oslo/current --json
        mcpkit read server.py test://static-binary --save-dir out/
        """,
    )
    add_connection_options(read)
    read.add_argument("uri", metavar="URI", help="the resource's URI")

    prompt = _command(
        sub,
        "prompt",
        "get one prompt with arguments and print its messages",
        """
        mcpkit prompt server.py review code='print(1)' language=python
        mcpkit prompt server.py describe_image --json
        """,
    )
    add_connection_options(prompt)
    prompt.add_argument("name", metavar="NAME", help="the prompt's name")
    prompt.add_argument(
        "arguments", nargs="*", default=[], metavar="KEY=VALUE", help="prompt arguments"
    )
    _add_args_json(prompt)

    demo = _command(
        sub,
        "demo",
        "walk through every MCP feature: the example server over Streamable HTTP and a client",
        """
        mcpkit demo
        mcpkit demo --server examples/server_everything.py
        """,
    )
    demo.add_argument(
        "--server",
        metavar="FILE",
        help="a server file offering what examples/server_everything.py offers "
        "(default: that file)",
    )
    demo.add_argument(
        "--save-dir", metavar="DIR", help="save the demo's images here (default: not saved)"
    )
    demo.add_argument("--time-limit", type=float, default=60.0, help=argparse.SUPPRESS)

    from mcpkit.cli.proxy import add_proxy_parser

    add_proxy_parser(sub, _command)

    from mcpkit.cli.install import add_install_parser

    add_install_parser(sub, _command)

    from mcpkit.cli.dev import add_dev_parser

    add_dev_parser(sub, _command)
    return parser


#: Commands whose KEY=VALUE arguments may come anywhere among the options.
_WITH_ARGUMENTS = ("call", "prompt")


#: Said once on stderr when ``--json '{...}'`` gives the arguments (the old spelling).
_JSON_ARGS_DEPRECATED = (
    "mcpkit: --json '{...}' for the arguments is deprecated: write --args-json '{...}' "
    "(--json alone asks for JSON output)\n"
)


def _json_arguments(argv: list[str]) -> tuple[list[str], bool]:
    """``call``/``prompt``: the old spelling ``--json '{...}'`` (a JSON object right after
    ``--json``) still means ``--args-json '{...}'``; a ``--json`` not followed by an object
    stays the JSON-output switch. Returns the argv and whether the old spelling was used."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in _WITH_ARGUMENTS:
        return argv, False
    out: list[str] = []
    old = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        if arg == "--json" and i + 1 < len(argv) and argv[i + 1].lstrip().startswith("{"):
            out.append("--args-json")
            old = True
        elif arg.startswith("--json=") and arg[7:].lstrip().startswith("{"):
            out.append("--args-json=" + arg[7:])
            old = True
        else:
            out.append(arg)
        i += 1
    return out, old


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; KEY=VALUE pairs after an option still count (argparse leaves them over),
    anything else left over is a usage error that names the command's help."""
    argv, old_spelling = _json_arguments(argv)
    if old_spelling:
        sys.stderr.write(_JSON_ARGS_DEPRECATED)
    server_args: list[str] = []
    if "run" in argv and "--compat" in argv[argv.index("run") :]:
        # `run [OPTIONS] --compat TARGET [ARGS...]`: what follows TARGET is the server's own.
        cut = argv.index("--compat", argv.index("run")) + 2
        argv, server_args = argv[:cut], argv[cut:]
    args, extras = parser.parse_known_args(argv)
    if getattr(args, "compat", False):
        args.server_args = server_args
    command = getattr(args, "command", None)
    if extras and command in _WITH_ARGUMENTS:
        pairs = [e for e in extras if not e.startswith("-") and "=" in e]
        if len(pairs) == len(extras):
            args.arguments = [*args.arguments, *pairs]
            extras = []
    if extras:
        where = f"mcpkit {command}" if command else "mcpkit"
        raise CliError(
            f"unrecognized arguments: {' '.join(extras)}", f"see: {where} --help", EXIT_USAGE
        )
    return args


def _dispatch(args: argparse.Namespace) -> int:
    command: str | None = args.command
    if command == "run":
        from mcpkit.cli.run import run_server

        try:
            return run_server(args)
        except KeyboardInterrupt:
            return 0
    if command == "demo":
        from mcpkit.cli.demo import run_demo

        return run_demo(args)
    if command == "proxy":
        from mcpkit.cli.proxy import run_proxy

        return run_proxy(args)
    if command == "install":
        from mcpkit.cli.install import run_install

        return run_install(args)
    if command == "dev":
        from mcpkit.cli.dev import run_dev

        return run_dev(args)
    handlers: dict[str, Callable[[argparse.Namespace], Any]] = {}
    if command == "inspect":
        from mcpkit.cli.inspect import run_inspect

        handlers[command] = run_inspect
    elif command in ("call", "read", "prompt"):
        from mcpkit.cli import call

        handlers.update(call=call.run_call, read=call.run_read, prompt=call.run_prompt)
    code: int = asyncio.run(handlers[str(command)](args))
    return code


#: Hints for the JSON-RPC errors a user can act on.
_SERVER_HINTS = {
    -32601: "the server does not implement this request; mcpkit inspect TARGET shows what it has",
    -32602: "check the name and arguments: mcpkit inspect TARGET shows what the server accepts",
    -32002: "mcpkit inspect TARGET lists the resources and templates",
}


def _explain(exc: BaseException) -> CliError:
    """Turn an exception into the one line (and hint) the user sees."""
    from mcpkit.client.targets import TargetError
    from mcpkit.errors import ConnectionClosed, McpError, ProcessExited, RequestTimeout

    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, TargetError):  # the target's own explanation, e.g. a file not served
        return CliError(exc.message, exc.hint)
    if isinstance(exc, ProcessExited):
        tail = [line for line in exc.stderr_tail.strip().splitlines() if line.strip()]
        hint = (
            f"its last stderr line: {tail[-1].strip()}  (--debug shows all of it)"
            if tail
            else "check the command line runs on its own"
        )
        return CliError(f"the server process exited with code {exc.returncode}", hint)
    if isinstance(exc, RequestTimeout):
        return CliError(f"timed out: {exc}", "allow more time with --timeout SECONDS")
    if isinstance(exc, ConnectionClosed) and isinstance(exc.__cause__, OSError):
        return CliError(
            f"cannot start the server: {_one_line(exc.__cause__)}",
            'check the command line (quote it as one argument: "python server.py")',
        )
    if isinstance(exc, ConnectionClosed):
        return CliError(
            f"connection failed: {_one_line(exc)}",
            "check that TARGET is right and the server is running (--debug for details)",
        )
    data = getattr(exc, "data", None)
    if (
        isinstance(exc, McpError)
        and exc.code == -32000
        and isinstance(data, dict)
        and ("exception" in data or "status" in data)
    ):  # the HTTP client transport's failures
        status = data.get("status")
        if status in (401, 403):
            hint = "the server wants credentials: add -H 'Authorization: Bearer TOKEN'"
        elif status in (404, 405):
            hint = "check the URL's path (mcpkit run serves at /mcp)"
        elif status == 503 and "store" in exc.message.lower():
            hint = (
                "the server is running but its shared store is not: check the store "
                "(redis-cli -u URL ping)"
            )
        elif isinstance(status, int) and status >= 500:
            hint = f"the server is running but could not answer (HTTP {status}): see its log"
        else:
            hint = "check the URL and that the server is running (mcpkit run FILE --transport http)"
        return CliError(f"connection failed: {_one_line(exc.message)}", hint)
    if isinstance(exc, McpError):
        code = exc.code
        if code == -32602 and exc.message.startswith("Resource not found"):
            code = -32002  # the 2026-07-28 wire answers an unknown resource with -32602
        return CliError(
            f"server error {exc.code}: {_one_line(exc.message)}", _SERVER_HINTS.get(code)
        )
    if isinstance(exc, FileNotFoundError):
        return CliError(
            f"cannot start the server: {exc.strerror}: {exc.filename}",
            "check the command line (quote it as one argument)",
        )
    if isinstance(exc, ImportError):
        return CliError(f"missing dependency: {exc}", INSTALL_HINT.format(extras="http,cli"))
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return CliError("timed out", "allow more time with --timeout SECONDS")
    return CliError(
        f"{type(exc).__name__}: {_one_line(exc)}", "run again with --debug for the traceback"
    )


def _one_line(value: object) -> str:
    text = str(value).strip()
    return text.splitlines()[0] if text else type(value).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mcpkit`` with ``argv`` (default: the process arguments); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        parser = build_parser()
        args = _parse(parser, argv)
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        if args.command != "run":
            from mcpkit.cli.render import require_rich

            require_rich()
        return _dispatch(args)
    except KeyboardInterrupt:
        sys.stderr.write("mcpkit: interrupted\n")
        return 130
    except Exception as exc:
        if debug:
            import traceback

            traceback.print_exc()
        error = _explain(exc)
        if isinstance(error, Declined):
            sys.stderr.write(f"{error.message}\n")
            return 0
        sys.stderr.write(f"error: {error.message}\n")
        if error.hint:
            sys.stderr.write(f"hint: {error.hint}\n")
        return error.code or EXIT_ERROR
