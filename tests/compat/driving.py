"""The official client of the comparisons, started once: ``drive.py --serve`` in a peer's
interpreter runs every conversation the tests hand it, several at once, so each comparison
pays for its servers' start-up only, not for the client's (the official SDK's imports take
about a second of CPU a process).

:func:`submit` hands a conversation over and returns at once; :meth:`Job.report` waits for
what the client saw. The client, the callbacks, the report and the servers (started by the
client over stdio, with the test's environment and folder) are those of a ``drive.py`` run
of its own; a driver that dies fails the jobs it held and the next job starts a new one.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import deque
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
DRIVE = HERE / "drive.py"
WARM = HERE / "warm.py"
PEERS_DIR = HERE.parents[1] / ".cache" / "peers"
TEE = HERE.parent / "interop" / "peers" / "tee.py"

#: The interpreters whose servers start warmed (tests/compat/warm.py), with what they import
#: first: what the least of their servers imports by the time it answers (its SDK, and what
#: running over stdio brings in). ``MCPKIT_COMPAT_COLD=1`` starts every server cold.
ANYIO = ["anyio._backends._asyncio", "anyio.streams.stapled", "anyio.streams.tls", "pkgutil"]
FASTMCP = [
    "fastmcp",
    "fastmcp.server.server",
    "fastmcp.server.context",
    "fastmcp.server.elicitation",
    "fastmcp.server.sessions",
    "fastmcp.server.middleware.dereference",
    "fastmcp.server.transforms.catalog",
    "fastmcp.utilities.cli",
    "griffe",
    "rich.panel",
    "rich.table",
    *ANYIO,
]
PRELOADS: dict[str, list[str]] = {
    str(PEERS_DIR / "fastmcp" / "bin" / "python"): FASTMCP,
    str(PEERS_DIR / "fastmcp-tasks" / "bin" / "python"): FASTMCP,
    str(PEERS_DIR / "mcp1" / "bin" / "python"): ["mcp.server.fastmcp", "mcp.server.stdio", *ANYIO],
    str(PEERS_DIR / "py" / "bin" / "python"): [
        "mcp.server.mcpserver",
        "mcp.server.stdio",
        *ANYIO,
    ],
    sys.executable: [
        "mcpkit.compat.run",
        "mcpkit.compat.fastmcp",
        "mcpkit.compat.mcp",
        "mcpkit.server.serving",
        "mcpkit.transports.stdio",
        "mcpkit.settings",
        "jsonschema_rs",
        "uvloop",
    ],
}

#: How long a conversation may take, in the driver (its timeout).
TIMEOUT = 110.0

#: How many conversations the driver runs at once (the others wait their turn, in order).
AT_ONCE = 8


class Job:
    """A conversation handed to the driver; :meth:`report` is what the client saw."""

    def __init__(self, future: Future[dict[str, Any]], tag: str) -> None:
        self.future = future
        self.tag = tag

    def report(self) -> dict[str, Any]:
        """What the client saw (the test fails with the driver's traceback if it failed)."""
        out = self.future.result(timeout=3 * TIMEOUT)  # its turn, then its own timeout
        assert "error" not in out, (
            f"the official client failed ({self.tag}):\n{out['error'][-4000:]}"
        )
        report: dict[str, Any] = out["report"]
        return report


class Driver:
    """One ``drive.py --serve`` process and the jobs it holds."""

    def __init__(self, python: Path) -> None:
        self.python = python
        self.lock = threading.Lock()
        self.pending: dict[int, Future[dict[str, Any]]] = {}
        self.waiting: deque[str] = deque()  # the jobs beyond AT_ONCE, as sent
        self.running = 0
        self.next_id = 0
        self.proc: subprocess.Popen[str] | None = None
        self.stderr: IO[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        self.stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        proc = subprocess.Popen(
            [str(self.python), str(DRIVE), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()
        return proc

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out = json.loads(line)
            with self.lock:
                future = self.pending.pop(out.pop("id"))
                self.running -= 1
                if self.waiting:
                    self._send(proc, self.waiting.popleft())
            future.set_result(out)
        proc.wait()
        with self.lock:  # the driver died: its jobs fail, the next job starts another
            if self.proc is proc:
                self.proc = None
            lost, self.pending = self.pending, {}
            self.waiting.clear()
            self.running = 0
        assert self.stderr is not None
        self.stderr.seek(0)
        error = f"the driver exited ({proc.returncode}):\n{self.stderr.read()}"
        for future in lost.values():
            future.set_result({"error": error})

    def submit(self, spec: dict[str, Any]) -> Future[dict[str, Any]]:
        """Hand ``spec`` (a job of ``drive.py --serve``, without its id) to the driver."""
        future: Future[dict[str, Any]] = Future()
        with self.lock:
            if self.proc is None:
                self.proc = self._start()
            self.next_id += 1
            self.pending[self.next_id] = future
            line = json.dumps({**spec, "id": self.next_id}) + "\n"
            if self.running < AT_ONCE:
                self._send(self.proc, line)
            else:
                self.waiting.append(line)
        return future

    def _send(self, proc: subprocess.Popen[str], line: str) -> None:
        assert proc.stdin is not None
        self.running += 1
        proc.stdin.write(line)
        proc.stdin.flush()

    def close(self) -> None:
        with self.lock:
            proc, self.proc = self.proc, None
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class ForkServer:
    """``warm.py serve`` in one interpreter and environment."""

    def __init__(self, python: str, env: dict[str, str]) -> None:
        self.folder = tempfile.mkdtemp(prefix="mcpkit-warm-")
        self.socket = os.path.join(self.folder, "s")
        self.stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        self.proc = subprocess.Popen(
            [python, str(WARM), "serve", self.socket, *PRELOADS[python]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != "ready\n":
            self.stderr.seek(0)
            raise AssertionError(f"the fork server of {python} failed:\n{self.stderr.read()}")

    def close(self) -> None:
        self.proc.terminate()  # it kills the servers still running, then exits
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_drivers: dict[Path, Driver] = {}
_forks: dict[tuple[str, frozenset[tuple[str, str]]], ForkServer] = {}


#: The environment the suite started with (before any test set a variable of its own).
SUITE_ENV = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


def warmed(
    command: list[str],
    env: dict[str, str] | None = None,
    *,
    imports_env: dict[str, str] | None = None,
) -> list[str]:
    """``command`` (``PYTHON FILE ARGS``, ``PYTHON -m MODULE ARGS``, or one of them behind
    ``tee.py``), its process started by the fork server of its interpreter and ``env`` (the
    environment it will be started with, this process's by default); any other command as
    it is. The server gets the environment its launcher is started with either way;
    ``imports_env`` (``env`` by default) is the one its preloaded modules are imported
    with: a test whose variables no preloaded module reads at import (a provider's
    settings, read when the server builds it) passes :data:`SUITE_ENV`, so that one fork
    server serves every test instead of one each."""
    if env is None:
        env = dict(os.environ)
    if command[:2] == [sys.executable, str(TEE)] and "--" in command:
        cut = command.index("--") + 1
        return command[:cut] + warmed(command[cut:], env, imports_env=imports_env)
    python, *rest = command
    if python not in PRELOADS or not rest or (rest[0].startswith("-") and rest[0] != "-m"):
        return command
    if os.environ.get("MCPKIT_COMPAT_COLD") == "1":
        return command
    # What the interpreter imports does not depend on which test runs.
    base = {
        k: v
        for k, v in (env if imports_env is None else imports_env).items()
        if k != "PYTEST_CURRENT_TEST"
    }
    key = python, frozenset(base.items())
    fork = _forks.get(key)
    if fork is None or fork.proc.poll() is not None:
        fork = _forks[key] = ForkServer(python, base)
    return [sys.executable, "-I", "-S", str(WARM), fork.socket, *rest]


def _close_all() -> None:
    for driver in _drivers.values():
        driver.close()
    for fork in _forks.values():
        fork.close()


atexit.register(_close_all)


def submit(
    python: Path,
    script: list[Any],
    tag: str,
    *,
    command: list[str] | None = None,
    url: str | None = None,
    mode: str = "legacy",
    sse: bool = False,
    extensions: list[str] | None = None,
) -> Job:
    """Start the official client of ``python`` (a peer's interpreter) running ``script``
    against the stdio ``command`` or the ``url`` (``sse``: of the HTTP+SSE transport's
    stream), declaring the ``extensions`` (identifiers); the server gets this process's
    environment and working folder, as a server the client starts would."""
    driver = _drivers.get(python)
    if driver is None:
        driver = _drivers[python] = Driver(python)
    spec: dict[str, Any] = {"script": script, "mode": mode, "timeout": TIMEOUT}
    if extensions:
        spec["extensions"] = extensions
    if url is not None:
        spec["url"] = url
        if sse:
            spec["sse"] = True
    else:
        assert command
        env = dict(os.environ)
        spec.update(command=warmed(command, env), env=env, cwd=os.getcwd())
    return Job(driver.submit(spec), tag)
