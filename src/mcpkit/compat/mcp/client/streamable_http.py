"""``mcp.client.streamable_http`` on mcpkit: ``streamable_http_client(url, http_client=...)``
names a Streamable HTTP server for ``mcp.client.Client``, carrying the ``auth=`` and the
headers of the given ``httpx2.AsyncClient`` (or ``httpx.AsyncClient``) to mcpkit's client.
Entered itself for its streams (``async with streamable_http_client(url) as (read, write)``),
as the SDK's ``ClientSession`` takes them, it is not provided and says so."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.mcp.client._missing import not_provided

__all__ = ["StreamableHttpTarget", "streamable_http_client", "streamablehttp_client"]

#: Headers an HTTP client sets by itself: not the caller's to pass on.
_CLIENT_DEFAULTS = frozenset({"accept", "accept-encoding", "connection", "user-agent"})


class StreamableHttpTarget:
    """A Streamable HTTP server's URL with the caller's HTTP authentication and headers."""

    def __init__(self, url: str, http_client: Any = None, terminate_on_close: bool = True):
        self.url = url
        self.terminate_on_close = terminate_on_close
        self.auth: Any = getattr(http_client, "auth", None) if http_client else None
        headers = getattr(http_client, "headers", None) or {}
        self.headers = {k: v for k, v in headers.items() if k.lower() not in _CLIENT_DEFAULTS}

    async def __aenter__(self) -> Any:
        not_provided("streamable_http_client's streams (ClientSession)")

    async def __aexit__(self, *exc_info: object) -> None:
        return None


def streamable_http_client(
    url: str,
    *,
    http_client: Any = None,
    terminate_on_close: bool = True,
    max_sse_event_size: int | None = None,
) -> StreamableHttpTarget:
    """The server at ``url`` for ``Client(...)``, through ``http_client``'s auth and headers."""
    return StreamableHttpTarget(url, http_client, terminate_on_close)


def streamablehttp_client(*args: Any, **kwargs: Any) -> Any:
    """Not provided (1.x's streams): ``mcpkit.Client(url)`` instead."""
    not_provided("streamablehttp_client")
