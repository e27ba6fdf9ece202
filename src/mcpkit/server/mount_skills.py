"""Skills of mounted servers (the ``io.modelcontextprotocol/skills`` extension).

A parent serves the skills of the servers mounted in it (and of mounted proxies whose
upstream has skills) beside its own. A prefixed mount puts its prefix in front of each
skill path as an organizational prefix, which the extension allows (only the last segment
of a skill path must be the skill's name): ``app.mount(docs, prefix="docs")`` serves the
child's ``skill://pdf-processing/SKILL.md`` as ``skill://docs/pdf-processing/SKILL.md``
(the prefix in lower case, ``_`` written ``-``, as for other URIs). The URI stays a
``skill://`` URI, so clients verify it as any other, and digests and sizes are the child's
(the bytes do not change). ``skills/list`` has the parent's own skills, then each mount's;
``skills/get``, ``resources/read`` and ``resources/directory/read`` of a URI under a
mount's prefix are answered by that mount; ``skill://<prefix>`` itself is a directory whose
children are the mount's top-level skill directories. Without a prefix the child's URIs are
served as they are (after the parent's own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.server.caching import CacheHints
from mcpkit.skills import DIRECTORY_MIME_TYPE, EXTENSION_ID, SCHEME

if TYPE_CHECKING:
    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.mount import Mount, _Mounts
    from mcpkit.server.session import ServerRequestContext

__all__ = ["advertise", "handlers"]

_METHODS: Final = ("skills/list", "skills/get", "resources/directory/read")


def _serves(server: Server[Any], version: Any = None) -> bool:
    from mcpkit import versions

    caps = server.capabilities(version or versions.LATEST)
    extensions = caps.get("extensions")
    return isinstance(extensions, dict) and EXTENSION_ID in extensions


def advertise(mounts: _Mounts, caps: JSONObject, version: Any) -> None:
    """Declare the extension when a mounted server serves skills (the parent's own
    registry declares it otherwise)."""
    extensions = caps.get("extensions")
    if isinstance(extensions, dict) and EXTENSION_ID in extensions:
        return
    if any(_serves(m.server, version) for m in list(mounts.mounts)):
        caps["extensions"] = {**(extensions or {}), EXTENSION_ID: {"directoryRead": True}}


def _rewrite_entry(m: Mount, entry: Any) -> Any:
    if type(entry) is not dict:
        return entry
    out = dict(entry)
    if type(out.get("uri")) is str:
        out["uri"] = m.uri(out["uri"])
    files = out.get("resources")
    if type(files) is list:
        out["resources"] = [
            {**f, "uri": m.uri(f["uri"])} if type(f) is dict and type(f.get("uri")) is str else f
            for f in files
        ]
    return out


def _rewrite_resources(m: Mount, result: Any) -> Any:
    if type(result) is not dict or type(result.get("resources")) is not list:
        return result
    return {**result, "resources": [_rewrite_entry(m, r) for r in result["resources"]]}


def _hints_of(result: Any) -> CacheHints | None:
    """The caching hints a modern result carries (None: none)."""
    if type(result) is not dict:
        return None
    ttl, scope = result.get("ttlMs"), result.get("cacheScope")
    if type(ttl) is int and scope in ("public", "private"):
        return CacheHints(ttl, scope)
    return None


async def _entries(
    m: Mount, rctx: ServerRequestContext, hints: list[CacheHints] | None = None
) -> list[JSONObject] | None:
    """Every skill entry of the mount, every page followed, in the parent's URIs (None:
    it serves no skills); the pages' caching hints are added to ``hints``."""
    if "skills/list" not in m.server.handler_table():
        return None
    items: list[JSONObject] = []
    meta = rctx.params.get("_meta") if type(rctx.params) is dict else None
    base: JSONObject = {"_meta": meta} if meta is not None else {}  # the envelope, if any
    params: JSONObject = dict(base)
    for _ in range(10_000):
        try:
            page = await m.call("skills/list", params, rctx)
        except McpError as exc:
            if exc.code == METHOD_NOT_FOUND:
                return None
            raise
        page = orjson.loads(orjson.dumps(page))
        found = _hints_of(page)
        if hints is not None and found is not None:
            hints.append(found)
        items.extend(_rewrite_entry(m, e) for e in page.get("skills") or ())
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
        params = {**base, "cursor": cursor}
    return items


def _local(m: Mount, uri: str) -> str | None:
    local = m.local_uri(uri)
    return local if local is not None and local.startswith(SCHEME) else None


