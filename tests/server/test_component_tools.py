"""Resources and prompts as tools: list_resources / read_resource and list_prompts /
get_prompt answer what the resource and prompt features answer (mounted servers and
disabled components included), in memory and over HTTP, in both eras."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcpkit import Server
from tests.server.middleware.helpers import IDS, WAYS, connect


def library() -> Server[Any]:
    app: Server[Any] = Server("library")

    @app.resource("file:///readme.txt", description="Read me")
    def readme() -> str:
        return "hello"

    @app.resource("file:///secret.txt")
    def secret() -> str:
        return "hidden"

    @app.resource("img://{name}", mime_type="image/png")
    def image(name: str) -> bytes:
        return name.encode()

    @app.prompt()
    def review(code: str, tone: str = "kind") -> str:
        """Review some code."""
        return f"Review this ({tone}): {code}"

    return app


def served() -> Server[Any]:
    app = library()
    app.disable_resource("file:///secret.txt")
    child: Server[Any] = Server("notes")

    @child.resource("note://today")
    def today() -> str:
        return "buy milk"

    @child.prompt()
    def summarize(text: str) -> str:
        return f"Summarize: {text}"

    app.mount(child, prefix="notes")
    app.add_resource_tools()
    app.add_prompt_tools(list_name="prompts", get_name="prompt")
    return app


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_resources_as_tools(transport: str, era: str) -> None:
    app = served()
    async with connect(app, transport, era) as client:
        names = {t.name for t in await client.list_tools()}
        assert {"list_resources", "read_resource", "prompts", "prompt"} <= names
        listed = (await client.call_tool("list_resources", {})).structured_content
        assert listed is not None
        uris = [r["uri"] for r in listed["resources"]]
        assert uris == [r.uri for r in await client.list_resources()]
        assert "file:///readme.txt" in uris and "notes+note://today" in uris
        assert "file:///secret.txt" not in uris
        assert [t["uriTemplate"] for t in listed["resourceTemplates"]] == ["img://{name}"]
        result = await client.call_tool("read_resource", {"uri": "file:///readme.txt"})
        assert not result.is_error and result.content[0].text == "hello"  # type: ignore[union-attr]
        result = await client.call_tool("read_resource", {"uri": "notes+note://today"})
        assert result.content[0].text == "buy milk"  # type: ignore[union-attr]
        result = await client.call_tool("read_resource", {"uri": "img://cat"})
        block = result.content[0]
        assert block.type == "resource"
        assert base64.b64decode(block.resource.blob) == b"cat"  # type: ignore[union-attr]
        assert block.resource.mime_type == "image/png"  # type: ignore[union-attr]
        for missing in ("file:///secret.txt", "file:///nope"):
            result = await client.call_tool("read_resource", {"uri": missing})
            assert result.is_error
            assert "not found" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_prompts_as_tools(transport: str, era: str) -> None:
    app = served()
    async with connect(app, transport, era) as client:
        listed = (await client.call_tool("prompts", {})).structured_content
        assert listed is not None
        assert [p["name"] for p in listed["prompts"]] == ["review", "notes_summarize"]
        assert listed["prompts"][0]["arguments"][0] == {"name": "code", "required": True}
        got = await client.call_tool("prompt", {"name": "review", "arguments": {"code": "x=1"}})
        assert got.structured_content == {
            "description": "Review some code.",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Review this (kind): x=1"}}
            ],
        }
        got = await client.call_tool(
            "prompt", {"name": "notes_summarize", "arguments": {"text": "t"}}
        )
        assert got.structured_content["messages"][0]["content"]["text"] == "Summarize: t"  # type: ignore[index]
        for bad in ({"name": "review"}, {"name": "nope"}):
            got = await client.call_tool("prompt", bad)
            assert got.is_error
            assert "Cannot get prompt" in got.content[0].text  # type: ignore[union-attr]
