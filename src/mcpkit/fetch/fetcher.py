"""One operation's fetches under a :class:`~mcpkit.fetch.policy.FetchPolicy`: each URL
checked before it is requested, redirects never followed, bodies streamed and capped, and
one deadline for all of them."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from mcpkit.errors import FetchRefused
from mcpkit.fetch.policy import FetchPolicy

__all__ = ["Fetcher"]


class Fetcher:
    """Fetches for the MCP server at ``server_url`` with ``http``; the deadline starts now."""

    def __init__(self, http: httpx.AsyncClient, policy: FetchPolicy, server_url: str) -> None:
        self.http = http
        self.policy = policy
        self.server_url = server_url
        self._loop = asyncio.get_running_loop()
        self._ends = self._loop.time() + policy.deadline

    def _remaining(self, url: str) -> float:
        left = self._ends - self._loop.time()
        if left <= 0:
            raise self._late(url)
        return left

    def _late(self, url: str) -> FetchRefused:
        return FetchRefused(
            f"Gave up on {url}: the {self.policy.deadline:g} s deadline for this operation "
            "passed (FetchPolicy.deadline)",
            url=url,
            rule="deadline",
        )

    async def request(self, method: str, url: str, *, what: str, **kwargs: Any) -> httpx.Response:
        """``method url`` once the policy allows it; the response with its whole body read.

        :class:`~mcpkit.errors.FetchRefused` when the policy refuses the URL, the body is
        over ``max_bytes`` or compressed, or the deadline passes; ``httpx.HTTPError`` when
        the exchange fails."""
        try:
            async with asyncio.timeout(self._remaining(url)):
                await self.policy.check(url, server_url=self.server_url, what=what)
                return await self._exchange(method, url, **kwargs)
        except TimeoutError:
            raise self._late(url) from None

    async def _exchange(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        cap = self.policy.max_bytes
        headers = dict(kwargs.pop("headers", None) or {})
        headers["accept-encoding"] = "identity"
        request = self.http.build_request(method, url, headers=headers, **kwargs)
        response = await self.http.send(request, stream=True, follow_redirects=False)
        try:
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("identity", ""):
                raise FetchRefused(
                    f"Refused the answer of {url}: it is compressed ({encoding})",
                    url=url,
                    rule="encoding",
                )
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > cap:
                raise self._too_large(url)
            body = bytearray()
            async for chunk in response.aiter_bytes():  # identity: refused otherwise
                body += chunk
                if len(body) > cap:
                    raise self._too_large(url)
        finally:
            await response.aclose()
        kept = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower() not in ("content-length", "transfer-encoding", "content-encoding")
        ]
        return httpx.Response(
            response.status_code, headers=kept, content=bytes(body), request=request
        )

    def _too_large(self, url: str) -> FetchRefused:
        return FetchRefused(
            f"Refused the answer of {url}: larger than {self.policy.max_bytes} bytes "
            "(FetchPolicy.max_bytes)",
            url=url,
            rule="size",
        )
