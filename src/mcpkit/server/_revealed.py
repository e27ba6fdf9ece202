"""Components the server hides that one request may reach: a caller's ``ctx.enable`` rules
show it a component hidden server-wide (:mod:`mcpkit.server.visibility`). The registries
look here only after a name or URI is not found, so serving pays nothing for it."""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any

__all__ = ["find", "revealed"]

#: (kind, name or URI) -> the hidden entry this request may reach (None: nothing).
revealed: contextvars.ContextVar[Mapping[tuple[str, str], Any] | None] = contextvars.ContextVar(
    "mcpkit_revealed", default=None
)


def find(kind: str, name: str) -> Any:
    """The hidden entry of ``kind`` named ``name`` this request may reach, or None."""
    shown = revealed.get()
    return None if shown is None else shown.get((kind, name))
