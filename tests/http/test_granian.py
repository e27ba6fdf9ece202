"""Serving with granian (``server="granian"``): the same app, the same wire, the limits granian
can express (431 past the head buffer, idle and slow-head connections closed), lifespan and a
shutdown that held streams do not stall; the choice of server (argument, environment)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from mcpkit import Server
from mcpkit.transports.http import running
from mcpkit.transports.http.granian_serve import GRANIAN_MAX_HEAD_BUFFER
from mcpkit.transports.http.serve import SERVER_ENV, choose_server

from .conftest import call, text_of
from .modern import call as modern_call
from .modern import headers as modern_headers

ACCEPT = "application/json, text/event-stream"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def echo_server() -> Server:
    app = Server("granian-test", "1")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    return app


async def open_raw(base: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    return reader, writer, parts.netloc


def test_the_server_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SERVER_ENV, raising=False)
    assert choose_server("uvicorn") == "uvicorn"
    assert choose_server("granian") == "granian"
    assert choose_server() == "uvicorn"
    monkeypatch.setenv(SERVER_ENV, "granian")
    assert choose_server() == "granian"
    assert choose_server("uvicorn") == "uvicorn"  # an explicit choice wins
    monkeypatch.setenv(SERVER_ENV, "gunicorn")
    with pytest.raises(ValueError, match="unknown HTTP server 'gunicorn'"):
        choose_server()
    with pytest.raises(ValueError, match="unknown HTTP server 'hypercorn'"):
        choose_server("hypercorn")  # type: ignore[arg-type]


async def test_both_eras_are_served_on_a_port_of_its_own(connect: Any) -> None:
    asgi = echo_server().http_app()
    async with (
        running(asgi, server="granian") as base,
        running(asgi, server="granian") as other,
    ):
        assert base != other and urlsplit(base).port != 0
        client = await connect(base + "/mcp")  # 2025-11-25, schema-checked
        assert text_of(await call(client, "echo", text="hi")) == "hi"
        async with httpx.AsyncClient(timeout=10) as http:  # 2026-07-28
            modern = await http.post(
                base + "/mcp",
                json=modern_call(7, "echo", {"text": "modern"}),
                headers=modern_headers("tools/call", "echo"),
            )
        assert modern.status_code == 200, modern.text
        assert modern.json()["result"]["content"][0]["text"] == "modern"
        await client.close()
    await asgi.aclose()


async def test_granian_threads_have_ended_when_serving_returns() -> None:
    # A runtime thread of granian still running when the interpreter finalizes aborts the
    # process: the server returns only once they have ended.
    def threads() -> set[str]:
        return set(os.listdir("/proc/self/task"))

    asgi = echo_server().http_app()
    before = threads()
    async with running(asgi, server="granian") as base:
        assert threads() - before  # granian's own
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.get(base + "/")).status_code == 200
    assert not (threads() - before)
    await asgi.aclose()


async def test_heads_past_the_buffer_and_the_app_bound_get_431() -> None:
    asgi = echo_server().http_app()
    async with running(asgi, server="granian") as base:
        async with httpx.AsyncClient(timeout=10) as http:
            headers = {"accept": ACCEPT}
            assert (await http.post(base + "/mcp", json=INIT, headers=headers)).status_code == 200
            # Past the app's max_header_bytes (64 KiB): the app refuses it.
            big = {**headers, "x-big": "a" * (100 * 1024)}
            answer = await http.post(base + "/mcp", json=INIT, headers=big)
            assert answer.status_code == 431
            assert answer.json()["error"]["message"] == "Request Header Fields Too Large"
        # Past granian's head buffer: granian refuses it before the app sees it.
        reader, writer, netloc = await open_raw(base)
        try:
            head = f"GET /mcp HTTP/1.1\r\nHost: {netloc}\r\nX-Huge: ".encode()
            writer.write(head + b"a" * (GRANIAN_MAX_HEAD_BUFFER + 1024) + b"\r\n\r\n")
            with_answer = await asyncio.wait_for(reader.read(), 10)
            assert with_answer.startswith(b"HTTP/1.1 431")
        finally:
            writer.close()
    await asgi.aclose()


async def test_slow_heads_and_idle_connections_are_closed() -> None:
    asgi = echo_server().http_app()
    async with running(asgi, server="granian", head_timeout=0.5) as base:
        reader, writer, netloc = await open_raw(base)
        try:  # a head that stops arriving: closed (granian sends no 408)
            writer.write(f"POST /mcp HTTP/1.1\r\nHost: {netloc}\r\nX-Slow: ".encode())
            await writer.drain()
            started = time.monotonic()
            assert await asyncio.wait_for(reader.read(), 5) == b""
            assert 0.3 < time.monotonic() - started < 3
        finally:
            writer.close()
        reader, writer, netloc = await open_raw(base)
        try:  # a keep-alive connection left idle after its answer: closed
            writer.write(f"GET / HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200")
            started = time.monotonic()
            rest = await asyncio.wait_for(reader.read(), 5)  # the body, then EOF
            assert b"MCP server" in rest
            assert 0.3 < time.monotonic() - started < 3
        finally:
            writer.close()
        async with httpx.AsyncClient(timeout=5) as http:  # others are unaffected
            assert (await http.get(base + "/")).status_code == 200
    await asgi.aclose()


async def test_lifespan_runs_and_held_streams_do_not_stall_the_shutdown() -> None:
    seen: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[None]:
        seen.append("started")
        yield
        seen.append("stopped")

    asgi = Server("granian-lifespan", "1", lifespan=lifespan).http_app()
    async with httpx.AsyncClient(timeout=10) as http:
        async with running(asgi, server="granian") as base:
            assert seen == ["started"]
            init = await http.post(base + "/mcp", json=INIT, headers={"accept": ACCEPT})
            headers = {
                "accept": "text/event-stream",
                "mcp-session-id": init.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post(base + "/mcp", json=initialized, headers={**headers, "accept": ACCEPT})
            request = http.build_request("GET", base + "/mcp", headers=headers)
            stream = await http.send(request, stream=True)
            assert stream.status_code == 200
            started = time.monotonic()
        assert time.monotonic() - started < 3  # the held GET stream was ended first
        assert seen == ["started", "stopped"]
        await stream.aclose()
    await asgi.aclose()


def test_mcpkit_run_serves_with_granian(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(
        "from mcpkit import Server\napp = Server('cli-granian', '1')\n"
        "@app.tool()\nasync def echo(text: str) -> str:\n    return text\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop(SERVER_ENV, None)
    argv = [sys.executable, "-m", "mcpkit", "run", "server.py", "-t", "http", "--port", "0"]
    proc = subprocess.Popen(
        [*argv, "--server", "granian"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "serving cli-granian 1 on http://127.0.0.1:" in line, line
        url = line.split(" on ", 1)[1].split()[0]
        answer = httpx.post(url, json=INIT, headers={"accept": ACCEPT}, timeout=10)
        assert answer.status_code == 200
        assert answer.headers["server"] == "granian"
        assert answer.json()["result"]["serverInfo"]["name"] == "cli-granian"
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert out == ""  # stdout stays free: granian's own log lines go to stderr
    assert "experimental" not in err
