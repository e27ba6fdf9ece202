"""Stopping a process that serves HTTP while clients hold SSE streams open.

Real subprocesses, real signals: ``app.run("http")``, ``mcpkit run --transport http`` and an
app mounted in Starlette under uvicorn. A held GET stream and an open POST SSE response must
not stall the exit (uvicorn waits for open responses before its lifespan shutdown).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

SERVER = """
import asyncio, sys
from mcpkit import Server

app = Server("shutdown-test", "1")

@app.tool()
async def wait_long() -> str:
    await asyncio.sleep(60)
    return "never"

if __name__ == "__main__":
    app.run("http", port=int(sys.argv[1]))
"""

MOUNTED = """
import sys
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount
from server import app

asgi = app.http_app()
host = Starlette(routes=[Mount("/m", app=asgi)], lifespan=asgi.lifespan)
uvicorn.run(host, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

ACCEPT = "application/json, text/event-stream"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _argv(how: str, port: int) -> tuple[list[str], str]:
    if how == "run":
        return [sys.executable, "server.py", str(port)], "/mcp"
    if how == "cli":
        argv = [sys.executable, "-m", "mcpkit", "run", "server.py", "--transport", "http"]
        return [*argv, "--port", str(port)], "/mcp"
    return [sys.executable, "mounted.py", str(port)], "/m/mcp"


def _hold(
    client: httpx.Client, method: str, url: str, opened: threading.Event, **kw: object
) -> None:
    try:
        with client.stream(method, url, **kw) as response:  # type: ignore[arg-type]
            assert response.status_code == 200
            opened.set()
            for _ in response.iter_bytes():
                pass
    except httpx.HTTPError:
        pass


@pytest.mark.parametrize("how", ["run", "cli", "mounted"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_held_streams_do_not_stall_the_exit(how: str, signum: int, tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "mounted.py").write_text(MOUNTED)
    port = _free_port()
    argv, path = _argv(how, port)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}{path}"
    client = httpx.Client(timeout=20)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                client.get(f"http://127.0.0.1:{port}/")
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read().decode()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        headers = {"accept": ACCEPT, "content-type": "application/json"}
        init = client.post(
            url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        assert init.status_code == 200
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-11-25"
        client.post(
            url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
        )
        get_open, post_open = threading.Event(), threading.Event()
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "wait_long"}}
        threads = [
            threading.Thread(
                target=_hold,
                args=(client, "GET", url, get_open),
                kwargs={"headers": {**headers, "accept": "text/event-stream"}},
            ),
            threading.Thread(
                target=_hold,
                args=(client, "POST", url, post_open),
                kwargs={"headers": headers, "json": call},
            ),
        ]
        for thread in threads:
            thread.start()
        assert get_open.wait(10) and post_open.wait(10)
        started = time.monotonic()
        proc.send_signal(signum)
        proc.wait(timeout=15)
        elapsed = time.monotonic() - started
        for thread in threads:
            thread.join(5)
            assert not thread.is_alive(), "a stream was left open after the exit"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        client.close()
    stderr = proc.stderr.read().decode()  # type: ignore[union-attr]
    assert elapsed < 2.0, f"exit took {elapsed:.2f}s"
    assert "Traceback" not in stderr, stderr
    assert "timeout graceful shutdown" not in stderr, stderr
