"""The commands of one round trip to Redis, recorded to be sent together (by
:meth:`~mcpkit.redis.backend.RedisBackend.run_batch`)."""

from __future__ import annotations

from typing import Any

__all__ = ["Batch"]


class Batch:
    """Commands to send in one round trip (what :meth:`RedisBackend.run_batch` runs)."""

    __slots__ = ("commands",)

    def __init__(self) -> None:
        self.commands: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.commands)

    def eval(self, script: str, numkeys: int, *keys_and_args: Any) -> None:
        self.commands.append(("EVAL", script, numkeys, *keys_and_args))

    def hset(self, key: str, field: str, value: Any) -> None:
        self.commands.append(("HSET", key, field, value))
