"""fastmcp's :class:`SkillsDirectoryProvider`: every skill folder (a directory with the
main file) of one or more roots, each served by a :class:`SkillProvider`; a name found in
an earlier root wins; ``reload=True`` scans again before every request."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from mcpkit.compat.fastmcp._components import Resource, ResourceTemplate
from mcpkit.compat.fastmcp.server.providers.base import Provider
from mcpkit.compat.fastmcp.server.providers.skills.skill_provider import SkillProvider

__all__ = ["SkillsDirectoryProvider"]

logger = logging.getLogger("mcpkit.compat.fastmcp.providers")


class SkillsDirectoryProvider(Provider):
    """The skills under ``roots`` (see the module)."""

    def __init__(
        self,
        roots: str | Path | Sequence[str | Path],
        reload: bool = False,
        main_file_name: str = "SKILL.md",
        supporting_files: Literal["template", "resources"] = "template",
        *,
        experimental_skills: bool = False,
    ) -> None:
        super().__init__()
        if experimental_skills:
            raise NotImplementedError(
                "SkillsDirectoryProvider(experimental_skills=True) is not supported on "
                "mcpkit; serve skills with mcpkit's Skills extension (docs/server.md#skills)"
            )
        if isinstance(roots, str | Path):
            roots = [roots]
        self._roots = [Path(r).resolve() for r in roots]
        self._reload = reload
        self._main_file_name = main_file_name
        self._supporting_files = supporting_files
        self.providers: list[SkillProvider] = []
        self._discover()

    def __repr__(self) -> str:
        roots: Any = self._roots[0] if len(self._roots) == 1 else self._roots
        return (
            f"SkillsDirectoryProvider(roots={roots!r}, reload={self._reload}, "
            f"skills={len(self.providers)})"
        )

    def _discover(self) -> None:
        found: list[SkillProvider] = []
        seen: set[str] = set()
        for root in self._roots:
            if not root.exists():
                continue
            for entry in root.iterdir():
                try:
                    skill_dir = entry.resolve(strict=True)
                except (OSError, RuntimeError):
                    logger.warning("Skipping skill directory that cannot be used: %s", entry.name)
                    continue
                if not skill_dir.is_dir() or not (skill_dir / self._main_file_name).exists():
                    continue
                if skill_dir.name in seen:
                    continue
                try:
                    found.append(
                        SkillProvider(skill_dir, self._main_file_name, self._supporting_files)
                    )
                except (OSError, ValueError, UnicodeDecodeError):
                    logger.exception("Failed to load skill: %s", skill_dir.name)
                    continue
                seen.add(skill_dir.name)
        self.providers = found

    def _fresh(self) -> list[SkillProvider]:
        if self._reload:
            self._discover()
        return list(self.providers)

    async def _list_resources(self) -> Sequence[Resource]:
        return [r for p in self._fresh() for r in await p.list_resources()]

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return [t for p in self._fresh() for t in await p.list_resource_templates()]

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        for p in self._fresh():
            found = await p.get_resource(uri, version)
            if found is not None:
                return found
        return None

    async def _get_resource_template(
        self, uri: str, version: Any = None
    ) -> ResourceTemplate | None:
        for p in self._fresh():
            found = await p.get_resource_template(uri, version)
            if found is not None:
                return found
        return None
