"""Skills on the server (the ``io.modelcontextprotocol/skills`` extension).

```python
app = Server("docs")
app.add_skill("skills/pdf-processing")                 # skill://pdf-processing/SKILL.md
app.add_skill("skills/refunds", path="acme/billing/refunds")
app.add_skills("skills/")                              # every directory with a SKILL.md
app.add_skill({"SKILL.md": TEXT, "references/GUIDE.md": GUIDE}, path="git-workflow")

@app.skill("reports/daily", dynamic=True)              # generated at each request
def daily() -> dict[str, str]:
    return {"SKILL.md": render_today()}
```

- Every file of a skill is a resource, ``skill://<skill-path>/<file-path>``, read with
  ``resources/read`` (text when it is UTF-8 of a textual type, else a base64 blob, so the
  client hashes exactly the bytes the manifest describes). Each skill's ``SKILL.md`` is in
  ``resources/list`` (name and description from its frontmatter, ``text/markdown``); the
  other files are reached through the one ``skill://{+path}`` template.
- ``skills/list`` (paginated) and ``skills/get`` answer entries with the frontmatter verbatim
  and the manifest (URI, ``sha256:`` digest, size) computed from the bytes served; a skill
  made by a function with ``dynamic=True`` has ``"resources": "dynamic"``. On the
  2026-07-28 wire both results carry ``ttlMs``/``cacheScope`` (the skill's own hints, else
  the server's).
- ``resources/directory/read`` lists the direct children of any directory in the skill
  namespace (skill roots, their subdirectories and the organizational prefixes above them);
  the server declares ``{"directoryRead": true}``.
- A directory skill is read from disk at each request (edits show at once; digests are
  recomputed only for files whose size or modification time changed). Hidden files (a name
  starting with ``.``) and symbolic links leading out of the skill are not served. A mapping
  skill is a snapshot of the bytes given. Unknown skills, files and directories are -32602.
"""

from __future__ import annotations

import base64
import mimetypes
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, Union
from urllib.parse import quote, unquote

from mcpkit._cursor import decode_cursor, encode_cursor
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.server.caching import CacheHints
from mcpkit.server.invoke import UserFunction
from mcpkit.server.registries import Registries
from mcpkit.server.resources import ResourceNotFound
from mcpkit.skills import (
    DIRECTORY_MIME_TYPE,
    EXTENSION_ID,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    SCHEME,
    SKILL_FILE,
    SkillFormatError,
    check_name,
    digest,
    parse_frontmatter,
)

if TYPE_CHECKING:
    from mcpkit.server.offload import WorkerPool
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["FileSource", "Skill", "SkillRegistry", "SkillServer", "SkillSource"]

#: What a skill's files come from: a directory, or relative path -> text or bytes.
FileSource = Union[str, "os.PathLike[str]", Mapping[str, "str | bytes"]]
#: A dynamic skill's function: returns the files (or a directory) at each request.
SkillSource = Callable[[], "FileSource | Awaitable[FileSource]"]

_TEXT_TYPES = ("application/json", "application/yaml", "application/xml", "application/toml")
_EXTRA_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".txt": "text/plain",
    ".json": "application/json",
}


def mime_type_of(name: str) -> str:
    """The MIME type a skill file is served with (by its extension)."""
    ext = PurePosixPath(name).suffix.lower()
    known = _EXTRA_TYPES.get(ext)
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed or "application/octet-stream"


def _is_textual(mime: str) -> bool:
    return mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml"))


def file_contents(uri: str, data: bytes, mime: str) -> JSONObject:
    """The ``resources/read`` contents of a skill file: text when the bytes are UTF-8 of a
    textual type (they encode back to exactly these bytes), else a base64 blob."""
    if _is_textual(mime):
        try:
            return {"uri": uri, "mimeType": mime, "text": data.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}


def _check_rel(rel: str) -> str:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"skill file path {rel!r} must be relative, '/'-separated, no '..'")
    return rel


