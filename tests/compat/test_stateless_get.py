"""A GET to a stateless compat app is answered as the official SDKs answer it (mcp 1.x and
2.x alike): an SSE stream that never carries anything (406 without ``text/event-stream``
in ``Accept``), where a native mcpkit app answers 405. The stream ends when the client
goes away, and at shutdown.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.transports.http import HttpServerOptions, StreamableHTTPApp
from tests.compat.test_compat import SERVERS
from tests.compat.test_http_examples import V2, console, served
from tests.compat.test_unchanged import peer

GETS = [
    {"accept": "text/event-stream"},
    {"accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"},
    {"accept": "application/json"},
]


def gets(url: str) -> list[dict[str, Any]]:
    """Each GET's status, media type and what it carried within a second (whether it was
    still open then)."""
    out = []
    for headers in GETS:
        with (
            httpx.Client(timeout=httpx.Timeout(10, read=1.0)) as http,
            http.stream("GET", url, headers=headers) as response,
        ):
            body, still_open = b"", False
            try:
                for chunk in response.iter_raw():
                    body += chunk
            except httpx.ReadTimeout:
                still_open = True
            out.append(
                {
                    "status": response.status_code,
                    "type": response.headers.get("content-type"),
                    "body": body,
                    "open": still_open,
                }
            )
    return out


@pytest.mark.parametrize("sdk", ["mcp1", "mcp2"])
def test_stateless_get_as_the_sdk(sdk: str, tmp_path: Path) -> None:
    """1.x: a low-level server behind ``StreamableHTTPSessionManager(stateless=True)``;
    2.x: the ``simple-streamablehttp-stateless`` example. The same answers on mcpkit."""
    if sdk == "mcp1":
        argv, path = [str(SERVERS / "sdk_event_store.py"), "--stateless", "--port"], "/mcp/"
    else:
        launcher = console(V2 / "server_mcp_simple_streamablehttp_stateless.py", tmp_path)
        argv, path = [str(launcher), "--port"], "/mcp"
    with served([str(peer(sdk)), *argv], [sys.executable, "-m", "mcpkit.compat", *argv]) as ports:
        theirs, ours = (gets(f"http://127.0.0.1:{port}{path}") for port in ports)
    if sdk == "mcp1":  # 1.x names its errors "server-error" where 2.x gives a null id
        theirs[2]["body"] = theirs[2]["body"].replace(b'"server-error"', b"null")
    assert ours == theirs
    assert ours[0] == {"status": 200, "type": "text/event-stream", "body": b"", "open": True}


def _app(sdk_streams: bool) -> StreamableHTTPApp:
    server = Server("idle")
    app = StreamableHTTPApp(server.session, "/mcp", HttpServerOptions(stateless=True))
    app.sdk_streams = sdk_streams
    return app


def _scope() -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"accept", b"text/event-stream")]
    return {
        "type": "http",
        "method": "GET",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "scheme": "http",
        "http_version": "1.1",
        "root_path": "",
    }


async def _open(app: StreamableHTTPApp) -> tuple[asyncio.Task[None], asyncio.Event, list[Any]]:
    """A GET left open: its task, the event that disconnects it, what it sent."""
    sent: list[Any] = []
    gone = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    task = asyncio.create_task(app(_scope(), receive, send))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if sent:
            break
    return task, gone, sent


async def test_idle_stream_ends_when_the_client_goes() -> None:
    app = _app(True)
    task, gone, sent = await _open(app)
    assert sent[0]["status"] == 200 and not task.done()
    assert len(app._live) == 1
    gone.set()
    await asyncio.wait_for(task, 5)
    assert not app._live  # nothing left behind


async def test_idle_stream_ends_at_shutdown() -> None:
    app = _app(True)
    task, _gone, sent = await _open(app)
    assert sent[0]["status"] == 200
    app.close_streams()
    await asyncio.wait_for(task, 5)
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert not app._live


async def test_native_stateless_get_stays_405() -> None:
    app = _app(False)
    task, _gone, sent = await _open(app)
    await asyncio.wait_for(task, 5)
    assert sent[0]["status"] == 405
