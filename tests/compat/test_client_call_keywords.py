"""The official client 2.x's per-call keywords on mcpkit's compat client, against one
mcp 2.x server over Streamable HTTP that records each request's method, its ``acme/``
``_meta`` entries and its params' keys, on both eras: ``meta=`` of ``list_tools``,
``list_resources``, ``list_resource_templates``, ``list_prompts``, ``read_resource``,
``get_prompt``, ``call_tool`` and ``send_ping`` sent as the request's ``_meta`` (they were
accepted and dropped); ``call_tool(read_timeout_seconds=...)`` ending the call when it
passes; an error answer and a timeout raised as ``mcp.shared.exceptions.MCPError``
(``except MCPError`` catches them, as on the SDK); an unknown keyword a ``TypeError``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compat.recorded import run_both

SERVER = """\
import json, sys

import anyio
import uvicorn

from mcp.server.mcpserver import MCPServer

LOG = sys.argv[1]
mcp = MCPServer("Meta")


@mcp.tool()
async def slow(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "done"


@mcp.resource("note://first")
def first() -> str:
    return "first"


@mcp.prompt()
def hello(who: str) -> str:
    return "hello " + who


app = mcp.streamable_http_app()


async def recording(scope, receive, send):
    if scope["type"] != "http" or scope["method"] != "POST":
        return await app(scope, receive, send)
    chunks = []
    more = True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    frame = json.loads(body)
    if "method" in frame:
        meta = (frame.get("params") or {}).get("_meta") or {}
        mine = {k: v for k, v in meta.items() if k.startswith("acme/")}
        with open(LOG, "a") as log:
            keys = sorted((frame.get("params") or {}).keys())
            log.write(json.dumps([frame["method"], mine, keys]) + "\\n")
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    await app(scope, replay, send)


uvicorn.run(recording, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

CLIENT = """\
import sys

import anyio

from mcp import Client
from mcp.shared.exceptions import MCPError


async def main() -> None:
    url, mode = sys.argv[1:3]
    async with Client(url, mode=mode) as client:

        def m(name: str) -> dict[str, str]:
            return {"acme/trace": name}

        await client.list_tools(meta=m("tools"))
        await client.list_resources(meta=m("resources"))
        await client.list_resource_templates(meta=m("templates"))
        await client.list_prompts(meta=m("prompts"))
        print((await client.read_resource("note://first", meta=m("read"))).contents[0].text)
        prompt = await client.get_prompt("hello", {"who": "you"}, meta=m("get"))
        print(prompt.messages[0].content.text)
        print((await client.call_tool("slow", {"seconds": 0}, meta=m("call"))).content[0].text)
        try:
            await client.call_tool("slow", {"seconds": 5}, read_timeout_seconds=0.5)
            print("no timeout")
        except MCPError as exc:
            print("timed out:", exc.error.code)
        try:
            await client.session.call_tool(
                "slow", {"seconds": 5}, read_timeout_seconds=0.5, allow_input_required=True
            )
            print("no timeout")
        except MCPError as exc:
            print("round timed out:", exc.error.code)
        try:
            await client.read_resource("note://nothing")
        except MCPError as exc:
            print("refused:", exc.error.code, exc.error.message)
        if mode == "legacy":
            await client.send_ping(meta=m("ping"))
        try:
            await client.list_tools(nonsense=1)
        except TypeError:
            print("unknown keyword refused")


anyio.run(main)
"""

#: What each client sends on its own (to connect, to cancel what timed out).
_OWN = ("initialize", "notifications/initialized", "server/discover", "notifications/cancelled")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_call_keywords_as_the_sdk(mode: str, tmp_path: Path) -> None:
    seen = {
        side: (out.splitlines(), [s for s in sent if s[0] not in _OWN])
        for side, (out, sent) in run_both(tmp_path, SERVER, CLIENT, mode).items()
    }
    assert seen["ours"] == seen["theirs"]
    out, sent = seen["theirs"]
    assert out[:5] == [
        "first",
        "hello you",
        "done",
        "timed out: -32001",
        "round timed out: -32001",
    ]
    assert out[-1] == "unknown keyword refused"
    traced = [s[1].get("acme/trace") for s in sent]
    assert traced[:7] == ["tools", "resources", "templates", "prompts", "read", "get", "call"]
