"""Resources, prompts, completion, logging and pagination through a real ClientSession."""

from __future__ import annotations

import asyncio
import base64
from typing import Any, Literal

import pytest

from mcpkit import Context, Image, McpError, Server
from mcpkit.server import URITemplate, user
from tests.server.helpers import call, connected, unchecked


def make_app(page_size: int = 100) -> Server:
    app = Server("features", page_size=page_size)

    @app.resource("file:///hello.txt", title="Hello", size=5, annotations={"priority": 1})
    def hello() -> str:
        """Greeting."""
        return "hello"

    @app.resource("file:///blob.bin", mime_type="application/x-thing")
    def blob() -> bytes:
        return b"\x00\x01"

    @app.resource("user://{id}/profile")
    def profile(id: int) -> dict[str, int]:
        return {"id": id}

    @app.resource("search://q{?term,limit}")
    def search(term: str, limit: int = 10) -> str:
        return f"{term}:{limit}"

    @app.prompt(title="Review")
    def review(code: str, language: Literal["python", "rust"] = "python") -> str:
        """Review code."""
        return f"{language}: {code}"

    @app.prompt()
    def rich() -> list[Any]:
        return [
            user(Image(data=b"\x89PNG\r\n\x1a\n")),
            {
                "role": "assistant",
                "content": {
                    "type": "resource",
                    "resource": {"uri": "file:///hello.txt", "text": "hello"},
                },
            },
            "plain",
        ]

    @app.completion(prompt="review", argument="code")
    def complete_code(value: str, arguments: dict[str, str]) -> list[str]:
        return [f"{value}{i}:{arguments.get('language', '')}" for i in range(150)]

    @app.tool()
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning", "error"):
            await ctx.log(level, {"level": level}, logger="chatty")  # type: ignore[arg-type]
        return "done"

    return app


async def test_resources(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        assert client.server_capabilities["resources"] == {"subscribe": True, "listChanged": True}
        listed = (await client.request("resources/list", {}))["resources"]
        assert listed[0] == {
            "uri": "file:///hello.txt",
            "name": "hello",
            "title": "Hello",
            "description": "Greeting.",
            "size": 5,
            "annotations": {"priority": 1},
        }
        templates = (await client.request("resources/templates/list", {}))["resourceTemplates"]
        assert [t["uriTemplate"] for t in templates] == [
            "user://{id}/profile",
            "search://q{?term,limit}",
        ]
        r = await client.request("resources/read", {"uri": "file:///hello.txt"})
        assert r["contents"] == [
            {"uri": "file:///hello.txt", "mimeType": "text/plain", "text": "hello"}
        ]
        r = await client.request("resources/read", {"uri": "file:///blob.bin"})
        assert base64.b64decode(r["contents"][0]["blob"]) == b"\x00\x01"
        assert r["contents"][0]["mimeType"] == "application/x-thing"
        r = await client.request("resources/read", {"uri": "user://7/profile"})
        assert r["contents"][0]["text"] == '{"id":7}'
        r = await client.request("resources/read", {"uri": "search://q?limit=3&term=a%20b"})
        assert r["contents"][0]["text"] == "a b:3"
        for uri in ("file:///nope", "user://abc/profile"):
            with pytest.raises(McpError) as info:
                await client.request("resources/read", {"uri": uri})
            assert info.value.code == -32002 and info.value.data == {"uri": uri}


async def test_subscriptions_only_to_subscribers(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (c1, _), connected(app, wire) as (c2, _):
        got1: list[Any] = []
        got2: list[Any] = []
        done = asyncio.Event()
        c1.set_notification_handler(
            "notifications/resources/updated", lambda p: (got1.append(p), done.set())
        )
        c2.set_notification_handler("notifications/resources/updated", got2.append)
        assert await c1.request("resources/subscribe", {"uri": "file:///hello.txt"}) == {}
        app.notify_resource_updated("file:///hello.txt")
        await asyncio.wait_for(done.wait(), 5)
        await c2.ping()
        assert got1 == [{"uri": "file:///hello.txt"}] and got2 == []
        await c1.request("resources/unsubscribe", {"uri": "file:///hello.txt"})
        app.notify_resource_updated("file:///hello.txt")
        await c1.ping()
        assert len(got1) == 1
        with pytest.raises(McpError) as info:
            await c1.request("resources/subscribe", {"uri": "file:///missing"})
        assert info.value.code == -32002


async def test_prompts(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire, check_server_received=False) as (client, _):
        prompts = (await client.request("prompts/list", {}))["prompts"]
        assert prompts[0] == {
            "name": "review",
            "title": "Review",
            "description": "Review code.",
            "arguments": [
                {"name": "code", "required": True},
                {"name": "language", "required": False},
            ],
        }
        r = await client.request(
            "prompts/get", {"name": "review", "arguments": {"code": "x=1", "language": "rust"}}
        )
        assert r["messages"] == [{"role": "user", "content": {"type": "text", "text": "rust: x=1"}}]
        r = await client.request("prompts/get", {"name": "rich"})
        assert [m["content"]["type"] for m in r["messages"]] == ["image", "resource", "text"]
        assert r["messages"][1]["role"] == "assistant"
        for params in (
            {"name": "nope"},
            {"name": "review"},
            {"name": "review", "arguments": {"code": "x", "language": "cobol"}},
        ):
            with pytest.raises(McpError) as info:
                await client.request("prompts/get", params)
            assert info.value.code == -32602, params
        for params in ({"name": "review", "arguments": {"code": 5}}, {"name": 3}):
            with pytest.raises(McpError) as info:
                await unchecked(client, "prompts/get", params)
            assert info.value.code == -32602, params


async def test_completion(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        assert client.server_capabilities["completions"] == {}
        r = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "review"},
                "argument": {"name": "code", "value": "v"},
                "context": {"arguments": {"language": "rust"}},
            },
        )
        c = r["completion"]
        assert len(c["values"]) == 100 and c["total"] == 150 and c["hasMore"] is True
        assert c["values"][0] == "v0:rust"
        r = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "review"},
                "argument": {"name": "language", "value": "r"},
            },
        )
        assert r["completion"]["values"] == ["rust"]
        r = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "user://{id}/profile"},
                "argument": {"name": "id", "value": ""},
            },
        )
        assert r["completion"] == {"values": [], "total": 0, "hasMore": False}
        with pytest.raises(McpError) as info:
            await client.request(
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "nope"},
                    "argument": {"name": "a", "value": ""},
                },
            )
        assert info.value.code == -32602


