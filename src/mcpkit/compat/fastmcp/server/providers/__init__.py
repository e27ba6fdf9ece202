"""``fastmcp.server.providers`` on mcpkit: :class:`Provider` (components asked for at
request time), :class:`LocalProvider`, :class:`FileSystemProvider`, and the skills
providers (:mod:`.skills`); served by ``FastMCP(providers=[...])`` or
``mcp.add_provider(provider)``; the OpenAPI provider is in :mod:`.openapi`."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.providers.base import Provider
from mcpkit.compat.fastmcp.server.providers.filesystem import FileSystemProvider
from mcpkit.compat.fastmcp.server.providers.local_provider import LocalProvider

__all__ = [
    "ClaudeSkillsProvider",
    "FileSystemProvider",
    "LocalProvider",
    "OpenAPIProvider",
    "Provider",
    "SkillProvider",
    "SkillsDirectoryProvider",
]


def __getattr__(name: str) -> Any:
    if name in ("SkillProvider", "SkillsDirectoryProvider", "ClaudeSkillsProvider"):
        from mcpkit.compat.fastmcp.server.providers import skills

        return getattr(skills, name)
    if name == "OpenAPIProvider":
        from mcpkit.compat.fastmcp.server.providers.openapi import OpenAPIProvider

        return OpenAPIProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
