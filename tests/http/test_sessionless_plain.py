"""A stateless ``tools/call`` of an ``async def`` tool that takes no Context is answered in
one frame, with no request context made (``AppSession.respond_plain``), and answers
exactly as the full path does: the same results, tool errors, refused arguments, masked
errors and protocol errors, on the 2025 stateless wire (of each revision) and on
2026-07-28. The full path is the same server with a pass-through middleware (which takes
every call off the quick paths)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Server
from mcpkit.errors import McpError
from mcpkit.server.errors import ToolError
from mcpkit.server.session import AppSession
from tests.http import modern

Middleware = Any


async def passthrough(ctx: Any, call_next: Any) -> Any:
    return await call_next(ctx)


def make_server(*, mask_errors: bool = False, middleware: list[Middleware] | None = None) -> Server:
    server = Server("plain", version="1.0", mask_errors=mask_errors, middleware=middleware or [])

    @server.tool()
    async def echo(text: str) -> str:
        return text

    @server.tool()
    async def count(n: int) -> dict[str, int]:
        return {"n": n, "twice": 2 * n}

    @server.tool()
    async def broken(text: str) -> str:
        raise ValueError(f"no {text}")

    @server.tool()
    async def refuses(text: str) -> str:
        raise ToolError(f"refused {text}")

    @server.tool()
    async def protocol_error(text: str) -> str:
        raise McpError(-32042, f"custom {text}", {"why": text})

    @server.tool()
    async def nothing() -> None:
        return None

    @server.tool(structured_output=True)
    async def shout(text: str) -> str:
        """Text with an output schema: structured, not one text block."""
        return text.upper()

    @server.tool()
    async def suspends(text: str) -> str:
        import asyncio

        await asyncio.sleep(0)
        return text

    return server


#: (tool, arguments): results, a structured result, errors of every kind, refused arguments.
CALLS: list[tuple[str, Any]] = [
    ("echo", {"text": "hi"}),
    ("count", {"n": 21}),
    ("broken", {"text": "luck"}),
    ("refuses", {"text": "that"}),
    ("protocol_error", {"text": "x"}),
    ("nothing", {}),
    ("shout", {"text": "hey"}),
    ("suspends", {"text": "later"}),
    ("echo", {}),  # a required argument missing
    ("echo", {"text": 3}),  # the wrong type
    ("count", {"n": "many"}),
    ("echo", None),
]

LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"]


@pytest.fixture
def plain_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tools respond_plain answered (a spy)."""
    seen: list[str] = []
    original = AppSession.respond_plain

    def spy(self: AppSession, rid: Any, params: Any, entry: Any, envelope: Any) -> Any:
        seen.append(params.get("name"))
        return original(self, rid, params, entry, envelope)

    monkeypatch.setattr(AppSession, "respond_plain", spy)
    return seen


def _normal(answer: Any) -> Any:
    """An answer with the error id of a masked error made constant (a fresh one per error)."""
    text = orjson.dumps(answer).decode()
    return orjson.loads(re.sub(r"error id [0-9a-f]+", "error id ID", text))


async def _answers(server: Server, requests: list[tuple[dict[str, str], Any]]) -> list[Any]:
    app = server.http_app(stateless=True, json_response=True)
    out = []
    async with app.lifespan():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            for headers, message in requests:
                response = await http.post("/mcp", content=orjson.dumps(message), headers=headers)
                out.append((response.status_code, _normal(response.json())))
    return out


def _legacy(version: str) -> list[tuple[dict[str, str], Any]]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": version,
    }
    return [
        (
            headers,
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": name}
                if arguments is None
                else {"name": name, "arguments": arguments},
            },
        )
        for i, (name, arguments) in enumerate(CALLS)
    ]


def _modern() -> list[tuple[dict[str, str], Any]]:
    out = []
    for i, (name, arguments) in enumerate(CALLS):
        message = modern.call(i, name, arguments)
        if arguments is None:
            del message["params"]["arguments"]
        out.append((modern.headers("tools/call", name), message))
    return out


@pytest.mark.parametrize("mask_errors", [False, True])
@pytest.mark.parametrize("wire", [*LEGACY_VERSIONS, modern.V])
async def test_answers_as_the_full_path_does(
    wire: str, mask_errors: bool, plain_calls: list[str]
) -> None:
    requests = _modern() if wire == modern.V else _legacy(wire)
    full = await _answers(make_server(mask_errors=mask_errors, middleware=[passthrough]), requests)
    assert plain_calls == []  # (the middleware keeps every call off the quick paths)
    quick = await _answers(make_server(mask_errors=mask_errors), requests)
    assert quick == full
    # Every async def tool that cannot suspend was answered in one frame; the one that
    # suspends was not (it is served by a session copy).
    assert sorted(set(plain_calls)) == [
        "broken",
        "count",
        "echo",
        "nothing",
        "protocol_error",
        "refuses",
        "shout",
    ]
    # What the answers are, so that the comparison is not of two empty lists.
    assert quick[0][1]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert quick[1][1]["result"]["structuredContent"] == {"n": 21, "twice": 42}
    assert quick[4][1]["error"]["code"] == -32042
    assert quick[6][1]["result"]["structuredContent"] == {"result": "HEY"}
    broken = quick[2][1]["result"]
    assert broken["isError"] is True
    assert ("error id ID" in broken["content"][0]["text"]) is mask_errors
