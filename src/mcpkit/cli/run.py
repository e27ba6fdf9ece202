"""``mcpkit run``: serve the Server of a file or module over stdio or Streamable HTTP.

``--reload`` turns this process into a small supervisor: the server runs as a child process
(the same command without ``--reload``) and is restarted whenever a ``.py`` file under the
watched folder changes. The watcher polls file modification times (no dependency); it skips
hidden folders, ``__pycache__``, virtualenvs and ``node_modules``.

``--store URL`` (or the environment variable ``MCPKIT_STORE``) gives the server its shared
store before it serves, as ``Server(store=URL)`` would (:meth:`mcpkit.Server.use_store`):
a ``redis://host:port/db`` or ``redis+cluster://host:port,host:port/`` URL, so that several
``mcpkit run`` processes behind a load balancer serve any session (docs/deploy.md).

Every option may also come from its ``MCPKIT_*`` environment variable or the project file
(``mcpkit.toml``, ``[tool.mcpkit]`` in ``pyproject.toml``), the server included: ``mcpkit
run`` alone serves the project's (:mod:`mcpkit.settings`). ``--with PKG`` / ``--python X``
(or ``dependencies`` / ``python`` in the file) serve through ``uv run`` (:mod:`.uv`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcpkit import settings as config
from mcpkit.cli.errors import EXIT_USAGE, INSTALL_HINT, CliError
from mcpkit.cli.targets import load_server, parse_server_ref

__all__ = ["run_server"]

#: Host names accepted besides those given with --allowed-host (any port).
_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
#: The environment variable naming the shared store when --store is not given.
STORE_ENV = "MCPKIT_STORE"


def _note(message: str) -> None:
    sys.stderr.write(f"mcpkit: {message}\n")
    sys.stderr.flush()


#: The attribute of the parsed arguments holding a setting, where it is not the key.
_DEST = {"dependencies": "with_packages"}
#: Settings a child process is not given: its own environment is already made, and the
#: project's server is found again from the same folder.
_NOT_PASSED_ON = ("server", "dependencies", "python", "environment")


def _flags_of(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (the options left out are None)."""
    out: dict[str, Any] = {}
    for setting in config.SETTINGS:
        value = getattr(args, _DEST.get(setting.key, setting.key), None)
        if value is not None and value != []:
            out[setting.key] = value
    return out


def _flag_argv(flags: Mapping[str, Any]) -> list[str]:
    """``flags`` written as the options of ``mcpkit run``."""
    out: list[str] = []
    for setting in config.SETTINGS:
        value = flags.get(setting.key)
        if value is None or setting.flag is None or setting.key in _NOT_PASSED_ON:
            continue
        if setting.kind == "bool":
            out.append(setting.flag if value else "--no-" + setting.flag[2:])
        elif setting.kind == "list":
            for item in value:
                out += [setting.flag, item]
        else:
            out += [setting.flag, str(value)]
    return out


def _child_argv(
    args: argparse.Namespace, python: str | None = None, *, reload: bool = False
) -> list[str]:
    """The command line serving what ``args`` asks for in a child process: the options
    given on this one's command line (the child reads the environment and the project file
    itself, and finds the same values), with ``python`` (default: this interpreter)."""
    flags: Mapping[str, Any] = getattr(args, "flags", None) or _flags_of(args)
    argv = [python or sys.executable, "-m", "mcpkit", "run"]
    server = flags.get("server")
    compat = getattr(args, "compat", False)
    if server is not None and not compat:
        argv.append(server)
    argv += _flag_argv(flags)
    if reload:
        argv.append("--reload")
    if args.debug:
        argv.append("--debug")
    if compat:
        argv += ["--compat", str(server), *getattr(args, "server_args", ())]
    return argv


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _supervise(args: argparse.Namespace, root: Path, interval: float = 0.3) -> int:
    from mcpkit.dev.reloader import SourceWatcher

    watcher = SourceWatcher(root, (".py",))
    argv = _child_argv(args)
    _note(f"watching {root} for changes to .py files (--reload)")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    child = subprocess.Popen(argv)
    announced_exit = False
    try:
        while True:
            time.sleep(interval)  # polling is the watcher's design, not a synchronisation
            changed = watcher.changed()
            if changed:
                shown = ", ".join(str(p.relative_to(root)) for p in changed[:3])
                more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
                _note(f"{shown}{more} changed: restarting the server")
                _stop(child)
                child = subprocess.Popen(argv)
                announced_exit = False
            elif child.poll() is not None and not announced_exit:
                _note(
                    f"the server exited with code {child.returncode}; "
                    "waiting for a change to restart it"
                )
                announced_exit = True
    except KeyboardInterrupt:
        return 0
    finally:
        _stop(child)
        signal.signal(signal.SIGTERM, previous)


