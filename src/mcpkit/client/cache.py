"""The client's response cache: results kept while the server's caching hints say they are
fresh (2026-07-28 server/utilities/caching).

Cacheable results (:data:`CACHEABLE_METHODS`: ``server/discover``, ``tools/list``,
``prompts/list``, ``resources/list``, ``resources/templates/list``, ``resources/read``) carry
``ttlMs`` (fresh for that many milliseconds after receipt; absent or negative means 0, i.e.
stale at once, so such results are not stored) and ``cacheScope``:

- ``"public"``: no user-specific data; one entry serves every principal of the same target.
- ``"private"``: only for the authorization context that fetched it. A *principal* is the
  caller's opaque name for that context (for example a digest of the access token, never the
  token itself); ``None`` is the unauthenticated context, which is a principal of its own.

Entries never cross targets (a target is the server: its URL, or a command line) nor
protocol eras. Keys (:class:`CacheKey`) are (era, target, method, canonical params without
``_meta``, owner); a paginated list's pages are separate entries, told apart by their
``cursor``. Never cached: ``InputRequiredResult`` (and any ``resultType`` other than
``complete``), and results of MRTR retries (params carrying ``inputResponses`` or
``requestState``).

A change notification makes entries stale at once (:func:`evictions_for`,
:func:`apply_notification`): ``notifications/tools/list_changed`` drops ``tools/list``, the
prompts one ``prompts/list``, ``notifications/resources/list_changed`` drops
``resources/list`` and ``resources/templates/list``, ``notifications/resources/updated``
drops ``resources/read`` of its ``uri``; for every principal and era of the target.

:func:`cached_request` applies a per-call :data:`CachePolicy`: ``"use"`` serves a fresh
entry or fetches and stores, ``"refresh"`` always fetches and stores, ``"bypass"`` neither
reads nor writes. :class:`ResponseCache` is the store interface (async, so a shared store
may live elsewhere); :class:`MemoryResponseCache` is the bounded in-memory LRU one.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, runtime_checkable

import orjson

__all__ = [
    "CACHEABLE_METHODS",
    "INVALIDATING_NOTIFICATIONS",
    "CacheKey",
    "CachePolicy",
    "CacheScope",
    "Eviction",
    "MemoryResponseCache",
    "ResponseCache",
    "apply_notification",
    "cache_key",
    "cached_request",
    "caching_hints",
    "evictions_for",
]

CacheScope = Literal["public", "private"]
#: ``"use"``: serve fresh, else fetch and store; ``"refresh"``: fetch and store;
#: ``"bypass"``: fetch only.
CachePolicy = Literal["use", "refresh", "bypass"]

CACHEABLE_METHODS: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
#: Notification method -> the cached methods it makes stale.
INVALIDATING_NOTIFICATIONS: Final[Mapping[str, tuple[str, ...]]] = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
    "notifications/resources/updated": ("resources/read",),
}
_MRTR_PARAMS: Final = ("inputResponses", "requestState")
_POLICIES: Final = ("use", "refresh", "bypass")


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Where one cached result lives."""

    #: The protocol version (or era) the result was fetched with.
    era: str
    #: The server: its URL or command line.
    target: str
    method: str
    #: Canonical JSON of the params without ``_meta`` (keys sorted).
    params: str
    #: None for a public entry; the principal (``""`` when unauthenticated) for a private one.
    owner: str | None
    #: ``params.uri`` of a ``resources/read`` (for ``notifications/resources/updated``).
    uri: str | None = None


@dataclass(frozen=True, slots=True)
class Eviction:
    """Entries to drop: every era and owner of ``target``'s ``method`` (only ``uri`` if set)."""

    target: str
    method: str
    uri: str | None = None

    def matches(self, key: CacheKey) -> bool:
        """Whether ``key`` is one of the entries to drop."""
        return (
            key.target == self.target
            and key.method == self.method
            and (self.uri is None or key.uri == self.uri)
        )


@runtime_checkable
class ResponseCache(Protocol):
    """A store of cached results. Implementations own their clock and bound their size."""

    async def get(self, key: CacheKey) -> Any | None:
        """The fresh result under ``key`` (a copy the caller may change), else None."""
        ...

    async def put(self, key: CacheKey, result: Any, ttl_ms: int) -> None:
        """Store ``result`` under ``key``, fresh for ``ttl_ms`` milliseconds from now."""
        ...

    async def evict(self, eviction: Eviction) -> int:
        """Drop the matching entries; how many were dropped."""
        ...

    async def clear(self, target: str | None = None) -> None:
        """Drop every entry (of ``target`` only, when given)."""
        ...


