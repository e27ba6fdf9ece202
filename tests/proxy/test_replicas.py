"""An MRTR retry that reaches another proxy replica. In front of a 2026-07-28 upstream the
proxy is stateless: the upstream's ``requestState`` passes through as it is, so the retry
may reach any replica. In front of a handshake-era upstream the question is a live request
of an upstream call running in the replica that answered (its ``requestState`` starts with
``mcpkit-proxy.``): another replica refuses the retry with -32602 and says where it
belongs, the replica that answered completes it. Two proxies over HTTP in front of one
upstream over HTTP, every message checked against the schema."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pydantic import BaseModel

from mcpkit import Client, Context, McpError, Server, versions
from mcpkit.client.mrtr import retry_params
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.wire import WireChecker


class Name(BaseModel):
    name: str


def upstream(era: str) -> Server[Any]:
    app: Server[Any] = Server(
        f"upstream-{era}", modern_versions=versions.MODERN_SUPPORTED if era == "modern" else ()
    )

    @app.tool()
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", Name)
        return f"hello {answer.data.name}" if answer.data is not None else "no name"

    return app


@contextlib.asynccontextmanager
async def served(app: Server[Any]) -> AsyncIterator[str]:
    async with app.running(), running(app.http_app()) as base:
        yield base + "/mcp"


@contextlib.asynccontextmanager
async def two_replicas(era: str) -> AsyncIterator[tuple[str, str]]:
    async with served(upstream(era)) as url:
        async with served(ProxyServer(url)) as first, served(ProxyServer(url)) as second:
            yield first, second


def client(url: str, checker: WireChecker) -> Client:
    async def elicit(params: Any, ctx: Any) -> Any:
        raise AssertionError("the rounds are run by the test")

    return Client(
        url, era="2026-07-28", elicitation_handler=elicit, tracer=checker, cache=False, timeout=60
    )


async def first_round(c: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    params: dict[str, Any] = {"name": "greet", "arguments": {}}
    result = await c.request("tools/call", params, mrtr=False)
    assert result["resultType"] == "input_required"
    (key,) = result["inputRequests"]
    assert result["inputRequests"][key]["method"] == "elicitation/create"
    answer = {"action": "accept", "content": {"name": "Ada"}}
    return result, retry_params(params, result, {key: answer})


async def test_a_retry_reaches_any_replica_of_a_2026_upstream(
    wire: Callable[..., WireChecker],
) -> None:
    checker = wire("2026-07-28")
    async with two_replicas("modern") as (first, second):
        async with client(first, checker) as a, client(second, checker) as b:
            result, retry = await first_round(a)
            assert not result["requestState"].startswith("mcpkit-proxy.")  # the upstream's
            done = await b.request("tools/call", retry, mrtr=False)
            assert done["content"][0]["text"] == "hello Ada"


@pytest.mark.parametrize("route", ["other", "same"])
async def test_a_handshake_upstream_needs_the_replica_that_answered(
    route: str, wire: Callable[..., WireChecker]
) -> None:
    checker = wire("2026-07-28")
    async with two_replicas("legacy") as (first, second):
        async with client(first, checker) as a, client(second, checker) as b:
            result, retry = await first_round(a)
            assert result["requestState"].startswith("mcpkit-proxy.")
            if route == "other":
                with pytest.raises(McpError) as refused:
                    await b.request("tools/call", retry, mrtr=False)
                assert refused.value.code == -32602
                assert "replica" in refused.value.message
                # the session goes on: the request sent anew is served there
                _, retry = await first_round(b)
                done = await b.request("tools/call", retry, mrtr=False)
            else:
                done = await a.request("tools/call", retry, mrtr=False)
            assert done["content"][0]["text"] == "hello Ada"
