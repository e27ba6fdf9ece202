"""The Skills extension (``io.modelcontextprotocol/skills``): what both roles share.

A *skill* is a directory of files, minimally a ``SKILL.md`` that begins with YAML
frontmatter (``name``, ``description``, anything else the author wrote). A server serves
each file as a resource, ``skill://<skill-path>/<file-path>``, where the last segment of
``<skill-path>`` is the skill's ``name``; it answers ``skills/list`` and ``skills/get`` with
entries carrying the frontmatter verbatim and a manifest of every file (URI, ``sha256:``
digest and size of the bytes served), or ``"dynamic"`` for a skill generated at read time;
and, when it declares ``{"directoryRead": true}``, ``resources/directory/read``.

This module holds the constants, the frontmatter parser (PyYAML, the ``skills`` extra), the
digest and the naming rules. The server's side is :mod:`mcpkit.server.skills`, the client's
:mod:`mcpkit.client.skills`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Final

from mcpkit._extras import needs_extra
from mcpkit.errors import McpkitError

__all__ = [
    "DIRECTORY_MIME_TYPE",
    "EXTENSION_ID",
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "SCHEME",
    "SKILL_FILE",
    "SkillFormatError",
    "check_name",
    "digest",
    "parse_frontmatter",
]

#: The extension's identifier, the key under ``capabilities.extensions``.
EXTENSION_ID: Final = "io.modelcontextprotocol/skills"
#: The URI scheme skills are served under.
SCHEME: Final = "skill://"
#: The file every skill has at its root.
SKILL_FILE: Final = "SKILL.md"
#: The MIME type of a directory resource (``resources/directory/read`` children).
DIRECTORY_MIME_TYPE: Final = "inode/directory"
#: Per-skill limits every host accepts: entries of ``resources`` and the sum of their sizes.
MAX_FILES: Final = 512
MAX_TOTAL_BYTES: Final = 16 * 1024 * 1024

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)


class SkillFormatError(McpkitError, ValueError):
    """A ``SKILL.md`` or skill path that breaks the Agent Skills rules."""


def digest(data: bytes) -> str:
    """``sha256:<64 lowercase hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def check_name(name: object) -> str:
    """``name`` when it is a valid skill name (1-64 lowercase letters, digits and single
    hyphens, not starting or ending with one); SkillFormatError otherwise."""
    if not isinstance(name, str) or not 0 < len(name) <= 64 or not _NAME.match(name):
        raise SkillFormatError(
            f"invalid skill name {name!r}: 1-64 lowercase letters, digits and hyphens "
            "(no leading, trailing or double hyphen)"
        )
    return name


def _loader() -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the skills extra is missing
        raise needs_extra("Reading SKILL.md frontmatter", "skills", "PyYAML") from None

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        """SafeLoader keeping timestamps as the strings the author wrote (JSON has no dates)."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return yaml, Loader


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The YAML frontmatter of a ``SKILL.md`` as a JSON object (every field the author
    wrote). SkillFormatError when there is none, it is not a mapping, or ``name`` /
    ``description`` are missing or not strings."""
    match = _FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        raise SkillFormatError("SKILL.md must begin with YAML frontmatter between '---' lines")
    yaml, loader = _loader()
    try:
        data = yaml.load(match.group(1), Loader=loader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise SkillFormatError(f"SKILL.md frontmatter is not valid YAML: {exc}") from None
    if not isinstance(data, Mapping):
        raise SkillFormatError("SKILL.md frontmatter must be a mapping")
    front: dict[str, Any] = _jsonable(data, "frontmatter")
    for key in ("name", "description"):
        if not isinstance(front.get(key), str) or not front[key]:
            raise SkillFormatError(f"SKILL.md frontmatter needs a string {key!r}")
    return front


def _jsonable(value: Any, where: str) -> Any:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise SkillFormatError(f"{where}: key {k!r} is not a string")
            out[k] = _jsonable(v, f"{where}.{k}")
        return out
    if isinstance(value, list):
        return [_jsonable(v, where) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, bytes):
        raise SkillFormatError(f"{where}: binary values have no JSON form")
    return str(value)
