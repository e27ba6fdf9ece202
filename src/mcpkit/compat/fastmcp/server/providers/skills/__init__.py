"""``fastmcp.server.providers.skills`` on mcpkit: agent skill folders served as
``skill://`` resources, as fastmcp's resource-based skills providers serve them."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.providers.skills.directory_provider import (
    SkillsDirectoryProvider,
)
from mcpkit.compat.fastmcp.server.providers.skills.skill_provider import SkillProvider
from mcpkit.compat.fastmcp.server.providers.skills.vendor_providers import (
    ClaudeSkillsProvider,
    CodexSkillsProvider,
    CopilotSkillsProvider,
    CursorSkillsProvider,
    GeminiSkillsProvider,
    GooseSkillsProvider,
    OpenCodeSkillsProvider,
    VSCodeSkillsProvider,
)

__all__ = [
    "ClaudeSkillsProvider",
    "CodexSkillsProvider",
    "CopilotSkillsProvider",
    "CursorSkillsProvider",
    "GeminiSkillsProvider",
    "GooseSkillsProvider",
    "OpenCodeSkillsProvider",
    "SkillProvider",
    "SkillsDirectoryProvider",
    "VSCodeSkillsProvider",
]
