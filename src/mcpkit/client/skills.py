"""Skills on the client (the ``io.modelcontextprotocol/skills`` extension), verified.

```python
async with Client("python docs_server.py") as client:
    for entry in await client.skills.list():          # skills/list, every page
        entry.name, entry.description, entry.dynamic
    entry = await client.skills.get("skill://acme/billing/refunds/SKILL.md")
    skill_md = await client.skills.load(entry)        # SKILL.md, verified
    guide = await client.skills.read(entry, "references/GUIDE.md")
    children = await client.skills.read_directory("skill://acme/billing/refunds/templates")
```

What the server sends is checked before it is used:

- an entry must be well formed (``SKILL.md`` URI whose last path segment is the frontmatter
  ``name``; ``resources`` a complete list of files inside the skill, each with a
  ``sha256:`` digest and a size, or ``"dynamic"``) and within the per-skill limits (512
  files, 16 MiB): else :class:`InvalidSkillEntry` (:meth:`Skills.list` leaves such entries
  out and logs why);
- a file read through an entry must be listed in it, and its bytes must have the listed
  size and digest; a ``SKILL.md`` read must have the entry's frontmatter, field by field:
  else :class:`SkillVerificationError`, and the content is not returned. Recover from a
  changed skill with :meth:`Skills.get` (a new entry: approval bound to the old one is void).
- a dynamic skill (``"resources": "dynamic"``) has no digests: its files are read
  unverified (``allow_dynamic=False`` refuses them).

Verified bytes are kept per (URI, digest) for the client's life, so a file is fetched once
while its digest stays the same.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote

from mcpkit.errors import McpkitError
from mcpkit.skills import (
    EXTENSION_ID,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    SKILL_FILE,
    SkillFormatError,
    digest,
    parse_frontmatter,
)

if TYPE_CHECKING:
    from mcpkit.client.cache import CachePolicy
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.types import ReadResourceResult, Resource, ServerCapabilities

__all__ = [
    "InvalidSkillEntry",
    "SkillContent",
    "SkillEntry",
    "SkillFile",
    "SkillVerificationError",
    "Skills",
    "SkillsClient",
    "SkillsNotSupported",
]

logger = logging.getLogger("mcpkit.client.skills")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class SkillsNotSupported(McpkitError, RuntimeError):
    """The server did not declare the Skills extension (or ``directoryRead``)."""


class InvalidSkillEntry(McpkitError, ValueError):
    """A ``skills/list`` or ``skills/get`` entry that breaks the extension's rules: it must
    not be loaded."""


class SkillVerificationError(McpkitError, ValueError):
    """A file read through an entry is not what the entry describes (unlisted, wrong size,
    wrong digest, or a ``SKILL.md`` whose frontmatter differs): do not use it; refresh the
    entry with :meth:`Skills.get`."""

    def __init__(self, uri: str, reason: str) -> None:
        super().__init__(f"{uri}: {reason}")
        self.uri = uri
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill's manifest."""

    uri: str
    digest: str
    size: int


