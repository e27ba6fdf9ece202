"""``server/discover``: the server's supported versions, capabilities and identity.

Pure: :func:`discover_result` builds the ``DiscoverResult`` from what the server really
has. Capabilities are the ones the ``initialize`` answer would advertise, put into their
modern form by :func:`modern_capabilities` (the 2025-11-25 core ``tasks`` capability does
not exist in the modern revisions, where tasks are the ``io.modelcontextprotocol/tasks``
extension), with the extensions the server registered merged into
``capabilities.extensions``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from mcpkit.envelope import finish_result
from mcpkit.server.caching import CacheHints, CachePolicy, apply_cache_hints
from mcpkit.versions import MODERN_SUPPORTED, ProtocolVersion

__all__ = ["DISCOVER_METHOD", "discover_result", "modern_capabilities"]

DISCOVER_METHOD: Final = "server/discover"
# An extension identifier: a ``_meta`` key with its mandatory prefix (labels, then "/").
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EXTENSION_ID = re.compile(
    rf"{_LABEL}(?:\.{_LABEL})*/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?"
)
_LEGACY_ONLY = frozenset({"tasks"})


def modern_capabilities(
    capabilities: Mapping[str, Any],
    extensions: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``capabilities`` as the modern revisions spell them: legacy-only members dropped,
    ``extensions`` merged into ``capabilities.extensions`` (the argument's settings win).
    ValueError when a member is not an object or an extension id has no prefix."""
    out: dict[str, Any] = {}
    for name, value in capabilities.items():
        if name in _LEGACY_ONLY:
            continue
        if not isinstance(value, Mapping):
            raise ValueError(f"capability {name!r} must be an object, not {value!r}")
        out[name] = dict(value)
    merged = {**out.get("extensions", {}), **(extensions or {})}
    for ext_id, settings in merged.items():
        if not _EXTENSION_ID.fullmatch(ext_id):
            raise ValueError(f"extension id {ext_id!r} needs a prefix, e.g. 'com.example/x'")
        if not isinstance(settings, Mapping):
            raise ValueError(f"settings of extension {ext_id!r} must be an object")
        merged[ext_id] = dict(settings)
    if merged:
        out["extensions"] = merged
    else:
        out.pop("extensions", None)
    return out


def discover_result(
    *,
    server_info: Mapping[str, Any],
    capabilities: Mapping[str, Any],
    supported_versions: Iterable[ProtocolVersion | str] = MODERN_SUPPORTED,
    instructions: str | None = None,
    extensions: Mapping[str, Mapping[str, Any]] | None = None,
    cache: CacheHints | CachePolicy | None = None,
) -> dict[str, Any]:
    """The complete ``DiscoverResult``: ``resultType``, ``supportedVersions`` (list the
    same versions as the -32022 error's ``data.supported``), ``capabilities``,
    ``instructions`` when set, caching hints (``cache``; safe defaults when None) and
    ``_meta`` serverInfo."""
    versions = [v if isinstance(v, str) else v.name for v in supported_versions]
    if not versions:
        raise ValueError("a server supports at least one protocol version")
    result: dict[str, Any] = {
        "supportedVersions": versions,
        "capabilities": modern_capabilities(capabilities, extensions),
    }
    if instructions is not None:
        result["instructions"] = instructions
    return finish_result(apply_cache_hints(result, DISCOVER_METHOD, cache), server_info)
