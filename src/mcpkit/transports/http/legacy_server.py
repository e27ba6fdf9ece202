"""Deprecated name of :mod:`mcpkit.transports.http.sse_2024_server` (the 2024-11-05 HTTP+SSE
transport's server side): ``LegacySSEServer`` is :class:`HttpSseServer`,
``LegacySessionTransport`` is :class:`HttpSseTransport`."""

from __future__ import annotations

import warnings

from mcpkit.transports.http.sse_2024_server import HttpSseServer, HttpSseTransport

warnings.warn(
    "mcpkit.transports.http.legacy_server is deprecated: use "
    "mcpkit.transports.http.sse_2024_server (HttpSseServer, HttpSseTransport)",
    DeprecationWarning,
    stacklevel=2,
)

LegacySSEServer = HttpSseServer
LegacySessionTransport = HttpSseTransport

__all__ = ["LegacySSEServer", "LegacySessionTransport"]
