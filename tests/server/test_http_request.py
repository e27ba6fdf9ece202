"""``ctx.request``: the HTTP request that carried the message being handled, in both eras
(a 2025 session's message: its own POST, not the one that opened the session), on the
2024-11-05 HTTP+SSE endpoints too, with the authenticated principal; None over stdio and in
memory (even inside an HTTP handler); and in middleware."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Client, Context, HttpRequest, Server
from mcpkit.auth import APIKey, APIKeyVerifier
from mcpkit.client import ProtocolOptions
from mcpkit.http_request import Headers
from mcpkit.server.middleware import MiddlewareContext
from mcpkit.transports.http import running
from tests.http import raw


def make_server(**options: Any) -> Server:
    app = Server("req", **options)

    @app.tool()
    def seen(ctx: Context) -> dict[str, Any]:
        req = ctx.request
        if req is None:
            return {"request": None}
        return {
            "method": req.method,
            "path": req.path,
            "trace": req.headers.get("x-trace"),
            "traces": req.headers.get_list("x-trace"),
            "address": req.client_address,
            "principal": req.principal,
            "scopes": sorted(req.scopes),
            "claims": dict(req.claims),
        }

    return app


def structured(result: Any) -> dict[str, Any]:
    return dict(result.structured_content)


async def test_legacy_session_messages_see_their_own_post() -> None:
    asgi = make_server().http_app()
    async with running(asgi) as base, httpx.AsyncClient() as http:
        url = base + "/mcp"
        r = await http.post(url, json=raw.init_message(), headers=raw.headers(x_trace="init"))
        sid = r.headers["mcp-session-id"]
        for i in range(3):
            r = await http.post(
                url,
                json=raw.tool_call(i + 1, "seen"),
                headers=raw.headers(sid, x_trace=f"call-{i}"),
            )
            [message] = raw.messages(await raw.read_events(r))
            got = message["result"]["structuredContent"]
            assert got["trace"] == f"call-{i}" and got["traces"] == [f"call-{i}"]
            assert got["method"] == "POST" and got["path"] == "/mcp"
            assert got["address"] == "127.0.0.1" and got["principal"] is None
    await asgi.aclose()


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_both_eras_with_a_principal(era: str) -> None:
    keys = APIKeyVerifier(
        {"sk-ada": APIKey(subject="ada", scopes={"mcp", "read"}, claims={"team": "core"})}
    )
    asgi = make_server(auth=keys).http_app()
    async with running(asgi) as base:
        headers = {"Authorization": "Bearer sk-ada", "X-Trace": "t1"}
        async with Client(base + "/mcp", headers=headers, era=era) as c:
            got = structured(await c.call_tool("seen"))
    assert got == {
        "method": "POST",
        "path": "/mcp",
        "trace": "t1",
        "traces": ["t1"],
        "address": "127.0.0.1",
        "principal": "ada",
        "scopes": ["mcp", "read"],
        "claims": {"team": "core"},
    }
    await asgi.aclose()


async def test_legacy_http_sse_endpoints() -> None:
    asgi = make_server().http_app(legacy_sse=True)
    async with running(asgi) as base:
        async with Client(
            base + "/sse",
            headers={"X-Trace": "old"},
            protocol=ProtocolOptions(version="2024-11-05"),
        ) as c:
            got = structured(await c.call_tool("seen"))
    assert got["trace"] == "old" and got["path"] == "/messages" and got["method"] == "POST"
    await asgi.aclose()


async def test_none_in_memory_even_inside_an_http_handler() -> None:
    inner = make_server()
    outer = Server("outer")

    @outer.tool()
    async def relay(ctx: Context) -> dict[str, Any]:
        assert ctx.request is not None  # the outer server is served over HTTP
        async with Client(inner) as c:  # in memory: no HTTP request there
            return structured(await c.call_tool("seen"))

    async with Client(inner) as c:
        assert structured(await c.call_tool("seen")) == {"request": None}
    asgi = outer.http_app()
    async with running(asgi) as base:
        async with Client(base + "/mcp") as c:
            assert structured(await c.call_tool("relay")) == {"request": None}
    await asgi.aclose()


async def test_middleware_sees_the_request() -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    async def record(mctx: MiddlewareContext, call_next: Any) -> Any:
        req = mctx.http_request
        via_context = None if mctx.is_notification else mctx.context.request
        seen.append(
            (
                mctx.method,
                None if req is None else req.headers.get("x-trace"),
                None if via_context is None else via_context.headers.get("x-trace"),
            )
        )
        return await call_next(mctx)

    app = make_server(middleware=[record])
    async with Client(app) as c:
        await c.call_tool("seen")
    assert ("tools/call", None, None) in seen
    seen.clear()
    asgi = app.http_app()
    async with running(asgi) as base:
        async with Client(base + "/mcp", headers={"X-Trace": "mw"}, era="legacy") as c:
            await c.call_tool("seen")
    assert ("tools/call", "mw", "mw") in seen
    assert ("notifications/initialized", "mw", None) in seen
    await asgi.aclose()


def test_value_object() -> None:
    scope = {
        "type": "http",
        "method": "POST",
        "root_path": "/api",
        "path": "/mcp",
        "query_string": b"a=1",
        "scheme": "https",
        "client": ("10.0.0.7", 5151),
        "headers": [
            (b"authorization", b"Bearer secret-token"),
            (b"x-many", b"1"),
            (b"X-Many", b"2"),
            (b"user-agent", b"test"),
        ],
    }
    req = HttpRequest.from_scope(scope)
    assert req.path == "/api/mcp" and req.query_string == "a=1" and req.scheme == "https"
    assert req.client_address == "10.0.0.7" and req.principal is None and req.scopes == set()
    assert req.headers["USER-AGENT"] == "test" and "x-many" in req.headers
    assert req.headers["x-many"] == "1" and req.headers.get_list("x-many") == ["1", "2"]
    assert list(req.headers) == ["authorization", "x-many", "user-agent"]
    assert len(req.headers) == 3 and req.headers.get("nope") is None
    assert "secret-token" not in repr(req) and "<hidden>" in repr(req)
    with pytest.raises(AttributeError):
        req.method = "GET"  # type: ignore[misc]
    assert HttpRequest.from_scope({"type": "http"}).client is None
    assert Headers([("A", "b")])["a"] == "b"
    assert orjson.loads(orjson.dumps(req.headers.items_all()))[1] == ["x-many", "1"]
