"""The one error for a missing ``http`` extra (httpx, uvicorn, starlette)."""

from __future__ import annotations

from typing import Final

from mcpkit._extras import needs_extra

__all__ = ["EXTRA_MODULES", "missing_extra"]

#: Top-level modules the ``http`` extra installs.
EXTRA_MODULES: Final = frozenset({"httpx", "httpcore", "uvicorn", "starlette", "h11", "anyio"})


def missing_extra(exc: ModuleNotFoundError, what: str) -> ImportError | None:
    """The clear error to raise (``from None``) when ``exc`` is a module of the extra
    missing; None when it is something else (re-raise ``exc``)."""
    name = (exc.name or "").partition(".")[0]
    if name not in EXTRA_MODULES:
        return None
    return needs_extra(what, "http", name)