@dataclass(frozen=True, slots=True)
class SkillEntry:
    """A skill as the server described it (``skills/list`` or ``skills/get``)."""

    uri: str
    frontmatter: Mapping[str, Any]
    #: The complete manifest; None for a dynamic skill.
    resources: tuple[SkillFile, ...] | None

    @property
    def name(self) -> str:
        """The skill's name (a label: not unique across paths or servers)."""
        return str(self.frontmatter["name"])

    @property
    def description(self) -> str:
        return str(self.frontmatter["description"])

    @property
    def dynamic(self) -> bool:
        """True when the server generates the skill (no digests to verify against)."""
        return self.resources is None

    @property
    def root(self) -> str:
        """The skill's root directory URI (relative references resolve against it)."""
        return self.uri[: -len(SKILL_FILE) - 1]

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.resources or ())

    def file(self, uri: str) -> SkillFile | None:
        """The manifest entry of ``uri`` (None when unlisted)."""
        for f in self.resources or ():
            if f.uri == uri:
                return f
        return None

    def resolve(self, reference: str) -> str:
        """The URI of ``reference``: a URI as it is, a relative path against the root."""
        if "://" in reference:
            return reference
        parts: list[str] = []
        for part in reference.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise ValueError(f"{reference!r} leaves the skill")
                parts.pop()
            else:
                parts.append(part)
        return f"{self.root}/{'/'.join(parts)}"

    @classmethod
    def parse(cls, raw: Any) -> SkillEntry:
        """Check a wire entry; :class:`InvalidSkillEntry` naming what is wrong."""
        if not isinstance(raw, Mapping):
            raise InvalidSkillEntry("a skill entry must be an object")
        uri = raw.get("uri")
        if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE) or "://" not in uri:
            raise InvalidSkillEntry(f"entry uri {uri!r} is not the URI of a SKILL.md")
        front = raw.get("frontmatter")
        if not isinstance(front, Mapping):
            raise InvalidSkillEntry(f"{uri}: frontmatter must be an object")
        for key in ("name", "description"):
            if not isinstance(front.get(key), str):
                raise InvalidSkillEntry(f"{uri}: frontmatter needs a string {key!r}")
        root = uri[: -len(SKILL_FILE) - 1]
        last = unquote(root.rsplit("/", 1)[-1])
        if root.endswith("://") or last != front["name"]:
            raise InvalidSkillEntry(
                f"{uri}: the last path segment {last!r} is not the skill's name {front['name']!r}"
            )
        listed = raw.get("resources")
        if listed == "dynamic":
            return cls(uri, dict(front), None)
        if not isinstance(listed, list):
            raise InvalidSkillEntry(f"{uri}: resources must be a list of files or 'dynamic'")
        files: list[SkillFile] = []
        seen: set[str] = set()
        for item in listed:
            if not isinstance(item, Mapping):
                raise InvalidSkillEntry(f"{uri}: a resources item is not an object")
            f_uri, f_digest, f_size = item.get("uri"), item.get("digest"), item.get("size")
            if not isinstance(f_uri, str) or not f_uri.startswith(root + "/"):
                raise InvalidSkillEntry(f"{uri}: {f_uri!r} is not a file of the skill")
            if f_uri in seen:
                raise InvalidSkillEntry(f"{uri}: {f_uri} is listed twice")
            if not isinstance(f_digest, str) or not _DIGEST.match(f_digest):
                raise InvalidSkillEntry(f"{uri}: {f_uri} has no valid sha256 digest")
            if isinstance(f_size, bool) or not isinstance(f_size, int) or f_size < 0:
                raise InvalidSkillEntry(f"{uri}: {f_uri} has no valid size")
            seen.add(f_uri)
            files.append(SkillFile(f_uri, f_digest, f_size))
        if uri not in seen:
            raise InvalidSkillEntry(f"{uri}: resources do not list the SKILL.md itself")
        if len(files) > MAX_FILES:
            raise InvalidSkillEntry(f"{uri}: {len(files)} files, more than {MAX_FILES}")
        total = sum(f.size for f in files)
        if total > MAX_TOTAL_BYTES:
            raise InvalidSkillEntry(f"{uri}: {total} bytes, more than {MAX_TOTAL_BYTES}")
        return cls(uri, dict(front), tuple(files))


@dataclass(frozen=True, slots=True)
class SkillContent:
    """A file of a skill as read (verified unless the skill is dynamic)."""

    uri: str
    data: bytes
    mime_type: str | None
    verified: bool

    @property
    def text(self) -> str:
        """The content as UTF-8 text."""
        return self.data.decode("utf-8")


class SkillsClient(Protocol):
    """What :class:`Skills` needs of a client (a :class:`~mcpkit.Client` is one): the
    server's capabilities, requests, and reading a resource."""

    @property
    def server_capabilities(self) -> ServerCapabilities: ...

    async def request(self, method: str, params: JSONObject | None = None) -> Any: ...

    async def read_resource(
        self, uri: str, *, cache: CachePolicy = "use"
    ) -> ReadResourceResult: ...


