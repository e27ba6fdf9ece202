"""``fastmcp.utilities.versions`` on mcpkit: how fastmcp orders and matches component
versions.

A version is a string read as a PEP 440 version where it is one (a leading ``v`` dropped:
``"v1.0"`` is ``1.0``, and ``"1"`` equals ``"1.0"``), else compared as a plain string; PEP 440
versions sort before plain strings, and no version (an unversioned component) sorts lowest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering
from typing import Any

from packaging.version import InvalidVersion, Version

__all__ = [
    "VersionKey",
    "VersionSpec",
    "compare_versions",
    "is_version_greater",
    "max_version",
    "min_version",
    "parse_version_key",
    "version_sort_key",
]


@total_ordering
class VersionKey:
    """A sortable version: None lowest, then PEP 440 versions, then other strings."""

    __slots__ = ("_parsed", "_pep440", "_raw")

    def __init__(self, version: str | None) -> None:
        self._raw = version
        self._pep440 = False
        self._parsed: Version | str | None = None
        if version is not None:
            try:
                self._parsed = Version(version.lstrip("v"))
                self._pep440 = True
            except InvalidVersion:
                self._parsed = version

    def _rank(self) -> int:
        return 0 if self._raw is None else 1 if self._pep440 else 2

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VersionKey):
            return NotImplemented
        return self._rank() == other._rank() and self._parsed == other._parsed

    def __hash__(self) -> int:
        return hash((self._rank(), self._parsed))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, VersionKey):
            return NotImplemented
        if self._rank() != other._rank():
            return self._rank() < other._rank()
        if self._raw is None:
            return False
        return self._parsed < other._parsed  # type: ignore[operator]

    def __repr__(self) -> str:
        return f"VersionKey({self._raw!r})"


def parse_version_key(version: str | None) -> VersionKey:
    """The sort key of ``version``."""
    return VersionKey(version)


def version_sort_key(component: Any) -> tuple[VersionKey, str]:
    """The sort key of a component by its ``version`` (the raw string breaks ties between
    equal spellings such as ``"1"`` and ``"1.0"``)."""
    version = getattr(component, "version", component)
    return (parse_version_key(version), version or "")


def compare_versions(a: str | None, b: str | None) -> int:
    """-1, 0 or 1 as ``a`` is lower than, equal to or higher than ``b``."""
    ka, kb = parse_version_key(a), parse_version_key(b)
    return (ka > kb) - (ka < kb)


def is_version_greater(a: str | None, b: str | None) -> bool:
    """True when ``a`` is higher than ``b``."""
    return compare_versions(a, b) > 0


def max_version(a: str | None, b: str | None) -> str | None:
    """The higher of two versions (None when both are None)."""
    if a is None or b is None:
        return b if a is None else a
    return a if compare_versions(a, b) >= 0 else b


def min_version(a: str | None, b: str | None) -> str | None:
    """The lower of two versions (None when both are None)."""
    if a is None or b is None:
        return b if a is None else a
    return a if compare_versions(a, b) <= 0 else b


@dataclass
class VersionSpec:
    """The versions a request or a filter accepts: ``eq`` exactly (``gte``/``lt`` then
    ignored), else those ``>= gte`` and ``< lt``."""

    gte: str | None = None
    lt: str | None = None
    eq: str | None = None

    def matches(self, version: str | None, *, match_none: bool = True) -> bool:
        """Whether ``version`` is accepted (an unversioned component: ``match_none``)."""
        if version is None:
            return match_none
        key = parse_version_key(version)
        if self.eq is not None:
            return key == parse_version_key(self.eq)
        if self.gte is not None and key < parse_version_key(self.gte):
            return False
        return self.lt is None or key < parse_version_key(self.lt)

    def intersect(self, other: VersionSpec | None) -> VersionSpec:
        """The spec accepting what both accept."""
        if other is None:
            return self
        if self.eq is not None:
            return self if other.matches(self.eq) else VersionSpec(eq="__impossible__")
        if other.eq is not None:
            return other if self.matches(other.eq) else VersionSpec(eq="__impossible__")
        return VersionSpec(gte=max_version(self.gte, other.gte), lt=min_version(self.lt, other.lt))
