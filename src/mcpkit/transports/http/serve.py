"""Serving a :class:`StreamableHTTPApp` (or any ASGI app) with uvicorn, or with granian
(:mod:`.granian_serve`, the ``granian`` extra) when ``server="granian"``."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
from collections.abc import AsyncIterator
from typing import Any, Final, Literal

from mcpkit.errors import McpkitError
from mcpkit.transports.http.extra import missing_extra
from mcpkit.transports.http.host_origin import check_bind
from mcpkit.transports.http.shutdown import StreamCloser

__all__ = [
    "SERVER_ENV",
    "ServerChoice",
    "ServerNotStarted",
    "choose_server",
    "run",
    "running",
    "serve",
]

#: The ASGI servers :func:`run`, :func:`serve` and :func:`running` can use.
ServerChoice = Literal["auto", "uvicorn", "granian"]

#: The environment variable that decides ``server="auto"`` (``uvicorn`` or ``granian``).
SERVER_ENV: Final = "MCPKIT_HTTP_SERVER"

#: The server ``"auto"`` picks when :data:`SERVER_ENV` is unset, if it is installed.
AUTO_SERVER: Final[str] = "uvicorn"


def choose_server(server: str = "auto") -> Literal["uvicorn", "granian"]:
    """The ASGI server to use for ``server``: ``"uvicorn"`` or ``"granian"`` as given;
    ``"auto"``: the one named by ``$MCPKIT_HTTP_SERVER``, else :data:`AUTO_SERVER` when it
    is installed, else uvicorn."""
    if server == "auto":
        server = os.environ.get(SERVER_ENV, "").strip().lower() or "auto"
        if server == "auto":
            installed = importlib.util.find_spec(AUTO_SERVER) is not None
            return "granian" if installed and AUTO_SERVER == "granian" else "uvicorn"
    if server == "uvicorn":
        return "uvicorn"
    if server == "granian":
        return "granian"
    raise ValueError(f"unknown HTTP server {server!r}: use 'auto', 'uvicorn' or 'granian'")


def _server(app: Any, host: str, port: int, **kwargs: Any) -> Any:
    try:
        import uvicorn
    except ModuleNotFoundError as exc:
        error = missing_extra(exc, "Serving Streamable HTTP")
        if error is None:
            raise
        raise error from None

    kwargs.setdefault("log_level", "warning")
    # uvicorn logs each response at INFO whenever its access logger has a handler, and
    # builds the line's arguments first (the quoted path, the client address): when the
    # level hides INFO, no access logger spares that work on every request.
    level = kwargs["log_level"]
    if isinstance(level, str):
        level = logging.getLevelName(level.upper())
    kwargs.setdefault("access_log", not isinstance(level, int) or level <= logging.INFO)
    kwargs.setdefault("lifespan", "on")
    # A backstop only: the app's streams end as soon as shutdown starts (below).
    kwargs.setdefault("timeout_graceful_shutdown", 5)
    # Idle keep-alive connections close after 5 s; with the h11 parser, request heads over
    # 64 KiB are refused (httptools has no such limit: the app answers 431 itself).
    kwargs.setdefault("timeout_keep_alive", 5)
    kwargs.setdefault("h11_max_incomplete_event_size", 64 * 1024)
    head_timeout = kwargs.pop("head_timeout", 10.0)
    if "http" not in kwargs:
        protocol = _http_protocol(None if head_timeout is None else float(head_timeout))
        if protocol is not None:
            kwargs["http"] = protocol
    config = uvicorn.Config(app, host=host, port=port, **kwargs)
    if config.access_log:  # request paths carry the 2024-11-05 transport's session ids
        from mcpkit.logs import SESSION_ID_FILTER

        logging.getLogger("uvicorn.access").addFilter(SESSION_ID_FILTER)
    closer = app.close_streams if isinstance(app, StreamCloser) else None

    class Server(uvicorn.Server):
        #: The exit code uvicorn's startup asked for (it calls sys.exit, which inside a
        #: task would end the whole event loop): None while it has not failed.
        startup_exit: object = None

        async def startup(self, sockets: Any = None) -> None:
            try:
                await super().startup(sockets)
            except SystemExit as exc:
                self.startup_exit = exc.code
                self.should_exit = True

        async def shutdown(self, sockets: Any = None) -> None:
            # uvicorn waits for open responses before the lifespan shutdown: end the SSE
            # streams first, or each held stream stalls the exit.
            if closer is not None:
                closer()
            await super().shutdown(sockets)

    return Server(config)


_HEAD_TOO_LARGE: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\n"
    b"content-length: 25\r\nconnection: close\r\n\r\nRequest header too large\n"
)
#: Bytes of one request head the connection buffers before it refuses it (431): the app
#: refuses heads over its own max_header_bytes (64 KiB) once parsed; this bounds what
#: httptools holds while a huge head is still arriving.
MAX_HEAD_BUFFER: Final = 1024 * 1024

_TIMED_OUT: Final = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\n"
    b"content-length: 25\r\nconnection: close\r\n\r\nRequest header timed out\n"
)


#: Bytes a connection holds back within one loop turn before it writes them at once (so
#: a handler streaming without pause still meets the transport's flow control).
TURN_WRITE_LIMIT: Final = 64 * 1024


class TurnWrites(asyncio.Transport):
    """The connection's transport as uvicorn's protocol sees it, sending what one loop turn
    wrote as one write: uvicorn writes a response's head, then its body (and, chunked, its
    end) separately, two or three segments and as many wake-ups of the client. Here the
    writes of a turn wait for its end (or for :data:`TURN_WRITE_LIMIT` bytes) and go in one
    ``writelines`` (one ``writev`` with uvloop, nothing copied)."""

    __slots__ = ("_held", "_loop", "_size", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] | None = None
        self._size = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        data = bytes(data) if not isinstance(data, bytes) else data
        held = self._held
        if held is None:
            self._held = [data]
            self._size = len(data)
            if self._size > TURN_WRITE_LIMIT:
                self.flush()
            else:
                self._loop.call_soon(self.flush)
            return
        held.append(data)
        self._size += len(data)
        if self._size > TURN_WRITE_LIMIT:
            self.flush()

    def flush(self) -> None:
        """Send what waits (at the end of the loop turn, or before closing)."""
        held = self._held
        if held is not None:
            self._held = None
            if len(held) == 1:
                self._transport.write(held[0])
            else:
                self._transport.writelines(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.flush()
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        held = self._size if self._held is not None else 0
        return self._transport.get_write_buffer_size() + held

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()


def _http_protocol(timeout: float | None) -> type[Any] | None:
    """uvicorn's httptools protocol with the writes of a loop turn sent as one
    (:class:`TurnWrites`) and, unless ``timeout`` is None, a deadline on request heads: a
    connection that has not sent a whole request head ``timeout`` seconds after it opened
    (or after the request began) gets 408 and is closed, so slow senders cannot hold
    connections (uvicorn has no such limit). None without httptools (uvicorn then uses h11
    and its head size limit)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return None

    class HttpProtocol(HttpToolsProtocol):
        # One timer per connection, not one per request: a head that begins notes the time,
        # and the timer (armed when none is pending) checks when it fires whether a head
        # has been arriving for ``timeout`` seconds, else re-arms for the one in progress.
        _head_timer: asyncio.TimerHandle | None = None
        #: When the current request head began (None: not in a head).
        _head_began: float | None = None
        #: Bytes received since the current request head began (None: not in a head).
        _head_bytes: int | None = 0

        def data_received(self, data: bytes) -> None:
            counting = self._head_bytes is not None
            super().data_received(data)
            if counting and self._head_bytes is not None:
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BUFFER and not self.transport.is_closing():
                    self._disarm()
                    self.transport.write(_HEAD_TOO_LARGE)
                    self.transport.close()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head_bytes = 0  # the next request's head starts

        def _head_starts(self) -> None:
            if timeout is None:
                return
            began = self._head_began = self.loop.time()
            if self._head_timer is None:
                self._head_timer = self.loop.call_at(began + timeout, self._head_check)

        def _disarm(self) -> None:
            self._head_began = None
            timer, self._head_timer = self._head_timer, None
            if timer is not None:
                timer.cancel()

        def _head_check(self) -> None:
            self._head_timer = None
            began = self._head_began
            if began is None or timeout is None:
                return  # no head arriving: the next one arms the timer again
            remaining = began + timeout - self.loop.time()
            if remaining > 0.005:  # a later head than the one the timer was armed for
                self._head_timer = self.loop.call_later(remaining, self._head_check)
                return
            if not self.transport.is_closing():
                self.transport.write(_TIMED_OUT)
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(TurnWrites(transport, self.loop))
            self._head_starts()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_starts()

        def on_headers_complete(self) -> None:
            self._head_began = None
            self._head_bytes = None
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HttpProtocol