class Skills:
    """The Skills extension of one :class:`~mcpkit.Client` (``client.skills``)."""

    def __init__(self, client: SkillsClient) -> None:
        self._client = client
        self._verified: dict[tuple[str, str], SkillContent] = {}

    def _settings(self) -> Mapping[str, Any] | None:
        extensions = getattr(self._client.server_capabilities, "extensions", None)
        settings = extensions.get(EXTENSION_ID) if isinstance(extensions, Mapping) else None
        return settings if isinstance(settings, Mapping) else None

    @property
    def supported(self) -> bool:
        """True when the server declared the extension."""
        return self._settings() is not None

    @property
    def directory_read(self) -> bool:
        """True when the server declared ``directoryRead``."""
        settings = self._settings()
        return settings is not None and settings.get("directoryRead") is True

    def _require(self) -> None:
        if not self.supported:
            raise SkillsNotSupported(f"the server does not declare {EXTENSION_ID}")

    async def list(self) -> list[SkillEntry]:
        """Every skill the server lists (``skills/list``, all pages). A server may list
        only some (or none) of its skills: :meth:`get` reaches the others by URI. Invalid
        entries are left out (logged)."""
        self._require()
        entries: list[SkillEntry] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            result = await self._client.request("skills/list", params)
            raw = result.get("skills") if isinstance(result, Mapping) else None
            if not isinstance(raw, list):
                raise InvalidSkillEntry("skills/list answered without a 'skills' list")
            for item in raw:
                try:
                    entries.append(SkillEntry.parse(item))
                except InvalidSkillEntry as exc:
                    logger.warning("skill entry refused: %s", exc)
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                return entries

    async def get(self, uri: str) -> SkillEntry:
        """The entry of the skill whose ``SKILL.md`` is ``uri`` (``skills/get``), listed or
        not; McpError -32602 when the server serves no such skill."""
        self._require()
        result = await self._client.request("skills/get", {"uri": uri})
        entry = SkillEntry.parse(result.get("skill") if isinstance(result, Mapping) else None)
        if entry.uri != uri:
            raise InvalidSkillEntry(f"skills/get {uri} answered the entry of {entry.uri}")
        return entry

    async def load(self, entry: SkillEntry, *, allow_dynamic: bool = True) -> SkillContent:
        """The skill's ``SKILL.md``, verified against ``entry`` (size, digest, frontmatter)."""
        return await self.read(entry, entry.uri, allow_dynamic=allow_dynamic)

    async def read(
        self, entry: SkillEntry, reference: str, *, allow_dynamic: bool = True
    ) -> SkillContent:
        """A file of the skill (a URI, or a path relative to the skill's root) verified
        against ``entry``: :class:`SkillVerificationError` when it is unlisted or its bytes
        or frontmatter differ."""
        uri = entry.resolve(reference)
        if not uri.startswith(entry.root + "/"):
            raise ValueError(f"{uri} is not a file of the skill {entry.uri}")
        listed: SkillFile | None = None
        if entry.resources is None:
            if not allow_dynamic:
                raise SkillVerificationError(uri, "the skill is dynamic (no digests to verify)")
        else:
            listed = entry.file(uri)
            if listed is None:
                raise SkillVerificationError(uri, "not listed in the skill's entry")
            cached = self._verified.get((uri, listed.digest))
            if cached is not None:
                return cached
        data, mime_type = await self._fetch(uri)
        if listed is not None:
            if len(data) != listed.size:
                raise SkillVerificationError(
                    uri, f"{len(data)} bytes where the entry says {listed.size}"
                )
            if digest(data) != listed.digest:
                raise SkillVerificationError(uri, "digest differs from the entry's")
        if uri == entry.uri:
            try:
                front = parse_frontmatter(data.decode("utf-8"))
            except (UnicodeDecodeError, SkillFormatError) as exc:
                raise SkillVerificationError(uri, f"unreadable frontmatter: {exc}") from None
            if front != dict(entry.frontmatter):
                changed = sorted(
                    k
                    for k in front.keys() | entry.frontmatter.keys()
                    if front.get(k) != entry.frontmatter.get(k)
                )
                raise SkillVerificationError(
                    uri, f"frontmatter differs from the entry's ({', '.join(changed)})"
                )
        content = SkillContent(uri, data, mime_type, listed is not None)
        if listed is not None:
            self._verified[(uri, listed.digest)] = content
        return content

    async def _fetch(self, uri: str) -> tuple[bytes, str | None]:
        result = await self._client.read_resource(uri, cache="bypass")
        for item in result.contents:
            if item.uri != uri:
                continue
            text = getattr(item, "text", None)
            if isinstance(text, str):
                return text.encode("utf-8"), item.mime_type
            try:
                return base64.b64decode(getattr(item, "blob", ""), validate=True), item.mime_type
            except (binascii.Error, ValueError):
                raise SkillVerificationError(uri, "blob is not valid base64") from None
        raise SkillVerificationError(uri, "the read returned no contents for this URI")

    async def read_directory(self, uri: str) -> builtins.list[Resource]:
        """The direct children of the directory resource ``uri``
        (``resources/directory/read``, all pages; subdirectories have the MIME type
        ``inode/directory``). A live view: it does not extend an entry's manifest."""
        self._require()
        if not self.directory_read:
            raise SkillsNotSupported("the server does not declare directoryRead")
        from mcpkit.types import Resource

        out: list[Resource] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"uri": uri}
            if cursor is not None:
                params["cursor"] = cursor
            result = await self._client.request("resources/directory/read", params)
            out.extend(Resource.model_validate(r) for r in result.get("resources", []))
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                return out
