"""Replica death, counted: SIGKILL the replica serving streams, over many trials.

Usage: python bench/failover.py [--trials N] [--smoke]

Redis, 3 mcpkit replicas on it (tests/scaleout/replica.py: heartbeat every 0.15 s, lease
0.75 s, SSE ``retry`` 100 ms) and nginx round-robin in front (tests/scaleout/cluster.py).
Every round opens, through nginx, fresh 2025-era sessions (mcpkit's Client) and, on one
2026-07-28 client, ``subscriptions/listen`` streams kept across rounds; then

1. each session's GET (standalone) stream is found on the replica holding it, and fed
   ``push`` calls (a session notification related to no request) until all have arrived;
2. every listen is fed one resource update per URI, until all have arrived;
3. every session starts a streaming tool call (``stream``: a progress notification every
   50 ms, SSE with event ids); after the first progress arrives, the replica serving the
   most calls is SIGKILLed and started again in the background (the next round runs on
   the other two while it starts);
4. every session pushes again (its GET stream may be down: those wait in the log), the
   calls end, the ended listens are opened again (on a live replica) and every listen is
   fed another update per URI.

A trial is one stream the dead replica was serving. Per kind:

- **lost**: streaming call: progress notifications the server had written (its Redis event
  log, read after the round) that the call never received; GET stream: pushes whose call
  had answered, never received; listen: updates published while it was open, never
  received (the updates published while a killed listen was down are not expected: a
  listen is not resumable, the client re-lists when it re-listens);
- **duplicated**: a message received more than once;
- **ended with error**: the killed call ended with a JSON-RPC error (-32603 "the server
  process handling this request stopped", once the dead replica's lease expired; or, when
  it died before the response began, the error of a request that cannot be resumed); the
  killed listen ended with its connection's error. A GET stream is no request: it is
  resumed (``Last-Event-ID``, on another replica), and its time is the time until it
  delivered again;
- **time to error**: from the SIGKILL to that end (GET stream: to the first message after).

Bounded: every call has a 60 s timeout and every wait a bound; a trial that neither ends
nor resumes in time counts as hung. Exits 1 on any loss, duplicate or hang.
``--smoke``: a few trials of each kind, the same checks.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402
from tests.scaleout.cluster import (  # noqa: E402
    PREFIX,
    Deployment,
    direct_url,
    start_deployment,
    stop_deployment,
)

from mcpkit import Client, McpError  # noqa: E402
from mcpkit.client.listen import Listener  # noqa: E402
from mcpkit.errors import McpkitError, RequestTimeout  # noqa: E402
from mcpkit.redis.sessions import PRODUCER_DIED_MESSAGE  # noqa: E402

STEPS = 10
STEP_DELAY = 0.05
PUSHES = 3
URIS = [f"note://failover/{i}" for i in range(3)]
CALL_TIMEOUT = 60.0
WAIT = 20.0
KINDS = ("streaming call (2025)", "GET stream (2025)", "listen (2026)")


@dataclass
class Tally:
    """What one kind counted over the trials."""

    trials: int = 0
    lost: int = 0
    duplicated: int = 0
    ended_with_error: int = 0
    hung: int = 0
    times: list[float] = field(default_factory=list)
    #: Streams of the kind that the kill did not touch, and what they lost or repeated.
    untouched: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)


class Session:
    """One 2025-era session: its GET stream's pushes and its streaming call."""

    def __init__(self, index: int, round_no: int) -> None:
        self.client: Client
        self.tag = f"{round_no}.{index}"
        self.sid = ""
        self.holder: str | None = None
        self.received: list[tuple[int, float]] = []
        self.acked: set[int] = set()
        self.arrived = asyncio.Event()
        self.progress: list[int] = []
        self.replica: str | None = None
        self.first = asyncio.Event()
        self.outcome: Any = None
        self.ended = 0.0

    def on_log(self, params: Any) -> None:
        data = getattr(params, "data", None)
        if isinstance(data, int):
            self.received.append((data, time.monotonic()))
            self.arrived.set()

    def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        name, step, _tag = (message or "::").split(":", 2)
        self.replica = self.replica or name
        self.progress.append(int(step))
        self.first.set()

    async def push(self, seqs: range) -> None:
        for seq in seqs:
            try:
                await self.client.call_tool("push", {"seq": seq}, timeout=CALL_TIMEOUT)
            except (McpkitError, OSError):
                continue  # not acknowledged: not expected (it may still arrive, once)
            self.acked.add(seq)

    async def wait_pushes(self, timeout: float = WAIT) -> bool:
        deadline = time.monotonic() + timeout
        while not self.acked <= {seq for seq, _ in self.received}:
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)
        return True

    async def call(self) -> None:
        try:
            result = await self.client.call_tool(
                "stream",
                {"count": STEPS, "delay": STEP_DELAY, "tag": self.tag},
                on_progress=self.on_progress,
                timeout=CALL_TIMEOUT,
            )
            self.outcome = result.content[0].text  # type: ignore[union-attr]
        except (McpkitError, OSError) as exc:
            self.outcome = exc
        self.ended = time.monotonic()


