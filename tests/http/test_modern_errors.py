"""Modern (2026-07-28) POSTs: the validation order and the status code of every error
(CONFORMANCE.md §2.1 steps 1-5), each error echoing the request id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.http.modern import V, call, headers, meta, request, serve
from tests.wire import WireChecker


async def post(url: str, body: Any, hdrs: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as http:
        return await http.post(url, json=body, headers=hdrs)


def error_of(r: httpx.Response) -> dict[str, Any]:
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert "result" not in body
    return body  # type: ignore[no-any-return]


async def test_each_validation_step_has_its_code_and_status(
    wire: Callable[..., WireChecker],
) -> None:
    # The malformed envelopes reach the session (which judges them): check only what the
    # server sends.
    async with serve(wire, check_received=False) as s:
        # 1. no MCP-Protocol-Version header (the _meta makes it modern): -32020
        r = await post(
            s.url, request(1, "server/discover"), headers("server/discover", version=None)
        )
        assert r.status_code == 400
        assert error_of(r)["error"]["code"] == -32020 and r.json()["id"] == 1
        # 2. no _meta / no protocolVersion / no clientCapabilities: -32602
        bodies = [
            {"jsonrpc": "2.0", "id": 101, "method": "server/discover", "params": {}},
            request(
                102,
                "server/discover",
                {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
            ),
            request(
                104, "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": V}}
            ),
        ]
        for body in bodies:
            r = await post(s.url, body, headers("server/discover"))
            assert r.status_code == 400, r.text
            assert error_of(r)["error"]["code"] == -32602
            assert r.json()["id"] == body["id"]
        # clientInfo is optional
        no_info = request(
            105,
            "server/discover",
            {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": V,
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        )
        r = await post(s.url, no_info, headers("server/discover"))
        assert r.status_code == 200 and r.json()["result"]["resultType"] == "complete"
        # 3. header != _meta version: -32020
        r = await post(
            s.url, request(302, "server/discover", version="v999.0.0"), headers("server/discover")
        )
        assert r.status_code == 400 and error_of(r)["error"]["code"] == -32020
        assert r.json()["id"] == 302
        # 4. unsupported version (header and _meta agree): -32022 with data
        r = await post(
            s.url,
            request(301, "server/discover", version="v999.0.0"),
            headers("server/discover", version="v999.0.0"),
        )
        assert r.status_code == 400
        err = error_of(r)["error"]
        assert err["code"] == -32022 and r.json()["id"] == 301
        assert err["data"] == {"supported": [V], "requested": "v999.0.0"}


@pytest.mark.parametrize(
    "method",
    [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "unknown/method",
    ],
)
async def test_removed_and_unknown_methods_are_404(
    wire: Callable[..., WireChecker], method: str
) -> None:
    async with serve(wire, check_received=False) as s:
        r = await post(s.url, request(500, method), headers(method))
        assert r.status_code == 404
        assert error_of(r)["error"]["code"] == -32601 and r.json()["id"] == 500


async def test_missing_client_capability_is_400(wire: Callable[..., WireChecker]) -> None:
    from mcpkit import Server
    from mcpkit.server.context import Context

    server = Server("needs-sampling")

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Needs sampling."""
        return str(await ctx.sample("hi"))

    async with serve(wire, server) as s:
        # tasks/get without the tasks extension: -32021 (or -32601 without tasks) - use the
        # sampling requirement of an MRTR tool instead: its first round asks for sampling.
        r = await post(s.url, call(7, "ask"), headers("tools/call", "ask"))
        body = r.json()
        if "error" in body:
            assert body["error"]["code"] == -32021 and r.status_code == 400
            assert body["id"] == 7
        else:
            pytest.fail(f"a sampling request without the capability was served: {body}")


async def test_invalid_messages_and_batches(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s:
        # a batch on the modern wire
        r = await post(s.url, [request(1, "tools/list")], headers("tools/list"))
        assert r.status_code == 400 and error_of(r)["error"]["code"] == -32600
        # an invalid request keeps its id
        bad = {"jsonrpc": "2.0", "id": 9, "method": 5, "params": {"_meta": meta()}}
        r = await post(s.url, bad, headers("tools/list"))
        assert r.status_code == 400 and error_of(r)["error"]["code"] == -32600
        assert r.json()["id"] == 9
        # a JSON-RPC response from the client
        resp = {"jsonrpc": "2.0", "id": 3, "result": {"_meta": meta()}}
        r = await post(s.url, resp, headers(None))
        assert r.status_code == 400 and error_of(r)["error"]["code"] == -32600
        # a notification: 202, no body
        note = {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"_meta": meta()}}
        r = await post(s.url, note, headers(None))
        assert r.status_code == 202 and r.content == b""
        # neither JSON nor SSE acceptable
        r = await post(
            s.url, request(4, "tools/list"), {**headers("tools/list"), "accept": "text/html"}
        )
        assert r.status_code == 406
        # no body JSON at all
        async with httpx.AsyncClient(timeout=10) as http:
            r = await http.post(s.url, content=b"{nope", headers=headers("tools/list"))
        assert r.status_code == 400 and r.json()["error"]["code"] == -32700


async def test_accept_json_only_gets_json(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s:
        r = await post(
            s.url,
            call(1, "progress", {"steps": 2}, **{"progressToken": "p"}),
            {**headers("tools/call", "progress"), "accept": "application/json"},
        )
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert r.json()["result"]["content"][0]["text"] == "done"
