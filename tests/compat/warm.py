"""Warmed interpreters for the servers of the comparisons: a fork server per interpreter
(and environment) that has imported the SDK once, and a tiny launcher that stands for
``python FILE ARGS`` or ``python -m MODULE ARGS``.

    PYTHON tests/compat/warm.py serve SOCKET MODULE [MODULE ...]   # the fork server
    python -I -S tests/compat/warm.py SOCKET FILE|-m MODULE [ARG ...]   # the launcher

The fork server imports the MODULEs, then for each launcher that connects forks a child
that takes the launcher's stdin, stdout and stderr (the descriptors themselves, passed over
the socket), its environment, folder and arguments, and runs FILE as ``__main__`` (its
folder first on ``sys.path``) or MODULE as ``python -m`` does (the folder first), just as
that interpreter would have started; only the imports are already done. The launcher
(standard library only, started without ``site``) forwards SIGTERM, SIGINT and SIGHUP to
the child and exits with the child's exit status once the child is gone, so whoever
started it (the official client, over stdio) sees the server's stdio, signals and end.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import sys
import traceback
from typing import Any


def _launch(path: str, argv: list[str]) -> int:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    socket.send_fds(conn, [b"F"], [0, 1, 2])
    spec = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}
    conn.sendall(json.dumps(spec).encode() + b"\n")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # the child holds the stdio now, alone
    os.dup2(devnull, 1)
    answers = conn.makefile("rb")
    pid = int(answers.readline())

    def forward(signum: int, frame: Any) -> None:
        try:
            os.killpg(pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    status = answers.readline()  # the child's exit status, sent as it ends
    answers.read()  # the child is gone when its end of the socket closes
    return int(status) if status.strip() else 1


def _child(conn: socket.socket, spec: dict[str, Any]) -> None:
    """Become the server: the launcher's stdio, environment, folder and arguments."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()  # a group of its own, as a process the client starts
    conn.sendall(f"{os.getpid()}\n".encode())
    os.environ.clear()
    os.environ.update(spec["env"])
    os.chdir(spec["cwd"])
    status = 1

    def report() -> None:  # registered first, so run last, once the server is done
        conn.sendall(f"{status}\n".encode())

    atexit.register(report)
    argv = spec["argv"]
    import runpy

    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.realpath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
        status = 0
    except SystemExit as exc:
        code = exc.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code
        else:
            print(code, file=sys.stderr)
            status = 1
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(status)


def _serve(path: str, modules: list[str]) -> None:
    import importlib

    del sys.path[0]  # this file's folder: each child puts its own first
    for name in modules:
        importlib.import_module(name)
    import threading

    # A fork copies only the thread that forks: none may run beside it.
    assert threading.active_count() == 1, f"threads started by {modules}"
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped as they end
    children: list[int] = []

    def stop(signum: int, frame: Any) -> None:  # no server outlives the run
        for pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        _, fds, _, _ = socket.recv_fds(conn, 1, 3)
        spec = json.loads(conn.makefile("rb").readline())
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            listener.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            _child(conn, spec)
        children.append(pid)
        for fd in fds:
            os.close(fd)
        conn.close()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        _serve(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(_launch(sys.argv[1], sys.argv[2:]))