def _check_address(host: str, port: int) -> None:
    """Fail with one clear line when ``host:port`` cannot be listened on (uvicorn would exit
    the process from inside the event loop instead)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise CliError(
            f"cannot listen on {host}: {exc.strerror or exc}", "check --host (e.g. 127.0.0.1)"
        ) from None
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            sock.bind(address)
    except OSError as exc:
        hint = (
            "another server uses that port: choose another --port (0 picks a free one)"
            if exc.errno == errno.EADDRINUSE
            else "check --host: it must be an address of this machine (127.0.0.1, 0.0.0.0)"
        )
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", hint) from None


def _check_server(server: str) -> None:
    """Fail with one clear line when the chosen ASGI server is not installed."""
    import importlib.util

    from mcpkit.transports.http.serve import choose_server

    try:
        chosen = choose_server(server)
    except ValueError as exc:  # a bad MCPKIT_HTTP_SERVER
        raise CliError(str(exc), "set MCPKIT_HTTP_SERVER to uvicorn or granian") from None
    if chosen == "granian" and importlib.util.find_spec("granian") is None:
        raise CliError(
            "serving with granian needs the granian package", INSTALL_HINT.format(extras="granian")
        )


async def _serve_http(
    app: Any, args: argparse.Namespace, sockets: list[socket.socket] | None = None
) -> None:
    """Serve ``app`` over HTTP until SIGTERM; on ``sockets`` (quietly: a worker of
    ``--workers``, its parent speaks) when given."""
    from mcpkit.transports.http import running

    options: dict[str, Any] = {
        "path": args.path,
        "stateless": args.stateless,
        "json_response": args.json_response,
    }
    if args.allowed_hosts:  # the names added to the loopback ones, which stay allowed
        options["allowed_hosts"] = [*_LOOPBACK_HOSTS, *args.allowed_hosts]
    if args.allowed_origins:
        options["allowed_origins"] = args.allowed_origins
    if args.event_store:
        from mcpkit.transports.http import SQLiteEventStore

        options["event_store"] = SQLiteEventStore(args.event_store)
    if args.max_in_flight is not None:
        options["max_in_flight"] = args.max_in_flight
        if args.max_queued is not None:
            options["max_queued"] = args.max_queued
    elif args.max_queued is not None:
        raise CliError("--max-queued needs --max-in-flight", "give both: --max-in-flight 8")
    if args.max_sessions is not None:
        options["max_sessions"] = args.max_sessions
    if args.max_sessions_per_client is not None:  # 0: no limit
        options["max_sessions_per_client"] = args.max_sessions_per_client or None
    side_port = args.observability_port
    if side_port is None:
        options.update(health=args.health, metrics=args.metrics)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    asgi = app.http_app(**options)
    warning = _bind_warning(asgi, args.host)
    server: Any = getattr(args, "http_server", "auto")
    async with contextlib.AsyncExitStack() as stack:
        given: dict[str, Any] = {} if sockets is None else {"sockets": sockets}
        if getattr(args, "log_level", None) is not None:
            given["log_level"] = args.log_level
        base = await stack.enter_async_context(
            running(asgi, host=args.host, port=args.port, server=server, **given)
        )
        if sockets is not None:
            await stop.wait()
            return
        probes = ""
        if side_port is not None:
            from mcpkit.server.probes import probes_for

            side = probes_for(
                app, asgi.app, health=args.health or not args.metrics, metrics=args.metrics
            )
            at = await stack.enter_async_context(
                running(side, host=args.host, port=side_port, server=server)
            )
            probes = f"; {', '.join(side.routes)} on {at}"
        elif args.health or args.metrics:
            probes = f"; {', '.join(asgi.probes.routes)} beside it" if asgi.probes else ""
        info = app.server_info
        _note(
            f"serving {info.get('name')} {info.get('version')} on {base}{args.path} "
            f"(Streamable HTTP{probes}{store_note(app)}; Ctrl-C stops)"
        )
        if warning is not None:
            _note("warning: " + warning)
        await stop.wait()


def store_note(app: Any) -> str:
    """What the banner says of the server's shared store: ``"; store redis://host:6379/0"``
    (no password), or nothing for the process's own memory."""
    backend = getattr(app, "store_backend", None)
    url = getattr(backend, "url", None)
    if not isinstance(url, str):
        return ""
    parts = urlsplit(url)
    if parts.password is not None:
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
        url = urlunsplit(parts._replace(netloc=netloc))
    prefix = getattr(getattr(backend, "keys", None), "prefix", None)
    return f"; store {url}" + (f", keys {prefix}:*" if isinstance(prefix, str) else "")


