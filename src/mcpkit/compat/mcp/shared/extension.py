"""``mcp.shared.extension`` on mcpkit: the extension-identifier grammar (SEP-2133) the
server and client extensions share."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["validate_extension_identifier"]

# Dot-separated labels (a letter first, a letter or digit last, hyphens inside), "/", then
# a name starting and ending alphanumeric ("." "_" "-" inside): the ``_meta`` key grammar
# with its prefix required.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_IDENTIFIER = re.compile(rf"{_LABEL}(?:\.{_LABEL})*/{_NAME}")


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """TypeError unless ``identifier`` is a ``vendor-prefix/name`` string."""
    if not isinstance(identifier, str) or not _IDENTIFIER.fullmatch(identifier):
        raise TypeError(
            f"{owner}.identifier must be a `vendor-prefix/name` string "
            f"(reverse-DNS prefix required), got {identifier!r}"
        )
