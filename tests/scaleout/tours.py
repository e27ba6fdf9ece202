"""The tours both the fixtures' tests and the benchmark drive (mcpkit's Client)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mcpkit import Client
from mcpkit.types import CreateMessageResult, Root, TextContent
from tests.scaleout.cluster import Deployment, direct_url


async def until(
    predicate: Callable[[], bool], timeout: float = 20.0, *, seen: object = None
) -> None:
    """Wait (bounded) for ``predicate`` to hold; ``seen`` (what was received) is shown
    when it does not."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached in time; seen: {seen!r}")
        await asyncio.sleep(0.02)


async def sample(params: Any, ctx: Any) -> CreateMessageResult:
    text = params.messages[0].content.text
    return CreateMessageResult(
        role="assistant", content=TextContent(text=f"re: {text}"), model="m", stop_reason="endTurn"
    )


def elicit(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"v": "yes"}}


ROOTS = [Root(uri="file:///srv/data", name="data")]


def text(result: Any) -> str:
    return str(result.content[0].text)


async def replica_of(client: Client) -> str:
    result = await client.call_tool("replica", {})
    return str(result.structured_content["id"])


async def consecutive_replicas(client: Client, count: int = 6) -> list[str]:
    """Which replica served each of ``count`` calls in a row."""
    return [await replica_of(client) for _ in range(count)]


def client(url: str, era: str, **kwargs: Any) -> Client:
    return Client(
        url,
        era=era,  # type: ignore[arg-type]
        sampling_handler=sample,
        elicitation_handler=elicit,
        roots=ROOTS,
        timeout=30,
        **kwargs,
    )


async def replica_counts(live: Deployment) -> dict[str, dict[str, Any]]:
    """What each running replica says it served and holds (its ``replica`` tool), asked
    directly with stateless 2026 calls."""

    async def ask(url: str) -> dict[str, Any]:
        async with Client(url, era="2026-07-28", timeout=30) as direct:
            result = await direct.call_tool("replica", {})
            return dict(result.structured_content or {})

    members = [m for m in live.replicas if m.listening()]
    answers = await asyncio.gather(*(ask(direct_url(m)) for m in members))
    return {m.name: answer for m, answer in zip(members, answers, strict=True)}
