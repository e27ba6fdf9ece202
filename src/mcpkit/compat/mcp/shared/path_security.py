"""``mcp.shared.path_security`` on mcpkit: the checks a resource handler runs on a value
taken from a URI before using it as a filesystem path."""

from __future__ import annotations

import string
from pathlib import Path

__all__ = ["PathEscapeError", "contains_path_traversal", "is_absolute_path", "safe_join"]


class PathEscapeError(ValueError):
    """:func:`safe_join`'s refusal: the joined path would leave its base."""


def contains_path_traversal(value: str) -> bool:
    """True when ``value``, read as a relative path (``/`` and ``\\`` both separators),
    climbs above where it starts (``../etc``, ``a/../../b``; not ``a/../b`` nor ``1..2``)."""
    depth = 0
    for part in value.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part and part != ".":
            depth += 1
    return False


def is_absolute_path(value: str) -> bool:
    """True for an absolute path on any common platform: ``/x``, ``\\x``, ``\\\\host``,
    and a Windows drive (``C:\\x``, ``C:x``)."""
    if not value:
        return False
    if value[0] in "/\\":
        return True
    return len(value) >= 2 and value[1] == ":" and value[0] in string.ascii_letters


def safe_join(base: str | Path, *parts: str) -> Path:
    """``base`` joined with ``parts`` and resolved (symbolic links followed);
    :class:`PathEscapeError` when a part holds a NUL or is absolute, or the result is not
    inside ``base``."""
    root = Path(base).resolve()
    for part in parts:
        if "\0" in part:
            raise PathEscapeError(
                f"Path component contains a null byte; refusing to join onto {root}"
            )
        if is_absolute_path(part):
            raise PathEscapeError(
                f"Path component {part!r} is absolute; refusing to join onto {root}"
            )
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        raise PathEscapeError(f"Path {target} escapes base {root}")
    return target
