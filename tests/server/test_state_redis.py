"""``ctx.state`` in a deployment's Redis: three replicas on one real ``redis-server``, each
request of a caller served by another replica. A 2025 session's state set on one replica
is read on the others, a 2026-07-28 principal's likewise; another session or principal
sees none of it on any replica; TTLs are kept by Redis."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET, Caller, resource_server
from tests.server.test_state import state_server


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


@contextlib.asynccontextmanager
async def replicas(
    redis_url: str, mounted: bool = False
) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    prefix = f"state{free_port()}"
    async with contextlib.AsyncExitStack() as stack:
        urls, backends = [], []
        for i in range(3):
            store = RedisBackend(redis_url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
            stack.push_async_callback(store.aclose)
            app = state_server(store=store, auth=resource_server(), state_ttl=600)
            if mounted:
                app.mount(state_server(), prefix="kid")
            urls.append(await stack.enter_async_context(running(app.http_app())) + "/mcp")
            backends.append(store)
        yield urls, backends


def tool_value(reply: Any) -> Any:
    result = reply.result
    assert not result.get("isError"), result
    return result.get("structuredContent")


async def test_2025_session_state_on_every_replica(redis_url: str) -> None:
    async with replicas(redis_url) as (urls, _), httpx.AsyncClient(timeout=30) as http:
        alice = Caller(http, "alice-token")
        sid = await alice.initialize(urls[0])
        other = await alice.initialize(urls[1])  # alice's second session
        mallory = Caller(http, "mallory-token")
        msid = await mallory.initialize(urls[2])

        def call(name: str, **arguments: Any) -> dict[str, Any]:
            return {"name": name, "arguments": arguments}

        put = await alice.rpc(urls[0], "tools/call", call("put", key="cart", value=[1, 2]), sid)
        tool_value(put)
        for url in urls:
            got = await alice.rpc(url, "tools/call", call("get", key="cart"), sid)
            assert tool_value(got) == {"value": [1, 2]}
            counted = await alice.rpc(url, "tools/call", call("count"), sid)
            assert tool_value(counted)["result"] == urls.index(url) + 1
            assert tool_value(
                await alice.rpc(url, "tools/call", call("get", key="cart"), other)
            ) == {"value": "<none>"}
            assert tool_value(
                await mallory.rpc(url, "tools/call", call("get", key="cart"), msid)
            ) == {"value": "<none>"}
        dropped = await alice.rpc(urls[2], "tools/call", call("drop", key="cart"), sid)
        assert tool_value(dropped)["result"] is True
        gone = await alice.rpc(urls[1], "tools/call", call("get", key="cart"), sid)
        assert tool_value(gone) == {"value": "<none>"}


async def test_2026_principal_state_on_every_replica(redis_url: str) -> None:
    async with replicas(redis_url) as (urls, backends), httpx.AsyncClient(timeout=30) as http:
        alice, mallory, anonymous = (
            Caller(http, "alice-token"),
            Caller(http, "mallory-token"),
            Caller(http, None),
        )

        def call(name: str, **arguments: Any) -> dict[str, Any]:
            return {"name": name, "arguments": arguments}

        tool_value(await alice.modern(urls[0], "tools/call", call("put", key="k", value="a")))
        tool_value(await mallory.modern(urls[1], "tools/call", call("put", key="k", value="m")))
        for url in urls:
            assert tool_value(await alice.modern(url, "tools/call", call("get", key="k"))) == {
                "value": "a"
            }
            assert tool_value(await mallory.modern(url, "tools/call", call("get", key="k"))) == {
                "value": "m"
            }
        refused = await anonymous.modern(urls[2], "tools/call", call("get", key="k"))
        assert refused.status == 401  # the server requires a token: nothing reaches state

        # A value with a ttl expires in Redis after it; one without slides with the
        # server's state_ttl (600 s here), renewed on every read.
        tool_value(await alice.modern(urls[2], "tools/call", call("put", key="t", value=1, ttl=30)))
        client = backends[0].client
        keys = sorted(k.decode() for k in await client.keys(f"{backends[0].keys.prefix}:st:*"))
        assert len(keys) == 3  # alice's k and t, mallory's k
        assert len({k.split("}")[0] for k in keys}) == 2  # two owners, two hash tags
        ttls = {k: await client.pttl(k) for k in keys}
        assert all(0 < ms <= 600_000 for ms in ttls.values()), ttls
        t_key = next(k for k in keys if k.endswith(":t"))
        assert 0 < ttls[t_key] <= 30_000
        alice_k = next(k for k in keys if k != t_key and k.split("}")[0] == t_key.split("}")[0])
        await client.pexpire(alice_k, 5_000)
        await client.pexpire(t_key, 5_000)
        assert tool_value(await alice.modern(urls[1], "tools/call", call("get", key="k"))) == {
            "value": "a"
        }
        assert tool_value(await alice.modern(urls[1], "tools/call", call("get", key="t"))) == {
            "value": 1
        }
        assert await client.pttl(alice_k) > 5_000  # a read renewed its idle lifetime
        assert await client.pttl(t_key) <= 5_000  # a fixed ttl is not renewed
        await client.delete(t_key)  # as if its 30 s had passed
        assert tool_value(await alice.modern(urls[1], "tools/call", call("get", key="t"))) == {
            "value": "<none>"
        }


async def test_a_mounted_servers_state_on_every_replica(redis_url: str) -> None:
    async with (
        replicas(redis_url, mounted=True) as (urls, _),
        httpx.AsyncClient(timeout=30) as http,
    ):
        alice, mallory = Caller(http, "alice-token"), Caller(http, "mallory-token")

        def call(name: str, **arguments: Any) -> dict[str, Any]:
            return {"name": name, "arguments": arguments}

        tool_value(await alice.modern(urls[0], "tools/call", call("kid_put", key="k", value=1)))
        for url in urls:
            assert tool_value(await alice.modern(url, "tools/call", call("kid_get", key="k"))) == {
                "value": 1
            }
            assert tool_value(await alice.modern(url, "tools/call", call("get", key="k"))) == {
                "value": "<none>"
            }
            assert tool_value(
                await mallory.modern(url, "tools/call", call("kid_get", key="k"))
            ) == {"value": "<none>"}
