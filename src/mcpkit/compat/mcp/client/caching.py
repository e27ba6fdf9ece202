"""``mcp.client.CacheConfig`` on mcpkit: the 2.x client's response cache of the cacheable
methods (2026-07-28: results kept for the ``ttlMs`` the server gives), on mcpkit's own
:class:`~mcpkit.client.cache.MemoryResponseCache`. The per-call ``cache_mode`` is
``"use"`` (served and stored), ``"refresh"`` (stored, not served) or ``"bypass"``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CacheConfig", "CacheMode", "native_cache"]

CacheMode = Literal["use", "refresh", "bypass"]


@dataclass(frozen=True)
class CacheConfig:
    """The client's response cache: ``clock`` (epoch seconds; injectable for expiry
    tests). A custom ``store``, ``default_ttl_ms`` and ``share_public`` are not provided
    (``NotImplementedError`` when the client is made)."""

    store: Any = None
    partition: str = ""
    target_id: str | None = None
    default_ttl_ms: int = 0
    clock: Callable[[], float] = time.time
    share_public: bool = False

    def __post_init__(self) -> None:
        if self.store is not None and not self.partition:
            raise ValueError("a custom store requires an explicit partition")
        if self.target_id == "":
            raise ValueError("target_id must be a non-empty string or omitted")
        if self.default_ttl_ms < 0:
            raise ValueError(f"default_ttl_ms must be >= 0, got {self.default_ttl_ms}")


def native_cache(config: CacheConfig | None) -> Any:
    """mcpkit's ``cache=`` for ``config`` (None: no cache)."""
    if config is None:
        return False
    if config.store is not None or config.default_ttl_ms or config.share_public:
        raise NotImplementedError(
            "CacheConfig(store=..., default_ttl_ms=..., share_public=...) is not provided "
            "by mcpkit's compat client: use mcpkit.Client(cache=CacheOptions(...))"
        )
    from mcpkit.client.cache import MemoryResponseCache
    from mcpkit.client.options import CacheOptions

    return CacheOptions(store=MemoryResponseCache(clock=config.clock))
