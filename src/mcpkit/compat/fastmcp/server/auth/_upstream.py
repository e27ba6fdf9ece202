"""What fastmcp's identity provider verifiers share on mcpkit: a GET of a provider's API
with the bearer token, and a cache of their verdicts (off by default, as fastmcp)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken

__all__ = ["TokenCache", "bearer_get"]


async def bearer_get(
    client: Any, url: str, token: str, user_agent: str, accept: str | None = None
) -> Any:
    """``GET url`` with ``token`` as its bearer credential (an ``httpx.Response``)."""
    headers = {"Authorization": f"Bearer {token}", "User-Agent": user_agent}
    if accept is not None:
        headers["Accept"] = accept
    return await client.get(url, headers=headers)


class TokenCache:
    """Verdicts kept ``ttl_seconds`` (None or 0: none kept), at most ``max_size``."""

    def __init__(self, ttl_seconds: int | None = None, max_size: int | None = None) -> None:
        self.ttl = ttl_seconds or 0
        self.max_size = max_size or 10_000
        self._entries: OrderedDict[str, tuple[float, AccessToken]] = OrderedDict()

    def get(self, token: str) -> AccessToken | None:
        """The verdict kept for ``token``, if still fresh."""
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            del self._entries[token]
            return None
        return entry[1]

    def set(self, token: str, verdict: AccessToken) -> None:
        """Keep a verdict (when caching is on)."""
        if self.ttl <= 0:
            return
        self._entries[token] = (time.monotonic() + self.ttl, verdict)
        self._entries.move_to_end(token)
        while len(self._entries) > self.max_size:
            self._entries.popitem(last=False)
