"""What fastmcp's skills providers share: a skill's description from its ``SKILL.md``
frontmatter, its files (sorted, ``sha256:`` hashed), and paths kept inside the skill."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SkillFileInfo", "SkillInfo", "parse_frontmatter", "resolve_within", "scan_skill_files"]


@dataclass
class SkillFileInfo:
    """One file of a skill: its POSIX path in the skill, size and ``sha256:`` hash."""

    path: str
    size: int
    hash: str


@dataclass
class SkillInfo:
    """A skill folder as a provider serves it."""

    name: str
    description: str
    path: Path
    main_file: str
    files: list[SkillFileInfo] = field(default_factory=list)
    frontmatter: dict[str, Any] = field(default_factory=dict)

    @property
    def uri_prefix(self) -> str:
        """``skill://<name>/``."""
        return f"skill://{self.name}/"


def _line_frontmatter(text: str) -> dict[str, Any]:
    """``key: value`` lines (quotes stripped, ``[a, b]`` as a list): the fallback when the
    frontmatter is not valid YAML."""
    out: dict[str, Any] = {}
    for line in text.strip().split("\n"):
        if ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if value.startswith("[") and value.endswith("]"):
            out[key.strip()] = [v.strip().strip("\"'") for v in value[1:-1].split(",") if v.strip()]
        else:
            out[key.strip()] = value
    return out


def parse_frontmatter(content: str) -> tuple[dict[str, Any], str]:
    """The YAML frontmatter of a markdown text (every scalar a string, as written) and the
    text after it; ``({}, content)`` without a ``---`` block."""
    content = content.removeprefix("\ufeff")
    if not content.startswith("---"):
        return {}, content
    end = re.search(r"\n---\s*\n", content[3:])
    if end is None:
        return {}, content
    text = content[3 : 3 + end.start()]
    rest = content[3 + end.end() :]
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        from mcpkit._extras import needs_extra

        raise needs_extra("Reading SKILL.md frontmatter", "skills", "PyYAML") from None
    try:
        parsed = yaml.load(text, Loader=yaml.BaseLoader)
    except (yaml.YAMLError, RecursionError):
        return _line_frontmatter(text), rest
    return (parsed if isinstance(parsed, dict) else {}), rest


def resolve_within(base: Path, relative: str) -> Path:
    """``relative`` under ``base``; ValueError for a path leaving ``base``."""
    if relative.startswith("/") or "\\" in relative or "\x00" in relative:
        raise ValueError(f"Invalid path: {relative}")
    path = (base / relative).resolve()
    if not path.is_relative_to(base):
        raise ValueError(f"Invalid path: {relative} escapes {base}")
    return path


def _hash(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            sha.update(chunk)
    return f"sha256:{sha.hexdigest()}"


def scan_skill_files(skill_dir: Path) -> list[SkillFileInfo]:
    """Every file of a skill (links leaving it skipped), sorted by path."""
    base = skill_dir.resolve()
    files = []
    for path in sorted(skill_dir.rglob("*")):
        if not path.is_file():
            continue
        real = path.resolve()
        if not real.is_relative_to(base):
            continue
        files.append(
            SkillFileInfo(
                path=path.relative_to(skill_dir).as_posix(),
                size=real.stat().st_size,
                hash=_hash(real),
            )
        )
    return files
