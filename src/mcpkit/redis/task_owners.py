"""The owners of the tasks a proxy passes through, kept in Redis so every replica knows them.

A proxy keeps the downstream owner of each task it created (:mod:`mcpkit.proxy.owners`):
to the upstream, every downstream caller is the proxy. With several proxy replicas behind a
load balancer the record must be where each replica reads it, so a proxy with a shared store
keeps it here: one string ``P:po:{tid}`` per task, the owner (``o:<owner>``, or ``n`` for
nobody), expiring with the task's ttl (:data:`UNLIMITED_TTL` when the task's is unlimited).

The record is written once (``SET NX``): a task on record keeps its first owner, whatever a
later answer says. Every check is one ``GET`` of that key, and a listing one pipelined round
of them; a task not on record (expired, or never made through this deployment) is refused
to every owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from mcpkit.redis.backend import unavailable

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["UNLIMITED_TTL", "RedisOwnerRecords"]

#: Seconds a record is kept for a task whose ttl is unlimited (a week).
UNLIMITED_TTL: Final = 7 * 24 * 3600.0
_NOBODY: Final = b"n"
_OWNER: Final = b"o:"


class RedisOwnerRecords:
    """Owner records of proxied tasks in ``backend``'s Redis (an
    :class:`~mcpkit.proxy.owners.OwnerRecords`)."""

    def __init__(self, backend: RedisBackend, unlimited_ttl: float = UNLIMITED_TTL) -> None:
        self.backend = backend
        self.unlimited_ttl = unlimited_ttl

    async def record(self, task_id: str, owner: str | None, ttl: float | None) -> None:
        value = _NOBODY if owner is None else _OWNER + owner.encode()
        ms = max(1, int((self.unlimited_ttl if ttl is None else ttl) * 1000))
        backend = self.backend
        try:
            await backend.client.set(backend.keys.proxy_task_owner(task_id), value, px=ms, nx=True)
        except Exception as exc:
            raise unavailable(exc, backend.url) from None

    async def owners(self, task_ids: Sequence[str]) -> dict[str, str | None]:
        backend = self.backend
        try:
            if len(task_ids) == 1:
                stored = [await backend.client.get(backend.keys.proxy_task_owner(task_ids[0]))]
            else:
                async with backend.client.pipeline(transaction=False) as pipe:
                    for task_id in task_ids:
                        pipe.get(backend.keys.proxy_task_owner(task_id))
                    stored = await pipe.execute()
        except Exception as exc:
            raise unavailable(exc, backend.url) from None
        found: dict[str, str | None] = {}
        for task_id, raw in zip(task_ids, stored, strict=True):
            if raw == _NOBODY:
                found[task_id] = None
            elif isinstance(raw, bytes) and raw.startswith(_OWNER):
                found[task_id] = raw[len(_OWNER) :].decode("utf-8", "replace")
        return found
