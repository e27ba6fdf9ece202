"""Mount rules: namespaces, collisions, nesting, unmounting, paging, roots hooks."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

from mcpkit import Client, Context, McpError, Server
from mcpkit.bus import BusEvent
from mcpkit.client import ClientHooks
from mcpkit.server.mount import mounts_of
from tests.compose.apps import build_weather


def text(result: Any) -> str:
    return str(result.content[0].text)


def tiny(name: str, *tools: str) -> Server[Any]:
    server: Server[Any] = Server(name)
    for tool in tools:
        server.add_tool(lambda tool=tool: f"{name}.{tool}", name=tool)
    return server


def test_namespace_rule_round_trips() -> None:
    app: Server[Any] = Server("p")
    m = app.mount(tiny("c", "x"), prefix="My_Tools")
    assert m.name("x") == "My_Tools_x" and m.local_name("My_Tools_x") == "x"
    assert m.local_name("other_x") is None
    for uri in ("file:///a b", "urn:isbn:1", "weather://{city}/now", "https://h/p?q=1"):
        assert m.uri(uri) == "my-tools+" + uri
        assert m.local_uri(m.uri(uri)) == uri
    assert m.local_uri("file:///a") is None


@pytest.mark.parametrize("prefix", ["", "1x", "a b", "a+b", "x" * 65])
def test_bad_prefix_is_refused(prefix: str) -> None:
    with pytest.raises(ValueError, match="prefix"):
        Server("p").mount(tiny("c", "x"), prefix=prefix)


def test_mount_refusals() -> None:
    app: Server[Any] = Server("p")
    app.add_tool(lambda: "own", name="x")
    child = tiny("c", "x")
    with pytest.raises(ValueError, match="tool 'x'"):  # unprefixed collision
        app.mount(child)
    app.mount(child, prefix="c")
    with pytest.raises(ValueError, match="already mounted"):
        app.mount(child, prefix="d")
    with pytest.raises(ValueError, match="already used"):
        app.mount(tiny("c2", "y"), prefix="c")
    with pytest.raises(ValueError, match="itself"):
        app.mount(app)
    with pytest.raises(ValueError, match="itself"):
        child.mount(app, prefix="loop")  # app already contains child
    other = tiny("o", "y")
    with pytest.raises(ValueError, match="bus"):
        Server("shared", bus=other.bus).mount(other, prefix="o")
    # A later mount colliding with an earlier one without a prefix
    app.mount(tiny("free", "z"))
    with pytest.raises(ValueError, match="tool 'z'"):
        app.mount(tiny("free2", "z"))


async def test_unprefixed_nested_and_unmounted() -> None:
    leaf = tiny("leaf", "deep")
    middle = tiny("middle", "mid")
    middle.mount(leaf, prefix="leaf")
    app = tiny("app", "top")
    mount = app.mount(middle)  # no prefix: names as they are
    async with Client(app) as c:
        assert [t.name for t in await c.list_tools()] == ["top", "mid", "leaf_deep"]
        assert text(await c.call_tool("leaf_deep")) == "leaf.deep"
        assert text(await c.call_tool("mid")) == "middle.mid"
        changed = asyncio.Event()
        c2 = Client(app, hooks=ClientHooks(on_list_changed=lambda kind: changed.set()))
        async with c2:
            mount.unmount()
            await asyncio.wait_for(changed.wait(), 10)
            assert [t.name for t in await c2.list_tools()] == ["top"]
            with pytest.raises(McpError, match="Unknown tool: mid"):
                await c2.call_tool("mid")
    assert mounts_of(app) == ()


async def test_paging_across_mounts() -> None:
    app: Server[Any] = Server("app", page_size=2)
    app.add_tool(lambda: "a", name="a")
    app.mount(tiny("one", "b", "c", "d"), prefix="one")
    app.mount(tiny("two", "e"), prefix="two")
    async with Client(app) as c:
        first = await c.list_tools_page()
        assert [t.name for t in first.tools] == ["a", "one_b"] and first.next_cursor
        assert [t.name for t in await c.list_tools()] == ["a", "one_b", "one_c", "one_d", "two_e"]
        with pytest.raises(McpError) as err:
            await c.list_tools_page(cursor="garbage")
        assert err.value.code == -32602


async def test_roots_hooks_and_live_mount() -> None:
    child = build_weather()
    seen = asyncio.Event()
    child.on_roots_changed(lambda session: seen.set())
    app: Server[Any] = Server("app")
    app.mount(child, prefix="weather")
    async with Client(app, era="legacy", roots=[{"uri": "file:///a", "name": "a"}]) as c:
        await c.set_roots([{"uri": "file:///b", "name": "b"}])
        await asyncio.wait_for(seen.wait(), 10)  # the child's hook ran
        # A server mounted while clients are connected is served at once.
        app.mount(tiny("late", "t"), prefix="late")
        assert text(await c.call_tool("late_t")) == "late.t"


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_mounted_task_tools(era: str) -> None:
    """A mounted tool that runs as a task runs in the parent's task manager (2025-11-25
    tasks, the 2026-07-28 tasks extension)."""
    child: Server[Any] = Server("jobs")

    @child.tool(task_support="optional")
    async def crunch(n: int, ctx: Context) -> str:
        await ctx.info("crunching")
        return f"crunched {n} on {ctx.server.name}"

    app = tiny("app", "plain")
    app.mount(child, prefix="jobs")
    async with Client(app, era=era) as c:  # type: ignore[arg-type]
        tools = {t.name: t for t in await c.list_tools()}
        assert tools["jobs_crunch"].execution.task_support == "optional"  # type: ignore[union-attr]
        if era == "legacy":
            assert c.server_capabilities.tasks is not None
            task = await c.call_tool_as_task("jobs_crunch", {"n": 2})
            result = await c.get_task_result(task.task_id, timeout=10)
        else:
            handle = await c.start_tool_task("jobs_crunch", {"n": 2})
            assert handle.task_id is not None
            result = await handle.result(timeout=10)
        assert text(result) == "crunched 2 on jobs"
        assert text(await c.call_tool("jobs_crunch", {"n": 3})) == "crunched 3 on jobs"


def test_a_parent_that_goes_away_is_freed() -> None:
    child = tiny("child", "x")
    parent: Server[Any] = Server("parent")
    parent.mount(child, prefix="c")
    gone = weakref.ref(parent)
    del parent
    gc.collect()
    assert gone() is None  # the long-lived child does not keep it
    assert len(child.relay.sinks) == 2  # its own delivery, and the dead mount's no-op
    for sink in child.relay.sinks[1:]:
        sink(BusEvent.list_changed("tools"))  # nothing to forward to: nothing happens


async def test_middleware_of_parent_and_child() -> None:
    """The parent's middleware sees the parent's names, the child's its own."""
    from mcpkit.server.middleware import Middleware

    seen: list[tuple[str, str]] = []

    class Audit(Middleware):
        def __init__(self, who: str) -> None:
            self.who = who

        async def on_call_tool(self, ctx: Any, call_next: Any) -> Any:
            seen.append((self.who, ctx.name))
            return await call_next(ctx)

    child: Server[Any] = Server("c", middleware=[Audit("child")])
    child.add_tool(lambda: "hi", name="x")
    app: Server[Any] = Server("p", middleware=[Audit("parent")])
    app.mount(child, prefix="c")
    async with Client(app) as c:
        assert text(await c.call_tool("c_x")) == "hi"
    assert seen == [("parent", "c_x"), ("child", "x")]