class Listening:
    """One open ``subscriptions/listen`` stream and what it received."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.events: list[str] = []
        self.expected: list[str] = []
        self.ended = asyncio.Event()
        self.ended_at = 0.0
        self.arrived = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for event in self.listener:
                self.events.append(event.uri or event.method)
                self.arrived.set()
        finally:
            self.ended_at = time.monotonic()
            self.ended.set()
            self.arrived.set()

    def error(self) -> BaseException | None:
        """The exception the listen request ended with (None: it ended cleanly)."""
        request = self.listener._request  # the listen request's task (Listener keeps it)
        if request is None or not request.done() or request.cancelled():
            return None
        return request.exception()

    async def wait_all(self, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while (
            not collections.Counter(self.events) >= collections.Counter(self.expected)
            and not self.ended.is_set()
        ):
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)


async def open_listen(modern: Client) -> Listening:
    listener = modern.listen(resources=URIS)
    await listener.__aenter__()
    return Listening(listener)


async def holders(
    live: Deployment, direct: dict[str, Client]
) -> tuple[dict[str, str], dict[str, int]]:
    """Session id -> the replica holding its GET stream, and replica -> its open listens
    (asked of each replica directly, stateless 2026 calls)."""
    out: dict[str, str] = {}
    listens: dict[str, int] = {}

    async def ask(name: str) -> None:
        try:
            result = await direct[name].call_tool("replica", {}, timeout=10)
        except (McpkitError, OSError):
            return
        served = result.structured_content or {}
        for sid in served.get("gets", []):
            out[sid] = name
        listens[name] = int(served.get("listens", 0))

    await asyncio.gather(*(ask(r.name) for r in live.replicas if r.listening()))
    return out, listens


async def until(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def written_steps(store: aioredis.Redis, sid: str, tag: str) -> set[int]:
    """The progress steps of the call tagged ``tag`` in the session's Redis event logs."""
    steps: set[int] = set()
    streams = await store.hkeys(f"{PREFIX}:s:{{{sid}}}:streams")
    for key in streams:
        name = key.decode() if isinstance(key, bytes) else str(key)
        for _id, fields in await store.xrange(f"{PREFIX}:s:{{{sid}}}:ev:{name}"):
            data = fields.get(b"d")
            if data is None:
                continue
            message = orjson.loads(data)
            if message.get("method") != "notifications/progress":
                continue
            text = str(message.get("params", {}).get("message", ""))
            parts = text.split(":")
            if len(parts) == 3 and parts[2] == tag:
                steps.add(int(parts[1]))
    return steps


def duplicates(items: list[Any]) -> int:
    return len(items) - len(set(items))


