"""``ResourceNotFound`` raised by a resource function, and a template function's
``FileNotFoundError``, answer the spec's resource-not-found error (-32002, ``data.uri``);
the session goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mcpkit
from mcpkit import McpError, ResourceNotFound, Server
from tests.server.helpers import connected


async def test_resource_not_found_raised_by_functions(wire: Any, tmp_path: Path) -> None:
    assert mcpkit.ResourceNotFound is mcpkit.server.ResourceNotFound
    app = Server("rnf")
    (tmp_path / "here.txt").write_text("present")

    @app.resource("users://{name}")
    def user(name: str) -> str:
        if name != "ada":
            raise ResourceNotFound()
        return "Ada"

    @app.resource("moved://{key}")
    async def moved(key: str) -> str:
        raise ResourceNotFound("moved://elsewhere", "It moved")

    @app.resource("files://{name}")
    def file(name: str) -> str:
        return (tmp_path / name).read_text()

    @app.resource("config://broken")
    def broken() -> str:
        return (tmp_path / "nope.txt").read_text()  # a static resource: a server fault

    async with connected(app, wire) as (client, _):
        read = await client.request("resources/read", {"uri": "users://ada"}, timeout=10)
        assert read["contents"][0]["text"] == "Ada"
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "users://bob"}, timeout=10)
        assert info.value.code == -32002
        assert info.value.data == {"uri": "users://bob"}
        assert "users://bob" in info.value.message
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "moved://x"}, timeout=10)
        assert (info.value.code, info.value.message) == (-32002, "It moved")
        assert info.value.data == {"uri": "moved://elsewhere"}
        read = await client.request("resources/read", {"uri": "files://here.txt"}, timeout=10)
        assert read["contents"][0]["text"] == "present"
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "files://gone.txt"}, timeout=10)
        assert info.value.code == -32002 and info.value.data == {"uri": "files://gone.txt"}
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "config://broken"}, timeout=10)
        assert info.value.code == -32603
        await client.ping()
