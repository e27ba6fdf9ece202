"""Serving a :class:`StreamableHTTPApp` (or any ASGI app) with granian's embedded server.

granian (the ``granian`` extra) is an HTTP server written in Rust with an ASGI interface:
its own thread parses HTTP/1.1 and writes responses, the app runs on the calling event
loop. This module gives it the behaviour of the uvicorn path (:mod:`.serve`) wherever
granian can express it:

- lifespan: on (startup before the first request, shutdown after the last);
- shutdown: the app's SSE streams end first (``close_streams``), then granian drains the
  open requests, then the lifespan ends; the wait is bounded (``timeout_graceful_shutdown``);
- idle keep-alive connections and slow request heads: granian has one timer for both, its
  ``header_read_timeout``: a connection that has not sent a whole request head within it
  (after it opened, or after the previous response) is closed. It is closed without an
  answer: granian sends no 408;
- request heads larger than ``max_head_buffer`` (1 MiB + 64 KiB) are refused with 431 by
  granian; the app refuses heads over its own ``max_header_bytes`` itself.

What granian cannot do that the uvicorn path does: answer a slow head with 408; keep a
connection usable after a 413 to a body it did not read (it closes it, and a client still
sending may read a reset); bound a stalled SSE reader to the app's stream buffer alone (it
holds its own on top). docs/transports.md lists the tests these fail.

The bound address is read from the listening socket, so ``port=0`` works; the server is
``started`` once granian's thread listens, and returns once granian's threads have ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import signal
import socket
import threading
from collections.abc import AsyncIterator
from typing import Any, Final

from mcpkit._extras import needs_extra
from mcpkit.transports.http.shutdown import StreamCloser

__all__ = ["GRANIAN_MAX_HEAD_BUFFER", "GranianServer", "running", "serve"]

#: Bytes granian buffers for one request head before it refuses it with 431: the uvicorn
#: path's bound (1 MiB) plus the app's ``max_header_bytes`` (64 KiB). granian answers once
#: its buffer is full, without reading the rest: a head just past the bound is still read
#: whole and refused by the app, its answer seen by a client still sending.
GRANIAN_MAX_HEAD_BUFFER: Final = 1024 * 1024 + 64 * 1024

#: Requests one server runs at once (granian's ``backpressure``): an open SSE stream is a
#: request, so this is well above the app's own limits (``max_sessions``).
_BACKPRESSURE: Final = 16384

#: Seconds a stopped server waits for granian's runtime threads to end.
_THREADS_END: Final = 2.0


class _NotExperimental(logging.Filter):
    """Drops the line granian logs at every start of its embedded server."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "experimental" not in record.getMessage()


def _log_config() -> dict[str, Any]:
    # granian's default logging writes to stdout; mcpkit's servers keep stdout free. Its
    # access log record carries the request's query (the 2024-11-05 transport's session
    # id): the same filter as on uvicorn's access log shows it as a tag.
    return {
        "filters": {
            "embedded": {"()": _NotExperimental},
            "session_ids": {"()": "mcpkit.logs.session_id_filter"},
        },
        "handlers": {
            "console": {
                "formatter": "generic",
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
            },
            "access": {
                "formatter": "access",
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
            },
        },
        "loggers": {
            "_granian": {"handlers": ["console"], "filters": ["embedded"], "propagate": False},
            "granian.access": {
                "handlers": ["access"],
                "filters": ["session_ids"],
                "level": "INFO",
                "propagate": False,
            },
        },
    }


def _level(value: Any) -> int:
    if isinstance(value, int):
        return value
    level = logging.getLevelName(str(value).upper())
    return level if isinstance(level, int) else logging.WARNING