async def serve(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    server: ServerChoice = "auto",
    **uvicorn_options: Any,
) -> None:
    """Serve ``app`` until cancelled or interrupted. Binds to 127.0.0.1 unless told otherwise.

    ``uvicorn_options`` go to ``uvicorn.Config``, plus ``head_timeout`` (seconds a client
    may take to send a request head; 10 by default, None for no limit). ``server``: the
    ASGI server (:func:`choose_server`); granian takes the options of
    :class:`~mcpkit.transports.http.granian_serve.GranianServer`. A non-loopback ``host``
    with no ``allowed_hosts`` logs a warning (:func:`~.host_origin.check_bind`)."""
    check_bind(app, host)
    if choose_server(server) == "granian":
        from mcpkit.transports.http import granian_serve

        await granian_serve.serve(app, host, port, **uvicorn_options)
        return
    uvicorn_server = _server(app, host, port, **uvicorn_options)
    await uvicorn_server.serve()


def run(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    server: ServerChoice = "auto",
    **uvicorn_options: Any,
) -> None:
    """Blocking form of :func:`serve` (runs its own event loop: uvloop's when installed, as
    the ``http`` extra does; about 30 % more requests per second than asyncio's)."""
    coro = serve(app, host, port, server=server, **uvicorn_options)
    try:
        import uvloop
    except ImportError:
        factory = None
    else:
        factory = uvloop.new_event_loop
    # uvicorn re-raises the Ctrl-C it handled once it has shut down: that is the expected
    # end of the program, not an error to print a traceback for.
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=factory) as runner:
        runner.run(coro)


