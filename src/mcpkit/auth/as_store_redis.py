"""The embedded authorization server's state in Redis: every replica behind one URL shares
its clients, codes and refresh tokens (a code issued by one is redeemed at another, a
refresh served by a third). Needs the ``redis`` extra.

Keys live under ``prefix``; codes and refresh tokens by the SHA-256 of their value (a read
of the store yields none of them). ``GETDEL`` takes a code once, ``SET NX`` marks a refresh
token used once, whatever the replica. Codes expire with their lifetime, refresh tokens with
theirs, the replay and revocation marks after ``remember`` seconds.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from mcpkit.auth.as_store import (
    AuthCode,
    RefreshGrant,
    RegisteredClient,
    decode_client,
    decode_code,
    decode_refresh,
    encode,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisAuthStore"]


class RedisAuthStore:
    """:class:`~mcpkit.auth.as_store.AuthStore` in Redis (see the module docstring):
    ``redis`` is a URL or a ``redis.asyncio.Redis``."""

    def __init__(
        self, redis: str | Redis, *, prefix: str = "mcpkit:as:", remember: int = 30 * 24 * 3600
    ) -> None:
        if isinstance(redis, str):
            from redis.asyncio import Redis as RedisClient

            redis = RedisClient.from_url(redis)
        self.redis: Any = redis
        self.prefix = prefix
        self.remember = remember

    def _k(self, kind: str, key: str) -> str:
        return f"{self.prefix}{kind}:{key}"

    async def add_client(self, client: RegisteredClient) -> None:
        await self.redis.set(self._k("client", client.client_id), encode(client))

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        data = await self.redis.get(self._k("client", client_id))
        return None if data is None else decode_client(data)

    async def put_code(self, code_hash: str, code: AuthCode) -> None:
        ttl = max(1, int(code.expires_at - time.time()) + 60)  # past expiry: refused anyway
        await self.redis.set(self._k("code", code_hash), encode(code), ex=ttl)

    async def take_code(self, code_hash: str) -> AuthCode | None:
        data = await self.redis.getdel(self._k("code", code_hash))
        if data is None:
            return None
        code = decode_code(data)
        await self.redis.set(self._k("redeemed", code_hash), code.family, ex=self.remember)
        return code

    async def code_replayed(self, code_hash: str) -> str | None:
        family = await self.redis.get(self._k("redeemed", code_hash))
        return None if family is None else bytes(family).decode()

    async def put_refresh(self, token_hash: str, grant: RefreshGrant) -> None:
        ttl = self.remember
        if grant.expires_at is not None:
            ttl = max(1, int(grant.expires_at - time.time()) + 60)
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(self._k("refresh", token_hash), encode(grant), ex=ttl)
        pipe.sadd(self._k("family", grant.family), token_hash)
        pipe.expire(self._k("family", grant.family), max(ttl, self.remember))
        await pipe.execute()

    async def get_refresh(self, token_hash: str) -> RefreshGrant | None:
        data, used = await self.redis.mget(
            self._k("refresh", token_hash), self._k("used", token_hash)
        )
        if data is None:
            return None
        grant = decode_refresh(data)
        grant.used = used is not None
        return grant

    async def mark_used(self, token_hash: str) -> bool:
        return bool(
            await self.redis.set(self._k("used", token_hash), b"1", nx=True, ex=self.remember)
        )

    async def revoke_family(self, family: str) -> None:
        await self.redis.set(self._k("revoked", family), b"1", ex=self.remember)
        members = await self.redis.smembers(self._k("family", family))
        keys = [self._k("refresh", bytes(m).decode()) for m in members]
        if keys:
            await self.redis.delete(*keys)

    async def family_revoked(self, family: str) -> bool:
        return bool(await self.redis.exists(self._k("revoked", family)))

    async def first_use(self, key: str, ttl: float) -> bool:
        return bool(
            await self.redis.set(self._k("seen", key), b"1", nx=True, ex=max(1, int(ttl) + 1))
        )

    async def aclose(self) -> None:
        """Close the Redis connection."""
        await self.redis.aclose()