class GranianServer:
    """One granian embedded server for one ASGI app: :meth:`serve` runs it on the current
    loop until :meth:`stop`; :attr:`started` and :attr:`address` tell when and where it
    listens."""

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        log_level: str | int = "warning",
        access_log: bool | None = None,
        lifespan: str = "on",
        head_timeout: float | None = 10.0,
        timeout_keep_alive: float | None = 5.0,
        timeout_graceful_shutdown: float | None = 5.0,
        max_head_buffer: int = GRANIAN_MAX_HEAD_BUFFER,
        backpressure: int = _BACKPRESSURE,
        runtime_threads: int = 1,
        backlog: int = 2048,
    ) -> None:
        try:
            # Imported as modules (typed Any): granian is an optional extra.
            constants = importlib.import_module("granian.constants")
            http = importlib.import_module("granian.http")
            embed = importlib.import_module("granian.server.embed")
            net = importlib.import_module("granian.net")
            log = importlib.import_module("granian.log")
        except ModuleNotFoundError as exc:
            if (exc.name or "").partition(".")[0] != "granian":
                raise
            raise needs_extra(
                "Serving Streamable HTTP with granian", "granian", "granian"
            ) from None
        if lifespan not in ("on", "off", "auto"):
            raise ValueError(f"lifespan must be 'on', 'off' or 'auto', not {lifespan!r}")
        level = _level(log_level)
        if access_log is None:
            access_log = level <= logging.INFO
        # granian has one timer for a request head and an idle keep-alive connection: the
        # shorter of the two bounds is the one it can keep.
        timeouts = [t for t in (head_timeout, timeout_keep_alive) if t is not None]
        read_timeout_ms = int(min(timeouts) * 1000) if timeouts else 24 * 3600 * 1000
        self._loop: asyncio.AbstractEventLoop | None = None
        self.host = host
        self.port = port
        self._spawned = False
        self._threads: set[str] = set()
        self._probe: socket.socket | None = None
        self._closer = app.close_streams if isinstance(app, StreamCloser) else None
        self._grace = timeout_graceful_shutdown
        self._address: tuple[str, int] | None = None
        outer = self

        base: Any = embed.Server

        class _Server(base):  # type: ignore[misc]
            def _init_shared_socket(self) -> None:
                # One listening socket built here (granian's Linux path has each worker
                # bind its own, which hides the port picked for port 0).
                holder = net.SocketSpec(self.bind_addr, self.bind_port, self.backlog).build()
                self._ssp = None
                self._shd = holder
                self._sfd = holder.get_fd()
                # A duplicate of the listening socket: where it is bound, and when
                # granian's thread has started listening on it (see started).
                probe = outer._probe = socket.socket(fileno=os.dup(self._sfd))
                outer._address = probe.getsockname()[:2]

            def startup(self, spawn_target: Any, target_loader: Any) -> None:
                super().startup(spawn_target, target_loader)
                outer._spawned = True

            async def shutdown(self, exit_code: int = 0) -> None:
                # granian drains open requests before the lifespan ends: end the SSE
                # streams first, or each held stream stalls the exit.
                if outer._closer is not None:
                    outer._closer()
                await super().shutdown(exit_code)

        self._server = _Server(
            app,
            address=host,
            port=port,
            interface=constants.Interfaces.ASGINL
            if lifespan == "off"
            else constants.Interfaces.ASGI,
            http=constants.HTTPModes.http1,
            websockets=False,
            runtime_threads=runtime_threads,
            backlog=backlog,
            backpressure=backpressure,
            http1_settings=http.HTTP1Settings(
                header_read_timeout=read_timeout_ms,
                keep_alive=True,
                max_buffer_size=max_head_buffer,
            ),
            log_level=log.LogLevels.warning if level >= logging.WARNING else log.LogLevels.info,
            log_dictconfig=_log_config(),
            log_access=access_log,
        )

    @property
    def started(self) -> bool:
        """Whether the server accepts connections (its worker runs and the socket listens:
        granian's thread starts listening a moment after the worker is spawned)."""
        probe = self._probe
        if not self._spawned or probe is None or probe.fileno() < 0:
            return False
        return bool(probe.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))

    @property
    def address(self) -> tuple[str, int]:
        """The bound host and port (once :attr:`started`)."""
        if self._address is None:
            raise RuntimeError("granian has not bound its socket yet")
        return self._address

    def stop(self) -> None:
        """Ask the server to shut down (thread-safe: a signal handler may call it)."""
        self._server.stop()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            # granian's main loop waits on an asyncio.Event: wake it from the loop.
            loop.call_soon_threadsafe(lambda: None)

    async def serve(self, *, install_signal_handlers: bool = True) -> None:
        """Serve until :meth:`stop` (or SIGINT/SIGTERM when ``install_signal_handlers``
        and on the main thread); returns once shut down."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        installed: list[signal.Signals] = []
        if install_signal_handlers and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self.stop)
                    installed.append(sig)
        try:
            await self._serve_bounded()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            if self._probe is not None:
                self._probe.close()
            await self._threads_end()

    async def _threads_end(self) -> None:
        # granian's runtime threads end a moment after its worker does: one still running
        # when the interpreter finalizes aborts the process (a panic in granian), so a
        # program that returns right after serving must not get there first. Bounded.
        deadline = asyncio.get_running_loop().time() + _THREADS_END
        while self._threads & _thread_ids():
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.005)

    async def _serve_bounded(self) -> None:
        before = _thread_ids()
        task = asyncio.ensure_future(self._server.serve())
        try:
            while not self.started and not task.done():
                await asyncio.wait({task}, timeout=0.005)
            self._threads = _thread_ids() - before  # granian's own
            await asyncio.shield(task)
        except asyncio.CancelledError:
            # Cancelled: shut down, bounded, then let the cancellation go on.
            self.stop()
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(self._grace):
                    await asyncio.shield(task)
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            raise


def _thread_ids() -> set[str]:
    """The ids of this process's threads, Python's and others' (Linux; empty elsewhere)."""
    try:
        return set(os.listdir("/proc/self/task"))
    except OSError:
        return set()


async def serve(app: Any, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Serve ``app`` with granian until cancelled or interrupted (127.0.0.1 unless told
    otherwise). ``options``: those of :class:`GranianServer`."""
    await GranianServer(app, host, port, **options).serve()


@contextlib.asynccontextmanager
async def running(
    app: Any, host: str = "127.0.0.1", port: int = 0, **options: Any
) -> AsyncIterator[str]:
    """Serve ``app`` with granian in the background for the block; yields its base URL
    (``port=0`` picks a free port). On exit the server shuts down (bounded) and is awaited."""
    server = GranianServer(app, host, port, **options)
    task = asyncio.get_running_loop().create_task(server.serve(install_signal_handlers=False))
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("granian stopped before it started")
            await asyncio.sleep(0.005)
        bound_host, bound_port = server.address
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        yield f"http://{shown}:{bound_port}"
    finally:
        server.stop()
        try:
            async with asyncio.timeout(10):
                await asyncio.shield(task)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
