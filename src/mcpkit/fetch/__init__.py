"""The fetch policy: what the client fetches when a server names a URL (see
:mod:`mcpkit.fetch.policy`)."""

from __future__ import annotations

from mcpkit.errors import FetchRefused
from mcpkit.fetch.fetcher import Fetcher
from mcpkit.fetch.policy import FetchPolicy, address_kind

__all__ = ["FetchPolicy", "FetchRefused", "Fetcher", "address_kind"]
