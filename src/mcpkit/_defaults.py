"""The one "argument not given" sentinel: a parameter defaulting to :data:`DEFAULT` means
"use the configured default" (so ``None`` can keep meaning "no limit")."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["DEFAULT"]


class _Default:
    """The type of :data:`DEFAULT` (one instance; shown as ``DEFAULT`` in signatures)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT"

    def __reduce__(self) -> str:
        return "DEFAULT"


#: Passed (or defaulted) where the caller gave nothing: take the owner's configured value.
DEFAULT: Final[Any] = _Default()
