"""``mcp.shared._httpx_utils`` on mcpkit: ``create_mcp_http_client``, the HTTP client with
the official SDK's defaults (redirects followed, 30 s timeouts, 300 s to read), as the
SDK's example servers import it (``servers/simple-tool``).

The 2.x SDK's client is an ``httpx2.AsyncClient``, 1.x's an ``httpx.AsyncClient``: the
library of a ``timeout`` or ``auth`` given decides; else ``httpx2`` when it is installed
(what a server written for 2.x has), ``httpx`` otherwise."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Protocol

__all__ = ["MCP_DEFAULT_SSE_READ_TIMEOUT", "MCP_DEFAULT_TIMEOUT", "create_mcp_http_client"]

#: Seconds for connecting, writing and waiting for a connection (the SDK's default).
MCP_DEFAULT_TIMEOUT = 30.0
#: Seconds to wait for data to read (long enough for an SSE stream).
MCP_DEFAULT_SSE_READ_TIMEOUT = 300.0


class McpHttpClientFactory(Protocol):
    """What makes an HTTP client as :func:`create_mcp_http_client` does."""

    def __call__(
        self, headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any: ...


def _library(*given: Any) -> ModuleType:
    for value in given:
        top = type(value).__module__.partition(".")[0]
        if value is not None and top in ("httpx", "httpx2"):
            return importlib.import_module(top)
    try:
        return importlib.import_module("httpx2")
    except ImportError:
        return importlib.import_module("httpx")


def create_mcp_http_client(
    headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
) -> Any:
    """An ``AsyncClient`` (to use as ``async with``) following redirects, with ``headers``,
    ``timeout`` (default: 30 s, 300 s to read) and ``auth``."""
    library = _library(timeout, auth)
    kwargs: dict[str, Any] = {"follow_redirects": True}
    kwargs["timeout"] = (
        library.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
        if timeout is None
        else timeout
    )
    if headers is not None:
        kwargs["headers"] = headers
    if auth is not None:
        kwargs["auth"] = auth
    return library.AsyncClient(**kwargs)