def _mapping_files(files: Mapping[str, str | bytes]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for rel, value in files.items():
        if isinstance(value, str):
            out[_check_rel(rel)] = value.encode("utf-8")
        elif isinstance(value, (bytes, bytearray)):
            out[_check_rel(rel)] = bytes(value)
        else:
            raise TypeError(f"skill file {rel!r}: content must be str or bytes")
    return out


class _Directory:
    """A skill directory on disk, walked at each request; digests kept per (size, mtime)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        if not (self.root / SKILL_FILE).is_file():
            raise SkillFormatError(f"{root} has no {SKILL_FILE}")
        self._digests: dict[str, tuple[tuple[int, int], str]] = {}

    def paths(self) -> dict[str, Path]:
        """Relative path -> file, every regular file served (sorted)."""
        found: dict[str, Path] = {}
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            here = Path(dirpath)
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                path = here / name
                if path.is_symlink():
                    target = path.resolve()
                    if not target.is_relative_to(self.root) or not target.is_file():
                        continue
                elif not path.is_file():
                    continue
                found[path.relative_to(self.root).as_posix()] = path
        return found

    def manifest(self) -> list[tuple[str, int, str]]:
        """(relative path, size, digest) of every file."""
        out = []
        for rel, path in self.paths().items():
            try:
                st = path.stat()
                key = (st.st_size, st.st_mtime_ns)
                known = self._digests.get(rel)
                if known is None or known[0] != key:
                    data = path.read_bytes()
                    key = (len(data), st.st_mtime_ns)
                    known = (key, digest(data))
                    self._digests[rel] = known
            except OSError:
                continue  # went away while we looked
            out.append((rel, key[0], known[1]))
        return out

    def read(self, rel: str) -> bytes | None:
        path = self.paths().get(rel)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None


class Skill:
    """One served skill: its path (``acme/billing/refunds``), URIs and files."""

    def __init__(
        self,
        path: str,
        *,
        files: dict[str, bytes] | None = None,
        directory: _Directory | None = None,
        dynamic: Callable[[], Any] | None = None,
        cache: CacheHints | None = None,
    ) -> None:
        segments = path.strip("/").split("/")
        if not path.strip("/") or any(s in ("", ".", "..") for s in segments):
            raise ValueError(f"invalid skill path {path!r}")
        check_name(segments[-1])
        #: The skill's path in the skill namespace, e.g. ``acme/billing/refunds``.
        self.path = "/".join(segments)
        self.name = segments[-1]
        #: ``skill://<path>``: the skill's root directory resource.
        self.root = SCHEME + quote(self.path, safe="/")
        #: ``skill://<path>/SKILL.md``: the skill's URI.
        self.uri = f"{self.root}/{SKILL_FILE}"
        self.cache = cache
        self._files = files
        self._directory = directory
        self._dynamic = None if dynamic is None else UserFunction(dynamic)
        self._front: tuple[str, dict[str, Any]] | None = None  # (digest of SKILL.md, parsed)
        if files is not None:
            self._check(self._static_manifest(files), files.get(SKILL_FILE))
        elif directory is not None:
            self._check(directory.manifest(), directory.read(SKILL_FILE))

    @property
    def dynamic(self) -> bool:
        """True for a skill generated at each request (its entry's resources: "dynamic")."""
        return self._dynamic is not None

    def file_uri(self, rel: str) -> str:
        return f"{self.root}/{quote(rel, safe='/')}"

    @staticmethod
    def _static_manifest(files: Mapping[str, bytes]) -> list[tuple[str, int, str]]:
        return [(rel, len(data), digest(data)) for rel, data in sorted(files.items())]

    def _check(self, manifest: list[tuple[str, int, str]], skill_md: bytes | None) -> None:
        if skill_md is None:
            raise SkillFormatError(f"skill {self.path!r} has no {SKILL_FILE}")
        self.frontmatter(skill_md)
        if len(manifest) > MAX_FILES:
            raise SkillFormatError(
                f"skill {self.path!r} has {len(manifest)} files (hosts accept {MAX_FILES})"
            )
        total = sum(size for _, size, _ in manifest)
        if total > MAX_TOTAL_BYTES:
            raise SkillFormatError(
                f"skill {self.path!r} is {total} bytes (hosts accept {MAX_TOTAL_BYTES})"
            )

    def frontmatter(self, skill_md: bytes) -> dict[str, Any]:
        """The parsed frontmatter of these ``SKILL.md`` bytes, its name checked."""
        key = digest(skill_md)
        cached = self._front
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            front = parse_frontmatter(skill_md.decode("utf-8"))
        except UnicodeDecodeError:
            raise SkillFormatError(f"skill {self.path!r}: SKILL.md is not UTF-8") from None
        if front["name"] != self.name:
            raise SkillFormatError(
                f"skill {self.path!r}: frontmatter name {front['name']!r} must equal the "
                f"last path segment {self.name!r}"
            )
        self._front = (key, front)
        return front

    async def files(self, workers: WorkerPool) -> dict[str, bytes] | None:
        """A dynamic skill's files now (None for the others)."""
        if self._dynamic is None:
            return None
        made = await self._dynamic.call(workers)
        if isinstance(made, Mapping):
            return _mapping_files(made)
        return {rel: p.read_bytes() for rel, p in _Directory(Path(made)).paths().items()}

    async def entry(self, workers: WorkerPool) -> JSONObject:
        """The skill's ``skills/list``/``skills/get`` entry as the server holds it now."""
        try:
            if self._dynamic is not None:
                files = await self.files(workers) or {}
                skill_md = files.get(SKILL_FILE)
                if skill_md is None:
                    raise SkillFormatError(f"skill {self.path!r} made no {SKILL_FILE}")
                return {
                    "uri": self.uri,
                    "frontmatter": self.frontmatter(skill_md),
                    "resources": "dynamic",
                }
            if self._files is not None:
                manifest = self._static_manifest(self._files)
                skill_md = self._files[SKILL_FILE]
            else:
                assert self._directory is not None
                manifest = self._directory.manifest()
                read = self._directory.read(SKILL_FILE)
                if read is None:
                    raise SkillFormatError(f"skill {self.path!r} has no {SKILL_FILE} any more")
                skill_md = read
            front = self.frontmatter(skill_md)
        except (SkillFormatError, TypeError, ValueError, OSError) as exc:
            raise McpError(INTERNAL_ERROR, f"skill {self.uri} cannot be served: {exc}") from None
        return {
            "uri": self.uri,
            "frontmatter": front,
            "resources": [
                {"uri": self.file_uri(rel), "digest": dig, "size": size}
                for rel, size, dig in manifest
            ],
        }

    async def read(self, rel: str, workers: WorkerPool) -> bytes | None:
        """The bytes of the file at ``rel`` (None when the skill has no such file)."""
        if self._files is not None:
            return self._files.get(rel)
        if self._directory is not None:
            return self._directory.read(rel)
        return (await self.files(workers) or {}).get(rel)

    async def listing(self, workers: WorkerPool) -> dict[str, int]:
        """Relative path -> size of every file (for directory reads)."""
        if self._files is not None:
            return {rel: len(data) for rel, data in self._files.items()}
        if self._directory is not None:
            return {rel: size for rel, size, _ in self._directory.manifest()}
        return {rel: len(data) for rel, data in (await self.files(workers) or {}).items()}


class SkillServer(Registries, Protocol):
    """What the skills of a server read of it (a :class:`~mcpkit.server.app.Server` is
    one): its registries, its worker pool and its default caching hints."""

    @property
    def workers(self) -> WorkerPool: ...

    @property
    def cache_default(self) -> CacheHints: ...


class SkillRegistry:
    """The skills of one server and the handlers of the extension's methods."""

    def __init__(self, server: SkillServer) -> None:
        self.server = server
        #: Skill path -> skill, in registration order.
        self.skills: dict[str, Skill] = {}

    # -- registration ---------------------------------------------------------------------------

    def add(
        self,
        source: FileSource | None = None,
        *,
        path: str | None = None,
        dynamic: Callable[[], Any] | None = None,
        cache: CacheHints | None = None,
    ) -> Skill:
        """Serve one skill (see :meth:`mcpkit.Server.add_skill`)."""
        if dynamic is not None:
            if path is None:
                raise ValueError("a dynamic skill needs its path")
            skill = Skill(path, dynamic=dynamic, cache=cache)
        elif isinstance(source, Mapping):
            if path is None:
                raise ValueError("a skill given as files needs its path")
            skill = Skill(path, files=_mapping_files(source), cache=cache)
        elif isinstance(source, (str, os.PathLike)):
            directory = _Directory(Path(source))
            skill = Skill(path or directory.root.name, directory=directory, cache=cache)
        else:
            raise TypeError("a skill is a directory path, a mapping of files or a function")
        if skill.path in self.skills:
            raise ValueError(f"a skill is already served at {skill.uri}")
        self.skills[skill.path] = skill
        self._publish(skill)
        return skill

    def add_tree(
        self, root: str | os.PathLike[str], *, prefix: str | None = None, cache: CacheHints | None
    ) -> list[Skill]:
        """Serve every directory under ``root`` holding a ``SKILL.md`` (nested ones too), at
        its path relative to ``root`` (under ``prefix``)."""
        base = Path(root).resolve()
        if not base.is_dir():
            raise ValueError(f"{root} is not a directory")
        found: list[Skill] = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if SKILL_FILE in filenames:
                rel = Path(dirpath).relative_to(base).as_posix()
                if rel == ".":
                    rel = base.name
                path = f"{prefix.strip('/')}/{rel}" if prefix else rel
                found.append(self.add(dirpath, path=path, cache=cache))
        return found

    def remove(self, path_or_uri: str) -> None:
        """Stop serving a skill (by path or ``SKILL.md`` URI); KeyError when unknown."""
        path = path_or_uri
        if path.startswith(SCHEME):
            path = unquote(path[len(SCHEME) :]).removesuffix("/" + SKILL_FILE)
        skill = self.skills.pop(path)
        resources = self.server.resources
        template = SCHEME + "{+path}"
        if not self.skills and template in resources.templates:
            resources.remove(template)
        if skill.uri in resources.resources:
            resources.remove(skill.uri)
        else:
            resources._changed()

    def _publish(self, skill: Skill) -> None:
        resources = self.server.resources
        template = SCHEME + "{+path}"
        if template not in resources.templates:  # one template reads every skill's files
            resources.add(
                self._read_template,
                template,
                name="skill-files",
                description="Files of the skills this server serves (skills/list names them)",
            )
        if skill.dynamic:
            resources._changed()  # the extension's capability, handlers
            return

        async def read_skill_md() -> JSONObject:
            return await self._contents(skill, SKILL_FILE)

        front = skill._front[1] if skill._front is not None else {}
        resources.add(
            read_skill_md,
            skill.uri,
            name=skill.name,
            description=str(front.get("description", "")) or None,
            mime_type="text/markdown",
            cache=skill.cache,
        )

    # -- resources/read --------------------------------------------------------------------------

    async def _contents(self, skill: Skill, rel: str) -> JSONObject:
        data = await skill.read(rel, self.server.workers)
        if data is None:
            raise ResourceNotFound(skill.file_uri(rel))
        return file_contents(skill.file_uri(rel), data, mime_type_of(rel))

    async def _read_template(self, path: str) -> JSONObject:
        # The innermost skill holding the file first (a nested skill's files are also its
        # enclosing skill's).
        parts = unquote(path).split("/")
        for cut in range(len(parts) - 1, 0, -1):
            skill = self.skills.get("/".join(parts[:cut]))
            if skill is None:
                continue
            rel = "/".join(parts[cut:])
            data = await skill.read(rel, self.server.workers)
            if data is not None:
                return file_contents(skill.file_uri(rel), data, mime_type_of(rel))
        raise ResourceNotFound(SCHEME + path)

    # -- the extension's methods -----------------------------------------------------------------

    def advertise(self, capabilities: JSONObject) -> None:
        """Declare the extension (with ``directoryRead``) in ``capabilities.extensions``."""
        if self.skills:
            extensions = capabilities.get("extensions")
            capabilities["extensions"] = {
                **(extensions or {}),
                EXTENSION_ID: {"directoryRead": True},
            }

    def handlers(self) -> dict[str, ServerHandler]:
        """``skills/list``, ``skills/get`` and ``resources/directory/read``."""
        if not self.skills:
            return {}
        return {
            "skills/list": self.list_skills,
            "skills/get": self.get_skill,
            "resources/directory/read": self.read_directory,
        }

    def _hints(self, rctx: ServerRequestContext, skills: Iterable[Skill]) -> JSONObject:
        if rctx.envelope is None:
            return {}
        default = self.server.cache_default
        return CacheHints.combine(*(s.cache or default for s in skills)).to_fields()

    async def list_skills(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``skills/list``: one page of entries (an entry is never split)."""
        cursor = params.get("cursor") if type(params) is dict else None
        offset = 0 if cursor is None else decode_cursor(cursor)
        skills = list(self.skills.values())
        if offset > len(skills) or (offset and offset == len(skills)):
            raise McpError(INVALID_PARAMS, "Invalid cursor")
        end = offset + self.server.tools.paginator.page_size
        page = skills[offset:end]
        result: JSONObject = {"skills": [await s.entry(rctx.workers) for s in page]}
        if end < len(skills):
            result["nextCursor"] = encode_cursor(end)
        result.update(self._hints(rctx, skills))
        return result

    def _skill_at(self, params: JSONObject | None) -> Skill:
        uri = params.get("uri") if type(params) is dict else None
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "'uri' must be a string (the URI of a SKILL.md)")
        skill = None
        if uri.startswith(SCHEME) and uri.endswith("/" + SKILL_FILE):
            skill = self.skills.get(unquote(uri[len(SCHEME) : -len(SKILL_FILE) - 1]))
        if skill is None or skill.uri != uri:
            raise McpError(INVALID_PARAMS, f"No skill is served at {uri}", {"uri": uri})
        return skill

    async def get_skill(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``skills/get``: the entry of the skill whose ``SKILL.md`` is ``params.uri``."""
        skill = self._skill_at(params)
        result: JSONObject = {"skill": await skill.entry(rctx.workers)}
        result.update(self._hints(rctx, (skill,)))
        return result

    async def read_directory(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``resources/directory/read``: the direct children of a directory resource."""
        uri = params.get("uri") if type(params) is dict else None
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "'uri' must be a string (a directory resource)")
        children = await self._children(uri, rctx)
        if children is None:
            raise McpError(INVALID_PARAMS, f"{uri} is not a directory resource", {"uri": uri})
        cursor = params.get("cursor") if type(params) is dict else None
        offset = 0 if cursor is None else decode_cursor(cursor)
        items = [children[k] for k in sorted(children)]
        if offset > len(items) or (offset and offset == len(items)):
            raise McpError(INVALID_PARAMS, "Invalid cursor")
        end = offset + self.server.resources.paginator.page_size
        result: JSONObject = {"resources": items[offset:end]}
        if end < len(items):
            result["nextCursor"] = encode_cursor(end)
        return result

    async def _children(self, uri: str, rctx: ServerRequestContext) -> dict[str, JSONObject] | None:
        """Child URI -> Resource of the directory ``uri``; None when it is not one."""
        if not uri.startswith(SCHEME) or uri.endswith("/"):
            return None
        path = unquote(uri[len(SCHEME) :])
        if not path:
            return None
        found = False
        children: dict[str, JSONObject] = {}
        prefix = path + "/"

        def directory(child_path: str) -> None:
            child = SCHEME + quote(child_path, safe="/")
            children[child] = {
                "uri": child,
                "name": child_path.rsplit("/", 1)[-1],
                "mimeType": DIRECTORY_MIME_TYPE,
            }

        for skill_path, skill in self.skills.items():
            if skill_path.startswith(prefix):  # an organizational prefix above skills
                found = True
                directory(prefix + skill_path[len(prefix) :].split("/", 1)[0])
            elif path == skill_path or path.startswith(skill_path + "/"):
                sub = path[len(skill_path) + 1 :]
                inner = sub + "/" if sub else ""
                for rel, size in (await skill.listing(rctx.workers)).items():
                    if not rel.startswith(inner):
                        continue
                    found = True
                    rest = rel[len(inner) :]
                    if "/" in rest:
                        directory(f"{path}/{rest.split('/', 1)[0]}")
                    else:
                        file_uri = skill.file_uri(rel)
                        children[file_uri] = {
                            "uri": file_uri,
                            "name": rest,
                            "mimeType": mime_type_of(rest),
                            "size": size,
                        }
                if not sub:
                    found = True  # the skill root itself, even empty
        return children if found else None
