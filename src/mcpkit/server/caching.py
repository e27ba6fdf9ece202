"""Caching hints (``ttlMs``, ``cacheScope``) on cacheable results of the modern revisions.

The spec requires both fields on every ``resultType: "complete"`` result of
``server/discover``, ``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list`` and ``resources/read`` (:data:`CACHEABLE_METHODS`), and
forbids them on ``input_required`` (MRTR) results. Legacy revisions do not have them.

Rules applied by :func:`apply_cache_hints`:

- hints come from the most specific source: the item's own (e.g. one resource's), then the
  server's per-method setting, then the server's default (:class:`CachePolicy`);
- when nothing is configured the hints are ``ttlMs: 0, cacheScope: "private"``
  (immediately stale, never shared across authorization contexts): valid and safe;
- fields the handler put in its result itself win over every configured hint;
- a result answering an MRTR retry (``inputResponses``/``requestState``) is not cacheable
  by the client; it still carries the required fields, with the safe defaults unless the
  handler set its own;
- ``input_required`` results and every result on a legacy session lose both fields.

A list built from items with their own hints can use :meth:`CacheHints.combine` (shortest
TTL, private if any item is private). Use one scope for every page of a list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

__all__ = [
    "CACHEABLE_METHODS",
    "DEFAULT_HINTS",
    "CacheHints",
    "CachePolicy",
    "CacheScope",
    "apply_cache_hints",
    "strip_cache_hints",
]

CacheScope = Literal["public", "private"]
_SCOPES: Final = frozenset(get_args(CacheScope))
#: Methods whose complete results must carry caching hints.
CACHEABLE_METHODS: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
_FIELDS = ("ttlMs", "cacheScope")


def _check_ttl(ttl: object) -> int:
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        raise ValueError(f"ttlMs must be an integer >= 0, not {ttl!r}")
    return ttl


def _check_scope(scope: object) -> CacheScope:
    if scope not in _SCOPES:
        raise ValueError(f"cacheScope must be 'public' or 'private', not {scope!r}")
    return scope  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class CacheHints:
    """How long a result stays fresh (milliseconds) and who may cache it."""

    ttl_ms: int = 0
    scope: CacheScope = "private"

    def __post_init__(self) -> None:
        _check_ttl(self.ttl_ms)
        _check_scope(self.scope)

    def to_fields(self) -> dict[str, Any]:
        """The wire fields ``{"ttlMs": ..., "cacheScope": ...}``."""
        return {"ttlMs": self.ttl_ms, "cacheScope": self.scope}

    @staticmethod
    def combine(*hints: CacheHints) -> CacheHints:
        """Hints for a result built from several items: the shortest TTL, and private when
        any item is private. No hints give the safe default."""
        if not hints:
            return DEFAULT_HINTS
        private = any(h.scope == "private" for h in hints)
        return CacheHints(min(h.ttl_ms for h in hints), "private" if private else "public")


#: What a cacheable result carries when nothing was configured.
DEFAULT_HINTS: Final = CacheHints()


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """A server's caching hints: a default and per-method overrides."""

    default: CacheHints = DEFAULT_HINTS
    per_method: Mapping[str, CacheHints] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.per_method) - CACHEABLE_METHODS
        if unknown:
            raise ValueError(f"not cacheable methods: {', '.join(sorted(unknown))}")

    def hints_for(self, method: str, item: CacheHints | None = None) -> CacheHints:
        """The hints of one result: the item's own, else the method's, else the default."""
        if item is not None:
            return item
        return self.per_method.get(method, self.default)


def strip_cache_hints(result: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``result`` without ``ttlMs``/``cacheScope``."""
    return {k: v for k, v in result.items() if k not in _FIELDS}


def apply_cache_hints(
    result: Mapping[str, Any],
    method: str,
    hints: CacheHints | CachePolicy | None = None,
    *,
    modern: bool = True,
    retried: bool = False,
) -> dict[str, Any]:
    """The result to send, hints applied per the module's rules. ``hints`` is the
    resolved :class:`CacheHints` or the server's :class:`CachePolicy` (None: defaults);
    ``modern`` is False on legacy sessions; ``retried`` is True when the request carried
    ``inputResponses`` or ``requestState``. A handler's own invalid ``ttlMs``/``cacheScope``
    raises ValueError (a server bug, not the client's). Returns a new dict."""
    if not modern or result.get("resultType") == "input_required":
        return strip_cache_hints(result)
    out = dict(result)
    if method not in CACHEABLE_METHODS:
        return out
    if retried:
        chosen = DEFAULT_HINTS
    elif isinstance(hints, CachePolicy):
        chosen = hints.hints_for(method)
    else:
        chosen = hints or DEFAULT_HINTS
    if "ttlMs" in out:
        _check_ttl(out["ttlMs"])
    else:
        out["ttlMs"] = chosen.ttl_ms
    if "cacheScope" in out:
        _check_scope(out["cacheScope"])
    else:
        out["cacheScope"] = chosen.scope
    return out
