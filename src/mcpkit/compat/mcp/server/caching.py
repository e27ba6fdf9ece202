"""``mcp.server.caching`` on mcpkit: ``CacheHint``, the freshness hints a server gives the
results of the cacheable methods (``ttlMs``/``cacheScope``, 2026-07-28 only), per method, in
``Server(cache_hints=...)`` and ``MCPServer(cache_hints=...)``. A field the handler set in
its result wins, per field, as there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcpkit.server.caching import CACHEABLE_METHODS, CacheHints

__all__ = ["CACHEABLE_METHODS", "CacheHint", "CacheableMethod", "validate_cache_hints"]

CacheableMethod = Literal[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
]


@dataclass(frozen=True, slots=True)
class CacheHint:
    """How long (milliseconds) a result stays fresh, and whether a cached copy may be shared
    across authorization contexts (``"public"``) or not (``"private"``)."""

    ttl_ms: int = 0
    scope: Literal["public", "private"] = "private"

    def __post_init__(self) -> None:
        if self.ttl_ms < 0:
            raise ValueError(f"ttl_ms must be >= 0, got {self.ttl_ms}")
        if self.scope not in ("public", "private"):
            raise ValueError(f"scope must be 'public' or 'private', got {self.scope!r}")


def validate_cache_hints(cache_hints: Mapping[Any, Any] | None) -> dict[str, CacheHint]:
    """``cache_hints`` checked: cacheable methods only (ValueError), ``CacheHint`` values
    only (TypeError)."""
    if cache_hints is None:
        return {}
    unknown = sorted(repr(m) for m in cache_hints if m not in CACHEABLE_METHODS)
    if unknown:
        raise ValueError(
            "cache_hints keys must be cacheable methods (see CacheableMethod); got: "
            + ", ".join(unknown)
        )
    for method, hint in cache_hints.items():
        if not isinstance(hint, CacheHint):
            raise TypeError(
                f"cache_hints[{method!r}] must be a CacheHint, got {type(hint).__name__}"
            )
    return dict(cache_hints)


def apply_to(native: Any, cache_hints: Mapping[Any, Any] | None) -> None:
    """Give the mcpkit server ``native`` the per-method hints of ``cache_hints``: the hints
    of a method's result when its handler set none (the server's own otherwise)."""
    hints = {m: CacheHints(h.ttl_ms, h.scope) for m, h in validate_cache_hints(cache_hints).items()}
    if not hints:
        return
    own = native.cache_hints

    def cache_hints_for(method: str) -> CacheHints:
        chosen = hints.get(method)
        return chosen if chosen is not None else own(method)

    native.cache_hints = cache_hints_for
