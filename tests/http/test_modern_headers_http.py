"""The header rules of modern POSTs over a running app: CONFORMANCE.md §2.4.5
http-header-validation and http-custom-header-server-validation, case by case."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

from tests.http.modern import call, headers, raw_post, request, serve
from tests.wire import WireChecker


async def post(url: str, body: Any, hdrs: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as http:
        return await http.post(url, json=body, headers=hdrs)


def rejected(r: httpx.Response, rid: Any) -> None:
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"]["code"] == -32020 and body["id"] == rid


def accepted(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    body = r.json()
    assert "error" not in body and body["result"]["resultType"] == "complete"
    return body["result"]


async def test_http_header_validation(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s:
        tools_list = request(1, "tools/list")
        # Mcp-Method mismatching the body
        rejected(await post(s.url, tools_list, headers("prompts/list")), 1)
        # missing Mcp-Method
        rejected(await post(s.url, tools_list, headers(None)), 1)
        # values are case-sensitive
        rejected(await post(s.url, tools_list, headers("TOOLS/LIST")), 1)
        # wrong Mcp-Name on tools/call, and none at all
        rejected(await post(s.url, call(2, "echo"), headers("tools/call", "wrong_tool_name")), 2)
        rejected(await post(s.url, call(3, "echo"), headers("tools/call")), 3)
        # Mcp-Name on prompts/get and resources/read mirrors name and uri
        prompt = request(4, "prompts/get", {"name": "hello"})
        rejected(await post(s.url, prompt, headers("prompts/get", "other")), 4)
        accepted(await post(s.url, prompt, headers("prompts/get", "hello")))
        read = request(5, "resources/read", {"uri": "test://one"})
        rejected(await post(s.url, read, headers("resources/read", "test://two")), 5)
        result = accepted(await post(s.url, read, headers("resources/read", "test://one")))
        assert result["contents"][0]["text"] == "one"
        # surrounding whitespace of a value is not part of it
        spaced = [*headers("tools/call").items(), ("Mcp-Name", "  echo\t ")]
        status, payload = await raw_post(s.url, call(6, "echo"), spaced)
        assert status == 200, payload
        assert orjson.loads(payload)["result"]["content"][0]["text"] == "hi"
        # header names are case-insensitive
        for name in ("mcp-method", "MCP-METHOD", "Mcp-Method"):
            h = headers(None)
            h[name] = "tools/list"
            accepted(await post(s.url, tools_list, h))
        # a base64-encoded Mcp-Name is decoded
        r = await post(s.url, call(7, "echo"), headers("tools/call", "=?base64?ZWNobw==?="))
        accepted(r)
        # an Mcp-Method repeated with another value no longer equals the body's
        async with httpx.AsyncClient(timeout=10) as http:
            raw = [(k, v) for k, v in headers("tools/list").items()] + [("mcp-method", "x")]
            r = await http.post(s.url, json=tools_list, headers=raw)
        rejected(r, 1)


def regional(rid: int, **arguments: Any) -> Any:
    return call(rid, "regional", arguments)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("=?base64?SGVsbG8=?=", True),  # base64 of Hello
        ("=?base64?SGVsbG8?=", False),  # bad padding
        ("=?base64?SGVs!!!bG8=?=", False),  # bad characters
        ("Hello", True),  # literal
        ("=?base64?SGVsbG8=", False),  # no suffix: literal, and not Hello
        ("SGVsbG8=?=", False),  # no prefix: literal
        ("hello", False),  # values are case-sensitive
    ],
)
async def test_custom_header_server_validation(
    wire: Callable[..., WireChecker], value: str, ok: bool
) -> None:
    async with serve(wire) as s:
        r = await post(
            s.url,
            regional(1, region="Hello"),
            headers("tools/call", "regional", **{"Mcp-Param-Region": value}),
        )
        if ok:
            assert accepted(r)["content"][0]["text"] == "Hello:1"
        else:
            rejected(r, 1)


async def test_custom_header_presence_rules(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire) as s:
        # the body has the value, the header is missing
        rejected(await post(s.url, regional(1, region="eu"), headers("tools/call", "regional")), 1)
        # integer parameters compare numerically, header names case-insensitively
        r = await post(
            s.url,
            regional(2, region="eu", count=42),
            headers(
                "tools/call", "regional", **{"mcp-param-region": "eu", "MCP-PARAM-COUNT": "42.0"}
            ),
        )
        assert accepted(r)["content"][0]["text"] == "eu:42"
        r = await post(
            s.url,
            regional(3, region="eu", count=42),
            headers(
                "tools/call", "regional", **{"Mcp-Param-Region": "eu", "Mcp-Param-Count": "41"}
            ),
        )
        rejected(r, 3)
        # a null argument: no header expected (and one sent is a mismatch)
        r = await post(
            s.url,
            regional(4, region="eu", count=None),
            headers("tools/call", "regional", **{"Mcp-Param-Region": "eu"}),
        )
        assert r.status_code != 400 or r.json()["error"]["code"] != -32020
        r = await post(
            s.url,
            regional(5, region="eu"),
            headers("tools/call", "regional", **{"Mcp-Param-Region": "eu", "Mcp-Param-Count": "1"}),
        )
        rejected(r, 5)
        # control characters in a header value
        r = await post(
            s.url,
            regional(6, region="eu"),
            headers("tools/call", "regional", **{"Mcp-Param-Region": "e\x01u"}),
        )
        assert r.status_code == 400
