"""Per-caller visibility (``ctx.enable``/``ctx.disable``): one 2025 session (or one
2026-07-28 principal) hides or shows components for itself only; its lists, calls, prompt
gets and reads follow, list-changed goes to that session alone; in memory, over HTTP and
across three replicas on a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from mcpkit import Client, Context, McpError, Server
from mcpkit.client import ClientHooks
from mcpkit.redis import RedisBackend
from mcpkit.server.visibility import VisibilityNotShared
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET, Caller, resource_server

ERAS = ("legacy", "2026-07-28")


def visible_server(**options: Any) -> Server:
    app = Server("vis", **options)

    @app.tool(tags={"admin"})
    def drop_table(name: str) -> str:
        return f"dropped {name}"

    @app.tool()
    def status() -> str:
        return "green"

    @app.tool()
    async def hide(ctx: Context, names: list[str], tags: list[str] | None = None) -> str:
        await ctx.disable(*names, tags=tags)
        return "hidden"

    @app.tool()
    async def show(ctx: Context, names: list[str], tags: list[str] | None = None) -> str:
        await ctx.enable(*names, tags=tags)
        return "shown"

    @app.prompt(tags={"admin"})
    def audit() -> str:
        return "Audit."

    @app.resource("config://secret", tags={"admin"})
    def secret() -> str:
        return "s3cret"

    @app.resource("users://{uid}")
    def user(uid: str) -> str:
        return uid

    return app


async def tool_names(c: Client) -> set[str]:
    return {t.name for t in await c.list_tools()}


async def assert_hidden_admin(c: Client) -> None:
    assert "drop_table" not in await tool_names(c)
    assert [p.name for p in await c.list_prompts()] == []
    assert "config://secret" not in {str(r.uri) for r in await c.list_resources()}
    with pytest.raises(McpError, match="Unknown tool"):
        await c.call_tool("drop_table", {"name": "t"})
    with pytest.raises(McpError, match="Unknown prompt"):
        await c.get_prompt("audit")
    with pytest.raises(McpError, match="not found"):
        await c.read_resource("config://secret")


async def assert_admin(c: Client) -> None:
    assert "drop_table" in await tool_names(c)
    assert [p.name for p in await c.list_prompts()] == ["audit"]
    assert (await c.call_tool("drop_table", {"name": "t"})).text == "dropped t"
    assert (await c.read_resource("config://secret")).contents[0].text == "s3cret"  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ERAS)
async def test_memory_one_connection_hides_for_itself(era: str) -> None:
    app = visible_server()
    assert not app.session_visibility  # nothing installed yet
    async with Client(app, era=era) as a, Client(app, era=era) as b:
        assert (await a.call_tool("hide", {"names": [], "tags": ["admin"]})).text == "hidden"
        assert app.session_visibility
        await assert_hidden_admin(a)
        await assert_admin(b)  # the other connection is untouched
        await a.call_tool("hide", {"names": ["users://{uid}", "status"]})
        assert await tool_names(a) == {"hide", "show"}
        assert await a.list_resource_templates() == []
        with pytest.raises(McpError, match="not found"):
            await a.read_resource("users://7")
        await a.call_tool("show", {"names": [], "tags": ["admin"]})
        await assert_admin(a)
        assert "status" not in await tool_names(a)  # still hidden by name


async def test_list_changed_goes_to_that_session_only() -> None:
    app = visible_server()
    seen_a: asyncio.Queue[str] = asyncio.Queue()
    seen_b: asyncio.Queue[str] = asyncio.Queue()
    async with (
        Client(app, era="legacy", hooks=ClientHooks(on_list_changed=seen_a.put_nowait)) as a,
        Client(app, era="legacy", hooks=ClientHooks(on_list_changed=seen_b.put_nowait)) as b,
    ):
        await a.call_tool("hide", {"names": ["status"]})
        kinds = {await seen_a.get() for _ in range(3)}
        assert kinds == {"tools", "prompts", "resources"}
        await b.list_tools()  # a round trip: anything sent to b before it has arrived
        assert seen_b.empty()


async def test_list_changed_comes_in_a_fixed_order() -> None:
    """One rule's notifications: tools, resources, prompts, every time (a set's order
    varied from one process to the next)."""
    app = visible_server()
    seen: asyncio.Queue[str] = asyncio.Queue()
    async with Client(app, era="legacy", hooks=ClientHooks(on_list_changed=seen.put_nowait)) as a:
        for call in ("hide", "show"):
            await a.call_tool(call, {"names": ["status"]})
            assert [await seen.get() for _ in range(3)] == ["tools", "resources", "prompts"]


@pytest.mark.parametrize("era", ERAS)
async def test_a_caller_may_be_shown_what_the_server_hides(era: str) -> None:
    app = visible_server(exclude_tags={"admin"})
    app.disable_tool("status")
    async with Client(app, era=era) as a, Client(app, era=era) as b:
        await assert_hidden_admin(a)
        await a.call_tool("show", {"names": [], "tags": ["admin"]})
        await assert_admin(a)  # listed, called, got and read by this caller
        assert "status" not in await tool_names(a)  # a rule shows only what it matches
        await assert_hidden_admin(b)  # everyone else: as the server says
        await a.call_tool("hide", {"names": [], "tags": ["admin"]})
        await assert_hidden_admin(a)
        await b.call_tool("show", {"names": ["status"]})
        assert (await b.call_tool("status", {})).text == "green"
        with pytest.raises(McpError, match="Unknown tool"):
            await a.call_tool("status", {})


@pytest.mark.parametrize("era", ERAS)
async def test_what_a_caller_is_shown_is_listed_in_registration_order(era: str) -> None:
    app = visible_server(exclude_tags={"admin"})
    app.disable_tool("status")
    async with Client(app, era=era) as a:
        assert [t.name for t in await a.list_tools()] == ["hide", "show"]
        await a.call_tool("show", {"names": ["status"], "tags": ["admin"]})
        names = [t.name for t in await a.list_tools()]
        assert names == ["drop_table", "status", "hide", "show"]


async def test_a_revealed_component_keeps_its_scopes() -> None:
    app = visible_server(auth=resource_server(), exclude_tags={"admin"})

    @app.tool(tags={"admin"}, scopes=["root"])
    def reboot() -> str:
        return "rebooting"

    alice = {"authorization": "Bearer alice-token"}  # scopes: mcp
    async with served(app) as url, Client(url, era="legacy", headers=alice) as c:
        await c.call_tool("show", {"names": [], "tags": ["admin"]})
        assert "drop_table" in await tool_names(c)
        assert "reboot" not in await tool_names(c)
        with pytest.raises(McpError, match="Unknown tool"):
            await c.call_tool("reboot", {})


@pytest.mark.parametrize("era", ERAS)
async def test_a_mounted_servers_callers_rules(era: str) -> None:
    child = visible_server()
    parent = Server("parent")
    parent.mount(child, prefix="c")
    async with Client(parent, era=era) as a, Client(parent, era=era) as b:
        await a.call_tool("c_hide", {"names": ["status"], "tags": ["admin"]})
        assert await tool_names(a) == {"c_hide", "c_show"}
        assert "c_status" in await tool_names(b)
        with pytest.raises(McpError, match="Unknown tool: c_status"):
            await a.call_tool("c_status", {})
        with pytest.raises(McpError, match="not found"):
            await a.read_resource("c+config://secret")
        assert (await b.call_tool("c_status", {})).text == "green"


@contextlib.asynccontextmanager
async def served(app: Server) -> AsyncIterator[str]:
    async with running(app.http_app()) as base:
        yield f"{base}/mcp"


async def test_http_2025_sessions_each_have_their_own() -> None:
    app = visible_server()
    async with served(app) as url:
        async with Client(url, era="legacy") as a, Client(url, era="legacy") as b:
            await a.call_tool("hide", {"names": [], "tags": ["admin"]})
            await assert_hidden_admin(a)
            await assert_admin(b)


async def test_http_2026_rules_follow_the_principal() -> None:
    app = visible_server(auth=resource_server())
    alice = {"authorization": "Bearer alice-token"}
    mallory = {"authorization": "Bearer mallory-token"}
    async with served(app) as url:
        async with Client(url, era="2026-07-28", headers=alice) as a:
            await a.call_tool("hide", {"names": [], "tags": ["admin"]})
        async with (
            Client(url, era="2026-07-28", headers=alice) as again,
            Client(url, era="2026-07-28", headers=mallory) as m,
        ):
            await assert_hidden_admin(again)
            await assert_admin(m)


# -- three replicas on one Redis --------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


async def test_a_shared_store_needs_the_option(redis_url: str) -> None:
    store = RedisBackend(redis_url, prefix=f"vis{free_port()}", secret=SECRET)
    try:
        app = visible_server(store=store)

        @app.tool()
        async def try_hide(ctx: Context) -> str:
            try:
                await ctx.disable("status")
            except VisibilityNotShared as exc:
                return str(exc)
            return "hidden"

        async with Client(app) as c:
            assert "session_visibility=True" in (await c.call_tool("try_hide", {})).text
    finally:
        await store.aclose()


@pytest.mark.parametrize("era", ERAS)
async def test_rules_hold_on_every_replica(redis_url: str, era: str) -> None:
    prefix = f"vis{free_port()}"
    alice = {"authorization": "Bearer alice-token"}
    mallory = {"authorization": "Bearer mallory-token"}
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for i in range(3):
            store = RedisBackend(redis_url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
            stack.push_async_callback(store.aclose)
            app = visible_server(store=store, auth=resource_server(), session_visibility=True)
            urls.append(await stack.enter_async_context(running(app.http_app())) + "/mcp")
        if era == "legacy":  # one session, its requests spread over the replicas
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
            caller = Caller(http, "alice-token")
            sid = await caller.initialize(urls[0])
            hidden = await caller.rpc(
                urls[0],
                "tools/call",
                {"name": "hide", "arguments": {"names": [], "tags": ["admin"]}},
                sid,
            )
            assert hidden.result["content"][0]["text"] == "hidden"
            other = await caller.initialize(urls[0])
            for url in urls[1:]:
                listed = await caller.rpc(url, "tools/list", {}, sid)
                assert "drop_table" not in {t["name"] for t in listed.result["tools"]}
                call = await caller.rpc(
                    url, "tools/call", {"name": "drop_table", "arguments": {"name": "t"}}, sid
                )
                assert call.error_code == -32602
                listed = await caller.rpc(url, "tools/list", {}, other)
                assert "drop_table" in {t["name"] for t in listed.result["tools"]}
            return
        async with Client(urls[0], era=era, headers=alice) as a:
            await a.call_tool("hide", {"names": [], "tags": ["admin"]})
        for url in urls[1:]:
            async with (
                Client(url, era=era, headers=alice) as a,
                Client(url, era=era, headers=mallory) as m,
            ):
                await assert_hidden_admin(a)
                await assert_admin(m)
