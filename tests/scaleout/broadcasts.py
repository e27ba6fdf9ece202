"""Raw HTTP helpers for the scale-out tests that follow SSE streams themselves (missed
broadcasts, resumption on another replica): the messages and event ids exactly as sent."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson

from mcpkit.redis import RedisBackend
from tests.scaleout.cluster import PREFIX, Deployment, direct_url
from tests.scaleout.inprocess import until

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
VERSION = "2025-11-25"


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str | None, Any]]:
    """(event id, message) of each SSE event with data (priming events skipped)."""
    event_id: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "":
            body = "\n".join(data).strip()
            if body:
                yield event_id, orjson.loads(body)
            event_id, data = None, []


class RawSession:
    """A 2025-11-25 session driven with plain HTTP requests (no GET stream unless asked)."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.sid = ""
        self.next_id = 1

    @property
    def headers(self) -> dict[str, str]:
        return {**HEADERS, "mcp-session-id": self.sid, "mcp-protocol-version": VERSION}

    async def open(self) -> None:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
        first = await self.http.post(self.url, json=init, headers=HEADERS)
        assert first.status_code == 200, first.text
        self.sid = first.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await self.http.post(self.url, json=note, headers=self.headers)).status_code == 202

    async def request(self, method: str, params: Any, url: str | None = None) -> Any:
        """Send one request (to ``url``, default the session's) and return its result."""
        rid = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        answer = await self.http.post(url or self.url, json=message, headers=self.headers)
        assert answer.status_code == 200, answer.text
        if answer.headers["content-type"].startswith("application/json"):
            reply = answer.json()
        else:
            reply = next(
                orjson.loads(line[5:]) for line in answer.text.splitlines() if '"id":' in line
            )
        assert reply.get("id") == rid and "result" in reply, reply
        return reply["result"]

    async def call(self, tool: str, url: str | None = None, **arguments: Any) -> Any:
        return await self.request("tools/call", {"name": tool, "arguments": arguments}, url)


async def published(deployment: Deployment, session: RawSession, count: int) -> None:
    """Wait until ``count`` bus events after the session's bus position are in the log: a
    tool's announcement is published as it answers, not before, and the GET stream opened
    next must find them there (test-only reads of the layout)."""
    backend = RedisBackend(deployment.redis.url, prefix=PREFIX)
    try:
        client = backend.client
        keys = backend.keys
        async with asyncio.timeout(20):
            while True:
                position = await client.hget(keys.session(session.sid), "bp")
                after = position.decode() if position else "0-0"
                if len(await client.xrange(keys.bus_log, f"({after}", "+")) >= count:
                    return
                await asyncio.sleep(0.02)
    finally:
        await backend.aclose()


def notification_name(message: Any) -> str:
    """``tools`` for a list change, the URI for a resource update."""
    method = str(message["method"])
    if method == "notifications/resources/updated":
        return str(message["params"]["uri"])
    return method.split("/")[1]


async def follow_get(
    session: RawSession,
    url: str,
    expected: list[str],
    *,
    last_event_id: str | None = None,
    marker: str = "note://marker",
) -> tuple[list[str], str | None]:
    """Open a GET stream of ``session`` on ``url`` and read notifications until those
    ``expected`` came; then touch ``marker`` (subscribed) and read until it arrives, so
    whatever came twice shows up before it. Returns every notification name read (the
    marker last) and the last event id."""
    headers = {**session.headers, "accept": "text/event-stream"}
    headers.pop("content-type")
    if last_event_id is not None:
        headers["last-event-id"] = last_event_id
    seen: list[str] = []
    last: str | None = None
    async with asyncio.timeout(30):
        async with session.http.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            events = sse_events(response)
            async for event_id, message in events:
                last = event_id or last
                if "method" in message:
                    seen.append(notification_name(message))
                if set(expected) <= set(seen):
                    break
            await session.call("touch", uri=marker)
            async for event_id, message in events:
                last = event_id or last
                if "method" in message:
                    seen.append(notification_name(message))
                    if seen[-1] == marker:
                        break
    return seen, last


