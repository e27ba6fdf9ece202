"""fastmcp's skills providers for the agents' default skill folders."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from mcpkit.compat.fastmcp.server.providers.skills.directory_provider import (
    SkillsDirectoryProvider,
)

__all__ = [
    "ClaudeSkillsProvider",
    "CodexSkillsProvider",
    "CopilotSkillsProvider",
    "CursorSkillsProvider",
    "GeminiSkillsProvider",
    "GooseSkillsProvider",
    "OpenCodeSkillsProvider",
    "VSCodeSkillsProvider",
]

Supporting = Literal["template", "resources"]


class _Vendor(SkillsDirectoryProvider):
    @staticmethod
    def default_roots() -> list[Path]:
        raise NotImplementedError

    def __init__(self, reload: bool = False, supporting_files: Supporting = "template") -> None:
        super().__init__(
            roots=self.default_roots(),
            reload=reload,
            main_file_name="SKILL.md",
            supporting_files=supporting_files,
        )


def _home(*parts: str) -> list[Path]:
    return [Path.home().joinpath(*parts)]


class ClaudeSkillsProvider(_Vendor):
    """``~/.claude/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".claude", "skills")


class CursorSkillsProvider(_Vendor):
    """``~/.cursor/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".cursor", "skills")


class VSCodeSkillsProvider(_Vendor):
    """``~/.copilot/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".copilot", "skills")


class CopilotSkillsProvider(_Vendor):
    """``~/.copilot/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".copilot", "skills")


class CodexSkillsProvider(_Vendor):
    """``/etc/codex/skills``, then ``~/.codex/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return [Path("/etc/codex/skills"), *_home(".codex", "skills")]


class GeminiSkillsProvider(_Vendor):
    """``~/.gemini/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".gemini", "skills")


class GooseSkillsProvider(_Vendor):
    """``~/.config/agents/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".config", "agents", "skills")


class OpenCodeSkillsProvider(_Vendor):
    """``~/.config/opencode/skills``."""

    @staticmethod
    def default_roots() -> list[Path]:
        return _home(".config", "opencode", "skills")
