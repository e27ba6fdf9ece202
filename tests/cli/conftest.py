"""Helpers for driving the real ``mcpkit`` command as a subprocess."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "examples" / "server_everything.py"
ASK_SERVER = Path(__file__).resolve().parent / "ask_server.py"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.pop("COLUMNS", None)
    env.update(extra)
    return env


def mcpkit(
    *args: str, timeout: float = 60, input: str | None = None, cwd: Path = ROOT, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mcpkit ARGS`` to completion (stdin: ``input`` or nothing)."""
    return subprocess.run(
        [sys.executable, "-m", "mcpkit", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input if input is not None else "",
        cwd=cwd,
        env=cli_env(**env),
    )


def command(path: Path) -> str:
    """A command-line TARGET running ``path`` with this interpreter (a stdio server)."""
    return f"{sys.executable} {path}"


def plain(text: str) -> str:
    return _ANSI.sub("", text)


class PtyCommand:
    """``mcpkit`` with stdin and stderr on a pseudo-terminal (where it prompts) and stdout on a
    pipe (where results go): ``expect`` a prompt, ``send`` the answer."""

    def __init__(self, *args: str, **env: str) -> None:
        master, slave = os.openpty()
        self.master = master
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcpkit", *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=cli_env(**env),
            text=True,
            close_fds=True,
        )
        os.close(slave)
        self.seen = ""  # everything read from the terminal so far (ANSI stripped)
        self._pos = 0

    def _read(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([self.master], [], [], remaining)
        if not ready:
            return False
        try:
            data = os.read(self.master, 4096)
        except OSError:  # EIO: the other side closed
            return False
        if not data:
            return False
        self.seen += plain(data.decode("utf-8", "replace"))
        return True

    def expect(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = regex.search(self.seen, self._pos)
            if m:
                self._pos = m.end()
                return m
            if not self._read(deadline):
                raise AssertionError(f"{pattern!r} not seen; terminal so far:\n{self.seen}")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 30) -> tuple[int, str]:
        """Wait for the exit; (exit code, stdout)."""
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        finally:
            deadline = time.monotonic() + 0.5
            while self._read(deadline):
                pass
            os.close(self.master)
        return self.proc.returncode, out

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def pty_command() -> Iterator[Any]:
    made: list[PtyCommand] = []

    def make(*args: str, **env: str) -> PtyCommand:
        cmd = PtyCommand(*args, **env)
        made.append(cmd)
        return cmd

    yield make
    for cmd in made:
        cmd.kill()


class Served:
    """``mcpkit run FILE --transport http --port 0`` in the background; ``url`` once up."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcpkit", "run", *args, "--transport", "http"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=cli_env(),
        )
        self.lines: list[str] = []
        self._buffer = ""
        self.url = self.wait_for(r"on (http://\S+) ").group(1)

    def wait_for(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """The next stderr line matching ``pattern``."""
        assert self.proc.stderr is not None
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        fd = self.proc.stderr.fileno()
        while True:
            while "\n" in self._buffer:
                line, self._buffer = self._buffer.split("\n", 1)
                self.lines.append(line)
                m = regex.search(line)
                if m:
                    return m
            remaining = deadline - time.monotonic()
            ready = remaining > 0 and select.select([fd], [], [], remaining)[0]
            data = os.read(fd, 65536) if ready else b""
            if not data:
                raise AssertionError(f"{pattern!r} not seen on stderr:\n" + "\n".join(self.lines))
            self._buffer += data.decode("utf-8", "replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def served() -> Iterator[Any]:
    made: list[Served] = []

    def make(*args: str) -> Served:
        s = Served(*args)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()