class GetStream:
    """A GET stream of ``session`` read in the background: the notification names."""

    def __init__(self, session: RawSession, url: str) -> None:
        self.seen: list[str] = []
        headers = {**session.headers, "accept": "text/event-stream"}
        headers.pop("content-type")
        self.task = asyncio.get_running_loop().create_task(self._read(session.http, url, headers))

    async def _read(self, http: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        async with http.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            async for _, message in sse_events(response):
                if "method" in message:
                    self.seen.append(notification_name(message))

    async def until_marked(self, session: RawSession, marker: str = "note://marker") -> None:
        """Touch ``marker`` and wait until it arrives (whatever came twice came before)."""
        count = self.seen.count(marker)
        await session.call("touch", uri=marker)
        await until(lambda: self.seen.count(marker) > count, f"{marker} reaches the stream")

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def missed_broadcasts_tour(deployment: Deployment) -> None:
    """A 2025 session with no GET stream open hears, when it next opens one (on any
    replica, fresh or resumed), the list changes and updates of its subscribed resources
    made meanwhile on every replica, coalesced: once per kind and URI."""
    async with httpx.AsyncClient(timeout=30) as http:
        session = RawSession(http, deployment.url)
        await session.open()
        for uri in ("note://p", "note://marker"):
            await session.request("resources/subscribe", {"uri": uri})
        for _ in range(3):  # through nginx: each on another replica
            await session.call("touch", uri="note://p")
            await session.call("touch", uri="note://unsubscribed")
            await session.call("changed")
        await published(deployment, session, 9)
        first, second = (direct_url(r) for r in deployment.replicas[:2])
        seen, last = await follow_get(session, first, ["tools", "note://p"])
        assert seen == ["note://p", "tools", "note://marker"] or seen == [
            "tools",
            "note://p",
            "note://marker",
        ], seen
        assert last is not None
        # The GET stream is closed: changes on every replica wait for the next one, which
        # resumes on another replica from the last event id.
        for _ in range(2):
            await session.call("changed")
            await session.call("touch", uri="note://p")
            await session.call("touch", uri="note://unsubscribed")
        await published(deployment, session, 6)
        seen, _ = await follow_get(session, second, ["tools", "note://p"], last_event_id=last)
        # (A change made just as the first stream closed may have gone to it, still seen
        # open, and so come back from its log: each kind at least once, nothing else.)
        assert seen[-1] == "note://marker" and set(seen[:-1]) == {"tools", "note://p"}, seen


async def resumption_tour(deployment: Deployment) -> None:
    """A tool call's stream read from one replica, dropped, and resumed on another with
    Last-Event-ID: every progress notification once, in order, then the result (the
    events made after the resumption reach the other replica live, published once it
    follows the stream)."""
    first, second = (direct_url(r) for r in deployment.replicas[:2])
    async with httpx.AsyncClient(timeout=30) as http:
        session = RawSession(http, first)
        await session.open()
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "stream",
                "arguments": {"count": 8, "delay": 0.1},
                "_meta": {"progressToken": "p"},
            },
        }
        progress: list[float] = []
        last: str | None = None
        async with asyncio.timeout(30):
            async with http.stream("POST", first, json=call, headers=session.headers) as r:
                async for event_id, message in sse_events(r):
                    last = event_id or last
                    assert message.get("method") == "notifications/progress", message
                    progress.append(message["params"]["progress"])
                    if len(progress) == 2:
                        break  # the connection drops here; the tool goes on
            headers = {**session.headers, "accept": "text/event-stream", "last-event-id": last}
            headers.pop("content-type")
            result = None
            async with http.stream("GET", second, headers=headers) as r:
                assert r.status_code == 200
                async for _, message in sse_events(r):
                    if message.get("method") == "notifications/progress":
                        progress.append(message["params"]["progress"])
                    elif message.get("id") == 1:
                        result = message["result"]
                        break
        assert progress == [1, 2, 3, 4, 5, 6, 7, 8]
        assert result is not None and result["content"][0]["text"].startswith("streamed 8 on r1")