@contextlib.asynccontextmanager
async def running(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    server: ServerChoice = "auto",
    **uvicorn_options: Any,
) -> AsyncIterator[str]:
    """Serve ``app`` in the background for the duration of the block; yields its base URL.

    ``port=0`` picks a free port. On exit the server shuts down (bounded) and is awaited.
    ``server``: the ASGI server, as for :func:`serve` (a public ``host`` warns as there).
    ``sockets=[sock]`` (uvicorn only): serve on these listening sockets instead of binding
    ``host:port`` (how the workers of :mod:`.workers` share a port).
    """
    check_bind(app, host)
    if choose_server(server) == "granian":
        from mcpkit.transports.http import granian_serve

        if uvicorn_options.get("sockets") is not None:
            raise ValueError("serving on given sockets needs uvicorn, not granian")
        async with granian_serve.running(app, host, port, **uvicorn_options) as base:
            yield base
        return
    async with _running_uvicorn(app, host, port, **uvicorn_options) as base:
        yield base


class ServerNotStarted(McpkitError, RuntimeError):
    """The ASGI server could not start (uvicorn has logged why, e.g. the port is taken);
    ``code`` is the exit code it asked for."""

    def __init__(self, code: object) -> None:
        super().__init__(f"the HTTP server could not start (exit code {code})")
        self.code = code


class _StartupFailureFilter(logging.Filter):
    """Drops uvicorn's "Application startup failed" line when the app kept the error (it
    is raised to the caller instead of logged)."""

    def __init__(self, app: Any) -> None:
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(self.app, "startup_error", None) is None:
            return True
        return not record.getMessage().startswith("Application startup failed")


@contextlib.asynccontextmanager
async def _running_uvicorn(
    app: Any, host: str, port: int, **uvicorn_options: Any
) -> AsyncIterator[str]:
    sockets = uvicorn_options.pop("sockets", None)
    server = _server(app, host, port, **uvicorn_options)
    server.install_signal_handlers = lambda: None
    quiet = _StartupFailureFilter(app)
    uvicorn_error = logging.getLogger("uvicorn.error")
    uvicorn_error.addFilter(quiet)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=sockets))
    try:
        while not server.started:
            if task.done():
                # The app's lifespan failed (uvicorn exits the process for it): its error.
                task.result()
                failed = getattr(app, "startup_error", None)
                if isinstance(failed, Exception):
                    raise failed
                raise ServerNotStarted(getattr(server, "startup_exit", None))
            await asyncio.sleep(0.005)
        sock = server.servers[0].sockets[0]
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        yield f"http://{shown}:{bound_port}"
    finally:
        uvicorn_error.removeFilter(quiet)
        server.should_exit = True
        try:
            async with asyncio.timeout(10):
                await asyncio.shield(task)
        except TimeoutError:
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