class Failover:
    def __init__(self, live: Deployment, args: argparse.Namespace) -> None:
        self.live = live
        self.args = args
        self.tallies = {kind: Tally() for kind in KINDS}
        self.store = aioredis.Redis.from_url(live.redis.url)
        self.listens: list[Listening] = []
        self.rounds = 0
        #: A stateless client per replica, asking it directly what it holds.
        self.direct: dict[str, Client] = {}
        self._mark = 0.0

    def enough(self) -> bool:
        return all(t.trials >= self.args.trials for t in self.tallies.values())

    def mark(self, phase: str) -> None:
        """With --verbose: how long each phase of a round took (stderr)."""
        now = time.monotonic()
        if self.args.verbose:
            print(f"  {phase}: {now - self._mark:.2f} s", file=sys.stderr)
        self._mark = now

    async def run(self) -> None:
        self._mark = time.monotonic()
        async with contextlib.AsyncExitStack() as stack:
            for member in self.live.replicas:
                self.direct[member.name] = await stack.enter_async_context(
                    Client(direct_url(member), era="2026-07-28", timeout=10)
                )
            await self.rounds_of_trials()

    async def rounds_of_trials(self) -> None:
        async with Client(self.live.url, era="2026-07-28", timeout=CALL_TIMEOUT) as modern:
            self.listens = [await open_listen(modern) for _ in range(self.args.listens)]
            try:
                while not self.enough() and self.rounds < self.args.max_rounds:
                    self.rounds += 1
                    await self.round(modern)
                    if not self.args.smoke:
                        done = ", ".join(f"{t.trials}" for t in self.tallies.values())
                        print(f"round {self.rounds}: trials {done}", file=sys.stderr)
            finally:
                for listening in self.listens:
                    await listening.listener.aclose()
        await self.store.aclose()

    async def feed_listens(self, modern: Client) -> None:
        for listening in self.listens:
            if not listening.ended.is_set():
                listening.expected += URIS
        for uri in URIS:
            await modern.call_tool("touch", {"uri": uri})
        await asyncio.gather(*(listening.wait_all() for listening in self.listens))

    async def round(self, modern: Client) -> None:
        live = self.live
        for member in live.replicas:  # the one killed last round is starting meanwhile
            if member.proc is None or member.proc.poll() is not None:
                member.spawn()
        if not await until(lambda: sum(r.listening() for r in live.replicas) >= 2, 60):
            raise RuntimeError("fewer than 2 replicas came back")
        self.mark("replicas up")
        async with contextlib.AsyncExitStack() as stack:
            sessions = [Session(i, self.rounds) for i in range(self.args.sessions)]

            async def connect(session: Session) -> None:
                session.client = await stack.enter_async_context(
                    Client(live.url, era="legacy", timeout=CALL_TIMEOUT, on_log=session.on_log)
                )
                session.sid = session.client.transport.session_id or ""  # type: ignore[attr-defined]

            await asyncio.gather(*(connect(s) for s in sessions))
            self.mark("sessions")
            # 1. Every GET stream open somewhere; pushes through it.
            held: dict[str, str] = {}
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                held, _ = await holders(live, self.direct)
                if all(s.sid in held for s in sessions):
                    break
                await asyncio.sleep(0.05)
            for session in sessions:
                session.holder = held.get(session.sid)
            await asyncio.gather(*(s.push(range(1, PUSHES + 1)) for s in sessions))
            await asyncio.gather(*(s.wait_pushes() for s in sessions))
            self.mark("GET streams found, pushes")
            # 2. Every listen hears an update per URI.
            await self.feed_listens(modern)
            _, listens = await holders(live, self.direct)  # listens stay until the kill
            self.mark("listens fed")
            # 3. The streaming calls; SIGKILL the replica serving the most of them.
            calls = [asyncio.get_running_loop().create_task(s.call()) for s in sessions]
            firsts = [asyncio.ensure_future(s.first.wait()) for s in sessions]
            _done, pending = await asyncio.wait(
                firsts, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED
            )
            for waiter in pending:
                waiter.cancel()
            await asyncio.sleep(random.uniform(0.05, 0.15))  # kill at varying points
            serving = collections.Counter(s.replica for s in sessions if s.replica is not None)
            if not serving:
                raise RuntimeError("no streaming call started")
            victim = serving.most_common(1)[0][0]
            on_victim = listens.get(victim, 0)
            listening_before = [lst for lst in self.listens if not lst.ended.is_set()]
            killed_at = time.monotonic()
            live.replica(victim).kill()
            live.replica(victim).spawn()  # back for a later round
            self.mark("calls started, kill")
            # 4. Pushes while some GET streams are down; the calls end; listens re-open.
            await asyncio.gather(*(s.push(range(PUSHES + 1, 2 * PUSHES + 1)) for s in sessions))
            await asyncio.wait_for(asyncio.gather(*calls), CALL_TIMEOUT + 10)
            await asyncio.gather(*(s.wait_pushes() for s in sessions))
            await asyncio.sleep(0.2)  # a message arriving twice would be here by now
            self.mark("calls ended, pushes after")
            for session in sessions:
                await self.count_session(session, victim, killed_at)
            # The victim's listens end (bounded); the others must not.
            await until(
                lambda: sum(lst.ended.is_set() for lst in listening_before) >= on_victim, WAIT
            )
            tally = self.tallies["listen (2026)"]
            ended = sum(lst.ended.is_set() for lst in listening_before)
            tally.hung += max(0, on_victim - ended)
            for i, listening in enumerate(self.listens):
                if listening in listening_before:
                    self.count_listen(listening, killed_at)
                self.count_listen_events(listening)
                if listening.ended.is_set():
                    self.listens[i] = await open_listen(modern)
            await self.feed_listens(modern)
            await asyncio.sleep(0.05)
            for listening in self.listens:
                self.count_listen_events(listening)
            self.mark("listens re-opened, fed")
        self.mark("sessions closed")

    async def count_session(self, session: Session, victim: str, killed_at: float) -> None:
        # The GET stream.
        get = self.tallies["GET stream (2025)"]
        seqs = [seq for seq, _ in session.received]
        lost = len(session.acked - set(seqs))
        dup = duplicates(seqs)
        if session.holder == victim:
            get.trials += 1
            after = [at for _seq, at in session.received if at > killed_at]
            if after:
                get.times.append(min(after) - killed_at)
            else:
                get.hung += 1
        else:
            get.untouched += 1
        get.lost += lost
        get.duplicated += dup
        # The streaming call.
        call = self.tallies["streaming call (2025)"]
        steps = session.progress
        dup = duplicates(steps)
        written = await written_steps(self.store, session.sid, session.tag)
        lost = len(written - set(steps))
        call.lost += lost
        call.duplicated += dup
        outcome = session.outcome
        if isinstance(outcome, str):
            call.untouched += 1
            if outcome != f"streamed {STEPS} on {session.replica}":
                call.errors[f"wrong result: {outcome}"] += 1
                call.hung += 1
            return
        call.trials += 1
        if isinstance(outcome, RequestTimeout) or not isinstance(outcome, McpkitError):
            call.hung += 1  # no answer within the call's bound
            call.errors[f"{type(outcome).__name__}: {outcome}"] += 1
            return
        call.ended_with_error += 1
        call.times.append(session.ended - killed_at)
        if isinstance(outcome, McpError) and outcome.message == PRODUCER_DIED_MESSAGE:
            call.errors[f"{outcome.code} the replica stopped (after resuming)"] += 1
        else:
            # Killed before its response began: nothing to resume (nginx answers 502, and
            # never retries a POST elsewhere: the tool may have had effects).
            code = getattr(outcome, "code", None)
            call.errors[f"{code} {type(outcome).__name__} (before the stream began)"] += 1

    def count_listen(self, listening: Listening, killed_at: float) -> None:
        tally = self.tallies["listen (2026)"]
        if not listening.ended.is_set():
            tally.untouched += 1
            return
        tally.trials += 1
        error = listening.error()
        tally.times.append(listening.ended_at - killed_at)
        if isinstance(error, McpkitError | OSError):
            tally.ended_with_error += 1
            tally.errors[f"{type(error).__name__}: {error}"] += 1
        else:
            tally.errors[f"ended without an error: {error!r}"] += 1

    def count_listen_events(self, listening: Listening) -> None:
        tally = self.tallies["listen (2026)"]
        got = collections.Counter(listening.events)
        want = collections.Counter(listening.expected)
        tally.lost += sum((want - got).values())
        tally.duplicated += sum((got - want).values())
        listening.events.clear()
        listening.expected.clear()


