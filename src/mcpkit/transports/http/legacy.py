"""The 2024-11-05 HTTP+SSE transport, for old peers: the server side is
:mod:`~mcpkit.transports.http.legacy_server`, the client side
:mod:`~mcpkit.transports.http.legacy_client` (this module names both)."""

from __future__ import annotations

from mcpkit.transports.http.legacy_client import LegacySSEClient
from mcpkit.transports.http.legacy_server import LegacySessionTransport, LegacySSEServer

__all__ = ["LegacySSEClient", "LegacySSEServer", "LegacySessionTransport"]
