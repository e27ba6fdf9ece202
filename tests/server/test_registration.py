"""Registration: the server's layer over its registries (tags for the component filter, a
tool's MCP Apps link, removal of hidden components), tested without a client."""

from __future__ import annotations

from mcpkit import Server
from mcpkit.server.tool_options import ToolOptions


def echo(text: str) -> str:
    return text


def test_tags_reach_the_component_filter() -> None:
    app = Server("reg", exclude_tags=["admin"])
    app.registration.add_tool(echo, ToolOptions(tags={"admin"}))
    assert "echo" not in app.tools.tools  # registered, hidden by the filter
    assert app.components.tags[("tools", "echo")] == frozenset({"admin"})


def test_removing_a_hidden_tool_forgets_it() -> None:
    app = Server("reg", exclude_tags=["admin"])
    app.registration.add_tool(echo, ToolOptions(tags={"admin"}))
    app.registration.remove_tool("echo")
    app.enable(tags="admin")
    assert "echo" not in app.tools.tools


def test_ui_link_becomes_meta() -> None:
    app = Server("reg")
    entry = app.registration.add_tool(echo, ToolOptions(ui="ui://reg/view", meta={"k": 1}))
    meta = entry.definition["_meta"]
    assert meta["k"] == 1
    assert meta["ui"] == {"resourceUri": "ui://reg/view"}


def test_resource_options_and_kind() -> None:
    app = Server("reg")
    app.registration.add_resource(
        lambda: "x", "config://a", {"ttl_ms": 1000, "cache_scope": "public", "tags": ["t"]}
    )
    app.registration.add_resource(lambda uid: uid, "users://{uid}", {})
    cache = app.resources.resources["config://a"].cache
    assert cache is not None and (cache.ttl_ms, cache.scope) == (1000, "public")
    assert app.registration.resource_kind("config://a") == "resources"
    assert app.registration.resource_kind("users://{uid}") == "templates"
    app.registration.remove_resource("users://{uid}")
    assert "users://{uid}" not in app.resources.templates


def test_prompt_name_and_tags() -> None:
    app = Server("reg")

    def greet(who: str) -> str:
        return f"hi {who}"

    entry = app.registration.add_prompt(greet, {"name": "hello", "tags": "t"})
    assert entry.name == "hello"
    assert app.components.tags[("prompts", "hello")] == frozenset({"t"})
    app.registration.remove_prompt("hello")
    assert "hello" not in app.prompts.prompts


def test_typed_keywords_match_what_the_registries_take() -> None:
    import inspect

    from mcpkit.server import mcp_apps
    from mcpkit.server.prompts import PromptRegistry
    from mcpkit.server.registration import PromptKwargs, ResourceKwargs
    from mcpkit.server.resources import ResourceRegistry

    server_side = {"ttl_ms", "cache_scope", "tags"}  # the server turns these into others
    for typed, taking in (
        (ResourceKwargs, ResourceRegistry.add),
        (PromptKwargs, PromptRegistry.add),
        (mcp_apps.UiKwargs, mcp_apps.register_ui),
    ):
        taken = set(inspect.signature(taking).parameters)
        assert set(typed.__annotations__) - server_side <= taken
        assert "cache" in taken
