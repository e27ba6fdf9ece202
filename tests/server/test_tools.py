"""Tools through a real ClientSession: schemas, validation, results, errors, list changes,
cancellation of sync tools, name warnings."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import warnings
from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from mcpkit import Audio, Context, Image, McpError, Server
from mcpkit.json_schema import UnsupportedDialectError
from tests.server.helpers import call, connected, text

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


class Color(Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    w: int
    h: int


class Movie(TypedDict):
    title: str
    year: int


def make_app() -> Server:
    app = Server("tools-test", version="2.0.0")

    @app.tool(
        title="Kitchen sink",
        annotations={"read_only_hint": True, "idempotentHint": True},
        icons=[{"src": "https://example.com/i.png", "mimeType": "image/png"}],
        meta={"example.com/x": 1},
        task_support="forbidden",
    )
    def sink(
        name: Annotated[str, Field(description="Who", max_length=10)],
        mode: Literal["a", "b"] = "a",
        color: Color = Color.RED,
        point: Point | None = None,
        count: int = 1,
    ) -> str:
        """A tool with many kinds of parameters."""
        return f"{name}:{mode}:{color.value}:{point.x if point else '-'}:{count}"

    @app.tool()
    def noargs() -> str:
        return "ok"

    @app.tool()
    async def model_out(x: int) -> Point:
        return Point(x=x, y=2 * x)

    @app.tool()
    def dc_out() -> Box:
        return Box(1, 2)

    @app.tool()
    def td_out() -> Movie:
        return {"title": "Alien", "year": 1979}

    @app.tool()
    def dict_out() -> dict[str, int]:
        return {"a": 1}

    @app.tool()
    def list_out() -> list[int]:
        return [1, 2]

    @app.tool()
    def bad_out() -> Point:
        return {"x": "not an int"}  # type: ignore[return-value]

    @app.tool()
    def images() -> list[Any]:
        return [
            "caption",
            Image(data=PNG, annotations={"audience": ["user"], "priority": 0.5}),
            Audio(data=b"RIFF\x00\x00\x00\x00WAVEfmt "),
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
            {
                "type": "resource",
                "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "b"},
            },
        ]

    @app.tool()
    def raw_bytes() -> bytes:
        return PNG

    @app.tool()
    def boom() -> str:
        raise ValueError("secret detail")

    @app.tool(
        input_schema={
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 0}},
            "required": ["n"],
        }
    )
    def handwritten(n: int) -> str:
        return str(n * 2)

    @app.tool()
    def where() -> str:
        return threading.current_thread().name

    return app


async def test_list_tools_schemas(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        result = await client.request("tools/list", {})
        tools = {t["name"]: t for t in result["tools"]}
        assert "nextCursor" not in result
        sink = tools["sink"]
        assert sink["title"] == "Kitchen sink"
        assert sink["description"] == "A tool with many kinds of parameters."
        assert sink["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
        assert sink["icons"][0]["src"] == "https://example.com/i.png"
        assert sink["_meta"] == {"example.com/x": 1}
        assert sink["execution"] == {"taskSupport": "forbidden"}
        schema = sink["inputSchema"]
        assert schema["type"] == "object" and schema["required"] == ["name"]
        props = schema["properties"]
        assert props["name"]["description"] == "Who" and props["name"]["maxLength"] == 10
        assert props["mode"]["enum"] == ["a", "b"] and props["mode"]["default"] == "a"
        # the nested model is inlined (no $ref/$defs for clients to follow)
        assert props["point"]["anyOf"][0]["properties"]["x"]["type"] == "integer"
        assert "$defs" not in schema
        assert tools["noargs"]["inputSchema"] == {"type": "object", "additionalProperties": False}
        assert tools["model_out"]["outputSchema"]["properties"]["y"]["type"] == "integer"
        assert tools["dc_out"]["outputSchema"]["type"] == "object"
        assert tools["td_out"]["outputSchema"]["required"] == ["title", "year"]
        assert tools["list_out"]["outputSchema"]["properties"]["result"]["type"] == "array"
        assert "outputSchema" not in tools["sink"]  # str -> plain text
        assert tools["handwritten"]["inputSchema"]["$schema"].startswith("http://json-schema")


async def test_call_validates_and_converts(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        r = await call(
            client, "sink", {"name": "bo", "mode": "b", "color": "blue", "point": {"x": 3, "y": 4}}
        )
        assert text(r) == "bo:b:blue:3:1" and "isError" not in r
        r = await call(client, "noargs")
        assert text(r) == "ok"
        r = await call(client, "model_out", {"x": 2})
        assert r["structuredContent"] == {"x": 2, "y": 4}
        assert text(r) == '{"x":2,"y":4}'
        assert (await call(client, "dc_out"))["structuredContent"] == {"w": 1, "h": 2}
        assert (await call(client, "td_out"))["structuredContent"]["year"] == 1979
        assert (await call(client, "dict_out"))["structuredContent"] == {"a": 1}
        assert (await call(client, "list_out"))["structuredContent"] == {"result": [1, 2]}
        r = await call(client, "handwritten", {"n": 4})
        assert text(r) == "8"


async def test_content_blocks(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        r = await call(client, "images")
        types = [c["type"] for c in r["content"]]
        assert types == ["text", "image", "audio", "resource_link", "resource"]
        assert r["content"][1]["mimeType"] == "image/png"
        assert r["content"][1]["annotations"] == {"audience": ["user"], "priority": 0.5}
        assert r["content"][2]["mimeType"] == "audio/wav"
        r = await call(client, "raw_bytes")
        assert r["content"][0]["type"] == "image"


async def test_invalid_arguments_are_tool_errors(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        for args, field in [
            ({}, "name"),
            ({"name": 5}, "name"),
            ({"name": "x" * 11}, "name"),
            ({"name": "x", "mode": "c"}, "mode"),
            ({"name": "x", "point": {"x": "no"}}, "point.x"),
            ({"name": "x", "extra": 1}, "extra"),
        ]:
            r = await call(client, "sink", args)
            assert r["isError"] is True, args
            assert f"'{field}'" in text(r), (args, text(r))
        r = await call(client, "handwritten", {"n": -1})
        assert r["isError"] is True and "'n'" in text(r)
        r = await call(client, "noargs", {"x": 1})
        assert r["isError"] is True and "'x'" in text(r)


async def test_invalid_arguments_older_version_is_protocol_error(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire, version="2025-06-18") as (client, _):
        with pytest.raises(McpError) as info:
            await call(client, "sink", {})
        assert info.value.code == -32602 and "'name'" in info.value.message


async def test_unknown_tool_and_raising_tool(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        with pytest.raises(McpError) as info:
            await call(client, "nope")
        assert info.value.code == -32602
        r = await call(client, "boom")
        assert r["isError"] is True
        assert "secret detail" not in text(r) and "Traceback" not in text(r)
        assert text(r).startswith("Error executing tool 'boom' (error id ")
        r = await call(client, "bad_out")
        assert r["isError"] is True and "outputSchema" in text(r)


async def test_debug_shows_traceback(wire: Any) -> None:
    app = make_app()
    app.debug = True
    async with connected(app, wire) as (client, _):
        assert "Traceback" in text(await call(client, "boom"))


async def test_sync_tools_run_in_threads(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        assert text(await call(client, "where")).startswith("mcpkit-tool")


async def test_sync_tool_does_not_block_loop(wire: Any) -> None:
    app = Server("blocking")
    release = threading.Event()

    @app.tool()
    def wait() -> str:
        release.wait(5)
        return "released"

    @app.tool()
    def free() -> str:
        release.set()
        return "free"

    async with connected(app, wire) as (client, _):
        slow = asyncio.ensure_future(call(client, "wait"))
        assert text(await call(client, "free")) == "free"
        assert text(await slow) == "released"


def test_registration_rules() -> None:
    app = Server("rules")

    @app.tool()
    def ok() -> None: ...

    with pytest.raises(ValueError, match="already registered"):
        app.tool(name="ok")(lambda: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app.tool(name="bad name/with slash")(lambda: None)
        app.tool(name="x" * 129)(lambda: None)
    assert len(caught) == 2 and "naming rules" in str(caught[0].message)
    with pytest.raises(UnsupportedDialectError):
        app.tool(
            name="weird",
            input_schema={"$schema": "http://example.com/my-dialect", "type": "object"},
        )(lambda: None)


async def test_list_changed_after_start(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        caps = client.server_capabilities
        assert caps["tools"] == {"listChanged": True}
        seen = asyncio.Event()
        client.set_notification_handler("notifications/tools/list_changed", lambda p: seen.set())

        @app.tool()
        def late() -> str:
            return "late"

        await asyncio.wait_for(seen.wait(), 5)
        names = [t["name"] for t in (await client.request("tools/list", {}))["tools"]]
        assert "late" in names
        seen.clear()
        app.remove_tool("late")
        await asyncio.wait_for(seen.wait(), 5)
        names = [t["name"] for t in (await client.request("tools/list", {}))["tools"]]
        assert "late" not in names


async def test_progress_and_context_by_type(wire: Any) -> None:
    app = Server("ctx")

    @app.tool()
    async def work(steps: int, whatever_name: Context) -> str:
        for i in range(steps):
            await whatever_name.progress(i + 1, steps, f"step {i + 1}")
        return f"{whatever_name.request_id}"

    got: list[tuple[float, float | None, str | None]] = []
    async with connected(app, wire) as (client, _):
        r = await call(
            client, "work", {"steps": 3}, on_progress=lambda p, t, m: got.append((p, t, m))
        )
        assert "isError" not in r
        tools = (await client.request("tools/list", {}))["tools"]
        assert "whatever_name" not in tools[0]["inputSchema"]["properties"]
    assert got == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_a_sync_tool_sees_its_cancellation(wire: Any) -> None:
    app = Server("sync-cancel")
    started = threading.Event()
    noticed = threading.Event()

    @app.tool()
    def poll(ctx: Context) -> str:
        started.set()
        for _ in range(500):
            if ctx.cancelled:
                noticed.set()
                return "stopped"
            threading.Event().wait(0.01)
        return "never cancelled"

    async with connected(app, wire) as (client, _):
        request = asyncio.ensure_future(call(client, "poll"))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        request.cancel()  # sends notifications/cancelled
        assert await asyncio.get_running_loop().run_in_executor(None, noticed.wait, 5)
        await client.ping()


def test_a_tool_name_with_a_trailing_newline_warns() -> None:
    import warnings

    app = Server("names")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app.tool(name="ok.name-1_")(lambda: None)
        app.tool(name="trailing\n")(lambda: None)
    assert len(caught) == 1 and "'trailing\\n'" in str(caught[0].message)