async def test_logging_levels(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire, check_server_received=False) as (client, _):
        got: list[Any] = []
        client.set_notification_handler("notifications/message", got.append)
        await call(client, "chatty")
        assert [m["level"] for m in got] == ["debug", "info", "warning", "error"]
        assert got[0] == {"level": "debug", "logger": "chatty", "data": {"level": "debug"}}
        got.clear()
        assert await client.request("logging/setLevel", {"level": "warning"}) == {}
        await call(client, "chatty")
        assert [m["level"] for m in got] == ["warning", "error"]
        with pytest.raises(McpError) as info:
            await unchecked(client, "logging/setLevel", {"level": "loud"})
        assert info.value.code == -32602


async def test_python_logging_bridge(wire: Any) -> None:
    import logging

    app = Server("bridge")
    log = logging.getLogger("bridge-test")
    log.setLevel(logging.INFO)
    handler = app.log_handler()
    log.addHandler(handler)

    @app.tool()
    def noisy() -> str:
        log.warning("from a thread")
        return "ok"

    try:
        async with connected(app, wire) as (client, _):
            done = asyncio.Event()
            got: list[Any] = []
            client.set_notification_handler(
                "notifications/message", lambda p: (got.append(p), done.set())
            )
            await call(client, "noisy")
            await asyncio.wait_for(done.wait(), 5)
            assert got[0] == {"level": "warning", "logger": "bridge-test", "data": "from a thread"}
    finally:
        log.removeHandler(handler)


async def test_pagination(wire: Any) -> None:
    app = Server("pages", page_size=3)
    for i in range(7):
        app.tool(name=f"t{i}")(lambda: "x")
    async with connected(app, wire, check_server_received=False) as (client, _):
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            r = await client.request("tools/list", {"cursor": cursor} if cursor else {})
            names += [t["name"] for t in r["tools"]]
            pages += 1
            cursor = r.get("nextCursor")
            if cursor is None:
                break
        assert names == [f"t{i}" for i in range(7)] and pages == 3
        for bad in ("garbage", "", "eyJvIjotMX0", 5):
            with pytest.raises(McpError) as info:
                await unchecked(client, "tools/list", {"cursor": bad})
            assert info.value.code == -32602


def test_uri_template_rfc6570() -> None:
    env = {"var": "value", "hello": "Hello World!", "path": "/foo/bar", "list": ["red", "green"],
           "keys": {"semi": ";", "dot": "."}, "x": "1024", "y": "768"}  # fmt: skip
    cases = {
        "{var}": "value",
        "{hello}": "Hello%20World%21",
        "{+path}/here": "/foo/bar/here",
        "{#path,x}/here": "#/foo/bar,1024/here",
        "X{.var}": "X.value",
        "{/list*}": "/red/green",
        "{;keys*}": ";semi=%3B;dot=.",
        "{?x,y}": "?x=1024&y=768",
        "{&list*}": "&list=red&list=green",
        "{var:3}": "val",
    }
    for template, expected in cases.items():
        assert URITemplate(template).expand(env) == expected, template
    assert URITemplate("file:///{+path}").match("file:///a/b.txt") == {"path": "a/b.txt"}
    assert URITemplate("x://i{/segs*}").match("x://i/a/b") == {"segs": ["a", "b"]}
    assert URITemplate("x://s{?q,n}").match("x://s?n=2&q=a%20b") == {"q": "a b", "n": "2"}
    assert URITemplate("x://{a}/{b}").match("x://1") is None
    with pytest.raises(ValueError):
        URITemplate("x://{unclosed")
