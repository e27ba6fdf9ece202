"""Serving one HTTP port from N worker processes (``mcpkit run -t http --workers N``,
``app.run("http", workers=N)``).

The parent binds the port, forks the workers and supervises them; it serves nothing
itself. Where the platform has ``SO_REUSEPORT`` the parent opens one listening socket per
worker on the same port (the kernel spreads new connections over them); elsewhere the
workers share one socket. The parent keeps every socket open, so a worker that restarts
finds the connections that arrived meanwhile still queued.

Signals to the parent: SIGTERM or SIGINT (Ctrl-C) stop every worker (each ends its
streams and finishes what it is answering; one that has not ended after
:data:`STOP_TIMEOUT` seconds is killed); SIGHUP restarts the workers one after the other
(a new one starts before the old one stops). A worker that dies is replaced; one that exits
with an error within a second of starting stops the whole command (it would only fail
again).

Workers share the MRTR ``requestState`` keys: with none configured the parent generates a
key ring and puts it in ``MCPKIT_REQUEST_STATE_KEYS`` for its workers, so a round sealed by
one opens on any other. 2025 sessions live in the memory of the worker that made them:
without a shared store (``--store``) the workers serve stateless HTTP only (see
:func:`plan_state`).

Workers need ``os.fork`` (Linux, macOS and the BSDs).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Final

from mcpkit.errors import McpkitError

__all__ = [
    "STOP_TIMEOUT",
    "WorkersUnavailable",
    "listen_sockets",
    "plan_state",
    "share_request_state_keys",
    "supervise",
]

#: Seconds a worker gets to end after SIGTERM before it is killed.
STOP_TIMEOUT: Final = 10.0
#: A worker that exits with an error sooner than this after it started failed to start.
_STARTUP_GRACE: Final = 1.0


class WorkersUnavailable(McpkitError, RuntimeError):
    """Worker processes cannot be used here (no ``os.fork``, or a bad ``workers`` value)."""


def listen_sockets(host: str, port: int, workers: int) -> tuple[list[socket.socket], int]:
    """Listening sockets for ``workers`` workers on ``host:port`` and the bound port
    (``port=0`` picks a free one): one per worker with ``SO_REUSEPORT``, else one shared."""
    if not hasattr(os, "fork"):
        raise WorkersUnavailable("worker processes need os.fork (not available here)")
    if workers < 1:
        raise WorkersUnavailable(f"workers must be 1 or more, not {workers}")
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    family, kind, proto, _, address = info
    reuse_port = hasattr(socket, "SO_REUSEPORT")
    count = workers if reuse_port else 1
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            if family == socket.AF_INET6:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            if address[1] == 0:  # the next sockets join the port the first one got
                address = (address[0], sock.getsockname()[1], *address[2:])
            sock.listen(2048)
            sock.set_inheritable(True)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets, int(address[1])


def share_request_state_keys(env: str, generate: Callable[[], str]) -> bool:
    """Put a fresh key ring (``generate()``) in the environment variable ``env`` unless one
    is configured, so every worker seals and opens ``requestState`` with the same keys (the
    server's :data:`~mcpkit.server.request_state.KEYS_ENV` and
    :func:`~mcpkit.server.request_state.generate_key`); True if it did."""
    if os.environ.get(env, "").strip():
        return False
    os.environ[env] = generate()
    return True


def plan_state(workers: int, *, stateless: bool, store: bool) -> tuple[bool, str | None]:
    """Whether the workers serve stateless HTTP, and what to tell the user about it.

    2025 sessions live in the memory of the process that made them: N workers without a
    shared store would lose a session whenever a request lands on another worker. So they
    serve stateless HTTP (2025 requests without sessions, and 2026-07-28, which needs
    none) and the message says so; a store (``--store``) keeps sessions shared."""
    if workers <= 1 or stateless or store:
        return stateless, None
    return True, (
        f"{workers} workers without a shared store: serving stateless HTTP only "
        "(2026-07-28, and 2025 requests without sessions); 2025 sessions, tasks and "
        "subscriptions need --store redis://HOST:6379/0 to be shared by the workers"
    )


def _note(message: str) -> None:
    sys.stderr.write(f"mcpkit: {message}\n")
    sys.stderr.flush()


def _watch_parent(parent: int) -> None:
    """Worker: stop (SIGTERM to itself) when the parent is gone, whatever killed it."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="mcpkit-parent-watch", daemon=True).start()


def _start(serve: Callable[[socket.socket], None], sock: socket.socket) -> int:
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    # The worker: default signal handling, serve, and never return into the parent's code.
    code = 0
    try:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _watch_parent(parent)
        serve(sock)
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _stop(pids: list[int], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM every pid, wait for them (killing the ones still there after ``timeout``)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    waiting = set(pids)
    while waiting:
        for pid in list(waiting):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                waiting.discard(pid)
        if waiting and time.monotonic() > deadline:
            for pid in waiting:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            deadline = float("inf")
        if waiting:
            time.sleep(0.02)


def supervise(
    serve: Callable[[socket.socket], None],
    sockets: list[socket.socket],
    workers: int,
    *,
    poll: float = 0.05,
) -> int:
    """Fork ``workers`` processes, each running ``serve(sock)`` on its socket, and look
    after them until SIGTERM or SIGINT (then stop them all); SIGHUP restarts them one by
    one. Returns the exit code for the command (0, or 1 when a worker failed to start)."""
    slots = [sockets[i % len(sockets)] for i in range(workers)]
    requests: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        requests.append(signum)

    handled = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    previous = {signum: signal.signal(signum, on_signal) for signum in handled}
    running: dict[int, tuple[int, float]] = {}  # pid -> (slot, started)
    try:
        for slot, sock in enumerate(slots):
            running[_start(serve, sock)] = (slot, time.monotonic())
        while True:
            while requests:
                signum = requests.pop(0)
                if signum != signal.SIGHUP:
                    return 0
                _note(f"SIGHUP: restarting {workers} workers one by one")
                for pid, (slot, _) in list(running.items()):
                    running[_start(serve, slots[slot])] = (slot, time.monotonic())
                    del running[pid]
                    _stop([pid])
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid, status = 0, 0
            if pid and pid in running:
                slot, started = running.pop(pid)
                code = os.waitstatus_to_exitcode(status)
                if code > 0 and time.monotonic() - started < _STARTUP_GRACE:
                    _note(f"worker {pid} exited with code {code} as it started: stopping")
                    return 1
                _note(f"worker {pid} exited with code {code}: starting another")
                running[_start(serve, slots[slot])] = (slot, time.monotonic())
            time.sleep(poll)  # polling is the supervisor's design: signals only set flags
    finally:
        _stop(list(running))
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for sock in sockets:
            sock.close()
