"""fastmcp's :class:`SkillProvider`: one skill folder served as resources.

- ``skill://<name>/SKILL.md`` (``text/markdown``; its description from the frontmatter,
  else its first line), and ``skill://<name>/_manifest`` (``application/json``: the
  skill's files with their size and ``sha256:`` hash); both carry ``_meta.fastmcp.skill``;
- the other files through the template ``skill://<name>/{path*}``
  (``application/octet-stream``, text files sent as text), or, with
  ``supporting_files="resources"``, each as a resource of its own.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, unquote

from mcpkit.compat.fastmcp._components import Resource, ResourceTemplate
from mcpkit.compat.fastmcp.server.providers.base import Provider
from mcpkit.compat.fastmcp.server.providers.skills._common import (
    SkillInfo,
    parse_frontmatter,
    resolve_within,
    scan_skill_files,
)

__all__ = ["SkillFileResource", "SkillFileTemplate", "SkillProvider", "SkillResource"]

mimetypes.add_type("text/markdown", ".md")

_PARAMETERS = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def _read_file(path: Path) -> str | bytes:
    mime, _ = mimetypes.guess_type(str(path))
    data = path.read_bytes()
    return data.decode("utf-8") if mime and mime.startswith("text/") else data


class SkillResource(Resource):
    """A skill's main file, or its manifest."""

    skill_info: SkillInfo
    is_manifest: bool = False

    def get_meta(self) -> dict[str, Any]:
        """``_meta.fastmcp.skill``: the skill's name and whether this is the manifest."""
        meta = super().get_meta()
        meta["fastmcp"]["skill"] = {"name": self.skill_info.name, "is_manifest": self.is_manifest}
        return meta

    async def read(self) -> str | bytes:
        """The main file's text, or the manifest's JSON."""
        skill = self.skill_info
        if self.is_manifest:
            files = [{"path": f.path, "size": f.size, "hash": f.hash} for f in skill.files]
            return json.dumps({"skill": skill.name, "files": files}, indent=2)
        return resolve_within(skill.path, skill.main_file).read_bytes().decode("utf-8")


class SkillFileResource(Resource):
    """One supporting file of a skill, as a resource."""

    skill_info: SkillInfo
    file_path: str

    def get_meta(self) -> dict[str, Any]:
        """``_meta.fastmcp.skill``: the skill's name."""
        meta = super().get_meta()
        meta["fastmcp"]["skill"] = {"name": self.skill_info.name}
        return meta

    async def read(self) -> str | bytes:
        """The file's content."""
        path = resolve_within(self.skill_info.path, self.file_path)
        if not path.exists():
            raise FileNotFoundError(f"File not found: {self.file_path}")
        return _read_file(path)


class SkillFileTemplate(ResourceTemplate):
    """The files of a skill, by path."""

    skill_info: SkillInfo

    async def read(self, arguments: dict[str, Any]) -> str | bytes:
        """The file at ``arguments["path"]``."""
        file_path = arguments.get("path", "")
        if isinstance(file_path, list):
            file_path = "/".join(file_path)
        path = resolve_within(self.skill_info.path, file_path)
        if not path.exists():
            raise FileNotFoundError(f"File not found: {file_path}")
        if not path.is_file():
            raise ValueError(f"Not a file: {file_path}")
        return _read_file(path)

    async def _read(self, uri: str, params: dict[str, Any]) -> str | bytes:
        """Read the file directly (no resource is made for it)."""
        return await self.read(params)


