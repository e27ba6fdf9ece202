"""The one "argument not given" sentinel: a parameter defaulting to :data:`DEFAULT` means
"use the configured default" (so ``None`` can keep meaning "no limit")."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["DEFAULT"]

#: Passed (or defaulted) where the caller gave nothing: take the owner's configured value.
DEFAULT: Final[Any] = object()