class MemoryResponseCache:
    """The in-memory :class:`ResponseCache`: at most ``max_entries`` results, least
    recently used dropped first; results are kept as JSON bytes, so what a caller does with
    a returned result never changes the cache."""

    def __init__(
        self, max_entries: int = 1024, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[CacheKey, tuple[float, bytes]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: CacheKey) -> Any | None:
        """The fresh result under ``key``, else None (a stale entry is dropped)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, body = entry
        if self._clock() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return orjson.loads(body)

    async def put(self, key: CacheKey, result: Any, ttl_ms: int) -> None:
        """Store ``result`` under ``key`` for ``ttl_ms`` ms (nothing when ``ttl_ms <= 0``)."""
        if ttl_ms <= 0:
            self._entries.pop(key, None)
            return
        self._entries[key] = (self._clock() + ttl_ms / 1000, orjson.dumps(result))
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def evict(self, eviction: Eviction) -> int:
        """Drop the entries ``eviction`` matches."""
        doomed = [key for key in self._entries if eviction.matches(key)]
        for key in doomed:
            del self._entries[key]
        return len(doomed)

    async def clear(self, target: str | None = None) -> None:
        """Drop everything, or everything of ``target``."""
        if target is None:
            self._entries.clear()
            return
        for key in [k for k in self._entries if k.target == target]:
            del self._entries[key]


def _cacheable_request(method: str, params: Mapping[str, Any] | None) -> bool:
    return method in CACHEABLE_METHODS and not (
        params is not None and any(k in params for k in _MRTR_PARAMS)
    )


def cache_key(
    era: str,
    target: str,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    scope: CacheScope,
    principal: str | None = None,
) -> CacheKey:
    """The key of ``method(params)`` for an entry of ``scope`` (``_meta`` is not part of it)."""
    body = {k: v for k, v in (params or {}).items() if k != "_meta"}
    uri = body.get("uri") if method == "resources/read" else None
    return CacheKey(
        era=era,
        target=target,
        method=method,
        params=orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode(),
        owner=None if scope == "public" else (principal or ""),
        uri=uri if isinstance(uri, str) else None,
    )


def caching_hints(
    method: str, params: Mapping[str, Any] | None, result: Any
) -> tuple[int, CacheScope] | None:
    """``(ttl_ms, scope)`` when ``result`` of ``method(params)`` may be stored, else None.

    None for a method that is not cacheable, an MRTR retry, a result that is not a complete
    one, and a ``ttlMs`` that is absent, zero, negative or not an integer (immediately
    stale). A missing or unknown ``cacheScope`` is taken as ``"private"`` (never shared).
    """
    if not _cacheable_request(method, params) or not isinstance(result, Mapping):
        return None
    if result.get("resultType", "complete") != "complete":
        return None
    ttl = result.get("ttlMs")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
        return None
    scope: CacheScope = "public" if result.get("cacheScope") == "public" else "private"
    return ttl, scope


async def cached_request(
    cache: ResponseCache,
    send: Callable[[str, Mapping[str, Any]], Awaitable[Any]],
    method: str,
    params: Mapping[str, Any] | None,
    *,
    era: str,
    target: str,
    principal: str | None = None,
    policy: CachePolicy = "use",
) -> Any:
    """``send(method, params)`` through ``cache`` under ``policy``.

    ``"use"`` returns a fresh private entry of ``principal`` or a fresh public one if there
    is one, else fetches; ``"refresh"`` always fetches; both store what
    :func:`caching_hints` allows. ``"bypass"`` only fetches. Requests that are not cacheable
    (other methods, MRTR retries) always go to the server.
    """
    if policy not in _POLICIES:
        raise ValueError(f"cache policy must be one of {_POLICIES}, got {policy!r}")
    if policy == "bypass" or not _cacheable_request(method, params):
        return await send(method, params or {})
    if policy == "use":
        scopes: tuple[CacheScope, ...] = ("private", "public")
        for scope in scopes:
            hit = await cache.get(
                cache_key(era, target, method, params, scope=scope, principal=principal)
            )
            if hit is not None:
                return hit
    result = await send(method, params or {})
    hints = caching_hints(method, params, result)
    if hints is not None:
        ttl, stored_scope = hints
        key = cache_key(era, target, method, params, scope=stored_scope, principal=principal)
        await cache.put(key, result, ttl)
    return result


def evictions_for(target: str, method: str, params: Mapping[str, Any] | None) -> list[Eviction]:
    """What a notification received from ``target`` makes stale (empty for others)."""
    methods = INVALIDATING_NOTIFICATIONS.get(method, ())
    if method == "notifications/resources/updated":
        uri = (params or {}).get("uri")
        return [Eviction(target, m, uri) for m in methods] if isinstance(uri, str) else []
    return [Eviction(target, m) for m in methods]


async def apply_notification(
    cache: ResponseCache, target: str, method: str, params: Mapping[str, Any] | None
) -> int:
    """Drop what a notification from ``target`` makes stale; how many entries went."""
    dropped = 0
    for eviction in evictions_for(target, method, params):
        dropped += await cache.evict(eviction)
    return dropped
