"""Serving a server from this process: what :meth:`mcpkit.Server.run` does.

:func:`run` picks the transport (``MCPKIT_*`` settings filling in what is not given), the
event loop (uvloop when installed) and either one process or a pool of workers;
:func:`serve_http` serves the Streamable HTTP app (and the probes on their own port) until
SIGTERM; :func:`serve_stdio` serves one client over stdin/stdout. The server is reached
through :class:`Served`, the few members these need.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcpkit.transports.http.options import HttpServerOptions

__all__ = ["Served", "loop_factory", "run", "run_workers", "serve_http", "serve_stdio"]

HTTP_TRANSPORTS = ("http", "streamable-http", "sse")


class Served(Protocol):
    """What serving needs of a server (a :class:`~mcpkit.server.app.Server` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def store_backend(self) -> Any: ...

    def use_store(self, store: Any) -> None: ...

    def run_stdio(self, **session_kwargs: Any) -> Coroutine[Any, Any, None]: ...

    @property
    def http_app(self) -> Callable[..., Any]: ...

    def probe_app(self, http_app: Any, *, health: bool, metrics: bool) -> Any: ...

    def running(self) -> contextlib.AbstractAsyncContextManager[Any]: ...

    def session(self, transport: Any, **session_kwargs: Any) -> Any: ...


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (the http extra brings it), for stdio too:
    about a third less CPU per message than asyncio's own loop on the pipes."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(app: Served, transport: str | None, options: dict[str, Any], /) -> None:
    """:meth:`mcpkit.Server.run`: serve until the client goes away (stdio) or the process
    is stopped (HTTP); Ctrl-C ends it quietly."""
    from mcpkit.settings import configure_logging, env_store, run_options

    factory = loop_factory()
    transport, options = run_options(transport, options)
    configure_logging(options.get("log_level"))
    store = env_store()
    if store is not None and app.store_backend is None:
        app.use_store(store)
    if transport == "stdio":
        options.pop("log_level", None)
        coro: Coroutine[Any, Any, None] = app.run_stdio(**options)
    elif transport in HTTP_TRANSPORTS:
        from mcpkit.transports.http.options import FIELDS, HttpServerOptions

        # The app's settings travel as one value from here on.
        settings = {name: options.pop(name) for name in list(options) if name in FIELDS}
        if transport == "sse":
            settings.setdefault("legacy_sse", True)
        options["options"] = HttpServerOptions.merged(options.pop("options", None), settings)
        workers = options.pop("workers", None)
        if workers is not None and workers != 1:
            run_workers(app, workers, factory, **options)
            return
        coro = serve_http(app, **options)
    else:
        raise ValueError(
            f"Unknown transport {transport!r}: use 'stdio', 'http' (or 'streamable-http') or 'sse'"
        )
    # Ctrl-C is how a served process is meant to end: no traceback for it.
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=factory) as r:
        r.run(coro)


def run_workers(
    app: Served,
    workers: int,
    factory: Callable[[], asyncio.AbstractEventLoop] | None,
    /,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    **options: Any,
) -> None:
    """``run("http", workers=N)``: N forked processes serving one port."""
    import mcpkit.transports.http.workers as pool
    from mcpkit.server.request_state import KEYS_ENV, generate_key
    from mcpkit.transports.http.serve import choose_server

    if options.get("observability_port") is not None:
        raise ValueError("workers serve no observability_port: use health/metrics")
    if choose_server(options.get("server", "auto")) == "granian":
        raise ValueError("workers serve with uvicorn, not granian")
    settings: HttpServerOptions = options["options"]
    if settings.legacy_sse and app.store_backend is None:
        raise ValueError("the 2024-11-05 HTTP+SSE sessions of workers need a store")
    store = app.store_backend is not None
    stateless, message = pool.plan_state(workers, stateless=settings.stateless, store=store)
    options["options"] = dataclasses.replace(settings, stateless=stateless)
    sockets, bound = pool.listen_sockets(host, port, workers)
    pool.share_request_state_keys(KEYS_ENV, generate_key)
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"mcpkit: serving {app.name} {app.version} on http://{shown}:{bound}{path} "
        f"(Streamable HTTP, {workers} workers; Ctrl-C stops, SIGHUP restarts the workers)\n"
        + ("" if message is None else f"mcpkit: {message}\n")
    )
    sys.stderr.flush()

    def serve(sock: Any) -> None:
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(serve_http(app, host, bound, path, sockets=[sock], **options))

    code = pool.supervise(serve, sockets, workers)
    if code:
        raise SystemExit(code)


async def serve_http(
    app: Served,
    /,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    sockets: list[Any] | None = None,
    log_level: str | None = None,
    **options: Any,
) -> None:
    """Serve ``app``'s Streamable HTTP app (``options`` as :meth:`Server.run` takes
    them) until SIGTERM; ``sockets``: a worker's, already bound."""
    from mcpkit.transports.http.serve import running

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    observability_port = options.pop("observability_port", None)
    server = options.pop("server", "auto")
    health, metrics = options.pop("health", False), options.pop("metrics", False)
    if observability_port is None:
        options.update(health=health, metrics=metrics)
    asgi = app.http_app(path, **options)
    async with contextlib.AsyncExitStack() as stack:
        # The server choice is passed on only when one was made.
        choice: dict[str, Any] = {} if server == "auto" else {"server": server}
        if sockets is not None:
            choice["sockets"] = sockets
        if log_level is not None:
            choice["log_level"] = log_level
        base = await stack.enter_async_context(running(asgi, host=host, port=port, **choice))
        if sockets is not None:  # a worker: the parent has said where it serves
            await stop.wait()
            return
        probes = ""
        if observability_port is not None:
            side = app.probe_app(asgi.app, health=health or not metrics, metrics=metrics)
            at = await stack.enter_async_context(
                running(side, host=host, port=observability_port, **choice)
            )
            probes = f"; {', '.join(side.routes)} on {at}"
        sys.stderr.write(
            f"mcpkit: serving {app.name} {app.version} on {base}{path} "
            f"(Streamable HTTP{probes}; Ctrl-C stops)\n"
        )
        sys.stderr.flush()
        await stop.wait()


async def serve_stdio(app: Served, /, **session_kwargs: Any) -> None:
    """Serve one client over this process's stdin/stdout (``max_message_size`` and
    ``drain_timeout`` go to the transport, the rest to the session)."""
    from mcpkit.transports.stdio import (
        DEFAULT_DRAIN_TIMEOUT,
        DEFAULT_MAX_MESSAGE_SIZE,
        StdioServerTransport,
    )

    limit = session_kwargs.pop("max_message_size", DEFAULT_MAX_MESSAGE_SIZE)
    drain = session_kwargs.pop("drain_timeout", DEFAULT_DRAIN_TIMEOUT)
    async with app.running():
        transport = StdioServerTransport(max_message_size=limit, drain_timeout=drain)
        session = app.session(transport, **session_kwargs)
        await session.start()
        await session.wait_closed()
