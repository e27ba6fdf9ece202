"""The client side of the 2024-11-05 HTTP+SSE transport, for old servers.

:class:`~mcpkit.transports.http.client.StreamableHTTPClientTransport` falls back to it when a
server refuses POST ``initialize`` with 400/404/405: a GET stream whose ``endpoint`` event
names where to POST, then every incoming message on that stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

import httpx
import orjson

from mcpkit.errors import TransportError
from mcpkit.fetch.policy import origin_of
from mcpkit.transports.http import sse

__all__ = ["HttpSseClient"]

logger = logging.getLogger("mcpkit.http.legacy")


class HttpSseClient:
    """Client side of HTTP+SSE: a GET stream for incoming messages, POSTs for outgoing."""

    def __init__(
        self,
        url: str,
        client: httpx.AsyncClient,
        headers: Callable[..., dict[str, str]],
        auth: Callable[[], Any],
        deliver: Callable[[Any], None],
        on_lost: Callable[[], None] | None = None,
        *,
        extensions: dict[str, object] | None = None,
    ) -> None:
        self.url = url
        self.client = client
        self.headers = headers
        self.auth = auth
        self.deliver = deliver
        self.on_lost = on_lost
        self.extensions = extensions
        self.endpoint: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def connect(self, timeout: float) -> bool:
        """Open the stream; True once its ``endpoint`` event arrived. An ``endpoint`` on
        another origin than the stream's is refused (:class:`~mcpkit.errors.TransportError`):
        the spec requires the same origin, and the configured headers go nowhere else."""
        found: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.get_running_loop().create_task(self._run(found))
        try:
            async with asyncio.timeout(timeout):
                endpoint = await found
        except TimeoutError:
            endpoint = None
        if endpoint is None:
            await self.aclose()
            return False
        url = urljoin(self.url, endpoint)
        if origin_of(url) != origin_of(self.url):
            await self.aclose()
            raise TransportError(
                f"The server's HTTP+SSE endpoint event names {url}, on another origin than "
                f"{self.url}: refused (the endpoint must be on the server's own origin)"
            )
        self.endpoint = url
        return True

    async def _run(self, found: asyncio.Future[str | None]) -> None:
        headers = self.headers(accept="text/event-stream")
        headers.pop("mcp-session-id", None)
        headers.pop("mcp-protocol-version", None)
        try:
            async with self.client.stream(
                "GET", self.url, headers=headers, auth=self.auth(), extensions=self.extensions
            ) as r:
                ctype = r.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                if r.status_code != 200 or ctype != "text/event-stream":
                    return
                decoder = sse.SSEDecoder()
                async for chunk in r.aiter_bytes():
                    for event in decoder.feed(chunk):
                        if event.event == "endpoint":
                            if not found.done():
                                found.set_result(event.data.strip())
                        elif event.event == "message" and event.data and found.done():
                            try:
                                msg = orjson.loads(event.data)
                            except orjson.JSONDecodeError:
                                logger.warning("Ignoring a non-JSON legacy SSE event")
                                continue
                            self.deliver(msg)
        except httpx.HTTPError as exc:
            logger.info("Legacy SSE stream ended: %s", exc)
        finally:
            if not found.done():
                found.set_result(None)
            elif self.on_lost is not None:
                self.on_lost()

    async def post(self, message: Any) -> None:
        from mcpkit.transports.http.client import HttpStatusError

        assert self.endpoint is not None
        headers = self.headers(**{"content-type": "application/json"})
        headers.pop("mcp-session-id", None)
        headers.pop("mcp-protocol-version", None)
        response = await self.client.post(
            self.endpoint,
            content=orjson.dumps(message),
            headers=headers,
            auth=self.auth(),
            extensions=self.extensions,
        )
        if response.status_code >= 400:
            raise HttpStatusError(response.status_code, response.reason_phrase, response.content)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            self.on_lost = None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
