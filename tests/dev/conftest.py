"""Fixtures of the dev loop's tests: a copy of the sample server in a temporary folder and a
running dev server for it (on a free loopback port)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit.dev import DevServer

SAMPLE = Path(__file__).with_name("sample_server.py")


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    target = tmp_path / "server.py"
    shutil.copy(SAMPLE, target)
    return target


@pytest.fixture
async def dev(sample_file: Path) -> AsyncIterator[DevServer]:
    async with DevServer(str(sample_file), interval=0.1) as server:
        yield server


class Events:
    """The dev server's SSE stream, read in the background."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()

    async def feed(self, response: httpx.Response) -> None:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                async with self._changed:
                    self.seen.append(json.loads(line[6:]))
                    self._changed.notify_all()

    async def wait_for(self, kind: str, timeout: float = 30, **match: Any) -> dict[str, Any]:
        """The first event of ``kind`` whose fields include ``match``."""

        def found() -> dict[str, Any] | None:
            for event in self.seen:
                if event["type"] == kind and all(event.get(k) == v for k, v in match.items()):
                    return event
            return None

        try:
            async with asyncio.timeout(timeout), self._changed:
                await self._changed.wait_for(lambda: found() is not None)
        except TimeoutError:
            seen = [(e["type"], e.get("id")) for e in self.seen]  # request ids
            raise AssertionError(f"no {kind} event {match} in {seen}") from None
        event = found()
        assert event is not None
        return event


@asynccontextmanager
async def events_of(http: httpx.AsyncClient, token: str) -> AsyncIterator[Events]:
    events = Events()
    async with http.stream("GET", "/api/events", params={"token": token}) as response:
        assert response.status_code == 200
        task = asyncio.create_task(events.feed(response))
        await events.wait_for("hello")
        try:
            yield events
        finally:
            task.cancel()
