"""``ctx.state``: per 2025 session, per principal on the 2026-07-28 wire (per connection over
memory), refused with a clear error when a request belongs to nobody; JSON values copied in
and out, a TTL, sliding expiry, cleanup when a session ends; in memory and over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpkit import Client, Context, Server
from mcpkit.server.state import (
    MAX_KEY_CHARS,
    MemoryStateStore,
    StateOwnerMissing,
    StateValueError,
)
from mcpkit.transports.http import running
from tests.security.tenants import resource_server

ERAS = ("legacy", "2026-07-28")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def state_server(**options: Any) -> Server:
    app = Server("stateful", **options)

    @app.tool()
    async def put(ctx: Context, key: str, value: Any, ttl: float | None = None) -> str:
        await ctx.state.set(key, value, ttl=ttl)
        return "ok"

    @app.tool()
    async def get(ctx: Context, key: str) -> dict[str, Any]:
        return {"value": await ctx.state.get(key, "<none>")}

    @app.tool()
    async def drop(ctx: Context, key: str) -> bool:
        return await ctx.state.delete(key)

    @app.tool()
    async def count(ctx: Context) -> int:
        n = await ctx.state.get("n", 0) + 1
        await ctx.state.set("n", n)
        return int(n)

    @app.tool()
    async def mutate(ctx: Context) -> list[int]:
        await ctx.state.set("list", [1])
        got = await ctx.state.get("list")
        got.append(2)  # a copy: what is stored does not change
        return list(await ctx.state.get("list"))

    @app.tool()
    async def bad(ctx: Context, what: str) -> str:
        try:
            if what == "value":
                await ctx.state.set("k", {1, 2})
            elif what == "key":
                await ctx.state.set("k" * (MAX_KEY_CHARS + 1), 1)
            elif what == "empty":
                await ctx.state.get("")
            elif what == "ttl":
                await ctx.state.set("k", 1, ttl=-1)
            else:
                await ctx.state.set("k", "x" * (ctx.server.state_max_bytes + 1))
        except StateValueError as exc:
            return f"refused: {exc}"
        return "accepted"

    return app


async def value(client: Client, key: str) -> Any:
    result = await client.call_tool("get", {"key": key})
    assert not result.is_error, result
    return result.structured_content["value"]  # type: ignore[index]


async def put(client: Client, key: str, val: Any, ttl: float | None = None) -> None:
    args: dict[str, Any] = {"key": key, "value": val}
    if ttl is not None:
        args["ttl"] = ttl
    result = await client.call_tool("put", args)
    assert not result.is_error, result


@pytest.mark.parametrize("era", ERAS)
async def test_memory_state_per_connection(era: str) -> None:
    app = state_server()
    async with Client(app, era=era) as a, Client(app, era=era) as b:
        await put(a, "city", {"name": "Lyon", "tags": ["fr", 1, None, True, 2.5]})
        assert await value(a, "city") == {"name": "Lyon", "tags": ["fr", 1, None, True, 2.5]}
        assert await value(b, "city") == "<none>"  # another connection: its own state
        assert [
            (await a.call_tool("count", {})).structured_content["result"]  # type: ignore[index]
            for _ in range(3)
        ] == [1, 2, 3]
        assert (await b.call_tool("count", {})).structured_content["result"] == 1  # type: ignore[index]
        assert (await a.call_tool("mutate", {})).structured_content["result"] == [1]  # type: ignore[index]
        assert (await a.call_tool("drop", {"key": "city"})).structured_content["result"] is True  # type: ignore[index]
        assert (await a.call_tool("drop", {"key": "city"})).structured_content["result"] is False  # type: ignore[index]
        assert await value(a, "city") == "<none>"


@pytest.mark.parametrize("what", ["value", "key", "empty", "ttl", "size"])
async def test_bad_keys_and_values_are_refused(what: str) -> None:
    app = state_server()
    app.state_max_bytes = 64
    async with Client(app) as c:
        text = (await c.call_tool("bad", {"what": what})).text
        assert text.startswith("refused: "), text
        assert await value(c, "k") == "<none>"


async def test_ttl_and_sliding_expiry_on_a_fake_clock() -> None:
    clock = FakeClock()
    app = state_server(state_ttl=100)
    app.state_store = MemoryStateStore(app.state_ttl, clock=clock)
    async with Client(app) as c:
        await put(c, "short", "s", ttl=10)
        clock.now += 9
        assert await value(c, "short") == "s"
        clock.now += 1  # 10 s after it was set: gone, reading it did not extend it
        assert await value(c, "short") == "<none>"
        await put(c, "sliding", "v")
        for _ in range(3):  # used every 90 s: lives on past its 100 s
            clock.now += 90
            assert await value(c, "sliding") == "v"
        clock.now += 100  # then idle for its whole lifetime
        assert await value(c, "sliding") == "<none>"


async def test_a_session_state_ends_with_the_session() -> None:
    app = state_server()
    store = app.state_store
    assert isinstance(store, MemoryStateStore)
    async with Client(app) as c:
        await put(c, "k", 1)
        assert len(store.owners) == 1
    assert store.owners == {}


async def test_a_server_that_never_uses_state_makes_no_store() -> None:
    app = Server("plain")

    @app.tool()
    def echo(text: str) -> str:
        return text

    async with Client(app) as c:
        await c.call_tool("echo", {"text": "hi"})
    assert app._state_store is None


@pytest.mark.parametrize("era", ERAS)
async def test_a_mounted_server_keeps_its_state_in_the_parents_store(era: str) -> None:
    parent = state_server()
    parent.mount(state_server(), prefix="kid")
    async with Client(parent, era=era) as c:
        await put(c, "city", "parent's")
        assert (await c.call_tool("kid_put", {"key": "city", "value": "kid's"})).text == "ok"
        assert await value(c, "city") == "parent's"
        kid = await c.call_tool("kid_get", {"key": "city"})
        assert kid.structured_content == {"value": "kid's"}
        store = parent.state_store
        assert isinstance(store, MemoryStateStore)
        (values,) = store.owners.values()
        assert set(values) == {"city", "kid\x1fcity"}
        refused = await c.call_tool("bad", {"what": "value"})
        assert refused.text.startswith("refused")
    bad_key = state_server()

    @bad_key.tool()
    async def sneaky(ctx: Context) -> str:
        try:
            await ctx.state.set("kid\x1fcity", 1)
        except StateValueError:
            return "refused"
        return "accepted"

    async with Client(bad_key) as c:
        assert (await c.call_tool("sneaky", {})).text == "refused"


# -- HTTP ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def served(app: Server, **http: Any) -> AsyncIterator[str]:
    async with running(app.http_app(**http)) as base:
        yield f"{base}/mcp"


async def test_http_2025_sessions_each_keep_their_own() -> None:
    app = state_server()
    async with served(app) as url:
        async with Client(url, era="legacy") as a, Client(url, era="legacy") as b:
            await put(a, "k", "of a")
            await put(b, "k", "of b")
            assert await value(a, "k") == "of a"
            assert await value(b, "k") == "of b"


async def test_http_2025_sessions_of_one_principal_do_not_share() -> None:
    app = state_server(auth=resource_server())
    headers = {"authorization": "Bearer alice-token"}
    async with served(app) as url:
        async with (
            Client(url, era="legacy", headers=headers) as a,
            Client(url, era="legacy", headers=headers) as b,
        ):
            await put(a, "k", "first session")
            assert await value(b, "k") == "<none>"


async def test_http_2026_state_follows_the_principal() -> None:
    app = state_server(auth=resource_server())
    alice = {"authorization": "Bearer alice-token"}
    mallory = {"authorization": "Bearer mallory-token"}
    async with served(app) as url:
        async with Client(url, era="2026-07-28", headers=alice) as a:
            await put(a, "k", "alice's")
        async with (
            Client(url, era="2026-07-28", headers=alice) as again,
            Client(url, era="2026-07-28", headers=mallory) as m,
        ):
            assert await value(again, "k") == "alice's"  # another connection, same principal
            assert await value(m, "k") == "<none>"
            await put(m, "k", "mallory's")
            assert await value(again, "k") == "alice's"


@pytest.mark.parametrize("era", ERAS)
async def test_http_stateless_without_a_principal_is_refused_clearly(era: str) -> None:
    app = state_server(mask_errors=False)  # the message, not an error id
    stateless = era == "legacy"
    async with served(app, stateless=stateless) as url:
        async with Client(url, era=era) as c:
            result = await c.call_tool("put", {"key": "k", "value": 1})
            assert result.is_error
            assert "ctx.state needs an owner" in result.text
            assert "auth" in result.text
    assert isinstance(app.state_store, MemoryStateStore)
    assert app.state_store.owners == {}


def test_state_owner_missing_is_an_mcpkit_error() -> None:
    from mcpkit.errors import McpkitError

    assert issubclass(StateOwnerMissing, McpkitError)
    assert issubclass(StateValueError, McpkitError)
    assert issubclass(StateValueError, ValueError)
