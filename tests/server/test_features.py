"""Resources, prompts, completion, logging and pagination through a real ClientSession; list
changes, initialize metadata, low-level notification handlers, annotations and icons."""

from __future__ import annotations

import asyncio
import base64
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

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


# -- list changes, initialize metadata, low-level notifications --------------------------------


async def test_resources_and_prompts_list_changed(wire: Any) -> None:
    app = Server("changes")

    @app.resource("mem://a")
    def a() -> str:
        return "a"

    @app.prompt()
    def p() -> str:
        return "p"

    async with connected(app, wire) as (client, _):
        caps = client.server_capabilities
        assert caps["resources"]["listChanged"] is True and caps["prompts"]["listChanged"] is True
        got: list[str] = []
        arrived = asyncio.Event()

        def seen(kind: str) -> Any:
            return lambda params: (got.append(kind), arrived.set())

        client.set_notification_handler("notifications/resources/list_changed", seen("res"))
        client.set_notification_handler("notifications/prompts/list_changed", seen("prompt"))

        async def expect(kind: str) -> None:
            await asyncio.wait_for(arrived.wait(), 5)
            arrived.clear()
            assert got.pop() == kind

        app.resource("mem://b")(lambda: "b")
        await expect("res")
        listed = await client.request("resources/list")
        assert [r["uri"] for r in listed["resources"]] == ["mem://a", "mem://b"]
        app.resource("mem://t/{x}")(lambda x: x)
        await expect("res")
        templates = await client.request("resources/templates/list")
        assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["mem://t/{x}"]
        app.remove_resource("mem://b")
        await expect("res")
        app.prompt(name="q")(lambda: "q")
        await expect("prompt")
        listed = await client.request("prompts/list")
        assert [p["name"] for p in listed["prompts"]] == ["p", "q"]
        app.remove_prompt("q")
        await expect("prompt")
        assert [p["name"] for p in (await client.request("prompts/list"))["prompts"]] == ["p"]


async def test_initialize_carries_the_server_metadata(wire: Any) -> None:
    app = Server(
        "meta-server",
        version="4.5.6",
        title="Meta Server",
        instructions="Use the tools wisely.",
        icons=[
            {"src": "https://example.com/icon.png", "mime_type": "image/png", "sizes": ["48x48"]}
        ],
        website_url="https://example.com",
    )
    async with connected(app, wire) as (client, _):
        init = client.initialize_result
        assert init["serverInfo"] == {
            "name": "meta-server",
            "version": "4.5.6",
            "title": "Meta Server",
            "icons": [
                {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}
            ],
            "websiteUrl": "https://example.com",
        }
        assert init["instructions"] == "Use the tools wisely."


async def test_low_level_notification_handler(wire: Any) -> None:
    app = Server("low")
    got: list[Any] = []
    done = asyncio.Event()

    @app.notification_handler("notifications/roots/list_changed")
    async def roots_changed(params: Any) -> None:
        got.append(params)
        done.set()

    async with connected(app, wire, capabilities={"roots": {"listChanged": True}}) as (client, _):
        await client.notify("notifications/roots/list_changed")
        await asyncio.wait_for(done.wait(), 5)
        assert got == [None] or got == [{}]


# -- prompts, annotations, icons ---------------------------------------------------------------


async def test_prompt_argument_titles_and_descriptions(wire: Any) -> None:
    app = Server("prompt-args")

    @app.prompt(description="Summarize a text.", icons=[{"src": "https://example.com/p.png"}])
    def summarize(
        text: Annotated[str, Field(description="The text to summarize")],
        style: Annotated[str, Field(title="Writing style", description="e.g. terse")] = "terse",
    ) -> str:
        return f"{style}: {text}"

    async with connected(app, wire) as (client, _):
        (prompt,) = (await client.request("prompts/list"))["prompts"]
        assert prompt["description"] == "Summarize a text."
        assert prompt["icons"] == [{"src": "https://example.com/p.png"}]
        assert prompt["arguments"] == [
            {"name": "text", "description": "The text to summarize", "required": True},
            {
                "name": "style",
                "title": "Writing style",
                "description": "e.g. terse",
                "required": False,
            },
        ]
        r = await client.request("prompts/get", {"name": "summarize", "arguments": {"text": "t"}})
        assert r["description"] == "Summarize a text."
        assert r["messages"][0]["content"]["text"] == "terse: t"


async def test_content_and_resource_annotations_and_icons(wire: Any) -> None:
    app = Server("annotated")
    stamp = "2025-05-03T14:30:00Z"
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8

    @app.tool()
    def annotated() -> list[Any]:
        return [
            {
                "type": "text",
                "text": "for the user",
                "annotations": {"audience": ["user"], "priority": 1, "lastModified": stamp},
            },
            Image(data=png, annotations={"audience": ["assistant"], "last_modified": stamp}),
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///m.rs",
                    "mimeType": "text/x-rust",
                    "text": "fn main(){}",
                },
                "annotations": {"audience": ["user", "assistant"], "priority": 0.7},
            },
            {
                "type": "resource_link",
                "uri": "file:///m.rs",
                "name": "m.rs",
                "annotations": {"lastModified": stamp},
            },
        ]

    @app.resource(
        "file:///m.rs",
        mime_type="text/x-rust",
        icons=[{"src": "https://example.com/rs.png", "sizes": ["16x16"]}],
        annotations={"audience": ["user"], "priority": 0.2, "last_modified": stamp},
    )
    def main_rs() -> str:
        return "fn main(){}"

    @app.resource("file:///src/{name}", icons=[{"src": "https://example.com/dir.png"}])
    def source(name: str) -> str:
        return name

    async with connected(app, wire) as (client, _):
        content = (await call(client, "annotated"))["content"]
        assert content[0]["annotations"]["lastModified"] == stamp
        assert content[1]["annotations"] == {"audience": ["assistant"], "lastModified": stamp}
        assert content[2]["annotations"]["priority"] == 0.7
        assert content[3]["annotations"] == {"lastModified": stamp}
        (resource,) = (await client.request("resources/list"))["resources"]
        assert resource["icons"] == [{"src": "https://example.com/rs.png", "sizes": ["16x16"]}]
        assert resource["annotations"] == {
            "audience": ["user"],
            "priority": 0.2,
            "lastModified": stamp,
        }
        (template,) = (await client.request("resources/templates/list"))["resourceTemplates"]
        assert template["icons"] == [{"src": "https://example.com/dir.png"}]


# -- logging helpers, cancellation of sync tools -----------------------------------------------

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


async def test_every_log_helper_respects_the_level(wire: Any) -> None:
    app = Server("levels")

    @app.tool()
    async def shout(ctx: Context) -> str:
        for level in LEVELS:
            await getattr(ctx, level)(f"at {level}", logger="lg")
        return "done"

    async with connected(app, wire) as (client, _):
        got: list[Any] = []
        client.set_notification_handler("notifications/message", got.append)
        await call(client, "shout")
        assert [m["level"] for m in got] == list(LEVELS)
        assert got[-1] == {"level": "emergency", "logger": "lg", "data": "at emergency"}
        for threshold in ("notice", "emergency"):
            got.clear()
            await client.request("logging/setLevel", {"level": threshold})
            await call(client, "shout")
            assert [m["level"] for m in got] == list(LEVELS[LEVELS.index(threshold) :])
