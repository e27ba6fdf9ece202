"""mcpkit.client.cache: the client response cache honouring ttlMs/cacheScope."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client.cache import (
    Eviction,
    MemoryResponseCache,
    ResponseCache,
    apply_notification,
    cache_key,
    cached_request,
    caching_hints,
    evictions_for,
)

V = "2026-07-28"
URL = "http://127.0.0.1:1/mcp"
META = {"io.modelcontextprotocol/protocolVersion": V}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Server:
    """A request sender whose answers carry the given hints; counts the fetches."""

    def __init__(self, ttl: Any = 60_000, scope: str | None = "public", **extra: Any) -> None:
        self.ttl, self.scope, self.extra = ttl, scope, extra
        self.calls: list[tuple[str, Any]] = []

    async def __call__(self, method: str, params: Any) -> dict[str, Any]:
        self.calls.append((method, params))
        result: dict[str, Any] = {"resultType": "complete", "n": len(self.calls), **self.extra}
        if self.ttl is not None:
            result["ttlMs"] = self.ttl
        if self.scope is not None:
            result["cacheScope"] = self.scope
        return result


def make() -> tuple[MemoryResponseCache, Clock]:
    clock = Clock()
    return MemoryResponseCache(8, clock=clock), clock


async def call(
    cache: ResponseCache, server: Server, method: str = "tools/list", params: Any = None, **kw: Any
) -> Any:
    kw.setdefault("era", V)
    kw.setdefault("target", URL)
    return await cached_request(cache, server, method, params, **kw)


async def test_fresh_entry_is_served_until_the_ttl_runs_out() -> None:
    cache, clock = make()
    server = Server(ttl=5000)
    assert (await call(cache, server))["n"] == 1
    clock.now += 4.9
    assert (await call(cache, server))["n"] == 1
    clock.now += 0.2
    assert (await call(cache, server))["n"] == 2
    assert len(server.calls) == 2


@pytest.mark.parametrize("ttl", [None, 0, -5, 1.5, True, "60"])
async def test_no_positive_integer_ttl_means_immediately_stale(ttl: Any) -> None:
    cache, _ = make()
    server = Server(ttl=ttl)
    await call(cache, server)
    await call(cache, server)
    assert len(server.calls) == 2 and len(cache) == 0


async def test_public_entries_are_shared_across_principals_private_ones_are_not() -> None:
    cache, _ = make()
    public = Server(scope="public")
    await call(cache, public, principal="alice")
    assert (await call(cache, public, principal="bob"))["n"] == 1
    private = Server(scope="private")
    await call(cache, private, "resources/read", {"uri": "file:///a"}, principal="alice")
    assert (await call(cache, private, "resources/read", {"uri": "file:///a"}, principal="alice"))[
        "n"
    ] == 1
    assert (await call(cache, private, "resources/read", {"uri": "file:///a"}, principal="bob"))[
        "n"
    ] == 2
    # The unauthenticated context is a principal of its own.
    assert (await call(cache, private, "resources/read", {"uri": "file:///a"}))["n"] == 3


async def test_missing_scope_is_private() -> None:
    cache, _ = make()
    server = Server(scope=None)
    await call(cache, server, principal="alice")
    assert (await call(cache, server, principal="bob"))["n"] == 2
    assert caching_hints("tools/list", None, {"ttlMs": 1, "cacheScope": "weird"}) == (1, "private")


async def test_entries_never_cross_targets_eras_methods_or_params() -> None:
    cache, _ = make()
    server = Server()
    await call(cache, server, "resources/read", {"uri": "file:///a"})
    await call(cache, server, "resources/read", {"uri": "file:///a"}, target="http://other/mcp")
    await call(cache, server, "resources/read", {"uri": "file:///a"}, era="2026-12-01")
    await call(cache, server, "resources/read", {"uri": "file:///b"})
    await call(cache, server, "resources/templates/list", None)
    assert len(server.calls) == 5
    # _meta and key order are not part of the key.
    await call(cache, server, "tools/list", {"cursor": "c", "x": 1, "_meta": META})
    await call(cache, server, "tools/list", {"x": 1, "cursor": "c", "_meta": {"other": 1}})
    assert len(server.calls) == 6


async def test_pages_are_cached_separately_by_cursor() -> None:
    cache, _ = make()
    server = Server(nextCursor="p2")
    first = await call(cache, server, "tools/list", {})
    second = await call(cache, server, "tools/list", {"cursor": "p2"})
    assert first["n"] == 1 and second["n"] == 2
    assert (await call(cache, server, "tools/list", {"cursor": "p2"}))["n"] == 2


async def test_input_required_results_and_mrtr_retries_are_never_cached() -> None:
    cache, _ = make()

    async def input_required(method: str, params: Any) -> dict[str, Any]:
        return {
            "resultType": "input_required",
            "inputRequests": {},
            "ttlMs": 9999,
            "cacheScope": "public",
        }

    await call(cache, input_required, "resources/read", {"uri": "file:///a"})  # type: ignore[arg-type]
    assert len(cache) == 0
    server = Server()
    for extra in ({"inputResponses": {"k": {}}}, {"requestState": "s"}):
        await call(cache, server, "resources/read", {"uri": "file:///a", **extra})
        await call(cache, server, "resources/read", {"uri": "file:///a", **extra})
    assert len(server.calls) == 4 and len(cache) == 0


async def test_uncacheable_methods_always_go_to_the_server() -> None:
    cache, _ = make()
    server = Server()
    await call(cache, server, "tools/call", {"name": "t"})
    await call(cache, server, "tools/call", {"name": "t"})
    assert len(server.calls) == 2 and len(cache) == 0


async def test_policies() -> None:
    cache, _ = make()
    server = Server()
    await call(cache, server)
    assert (await call(cache, server, policy="bypass"))["n"] == 2
    assert (await call(cache, server))["n"] == 1  # bypass stored nothing
    assert (await call(cache, server, policy="refresh"))["n"] == 3
    assert (await call(cache, server))["n"] == 3  # refresh replaced the entry
    with pytest.raises(ValueError, match="cache policy"):
        await call(cache, server, policy="sometimes")


async def test_returned_results_are_copies() -> None:
    cache, _ = make()
    server = Server()
    got = await call(cache, server)
    got["n"] = 99
    hit = await call(cache, server)
    hit["n"] = 98
    assert (await call(cache, server))["n"] == 1


async def test_lru_bound() -> None:
    clock = Clock()
    cache = MemoryResponseCache(2, clock=clock)
    server = Server()
    for uri in ("a", "b"):
        await call(cache, server, "resources/read", {"uri": uri})
    await call(cache, server, "resources/read", {"uri": "a"})  # a is now the most recent
    await call(cache, server, "resources/read", {"uri": "c"})  # drops b
    assert len(cache) == 2 and len(server.calls) == 3
    await call(cache, server, "resources/read", {"uri": "a"})
    assert len(server.calls) == 3
    await call(cache, server, "resources/read", {"uri": "b"})
    assert len(server.calls) == 4
    with pytest.raises(ValueError):
        MemoryResponseCache(0)


async def test_notifications_make_entries_stale_for_every_principal() -> None:
    cache, _ = make()
    public, private = Server(scope="public"), Server(scope="private")
    await call(cache, public, "tools/list", None, principal="alice")
    await call(cache, private, "tools/list", {"cursor": "2"}, principal="bob")
    await call(cache, public, "prompts/list", None)
    await call(cache, public, "resources/list", None)
    await call(cache, public, "resources/templates/list", None)
    await call(cache, private, "resources/read", {"uri": "file:///a"}, principal="alice")
    await call(cache, private, "resources/read", {"uri": "file:///b"}, principal="alice")
    await call(cache, public, "tools/list", None, target="http://other/mcp")
    assert len(cache) == 8
    assert await apply_notification(cache, URL, "notifications/tools/list_changed", None) == 2
    assert await apply_notification(cache, URL, "notifications/resources/list_changed", {}) == 2
    updated = {"uri": "file:///a", "_meta": {"io.modelcontextprotocol/subscriptionId": 1}}
    assert await apply_notification(cache, URL, "notifications/resources/updated", updated) == 1
    assert await apply_notification(cache, URL, "notifications/progress", {}) == 0
    assert len(cache) == 3  # prompts/list, file:///b, the other target's tools/list
    assert evictions_for(URL, "notifications/prompts/list_changed", None) == [
        Eviction(URL, "prompts/list")
    ]
    assert evictions_for(URL, "notifications/resources/updated", {}) == []


async def test_clear() -> None:
    cache, _ = make()
    server = Server()
    await call(cache, server)
    await call(cache, server, target="http://other/mcp")
    await cache.clear(URL)
    assert len(cache) == 1
    await cache.clear()
    assert len(cache) == 0


def test_key_shape() -> None:
    key = cache_key(V, URL, "resources/read", {"uri": "u", "_meta": META}, scope="private")
    assert (key.params, key.owner, key.uri) == ('{"uri":"u"}', "", "u")
    assert cache_key(V, URL, "tools/list", None, scope="public", principal="p").owner is None
    assert isinstance(MemoryResponseCache(), ResponseCache)