class SkillProvider(Provider):
    """One skill folder (see the module); FileNotFoundError when it or its main file is
    missing."""

    def __init__(
        self,
        skill_path: str | Path,
        main_file_name: str = "SKILL.md",
        supporting_files: Literal["template", "resources"] = "template",
    ) -> None:
        super().__init__()
        self._skill_path = Path(skill_path).resolve()
        self._main_file_name = main_file_name
        self._supporting_files = supporting_files
        self.skill_info = self._load()

    def __repr__(self) -> str:
        return (
            f"SkillProvider(skill_path={self._skill_path!r}, "
            f"supporting_files={self._supporting_files!r})"
        )

    def _load(self) -> SkillInfo:
        path = self._skill_path
        if not path.exists():
            raise FileNotFoundError(f"Skill directory not found: {path}")
        main = resolve_within(path, self._main_file_name)
        if not main.exists():
            raise FileNotFoundError(
                f"Main skill file not found: {main}. Expected {self._main_file_name} in {path}"
            )
        front, body = parse_frontmatter(main.read_text(encoding="utf-8"))
        description = front.get("description", "")
        if not isinstance(description, str):
            description = ""
        if not description:
            for line in body.strip().split("\n"):
                line = line.strip()
                if line:
                    description = (line.lstrip("#").strip() if line.startswith("#") else line)[:200]
                    break
        return SkillInfo(
            name=path.name,
            description=description or f"Skill: {path.name}",
            path=path,
            main_file=self._main_file_name,
            files=scan_skill_files(path),
            frontmatter=front,
        )

    def _main(self, uri: str) -> SkillResource:
        skill = self.skill_info
        return SkillResource(
            uri=uri,
            name=f"{skill.name}/{self._main_file_name}",
            description=skill.description,
            mime_type="text/markdown",
            skill_info=skill,
        )

    def _manifest(self, uri: str) -> SkillResource:
        skill = self.skill_info
        return SkillResource(
            uri=uri,
            name=f"{skill.name}/_manifest",
            description=f"File listing for {skill.name}",
            mime_type="application/json",
            skill_info=skill,
            is_manifest=True,
        )

    def _file(self, uri: str, file_path: str) -> SkillFileResource:
        skill = self.skill_info
        mime, _ = mimetypes.guess_type(file_path)
        return SkillFileResource(
            uri=uri,
            name=f"{skill.name}/{file_path}",
            description=f"File from {skill.name} skill",
            mime_type=mime or "application/octet-stream",
            skill_info=skill,
            file_path=file_path,
        )

    def _template(self) -> SkillFileTemplate:
        skill = self.skill_info
        return SkillFileTemplate(
            uri_template=f"{skill.uri_prefix}{{path*}}",
            name=f"{skill.name}_files",
            description=f"Access files within {skill.name}",
            mime_type="application/octet-stream",
            parameters=_PARAMETERS,
            skill_info=skill,
        )

    async def _list_resources(self) -> Sequence[Resource]:
        skill = self.skill_info
        prefix = skill.uri_prefix
        out: list[Resource] = [
            self._main(f"{prefix}{quote(self._main_file_name, safe='/')}"),
            self._manifest(f"{prefix}_manifest"),
        ]
        if self._supporting_files == "resources":
            out.extend(
                self._file(f"{prefix}{quote(f.path, safe='/')}", f.path)
                for f in skill.files
                if f.path != self._main_file_name
            )
        return out

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        skill = self.skill_info
        if not uri.startswith(skill.uri_prefix):
            return None
        file_path = unquote(uri[len(skill.uri_prefix) :])
        if file_path == "_manifest":
            return self._manifest(uri)
        if file_path == self._main_file_name:
            return self._main(uri)
        if self._supporting_files == "resources" and any(f.path == file_path for f in skill.files):
            return self._file(uri, file_path)
        return None

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return [self._template()] if self._supporting_files == "template" else []

    async def _get_resource_template(
        self, uri: str, version: Any = None
    ) -> ResourceTemplate | None:
        if self._supporting_files != "template":
            return None
        prefix = self.skill_info.uri_prefix
        if not uri.startswith(prefix):
            return None
        rest = uri[len(prefix) :]
        if rest in ("_manifest", self._main_file_name):
            return None
        if any(part in (".", "..") for part in rest.split("/")):
            return None  # fastmcp's template does not match a dot segment: not found
        return self._template()
