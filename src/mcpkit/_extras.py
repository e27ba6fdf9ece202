"""How mcpkit tells a user to add an optional extra: one wording everywhere (the library's
ImportErrors and the command line's hints). mcpkit is installed from a checkout until it is
published, so the command is the checkout's."""

from __future__ import annotations

from typing import Final

__all__ = ["INSTALL_HINT", "install_hint", "needs_extra"]

#: The command that adds extras (``.format(extras="http,cli")``).
INSTALL_HINT: Final = "in the mcpkit checkout: pip install '.[{extras}]'"


def install_hint(extras: str) -> str:
    """The command that installs ``extras`` (comma-separated names)."""
    return INSTALL_HINT.format(extras=extras)


def needs_extra(what: str, extra: str, missing: str | None = None) -> ImportError:
    """The ImportError for ``what`` needing the ``extra`` (``missing``: the module that is
    not installed, when known)."""
    cause = f" ({missing} is not installed)" if missing else ""
    return ImportError(f"{what} needs the '{extra}' extra{cause}: {install_hint(extra)}")
