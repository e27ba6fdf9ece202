"""Replica death: SIGKILL the replica serving streaming tool calls and listen streams.

Each round runs many streaming calls (2025 era, resumable) and ``subscriptions/listen``
streams (2026) through nginx, kills the replica that serves the first call, and restarts
it in the background while the next round runs on the others. A killed call resumes
through nginx on another replica with every progress notification it had not received,
in order, once, and then ends with the JSON-RPC error saying its handler's replica
stopped (never a hang); the calls on the other replicas finish whole. A killed listen
ends; re-opened (on another replica), it and every other listen get each later event
exactly once. Over the rounds at least 100 calls and 100 listens are killed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
from typing import Any

import pytest
import redis.asyncio as aioredis

from mcpkit import McpError
from mcpkit.client.listen import Listener
from mcpkit.redis.sessions import PRODUCER_DIED_MESSAGE
from mcpkit.redis.tasks import LEASE_EXPIRED_MESSAGE
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import client, text, until

STEPS = 8
CALLS = 30
SESSIONS = 6
LISTENS = 18
TRIALS = 100
MAX_ROUNDS = 40
#: One event per URI a round: distinct events are never coalesced by a slow listener.
URIS = [f"note://fail/{i}" for i in range(3)]


class Call:
    def __init__(self) -> None:
        self.progress: list[int] = []
        self.replica: str | None = None
        self.first = asyncio.Event()
        self.outcome: Any = None

    def on_progress(self, p: float, total: float | None, message: str | None) -> None:
        name, _, step = (message or "").partition(":")
        self.replica = self.replica or name
        self.progress.append(int(step))
        self.first.set()


async def run_call(c: Any, call: Call) -> None:
    try:
        result = await c.call_tool(
            "stream", {"count": STEPS, "delay": 0.05}, on_progress=call.on_progress, timeout=60
        )
        call.outcome = text(result)
    except McpError as exc:
        call.outcome = exc


class Listening:
    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.events: list[str] = []
        self.ended = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for event in self.listener:
                self.events.append(event.uri or event.method)
        finally:
            self.ended.set()


async def open_listen(c: Any) -> Listening:
    listener = c.listen(resources=URIS)
    await listener.__aenter__()
    return Listening(listener)


async def wait_alive(live: Deployment, count: int) -> None:
    await until(lambda: sum(r.listening() for r in live.replicas) >= count, timeout=30)


@pytest.mark.timeout(240)
async def test_kill_a_replica_mid_stream_and_mid_listen(live: Deployment) -> None:
    killed_calls = killed_listens = whole_calls = unstarted = rounds = 0
    async with contextlib.AsyncExitStack() as stack:
        legacy = [
            await stack.enter_async_context(client(live.url, "legacy")) for _ in range(SESSIONS)
        ]
        modern = await stack.enter_async_context(client(live.url, "2026-07-28"))
        listens = [await open_listen(modern) for _ in range(LISTENS)]
        for _ in range(MAX_ROUNDS):
            if killed_calls >= TRIALS and killed_listens >= TRIALS:
                break
            await wait_alive(live, 2)
            rounds += 1
            calls = [Call() for _ in range(CALLS)]
            runs = [
                asyncio.get_running_loop().create_task(run_call(legacy[i % SESSIONS], c))
                for i, c in enumerate(calls)
            ]
            waits = [asyncio.ensure_future(c.first.wait()) for c in calls]
            done, pending = await asyncio.wait(
                waits, timeout=30, return_when=asyncio.FIRST_COMPLETED
            )
            for w in pending:
                w.cancel()
            assert done, "no call started"
            # Kill at varying points of the calls; the replica serving the most of them.
            await asyncio.sleep(random.uniform(0.05, 0.15))
            serving = collections.Counter(c.replica for c in calls if c.replica is not None)
            victim = serving.most_common(1)[0][0]
            live.replica(victim).kill()
            live.replica(victim).spawn()  # back for a later round

            await asyncio.wait_for(asyncio.gather(*runs), 60)
            for call in calls:
                steps = call.progress
                assert steps == list(range(1, len(steps) + 1)), steps  # none lost, none twice
                if isinstance(call.outcome, McpError) and call.outcome.code == -32603:
                    assert call.replica in (victim, None)
                    assert call.outcome.message == PRODUCER_DIED_MESSAGE
                    killed_calls += 1
                elif isinstance(call.outcome, McpError):
                    # Killed before its stream could be resumed (before the response began:
                    # nginx answers 502, a POST is not retried elsewhere as the tool may
                    # have had effects; or before the first event id arrived).
                    assert not steps and call.outcome.code == -32000, call.outcome
                    unstarted += 1
                else:
                    assert call.outcome == f"streamed {STEPS} on {call.replica}", call.outcome
                    assert len(steps) == STEPS
                    whole_calls += 1
            # Listens on the dead replica ended: open them again (on a live one).
            await until(lambda: all(not lst.ended.is_set() for lst in listens) or True)
            for i, lst in enumerate(listens):
                if lst.ended.is_set():
                    killed_listens += 1
                    listens[i] = await open_listen(modern)
            for lst in listens:
                lst.events.clear()
            for uri in URIS:
                await modern.call_tool("touch", {"uri": uri})
            try:
                await until(lambda: all(len(lst.events) >= 3 for lst in listens))
            except AssertionError:
                raise AssertionError(
                    [
                        (lst.events, lst.ended.is_set(), lst.listener.subscription_id)
                        for lst in listens
                    ]
                ) from None
            await asyncio.sleep(0.05)
            assert all(sorted(lst.events) == URIS for lst in listens)
        for lst in listens:
            await lst.listener.aclose()
    assert killed_calls >= TRIALS and killed_listens >= TRIALS, (killed_calls, killed_listens)
    assert whole_calls > 0
    print(
        f"rounds {rounds}, killed calls {killed_calls}, killed listens {killed_listens}, ", end=""
    )
    print(f"whole calls {whole_calls}, killed before starting {unstarted}")


@pytest.mark.timeout(120)
async def test_task_of_a_killed_replica_fails_with_a_clear_error(live: Deployment) -> None:
    store = aioredis.Redis.from_url(live.redis.url)
    try:
        for era in ("legacy", "2026-07-28"):
            live.ensure_running()
            async with client(live.url, era) as c:
                handle = await c.start_tool_task("slow", {"seconds": 60})
                lease = await store.get(f"mcpkit:t:{{{handle.task_id}}}:lease")
                assert lease is not None
                runner = lease.decode().rsplit("-", 1)[0]  # "r2-<pid>": replica r2
                live.replica(runner).kill()
                with pytest.raises(McpError) as failed:
                    await handle.result(timeout=30)  # polled through the other replicas
                assert failed.value.message == LEASE_EXPIRED_MESSAGE
                assert handle.status == "failed"
    finally:
        await store.aclose()
        live.ensure_running()
