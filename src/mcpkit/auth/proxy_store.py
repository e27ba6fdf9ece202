"""Where the OAuth proxy keeps its pending logins and the provider's tokens (sealed by the
proxy before they get here: a read of the store yields none of them in clear).

:class:`ProxyStore` is the interface: values by key, with a lifetime; ``take`` reads and
deletes at once (a login's ``state`` is used once whatever the concurrency).
:class:`MemoryProxyStore` keeps them in this process, :class:`RedisProxyStore` in Redis
(every replica shares them; the ``redis`` extra).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["MemoryProxyStore", "ProxyStore", "RedisProxyStore"]


class ProxyStore(Protocol):
    """The OAuth proxy's state (see the module docstring)."""

    async def put(self, key: str, value: bytes, ttl: float | None) -> None:
        """Keep ``value`` for ``ttl`` seconds (None: until deleted)."""
        ...

    async def get(self, key: str) -> bytes | None: ...

    async def take(self, key: str) -> bytes | None:
        """The value, deleted in the same step (None when absent, expired or taken)."""
        ...


class MemoryProxyStore:
    """:class:`ProxyStore` in this process's memory (one replica); expired values are
    dropped as new ones come."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[bytes, float | None]] = {}

    async def put(self, key: str, value: bytes, ttl: float | None) -> None:
        now = time.monotonic()
        if len(self.values) >= 1000:
            for k in [k for k, (_, exp) in self.values.items() if exp is not None and exp < now]:
                del self.values[k]
        self.values[key] = (value, None if ttl is None else now + ttl)

    async def get(self, key: str) -> bytes | None:
        found = self.values.get(key)
        if found is None:
            return None
        if found[1] is not None and found[1] <= time.monotonic():
            del self.values[key]
            return None
        return found[0]

    async def take(self, key: str) -> bytes | None:
        value = await self.get(key)
        self.values.pop(key, None)
        return value


class RedisProxyStore:
    """:class:`ProxyStore` in Redis (``GETDEL`` takes a value once): ``redis`` is a URL or
    a ``redis.asyncio.Redis``; keys live under ``prefix``."""

    def __init__(self, redis: str | Redis, *, prefix: str = "mcpkit:proxy:") -> None:
        if isinstance(redis, str):
            from redis.asyncio import Redis as RedisClient

            redis = RedisClient.from_url(redis)
        self.redis: Any = redis
        self.prefix = prefix

    async def put(self, key: str, value: bytes, ttl: float | None) -> None:
        ex = None if ttl is None else max(1, int(ttl))
        await self.redis.set(self.prefix + key, value, ex=ex)

    async def get(self, key: str) -> bytes | None:
        value = await self.redis.get(self.prefix + key)
        return None if value is None else bytes(value)

    async def take(self, key: str) -> bytes | None:
        value = await self.redis.getdel(self.prefix + key)
        return None if value is None else bytes(value)

    async def aclose(self) -> None:
        """Close the Redis connection."""
        await self.redis.aclose()
