"""``mcp.types.version`` (and ``mcp_types.version``): the protocol revisions by era, oldest
first, as 2.x names them, read from :mod:`mcpkit.versions`."""

from __future__ import annotations

from mcpkit import versions as _versions

__all__ = [
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "KNOWN_PROTOCOL_VERSIONS",
    "LATEST_HANDSHAKE_VERSION",
    "LATEST_MODERN_VERSION",
    "LATEST_PROTOCOL_VERSION",
    "MODERN_PROTOCOL_VERSIONS",
    "OLDEST_SUPPORTED_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "is_version_at_least",
]

#: The handshake-era revisions (``initialize``), oldest first.
HANDSHAKE_PROTOCOL_VERSIONS: tuple[str, ...] = tuple(
    v.name for v in reversed(_versions.LEGACY_SUPPORTED)
)
#: The stateless revisions, oldest first.
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = tuple(
    v.name for v in reversed(_versions.MODERN_SUPPORTED)
)
#: Every revision known, oldest first.
KNOWN_PROTOCOL_VERSIONS: tuple[str, ...] = HANDSHAKE_PROTOCOL_VERSIONS + MODERN_PROTOCOL_VERSIONS
#: Every revision served.
SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = KNOWN_PROTOCOL_VERSIONS
LATEST_PROTOCOL_VERSION: str = KNOWN_PROTOCOL_VERSIONS[-1]
LATEST_HANDSHAKE_VERSION: str = HANDSHAKE_PROTOCOL_VERSIONS[-1]
LATEST_MODERN_VERSION: str = MODERN_PROTOCOL_VERSIONS[-1]
OLDEST_SUPPORTED_VERSION: str = KNOWN_PROTOCOL_VERSIONS[0]


def is_version_at_least(version: str, minimum: str) -> bool:
    """True if ``version`` is a known revision no older than ``minimum`` (an unknown
    ``version`` is not); ``minimum`` must be known (else ``ValueError``)."""
    if minimum not in KNOWN_PROTOCOL_VERSIONS:
        raise ValueError(f"minimum must be a known protocol version, got {minimum!r}")
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return False
    return KNOWN_PROTOCOL_VERSIONS.index(version) >= KNOWN_PROTOCOL_VERSIONS.index(minimum)