def _bind_warning(asgi: Any, host: str) -> str | None:
    """What to say in the banner when ``host`` leaves DNS-rebinding protection off (said
    there instead of in the log: serving the app does not repeat it)."""
    import logging

    from mcpkit.transports.http.host_origin import check_bind

    log = logging.getLogger("mcpkit.http")
    was = log.disabled
    log.disabled = True
    try:
        return check_bind(asgi, host)
    finally:
        log.disabled = was


def _attach_store(app: Any, args: argparse.Namespace) -> None:
    """Give ``app`` the store of --store (or MCPKIT_STORE), if any."""
    store = getattr(args, "store", None) or os.environ.get(STORE_ENV, "").strip()
    if not store or store == "memory":
        return
    if getattr(args, "event_store", None):
        raise CliError(
            "--event-store and --store do not go together",
            "with --store, the events of 2025 sessions are kept in the shared store",
            code=EXIT_USAGE,
        )
    try:
        import redis  # noqa: F401
    except ImportError:
        raise CliError(
            "--store needs the redis package", INSTALL_HINT.format(extras="redis")
        ) from None
    from mcpkit.redis import StoreUnavailable
    from mcpkit.redis.keys import StoreSecretMissing

    try:
        app.use_store(store)
    except StoreSecretMissing as exc:
        raise CliError(f"cannot use --store: {exc}", code=EXIT_USAGE) from None
    except ValueError as exc:
        raise CliError(
            f"bad --store: {exc}", "e.g. --store redis://127.0.0.1:6379/0", EXIT_USAGE
        ) from None
    except StoreUnavailable as exc:
        raise CliError(str(exc), "is Redis running there? (redis-cli -u URL ping)") from None
    except RuntimeError as exc:
        raise CliError(f"cannot use --store: {exc}") from None


def _run_compat(args: argparse.Namespace) -> int | None:
    """``--compat``: run a server written for the official SDK or fastmcp unchanged (its own
    entry point, arguments and transport choice); None when the object is to be served with
    this command's options instead (``file.py:object``, or ``--transport http``)."""
    from mcpkit.compat.run import CompatTargetError, run_target
    from mcpkit.import_aliases import install

    install()
    ref = parse_server_ref(args.server)
    sys.argv = [args.server, *args.server_args]
    if (ref is not None and ref.obj is not None) or args.transport == "http":
        return None
    try:
        status = run_target(args.server, list(args.server_args))
    except CompatTargetError as exc:
        raise CliError(
            str(exc), "give path/to/server.py, a console script on PATH or a module", EXIT_USAGE
        ) from None
    return status if isinstance(status, int) else 0


def _settle(args: argparse.Namespace) -> config.Settings:
    """Fill ``args`` from the settings (command line > ``MCPKIT_*`` > project file >
    defaults; :mod:`mcpkit.settings`), after setting the project's ``environment``."""
    flags = _flags_of(args)
    try:
        project = config.find_project()
        config.apply_environment(project)
        settings = config.load(flags, os.environ, project)
    except config.SettingsError as exc:
        raise CliError(str(exc), "see docs/configuration.md", EXIT_USAGE) from None
    args.flags = flags
    args.settings = settings
    for setting in config.SETTINGS:
        setattr(args, _DEST.get(setting.key, setting.key), getattr(settings, setting.key))
    return settings