def table(failover: Failover) -> list[str]:
    lines = [
        f"{'kind':<22} {'trials':>6} {'lost':>5} {'dup':>4} {'ended with error':>16} "
        f"{'hung':>4} {'p50 s':>6} {'p99 s':>6}"
    ]
    for kind, t in failover.tallies.items():
        times = sorted(t.times)
        p50 = statistics.median(times) if times else float("nan")
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else float("nan")
        ended = "n/a (resumed)" if kind.startswith("GET") else str(t.ended_with_error)
        lines.append(
            f"{kind:<22} {t.trials:>6} {t.lost:>5} {t.duplicated:>4} {ended:>16} "
            f"{t.hung:>4} {p50:>6.2f} {p99:>6.2f}"
        )
    return lines


async def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcpkit-bench-failover-") as tmp:
        live = start_deployment(Path(tmp))
        try:
            failover = Failover(live, args)
            await failover.run()
        finally:
            stop_deployment(live)
    elapsed = time.monotonic() - started
    bad = sum(t.lost + t.duplicated + t.hung for t in failover.tallies.values())
    short = [k for k, t in failover.tallies.items() if t.trials < args.trials]
    print(
        f"replica SIGKILLed mid-stream: {failover.rounds} rounds, {elapsed:.0f} s "
        f"(3 replicas behind nginx on Redis, lease 0.75 s)"
    )
    for line in table(failover):
        print(line)
    print("time: SIGKILL -> the request's error (GET stream: -> its first message after)")
    for kind, t in failover.tallies.items():
        untouched = f"{t.untouched} streams of the other replicas"
        errors = ", ".join(f"{n} x {e}" for e, n in t.errors.most_common()) or "-"
        print(f"  {kind}: {untouched}; errors: {errors}")
    if short:
        print(f"too few trials for: {', '.join(short)} (raise --max-rounds)")
    verdict = "ok" if bad == 0 and not short else "FAILED"
    print(f"{verdict}: {bad} lost, duplicated or hung")
    return 0 if verdict == "ok" else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="trials of each kind, at least")
    parser.add_argument("--sessions", type=int, default=24, help="2025 sessions a round")
    parser.add_argument("--listens", type=int, default=18)
    parser.add_argument("--max-rounds", type=int, default=0, help="default: trials / 2 + 10")
    parser.add_argument("--smoke", action="store_true", help="a few trials of each kind")
    parser.add_argument("--verbose", action="store_true", help="phase times (stderr)")
    args = parser.parse_args()
    if args.smoke:
        args.trials, args.sessions, args.listens = 3, 12, 9
    if not args.max_rounds:
        args.max_rounds = args.trials // 2 + 10
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
