"""``mcp.client`` on mcpkit: the names of the official client that server files import
(a proxy, a gateway, a type annotation). ``Client`` (2.x's) is served over
:class:`mcpkit.Client`; ``StdioServerParameters`` is the same model;
``ClientSession`` and the transports' context managers are not provided and say so when
used: an mcpkit server talks to other servers with :class:`mcpkit.Client`."""

from __future__ import annotations

from mcpkit.compat.mcp.client.caching import CacheConfig, CacheMode
from mcpkit.compat.mcp.client.client import Client
from mcpkit.compat.mcp.client.context import ClientRequestContext
from mcpkit.compat.mcp.client.extension import (
    ClaimContext,
    ClientExtension,
    NotificationBinding,
    ResultClaim,
    UnexpectedClaimedResult,
    advertise,
)
from mcpkit.compat.mcp.client.session import ClientSession
from mcpkit.compat.mcp.client.stdio import StdioServerParameters, stdio_client
from mcpkit.compat.mcp.client.streamable_http import StreamableHttpTarget as Transport

__all__ = [
    "CacheConfig",
    "CacheMode",
    "ClaimContext",
    "Client",
    "ClientExtension",
    "ClientRequestContext",
    "ClientSession",
    "NotificationBinding",
    "ResultClaim",
    "StdioServerParameters",
    "Transport",
    "UnexpectedClaimedResult",
    "advertise",
    "stdio_client",
]
