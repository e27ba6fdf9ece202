"""Where ``ctx.state`` keeps its values (:mod:`mcpkit.server.state`): the
:class:`StateStore` interface, raw JSON bytes per owner and key, and its stores: in this
process (:class:`MemoryStateStore`, the default), in a deployment's Redis
(:class:`RedisStateStore`), and a parent's store under a namespace for a mounted server
(:class:`NamespacedStateStore`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = [
    "DEFAULT_STATE_TTL",
    "MemoryStateStore",
    "NamespacedStateStore",
    "RedisStateStore",
    "StateHolder",
    "StateSession",
    "StateStore",
]

#: Seconds a value set without a ttl lives after it was last read or written.
DEFAULT_STATE_TTL: Final = 86_400.0
# Stored values start with one byte: S (sliding: its expiry moves on use) or F (fixed ttl).
_SLIDING: Final = b"S"
_FIXED: Final = b"F"


class _Info(Protocol):
    @property
    def session_id(self) -> str | None: ...


class _Transport(Protocol):
    @property
    def info(self) -> _Info: ...


class StateSession(Protocol):
    """A session as a store hears of its end (a server's
    :class:`~mcpkit.server.session.AppSession` is one): the connection key and the
    transport's session id its state was kept under."""

    @property
    def task_owner_key(self) -> str: ...

    @property
    def transport(self) -> _Transport: ...


class StateStore(Protocol):
    """Where ``ctx.state`` keeps values: raw JSON bytes per owner and key."""

    async def get(self, owner: str, key: str) -> bytes | None:
        """The JSON of ``key`` (None: absent or expired); a sliding value's expiry moves."""
        ...

    async def set(self, owner: str, key: str, data: bytes, ttl: float | None) -> None:
        """Keep ``data`` (``ttl`` None: sliding expiry)."""
        ...

    async def delete(self, owner: str, key: str) -> bool:
        """Forget ``key``; True when it was there."""
        ...

    def session_closed(self, session: StateSession) -> None:
        """A 2025 session (or connection) of this process ended."""
        ...


class MemoryStateStore:
    """State in this process (the default). ``idle_ttl``: the sliding lifetime of values set
    without a ttl; ``clock``: seconds, monotonic (a test's fake clock)."""

    def __init__(
        self, idle_ttl: float = DEFAULT_STATE_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_ttl = idle_ttl
        self.clock = clock
        #: owner -> key -> (JSON, expires at, sliding)
        self.owners: dict[str, dict[str, tuple[bytes, float, bool]]] = {}
        self._writes = 0

    async def get(self, owner: str, key: str) -> bytes | None:
        values = self.owners.get(owner)
        entry = None if values is None else values.get(key)
        if entry is None or values is None:
            return None
        data, expires, sliding = entry
        now = self.clock()
        if now >= expires:
            del values[key]
            if not values:
                del self.owners[owner]
            return None
        if sliding:
            values[key] = (data, now + self.idle_ttl, True)
        return data

    async def set(self, owner: str, key: str, data: bytes, ttl: float | None) -> None:
        now = self.clock()
        sliding = ttl is None
        expires = now + (self.idle_ttl if ttl is None else ttl)
        self.owners.setdefault(owner, {})[key] = (data, expires, sliding)
        self._writes += 1
        if self._writes % 1024 == 0:
            self.sweep()

    async def delete(self, owner: str, key: str) -> bool:
        values = self.owners.get(owner)
        if values is None:
            return False
        entry = values.pop(key, None)
        if not values:
            del self.owners[owner]
        return entry is not None and entry[1] > self.clock()

    def sweep(self) -> None:
        """Drop every expired value (done every 1024 writes, so memory stays bounded by
        what is live)."""
        now = self.clock()
        for owner in list(self.owners):
            values = self.owners[owner]
            for key in [k for k, e in values.items() if e[1] <= now]:
                del values[key]
            if not values:
                del self.owners[owner]

    def session_closed(self, session: StateSession) -> None:
        if not self.owners:
            return
        self.owners.pop("connection:" + session.task_owner_key, None)
        sid = session.transport.info.session_id
        if sid is not None:
            self.owners.pop("session:" + sid, None)


_GET_SCRIPT: Final = """
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 1) == 'S' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return v
"""


class RedisStateStore:
    """State in a deployment's Redis (``Server(store=...)``): every replica sees it. One
    string key per value, expiring on its own; a session's state expires after its idle
    lifetime (the store is not told when a session ends elsewhere)."""

    def __init__(self, backend: RedisBackend, idle_ttl: float = DEFAULT_STATE_TTL) -> None:
        self.backend = backend
        self.idle_ttl = idle_ttl
        self._idle_ms = max(1, int(idle_ttl * 1000))

    def _key(self, owner: str, key: str) -> str:
        import hashlib

        digest = hashlib.sha256(owner.encode()).hexdigest()[:32]
        return self.backend.keys.state(digest, key)

    async def get(self, owner: str, key: str) -> bytes | None:
        from mcpkit.redis.backend import unavailable

        try:
            raw = await self.backend.client.eval(
                _GET_SCRIPT, 1, self._key(owner, key), self._idle_ms
            )
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None
        if not raw:
            return None
        return bytes(raw[1:])

    async def set(self, owner: str, key: str, data: bytes, ttl: float | None) -> None:
        from mcpkit.redis.backend import unavailable

        if ttl is None:
            stored, ms = _SLIDING + data, self._idle_ms
        else:
            stored, ms = _FIXED + data, max(1, int(ttl * 1000))
        try:
            await self.backend.client.set(self._key(owner, key), stored, px=ms)
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    async def delete(self, owner: str, key: str) -> bool:
        from mcpkit.redis.backend import unavailable

        try:
            return bool(await self.backend.client.delete(self._key(owner, key)))
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    def session_closed(self, session: StateSession) -> None:
        """Nothing: the session may go on on another replica; its state expires."""


class StateHolder(Protocol):
    """The server a :class:`NamespacedStateStore` keeps its state in (a
    :class:`~mcpkit.server.app.Server` is one): its store, and whether that is shared."""

    @property
    def state_store(self) -> StateStore: ...

    @property
    def store_backend(self) -> RedisBackend | None: ...


class NamespacedStateStore:
    """Another server's store under a key namespace: a mounted server keeps its state
    (and its callers' visibility rules) in its parent's store, so on a deployment's Redis
    every replica sees it, and its keys never meet the parent's."""

    def __init__(self, server: StateHolder, namespace: str) -> None:
        import weakref

        self._server = weakref.ref(server)  # the child must not keep its parent alive
        self.namespace = namespace

    @property
    def store(self) -> StateStore:
        """The parent's store (RuntimeError once the parent is gone)."""
        server = self._server()
        if server is None:
            raise RuntimeError("the server this one was mounted in is gone")
        return server.state_store

    @property
    def shared(self) -> bool:
        """Whether the store is shared by replicas (the parent's is Redis)."""
        server = self._server()
        return server is not None and server.store_backend is not None

    async def get(self, owner: str, key: str) -> bytes | None:
        return await self.store.get(owner, self.namespace + key)

    async def set(self, owner: str, key: str, data: bytes, ttl: float | None) -> None:
        await self.store.set(owner, self.namespace + key, data, ttl)

    async def delete(self, owner: str, key: str) -> bool:
        return await self.store.delete(owner, self.namespace + key)

    def session_closed(self, session: StateSession) -> None:
        """Nothing: the parent's store hears of its sessions itself."""