def handlers(mounts: _Mounts) -> dict[str, Any]:
    """The parent's ``skills/list``, ``skills/get`` and ``resources/directory/read``."""
    from mcpkit.server.mount import _page, _renamed_error

    parent = mounts.parent

    def own() -> Any:
        registry = parent._skills
        return registry if registry is not None and registry.skills else None

    async def list_skills(params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        registry = own()
        served = registry is not None
        items: list[JSONObject] = []
        hints: list[CacheHints] = []
        if registry is not None:
            items = [await s.entry(rctx.workers) for s in registry.skills.values()]
            hints.extend(s.cache or parent.cache_default for s in registry.skills.values())
        for m in list(mounts.mounts):
            entries = await _entries(m, rctx, hints)
            if entries is not None:
                served = True
                items.extend(entries)
        if not served:
            raise McpError(METHOD_NOT_FOUND, "Method not found: skills/list")
        result = _page("skills", items, params, parent.tools.paginator.page_size)
        if rctx.envelope is not None:  # the shortest TTL and the narrowest scope of all
            result.update(CacheHints.combine(*hints).to_fields())
        return result

    async def get_skill(params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        uri = params.get("uri") if type(params) is dict else None
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "'uri' must be a string (the URI of a SKILL.md)")
        for m in _candidates(uri):
            local = _local(m, uri)
            if local is None or "skills/get" not in m.server.handler_table():
                continue
            try:
                result = await m.call("skills/get", {**(params or {}), "uri": local}, rctx)
            except McpError as exc:
                if m.prefix is not None:
                    raise _renamed_error(exc, m) from None
                continue
            if type(result) is dict:
                result = {**result, "skill": _rewrite_entry(m, result.get("skill"))}
                if rctx.envelope is not None and _hints_of(result) is None:
                    result.update(parent.cache_default.to_fields())
            return result  # type: ignore[no-any-return]
        registry = own()
        if registry is not None:
            return await registry.get_skill(params, rctx)  # type: ignore[no-any-return]
        raise McpError(INVALID_PARAMS, f"No skill is served at {uri}", {"uri": uri})

    async def read_directory(params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        uri = params.get("uri") if type(params) is dict else None
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "'uri' must be a string (a directory resource)")
        for m in list(mounts.mounts):
            if m.prefix is not None and uri + "/" == m.skill_prefix:
                return await _mount_root(m, uri, params, rctx)
        for m in _candidates(uri):
            local = _local(m, uri)
            if local is None or "resources/directory/read" not in m.server.handler_table():
                continue
            try:
                result = await m.call(
                    "resources/directory/read", {**(params or {}), "uri": local}, rctx
                )
            except McpError as exc:
                if m.prefix is not None:
                    raise _renamed_error(exc, m) from None
                continue
            return _rewrite_resources(m, result)  # type: ignore[no-any-return]
        registry = own()
        if registry is not None:
            return await registry.read_directory(params, rctx)  # type: ignore[no-any-return]
        raise McpError(INVALID_PARAMS, f"{uri} is not a directory resource", {"uri": uri})

    def _candidates(uri: str) -> list[Mount]:
        """The prefixed mount whose namespace holds ``uri`` (it alone answers), else the
        unprefixed mounts in order (after the parent's own skills)."""
        for m in list(mounts.mounts):
            if m.prefix is not None and _local(m, uri) is not None:
                return [m]
        registry = own()
        if registry is not None and uri.startswith(SCHEME):
            path = uri[len(SCHEME) :]
            if any(path == p or path.startswith(p + "/") for p in registry.skills):
                return []
        return [m for m in list(mounts.mounts) if m.prefix is None]

    async def _mount_root(
        m: Mount, uri: str, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        entries = await _entries(m, rctx)
        if not entries:
            raise McpError(INVALID_PARAMS, f"{uri} is not a directory resource", {"uri": uri})
        children: dict[str, JSONObject] = {}
        for entry in entries:
            path = str(entry.get("uri", ""))[len(m.skill_prefix) :]
            first = path.split("/", 1)[0]
            if first:
                child = m.skill_prefix + first
                children[child] = {"uri": child, "name": first, "mimeType": DIRECTORY_MIME_TYPE}
        items = [children[k] for k in sorted(children)]
        return _page("resources", items, params, parent.resources.paginator.page_size)

    return {
        "skills/list": list_skills,
        "skills/get": get_skill,
        "resources/directory/read": read_directory,
    }