def _choose_transport(args: argparse.Namespace, settings: config.Settings) -> None:
    """Settle ``--transport``: an HTTP option set (host, port, path) means HTTP unless
    stdio was asked for."""
    if args.transport is None:
        implied = any(settings.given(key) for key in ("host", "port", "path"))
        args.transport = "http" if implied else "stdio"


def _note_unused(args: argparse.Namespace, settings: config.Settings) -> None:
    """Over stdio, say that the HTTP options given on the command line go unused (once:
    not in a process that hands the serving to a child)."""
    given = [f"--{key}" for key in ("host", "port", "path") if settings.sources.get(key) == "flag"]
    if args.transport == "stdio" and given and not args.reload:
        _note(f"{', '.join(given)} not used: serving over stdio (--transport http serves a URL)")


def _no_server(settings: config.Settings) -> CliError:
    """The one line saying what to run when neither the command line nor a file says."""
    project = settings.project
    if project is not None and project.configured:
        where = project.root / (config.PROJECT_FILE if project.own else config.PYPROJECT)
        return CliError(
            f'no server to run: {where} names none; add server = "server.py:app" to it, '
            "or give one: mcpkit run server.py",
            code=EXIT_USAGE,
        )
    return CliError(
        "no server to run: give one (mcpkit run server.py) or name it in mcpkit.toml: "
        'server = "server.py:app"',
        code=EXIT_USAGE,
    )


def _prepare_process(settings: config.Settings) -> None:
    """What the settings change in this process before the server is loaded: masking (as
    ``MCPKIT_MASK_ERRORS``, which ``Server`` reads; an explicit ``mask_errors=`` in the code
    still wins), logging, and the project's folder on ``sys.path`` for a module entry."""
    from mcpkit.server.masking import MASK_ENV

    if settings.mask_errors is not None and settings.sources.get("mask_errors") != "env":
        os.environ[MASK_ENV] = "1" if settings.mask_errors else "0"
    config.configure_logging(settings.log_level)
    project = settings.project
    source = settings.sources.get("server", "default")
    if project is not None and source not in ("flag", "env", "default"):
        root = str(project.root)
        if root not in sys.path:
            sys.path.insert(0, root)


