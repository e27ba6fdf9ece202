"""The settings of the Streamable HTTP app as one value (HttpServerOptions), used alike by
StreamableHTTPApp, Server.http_app and Server.run; the facts a server hands its app
(ServedApp); the idle clock of a session starting when an answer ends; the renamed
2024-11-05 HTTP+SSE names still importable with a warning."""

from __future__ import annotations

import asyncio
import importlib
import sys
import time
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.server import serving
from mcpkit.transports.http import HttpServerOptions, StreamableHTTPApp
from mcpkit.transports.http.served import served_by_factory
from tests.http import raw

URL = "http://127.0.0.1/mcp"


def _server() -> Server[Any]:
    server = Server("opts", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


def test_one_value_for_the_three_entry_points() -> None:
    options = HttpServerOptions(stateless=True, max_body_size=1234, allowed_hosts=["a.example"])
    assert options.allowed_hosts == ("a.example",)
    server = _server()
    direct = StreamableHTTPApp(server.session, "/mcp", options)
    served = server.http_app("/mcp", options)
    flat = server.http_app("/mcp", stateless=True, max_body_size=1234, allowed_hosts=["a.example"])
    for app in (direct, served.app, flat.app):
        assert app.options == options
        assert app.stateless and app.max_body_size == 1234  # fields read as attributes too
    # A keyword replaces that field of the value given.
    assert server.http_app("/mcp", options, max_body_size=99).app.options.max_body_size == 99
    assert options.max_body_size == 1234  # the value itself never changes
    with pytest.raises(AttributeError, match="no setter"):
        direct.max_body_size = 1  # would shadow the setting without changing it


def test_unknown_settings_are_named() -> None:
    with pytest.raises(TypeError, match="'max_bodysize'"):
        _server().http_app(max_bodysize=1)
    with pytest.raises(TypeError, match="'nope'"):
        HttpServerOptions.merged(None, {"nope": 1})


def test_the_flat_keywords_of_the_app_still_work_with_a_warning() -> None:
    server = _server()
    with pytest.warns(DeprecationWarning, match=r"options=HttpServerOptions\(max_sessions="):
        app = StreamableHTTPApp(server.session, max_sessions=7, json_response=True)
    assert app.options.max_sessions == 7 and app.json_response


def test_run_folds_the_settings_into_one_value(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server()
    seen: dict[str, Any] = {}

    async def serve(app: Any, **options: Any) -> None:
        seen.update(options)

    monkeypatch.setattr(serving, "serve_http", serve)
    server.run("sse", port=1, max_body_size=5, options=HttpServerOptions(stateless=True))
    assert seen["port"] == 1
    assert seen["options"] == HttpServerOptions(stateless=True, max_body_size=5, legacy_sse=True)


def test_the_server_hands_its_facts_to_the_app() -> None:
    server = _server()
    asgi = server.http_app()
    served = asgi.app.served_app()
    assert served is not None and served.made_by(server.session)
    assert asgi.app.modern_versions == server.modern_versions
    assert served.tool_header_params("echo") == ()
    assert served.tool_header_params("missing") is None
    assert served_by_factory(server.session) is not None
    assert served_by_factory(lambda t: server.session(t)) is None  # any other factory
    # Another factory put in its place is served through the factory alone.
    asgi.app.session_factory = lambda t: server.session(t)
    assert asgi.app.served_app() is None


async def test_the_idle_clock_starts_when_a_json_answer_leaves() -> None:
    """A request that runs long must not leave its session looking idle since it began:
    the session counts as used when the answer is sent."""
    server = Server("slow", version="1")
    release, running = asyncio.Event(), asyncio.Event()
    mid: list[float] = []

    @server.tool()
    async def wait() -> str:
        mid.append(time.monotonic())
        running.set()
        await release.wait()
        return "done"

    app = server.http_app(json_response=True)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
    ) as http:
        sid = await raw.open_session(http, URL)
        call = asyncio.ensure_future(
            http.post(URL, json=raw.tool_call(1, "wait"), headers=raw.headers(sid))
        )
        await running.wait()
        await asyncio.sleep(0.01)
        release.set()
        answer = await call
        assert answer.status_code == 200 and "done" in answer.text
        assert app.app.table.get(sid).last_active > mid[0]
    await app.aclose()


def test_the_renamed_http_sse_names_still_import() -> None:
    from mcpkit.transports import http
    from mcpkit.transports.http.sse_2024_client import HttpSseClient
    from mcpkit.transports.http.sse_2024_server import HttpSseServer, HttpSseTransport

    with pytest.warns(DeprecationWarning, match="HttpSseServer"):
        assert http.LegacySSEServer is HttpSseServer
    with pytest.warns(DeprecationWarning, match="HttpSseTransport"):
        assert http.LegacySessionTransport is HttpSseTransport
    with pytest.warns(DeprecationWarning, match="HttpSseClient"):
        assert http.LegacySSEClient is HttpSseClient
    for old in ("legacy_server", "legacy_client"):
        sys.modules.pop(f"mcpkit.transports.http.{old}", None)
        with pytest.warns(DeprecationWarning, match="sse_2024_"):
            importlib.import_module(f"mcpkit.transports.http.{old}")
