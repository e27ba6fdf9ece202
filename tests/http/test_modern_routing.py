"""Both eras on one endpoint (CONFORMANCE.md §2.1 "Serving both wires on one URL"): legacy
and modern requests interleaved on one running app, a 2025 session's GET stream alive
while modern requests are served."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from tests.http import raw
from tests.http.modern import call, headers, modern_server, request, serve
from tests.wire import WireChecker


async def test_legacy_and_modern_interleaved(wire: Callable[..., WireChecker]) -> None:
    server = modern_server()
    async with serve(wire, server) as s, httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, s.url)
        async with http.stream(
            "GET", s.url, headers={**raw.headers(sid), "accept": "text/event-stream"}
        ) as get:
            assert get.status_code == 200
            lines = get.aiter_lines()
            for i in range(3):
                # a modern request between legacy ones
                r = await http.post(
                    s.url,
                    json=call(10 + i, "echo", {"text": f"m{i}"}),
                    headers=headers("tools/call", "echo"),
                )
                assert r.status_code == 200 and "mcp-session-id" not in r.headers
                assert r.json()["result"]["content"][0]["text"] == f"m{i}"
                assert r.json()["result"]["resultType"] == "complete"
                # a legacy request on the session: no resultType, the 2025 shape
                r = await http.post(
                    s.url,
                    json=raw.tool_call(20 + i, "echo", text=f"l{i}"),
                    headers=raw.headers(sid),
                )
                assert r.status_code == 200
                (msg,) = [m for m in _sse_messages(r.content) if m.get("id") == 20 + i]
                assert msg["result"]["content"][0]["text"] == f"l{i}"
                assert "resultType" not in msg["result"]
            # the GET stream still carries the session's server-initiated messages
            server.add_tool(lambda: "new", name="added")

            async def next_message() -> Any:
                async for line in lines:
                    if line.startswith("data:") and line[5:].strip():
                        return orjson.loads(line[5:])
                return None

            msg = await asyncio.wait_for(next_message(), 5)
            assert msg["method"] == "notifications/tools/list_changed"
        # modern traffic is stateless: only the legacy session is kept
        assert list(s.app.sessions) == [sid]


def _sse_messages(body: bytes) -> list[Any]:
    from tests.http.modern import messages_of

    return [m for m in messages_of(body)]


async def test_what_goes_to_the_legacy_path(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire, check_received=False) as s, httpx.AsyncClient(timeout=10) as http:
        # a bare initialize (no header, no _meta): a 2025 session
        r = await http.post(s.url, json=raw.init_message(), headers=raw.headers())
        assert r.status_code == 200 and "mcp-session-id" in r.headers
        # initialize with a 2025 header: legacy too
        r = await http.post(
            s.url,
            json=raw.init_message(),
            headers={**raw.headers(), "mcp-protocol-version": "2025-06-18"},
        )
        assert r.status_code == 200 and "mcp-session-id" in r.headers
        # a dated-revision header without _meta: legacy (no session: 400 from the session path)
        r = await http.post(
            s.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={**raw.headers(), "mcp-protocol-version": "2025-11-25"},
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == -32600
        # a session id wins over the envelope: the legacy session serves it
        sid = await raw.open_session(http, s.url)
        r = await http.post(s.url, json=request(2, "tools/list"), headers=raw.headers(sid))
        assert r.status_code == 200
        (answer,) = [m for m in _sse_messages(r.content) if m.get("id") == 2]
        assert "resultType" not in answer["result"] and "ttlMs" not in answer["result"]
        # The schema checker judges a request by its _meta (2026-07-28 here); the era of
        # this one was fixed by its session id, so its 2025-shaped answer is right: drop
        # exactly those verdicts.
        for checker in s.checkers:
            if any(m is not None and m.get("id") == 2 for m in checker.sent()):
                assert checker.errors and all("'id': 2," in e for e in checker.errors)
                checker.errors.clear()
        # a session id with a modern version header: the session path, which refuses the
        # version it does not negotiate
        r = await http.post(
            s.url,
            json=request(3, "tools/list"),
            headers={**headers("tools/list"), "mcp-session-id": "gone"},
        )
        assert r.status_code == 400 and "MCP-Protocol-Version" in r.json()["error"]["message"]
        # a modern version header alone (no _meta) is modern: the envelope error
        r = await http.post(
            s.url,
            json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
            headers=headers("tools/list"),
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == -32602 and r.json()["id"] == 4


async def test_a_legacy_only_factory_keeps_modern_looking_posts_on_the_legacy_path() -> None:
    from mcpkit.transports.http import StreamableHTTPApp, running
    from tests.http import server as legacy_server

    app = StreamableHTTPApp(legacy_server.factory(lambda: None))
    assert app.modern_versions == ()
    async with running(app) as base, httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            base + "/mcp",
            json=request(1, "tools/list"),
            headers=headers("tools/list", version=None),
        )
        # no modern revision served: the session path's answer (no session id)
        assert r.status_code == 400 and r.json()["error"]["code"] == -32600
    await app.aclose()


async def test_modern_versions_come_from_the_server_or_a_probe_session() -> None:
    from mcpkit import Server, versions
    from mcpkit.transports.http import StreamableHTTPApp

    server = Server("only-legacy", modern_versions=())
    assert StreamableHTTPApp(server.session).modern_versions == ()
    made: list[object] = []

    def factory(transport: object) -> object:
        made.append(transport)
        return Server("dual").session(transport)  # type: ignore[arg-type]

    assert StreamableHTTPApp(factory).modern_versions == versions.MODERN_SUPPORTED  # type: ignore[arg-type]
    assert len(made) == 1
