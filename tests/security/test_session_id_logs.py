"""Session ids are bearer secrets over HTTP: logs show a short hash of them, never the id.

Request logging (INFO for what succeeded, WARNING for errors and slow requests), the
HTTP client's re-initialization notice and the Redis replica-failure warning all name a
session by :func:`mcpkit.logs.session_tag`."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.logs import client_label, session_tag
from mcpkit.server.middleware import RequestLogging, Timing
from mcpkit.session import ClientSession
from mcpkit.transports.http import StreamableHTTPClientTransport, running
from tests.http import raw


def _everything_logged(caplog: pytest.LogCaptureFixture) -> str:
    # mcpkit's records (httpx and httpcore log whole headers at DEBUG: not ours)
    mine = [r for r in caplog.records if r.name.startswith(("mcpkit", "uvicorn"))]
    return "\n".join(f"{r.getMessage()} {vars(r)!r}" for r in mine)


def test_the_tag_is_short_stable_and_not_the_id() -> None:
    sid = "4e598b8d0bc4f1e2a9d7c3b5e8f0a1b2"
    tag = session_tag(sid)
    assert tag == session_tag(sid) and len(tag) == 12 and sid not in tag
    assert session_tag(sid + "x") != tag
    assert client_label("session:" + sid) == "session:" + tag
    assert client_label("principal:alice") == "principal:alice"


async def test_request_logs_name_the_session_by_its_tag(caplog: pytest.LogCaptureFixture) -> None:
    server = Server("logged", middleware=[RequestLogging(), Timing(slow_ms=0)])

    @server.tool()
    def echo(text: str) -> str:
        return text

    caplog.set_level(logging.DEBUG)
    async with running(server.http_app()) as base, httpx.AsyncClient(timeout=10) as http:
        url = base + "/mcp"
        sid = await raw.open_session(http, url)
        ok = await http.post(
            url, json=raw.tool_call(1, "echo", text="hi"), headers=raw.headers(sid)
        )
        assert ok.status_code == 200
        bad = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "nope"}}
        await http.post(url, json=bad, headers=raw.headers(sid))
    logged = _everything_logged(caplog)
    levels = {r.levelno for r in caplog.records if r.name.startswith("mcpkit.")}
    assert {logging.INFO, logging.WARNING} <= levels  # both kinds of record were written
    assert sid not in logged
    assert f"session:{session_tag(sid)}" in logged


async def test_the_client_names_an_expired_session_by_its_tag(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("expiring")

    @server.tool()
    def echo(text: str) -> str:
        return text

    caplog.set_level(logging.DEBUG)
    app = server.http_app()
    async with running(app) as base:
        client = ClientSession(StreamableHTTPClientTransport(base + "/mcp"))
        await client.start()
        try:
            await client.initialize({"name": "c", "version": "1"}, {}, timeout=10)
            old: Any = client.transport.session_id  # type: ignore[attr-defined]
            assert await app.terminate_session(old)
            params = {"name": "echo", "arguments": {"text": "again"}}
            await client.request("tools/call", params, timeout=10)
        finally:
            await client.close()
    logged = _everything_logged(caplog)
    assert f"Session {session_tag(old)} expired on the server" in logged
    assert old not in logged


async def test_the_access_log_shows_query_session_ids_as_tags(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """uvicorn's access log writes request paths, and the 2024-11-05 transport's message
    endpoint carries the session id in its query."""
    secret = "Zq7sV0cRr3tK9mW2xY5aB8dE1fH4jL6n"
    access = logging.getLogger("uvicorn.access")
    async with running(Server("quiet").http_app(), log_level="info") as base:
        # after uvicorn configured its loggers (the access log does not propagate)
        access.addHandler(caplog.handler)
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                await http.post(f"{base}/messages?session_id={secret}&x=1", json={})
        finally:
            access.removeHandler(caplog.handler)
    lines = [r.getMessage() for r in caplog.records if r.name == "uvicorn.access"]
    assert lines and secret not in "\n".join(lines)
    assert f"session_id={session_tag(secret)}&x=1" in "\n".join(lines)


async def test_granians_access_log_shows_query_session_ids_as_tags(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """granian's access log record carries the request's path and query (its default line
    prints the path; a structured handler writes every field): the session id in the query
    is a tag there too."""
    pytest.importorskip("granian")
    from mcpkit.transports.http.granian_serve import running as granian_running

    secret = "Zq7sV0cRr3tK9mW2xY5aB8dE1fH4jL6n"
    access = logging.getLogger("granian.access")
    app = Server("quiet").http_app(legacy_sse=True)
    async with granian_running(app, log_level="info") as base:
        access.addHandler(caplog.handler)  # after granian configured its loggers
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                await http.post(f"{base}/messages?session_id={secret}&x=1", json={})
                await http.post(f"{base}/messages?sessionId={secret}", json={})
        finally:
            access.removeHandler(caplog.handler)
    records = [r for r in caplog.records if r.name == "granian.access"]
    assert len(records) == 2
    logged = "\n".join(f"{r.getMessage()} {r.args!r}" for r in records)
    assert secret not in logged
    assert f"session_id={session_tag(secret)}&x=1" in logged
    assert f"sessionId={session_tag(secret)}" in logged


async def test_a_second_granian_server_in_the_process_tags_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each start configures granian's loggers again: the access log keeps one filter (two
    would write the tag of the tag)."""
    pytest.importorskip("granian")
    from mcpkit.logs import SessionIdFilter
    from mcpkit.transports.http.granian_serve import running as granian_running

    secret = "Zq7sV0cRr3tK9mW2xY5aB8dE1fH4jL6n"
    access = logging.getLogger("granian.access")
    for _ in range(2):
        async with granian_running(Server("quiet").http_app(), log_level="info") as base:
            access.addHandler(caplog.handler)
            try:
                async with httpx.AsyncClient(timeout=10) as http:
                    await http.post(f"{base}/messages?session_id={secret}", json={})
            finally:
                access.removeHandler(caplog.handler)
    assert sum(isinstance(f, SessionIdFilter) for f in access.filters) == 1
    records = [r for r in caplog.records if r.name == "granian.access"]
    logged = "\n".join(f"{r.getMessage()} {r.args!r}" for r in records)
    tag = session_tag(secret)
    assert records and all(tag in f"{r.getMessage()} {r.args!r}" for r in records)
    assert session_tag(tag) not in logged


def test_the_access_log_filter_hides_credentials_a_format_names() -> None:
    """An access log format may name a header (granian's ``%(header{authorization})s``)."""
    from mcpkit.logs import SessionIdFilter

    token = "eyJhbGciOiJFUzI1NiJ9.payload.sig"
    record = logging.LogRecord(
        "granian.access", logging.INFO, __file__, 1, "%(path)s %(_h0)s", None, None
    )
    record.args = {"path": "/mcp", "_h0": f"Bearer {token}", "status": 200}
    assert SessionIdFilter().filter(record)
    assert record.getMessage() == f"/mcp Bearer {session_tag(token)}"
