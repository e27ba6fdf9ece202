"""Server subprocesses for the reliability suite, and what /proc says about them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    """This environment, with the checkout (for ``tests.*``) and ``src`` importable."""
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), out.get("PYTHONPATH", "")])
    return out


def stdio_command() -> list[str]:
    """The argv of the reliability server over stdio."""
    return [sys.executable, "-m", "tests.reliability.app", "stdio"]


def rss_kb(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (VmRSS)."""
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    assert match is not None
    return int(match.group(1))


def fd_count(pid: int) -> int:
    """Open file descriptors of ``pid``."""
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class HttpServer:
    """A reliability server serving Streamable HTTP in a subprocess."""

    proc: asyncio.subprocess.Process
    url: str

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def base(self) -> str:
        return self.url.rsplit("/", 1)[0]

    def rss_kb(self) -> int:
        return rss_kb(self.pid)

    def fd_count(self) -> int:
        return fd_count(self.pid)


@contextlib.asynccontextmanager
async def http_server(*flags: str) -> AsyncIterator[HttpServer]:
    """Start ``python -m tests.reliability.app http *flags``; yield it once it serves."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.reliability.app",
        "http",
        *flags,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=env(),
        cwd=str(ROOT),
    )
    try:
        assert proc.stderr is not None
        url = ""
        async with asyncio.timeout(20):
            while not url:
                line = (await proc.stderr.readline()).decode()
                if not line:
                    raise RuntimeError(f"server exited with {await proc.wait()}")
                match = re.search(r"on (http://\S+) \(Streamable", line)
                if match:
                    url = match.group(1)
        drain = asyncio.create_task(_drain(proc.stderr))
        yield HttpServer(proc, url)
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        with contextlib.suppress(NameError):
            drain.cancel()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


class SyncHttpServer:
    """The reliability server over Streamable HTTP in a subprocess, started without an event
    loop (for module-scoped fixtures)."""

    def __init__(self, *flags: str) -> None:
        import subprocess
        import time

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.app", "http", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env(),
            cwd=str(ROOT),
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + 20
        self.url = ""
        while not self.url and time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode()
            if not line:
                raise RuntimeError(f"server exited with {self.proc.wait()}")
            match = re.search(r"on (http://\S+) \(Streamable", line)
            if match:
                self.url = match.group(1)
        assert self.url, "the server did not say where it serves"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def close(self) -> None:
        import subprocess

        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
