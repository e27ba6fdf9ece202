"""Component control: tags on tools, resources, templates and prompts, the server's tag
filter, and enabling/disabling at run time with list-changed notifications, in both eras,
in memory and over HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from tests.ways import connect


def make_server(**options: Any) -> Server:
    app = Server("ops", **options)

    @app.tool(tags={"public"})
    def status() -> str:
        return "green"

    @app.tool(tags={"admin"})
    def drop_table(name: str) -> str:
        return f"dropped {name}"

    @app.tool
    def untagged() -> str:
        return "plain"

    @app.resource("config://public", tags={"public"})
    def public_config() -> str:
        return "public"

    @app.resource("config://secret", tags={"admin"})
    def secret_config() -> str:
        return "secret"

    @app.resource("users://{uid}/profile", tags=["admin"])
    def profile(uid: str) -> str:
        return f"user {uid}"

    @app.prompt(tags="admin")
    def audit() -> str:
        return "Audit everything."

    @app.prompt(tags={"public"})
    def greet() -> str:
        return "Hello."

    return app


async def names(client: Client) -> tuple[list[str], list[str], list[str], list[str]]:
    return (
        sorted(t.name for t in await client.list_tools(cache="refresh")),
        sorted(r.uri for r in await client.list_resources(cache="refresh")),
        sorted(t.uri_template for t in await client.list_resource_templates(cache="refresh")),
        sorted(p.name for p in await client.list_prompts(cache="refresh")),
    )


async def test_the_tag_filter(era: str, wire: Any) -> None:
    excluded = make_server(exclude_tags={"admin"})
    async with connect(excluded, era, "memory", wire) as client:
        assert await names(client) == (
            ["status", "untagged"],
            ["config://public"],
            [],
            ["greet"],
        )
        # Hidden components cannot be reached by name either.
        with pytest.raises(McpError, match="Unknown tool: drop_table") as caught:
            await client.call_tool("drop_table", {"name": "users"})
        assert caught.value.code == -32602
        with pytest.raises(McpError) as caught:
            await client.read_resource("config://secret")
        assert caught.value.code == (-32002 if era == "legacy" else -32602)
        with pytest.raises(McpError):
            await client.read_resource("users://7/profile")
        with pytest.raises(McpError):
            await client.get_prompt("audit")

    included = make_server(include_tags={"public"})
    async with connect(included, era, "memory", wire) as client:
        assert await names(client) == (["status"], ["config://public"], [], ["greet"])

    both = make_server(include_tags={"public", "admin"}, exclude_tags={"admin"})
    async with connect(both, era, "memory", wire) as client:
        assert (await names(client))[0] == ["status"]


async def test_enable_and_disable_at_run_time_notify_clients(
    era: str, transport: str, wire: Any
) -> None:
    app = make_server(exclude_tags={"admin"})
    async with connect(app, era, transport, wire) as client:
        async with client.listen(tools=True, prompts=True, resource_list=True) as events:

            async def next_method() -> str:
                event = await asyncio.wait_for(anext(events), 10)
                return str(event.method)

            async def hear(*methods: str) -> None:
                # Each of these arrives (one kind may come more than once, or coalesced).
                waiting = {f"notifications/{m}/list_changed" for m in methods}
                while waiting:
                    waiting.discard(await next_method())

            # A round trip first: a 2025 session hears list changes once the server has
            # processed its notifications/initialized (sent without waiting over HTTP).
            assert (await names(client))[0] == ["status", "untagged"]
            app.disable_tool("status")
            assert await next_method() == "notifications/tools/list_changed"
            assert (await names(client))[0] == ["untagged"]
            with pytest.raises(McpError, match="Unknown tool: status"):
                await client.call_tool("status")

            app.enable_tool("status")
            assert await next_method() == "notifications/tools/list_changed"
            assert (await client.call_tool("status")).content[0].text == "green"  # type: ignore[union-attr]

            # The filter changes: every admin component is served again.
            app.enable(tags={"admin"})
            await hear("tools", "resources", "prompts")
            assert await names(client) == (
                ["drop_table", "status", "untagged"],
                ["config://public", "config://secret"],
                ["users://{uid}/profile"],
                ["audit", "greet"],
            )
            assert (await client.read_resource("users://7/profile")).contents[0].text == "user 7"  # type: ignore[union-attr]

            app.disable_resource("users://{uid}/profile")
            app.disable_prompt("greet")
            app.disable_resource("config://public")
            await hear("resources", "prompts")
            _tools, resources, templates, prompts = await names(client)
            assert (resources, templates, prompts) == (["config://secret"], [], ["audit"])

            # Disabling a whole tag hides what it covers.
            app.disable(tags="admin")
            assert (await names(client))[0] == ["status", "untagged"]


def test_registering_under_a_filter_and_removing_hidden_components() -> None:
    app = make_server(exclude_tags={"admin"})

    @app.tool(tags={"admin", "later"})
    def rotate_keys() -> str:
        return "rotated"

    assert "rotate_keys" not in app.tools.tools
    app.enable(tags="admin")
    assert "rotate_keys" in app.tools.tools
    app.disable_tool("rotate_keys")
    app.remove_tool("rotate_keys")  # hidden, and now gone for good
    app.enable_tool("status")
    with pytest.raises(KeyError):
        app.enable_tool("rotate_keys")
    app.disable_resource("config://public")
    app.remove_resource("config://public")
    app.disable_prompt("greet")
    app.remove_prompt("greet")
    app.remove_tool("status")  # served: removed from the registry as before
    assert "status" not in app.tools.tools
    with pytest.raises(KeyError):
        app.disable_tool("nothing")
    # A disabled component stays hidden when its tags are enabled.
    app.disable_tool("drop_table")
    app.enable(tags="admin")
    assert "drop_table" not in app.tools.tools
    # What is only hidden is still declared.
    app.disable_tool("untagged")
    assert "tools" in app.capabilities()


async def test_an_enabled_component_returns_to_its_registration_place() -> None:
    app = make_server()
    app.disable_tool("status")
    app.disable_tool("drop_table")

    @app.tool
    def later() -> str:
        return "later"

    app.enable_tool("status")
    async with Client(app) as client:
        assert [t.name for t in await client.list_tools()] == ["status", "untagged", "later"]
        app.enable_tool("drop_table")
        names = [t.name for t in await client.list_tools()]
        assert names == ["status", "drop_table", "untagged", "later"]


def test_nothing_changes_for_a_server_without_tags() -> None:
    app = Server("plain")

    @app.tool()
    def echo(text: str) -> str:
        return text

    @app.resource("file:///x")
    def x() -> str:
        return "x"

    assert app._components is None
    assert app.handler_table()["tools/call"] == app.tools.call_tool
    with pytest.raises(TypeError):
        app.add_tool(lambda: "x", name="bad", tags=[""])