def run_server(args: argparse.Namespace) -> int:
    """Serve the server named by ``args.server`` (else the project's)."""
    settings = _settle(args)
    _choose_transport(args, settings)
    if args.server is None:
        raise _no_server(settings)
    if (settings.dependencies or settings.python) and os.environ.get(config.NO_UV_ENV) != "1":
        from mcpkit.cli.uv import run_with_uv

        return run_with_uv(args, settings, _child_argv(args, "python", reload=args.reload))
    _note_unused(args, settings)
    _prepare_process(settings)
    if getattr(args, "compat", False):
        status = _run_compat(args)
        if status is not None:
            return status
    ref = parse_server_ref(args.server)
    if ref is None:
        raise CliError(
            f"cannot run {args.server!r}",
            "give path/to/server.py, path/to/server.py:object or package.module:object",
            code=EXIT_USAGE,
        )
    if getattr(args, "workers", None) is not None and args.transport != "http":
        raise CliError("--workers serves HTTP", "add --transport http", EXIT_USAGE)
    if args.reload:
        if getattr(args, "workers", None) not in (None, 1):
            raise CliError("--reload and --workers do not go together", code=EXIT_USAGE)
        root = ref.path.resolve().parent if ref.path is not None else Path.cwd()
        if ref.path is not None and not ref.path.is_file():
            raise CliError(f"no such file: {ref.path}")
        return _supervise(args, root)
    app = load_server(ref)
    if args.transport == "stdio" and (getattr(args, "store", None) or os.environ.get(STORE_ENV)):
        _note(
            "note: --store over stdio: this process serves its one client; the store shares "
            "tasks, state and notifications with the other processes on it, not the session "
            "(several replicas of one server: --transport http)"
        )
    _attach_store(app, args)
    if args.transport == "stdio":
        if sys.stdin.isatty():  # a person started it, not a client: say what is going on
            info = app.server_info
            _note(
                f"serving {info.get('name')} {info.get('version')} over stdio{store_note(app)}: "
                "an MCP client starts this command and talks JSON-RPC on stdin/stdout "
                "(Ctrl-C stops; --transport http serves a URL; mcpkit inspect FILE looks inside)"
            )
        drain = getattr(args, "drain_timeout", None)
        if drain is not None and not drain >= 0:
            raise CliError(f"bad --drain-timeout: {drain}", "give 0 or more seconds", EXIT_USAGE)
        asyncio.run(app.run_stdio() if drain is None else app.run_stdio(drain_timeout=drain))
        return 0
    try:
        import mcpkit.transports.http  # noqa: F401
    except ImportError as exc:
        raise CliError(
            f"Streamable HTTP is not available: {exc}", INSTALL_HINT.format(extras="http")
        ) from None
    workers = getattr(args, "workers", None)
    if workers is not None and workers != 1:
        return _serve_workers(app, args, workers)
    _check_address(args.host, args.port)
    _check_server(getattr(args, "http_server", "auto"))
    if args.metrics:
        try:
            import prometheus_client  # noqa: F401
        except ImportError:
            raise CliError(
                "--metrics needs prometheus-client", INSTALL_HINT.format(extras="metrics")
            ) from None
    if args.observability_port is not None:
        _check_address(args.host, args.observability_port)
    from mcpkit.transports.http.serve import ServerNotStarted

    try:
        asyncio.run(_serve_http(app, args))
    except (SystemExit, ServerNotStarted) as exc:  # e.g. the port was taken meanwhile
        raise CliError(
            f"the HTTP server could not start (exit code {exc.code})", "see the line above"
        ) from None
    return 0


def _serve_workers(app: Any, args: argparse.Namespace, workers: int) -> int:
    """``--workers N``: N processes serving one port (:mod:`mcpkit.transports.http.workers`)."""
    from mcpkit.transports.http import workers as pool
    from mcpkit.transports.http.serve import choose_server

    if workers < 1:
        raise CliError(f"bad --workers: {workers}", "give 1 or more", EXIT_USAGE)
    _check_server(getattr(args, "http_server", "auto"))
    if choose_server(getattr(args, "http_server", "auto")) == "granian":
        raise CliError("--workers serves with uvicorn", "drop --server granian", EXIT_USAGE)
    if args.observability_port is not None:
        raise CliError(
            "--observability-port and --workers do not go together",
            "use --health / --metrics on the endpoint's port",
            EXIT_USAGE,
        )
    if args.metrics:
        try:
            import prometheus_client  # noqa: F401
        except ImportError:
            raise CliError(
                "--metrics needs prometheus-client", INSTALL_HINT.format(extras="metrics")
            ) from None
    args.stateless, message = pool.plan_state(
        workers, stateless=args.stateless, store=getattr(app, "store_backend", None) is not None
    )
    try:
        sockets, port = pool.listen_sockets(args.host, args.port, workers)
    except pool.WorkersUnavailable as exc:
        raise CliError(str(exc), code=EXIT_USAGE) from None
    except OSError as exc:
        hint = (
            "another server uses that port: choose another --port (0 picks a free one)"
            if exc.errno == errno.EADDRINUSE
            else "check --host: it must be an address of this machine (127.0.0.1, 0.0.0.0)"
        )
        raise CliError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", hint
        ) from None
    from mcpkit.server.request_state import KEYS_ENV, generate_key

    pool.share_request_state_keys(KEYS_ENV, generate_key)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    info = app.server_info
    _note(
        f"serving {info.get('name')} {info.get('version')} on http://{shown}:{port}{args.path} "
        f"(Streamable HTTP, {workers} workers{store_note(app)}; Ctrl-C stops, SIGHUP restarts "
        "the workers)"
    )
    if message is not None:
        _note(message)

    def serve(sock: socket.socket) -> None:
        asyncio.run(_serve_http(app, args, [sock]))

    return pool.supervise(serve, sockets, workers)
