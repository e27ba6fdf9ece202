"""Deprecated name of :mod:`mcpkit.transports.http.sse_2024_client` (the 2024-11-05 HTTP+SSE
transport's client side): ``LegacySSEClient`` is :class:`HttpSseClient`."""

from __future__ import annotations

import warnings

from mcpkit.transports.http.sse_2024_client import HttpSseClient

warnings.warn(
    "mcpkit.transports.http.legacy_client is deprecated: use "
    "mcpkit.transports.http.sse_2024_client (HttpSseClient)",
    DeprecationWarning,
    stacklevel=2,
)

LegacySSEClient = HttpSseClient

__all__ = ["LegacySSEClient"]
