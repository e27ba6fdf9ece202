"""Several versions of one tool, resource, template or prompt name, served as fastmcp serves
them, over mcpkit's registries (which hold one component per name).

Each version is registered natively, then kept here; the registry holds the one served by
default: the highest version that passes the server's :class:`VersionFilter` transforms, its
version rules (``mcp.disable(names=..., version=VersionSpec(...))``) and its tag filter, listed
with ``_meta.fastmcp.version`` and ``versions`` (every such version, highest first). A request
whose ``_meta.fastmcp.version`` is a string gets the highest such version equal to it (PEP 440
equality: ``"1"`` is ``"1.0"``), or the answer for an unknown name (``Unknown tool: 'calc'``
as an error result, ``Unknown prompt``, ``Resource not found``); an unversioned component
answers any version. A name is versioned or not: mixing both raises ValueError, as fastmcp
does. The registries of a server without versions are left as they are.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.compat._adapt import _UnknownAsResult
from mcpkit.compat.fastmcp._registries import FastPrompts, FastResources
from mcpkit.compat.fastmcp.utilities.versions import VersionSpec, version_sort_key
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.server.app import Server

__all__ = ["VersionRule", "Versions", "coerce_version", "requested_version"]

logger = logging.getLogger("mcpkit.compat.fastmcp")

Kind = Literal["tools", "prompts", "resources", "templates"]
_SINGULAR = {
    "tools": "tool",
    "prompts": "prompt",
    "resources": "resource",
    "templates": "resourcetemplate",
}


def coerce_version(version: Any) -> str | None:
    """A ``version=`` as fastmcp stores it: a string (ints and floats converted); TypeError
    for other types, ValueError for a version with ``@``."""
    if version is None:
        return None
    if not isinstance(version, str | int | float):
        raise TypeError(
            f"Version must be a string, int, or float, got {type(version).__name__}: {version!r}"
        )
    text = str(version)
    if "@" in text:
        raise ValueError(f"Version string cannot contain '@' (used as key delimiter): {text!r}")
    return text


def requested_version(params: Any) -> str | None:
    """The version a request asks for: its ``_meta.fastmcp.version``, when a string."""
    if type(params) is not dict:
        return None
    meta = params.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    ours = meta.get("fastmcp")
    if not isinstance(ours, Mapping):
        return None
    version = ours.get("version")
    return version if isinstance(version, str) else None


@dataclass(frozen=True)
class VersionRule:
    """``mcp.enable``/``mcp.disable`` with ``version=``: the versions of the named components
    (of ``kinds``; all kinds when None) that ``spec`` matches are served or not."""

    on: bool
    spec: VersionSpec
    names: frozenset[str] | None
    kinds: frozenset[str] | None

    def applies(self, kind: str, key: str, version: str) -> bool:
        """Whether the rule is about this version of this component."""
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.names is not None and key not in self.names:
            return False
        return self.spec.matches(version, match_none=False)


@dataclass
class _Version:
    entry: Any
    tags: frozenset[str]


class Versions:
    """The versioned components of one server (see the module)."""

    def __init__(self, native: Server[Any]) -> None:
        self.native = native
        #: (kind, name or URI) -> version -> its registered entry and tags.
        self.kept: dict[tuple[Kind, str], dict[str, _Version]] = {}
        #: The server's version filters: (spec, include_unversioned).
        self.filters: list[tuple[VersionSpec, bool]] = []
        #: enable/disable rules naming versions, in the order given (the last one wins).
        self.rules: list[VersionRule] = []
        #: Unversioned components a filter excludes, out of their registry.
        self.dropped: dict[tuple[Kind, str], Any] = {}

    # -- the registries ---------------------------------------------------------------------

    def _table(self, kind: Kind) -> dict[str, Any]:
        n = self.native
        if kind == "tools":
            return n.tools.tools
        if kind == "prompts":
            return n.prompts.prompts
        if kind == "resources":
            return n.resources.resources
        return n.resources.templates

    def _hidden(self) -> dict[tuple[Any, str], Any]:
        control = self.native.component_control
        return {} if control is None else control.hidden

    def _changed(self, kind: Kind) -> None:
        n = self.native
        if kind == "tools":
            n.tools._changed()
        elif kind == "prompts":
            n.prompts.paginator.invalidate()
            n.prompts._on_change()
        else:
            n.resources._changed()

    def _detach(self, kind: Kind, key: str) -> Any:
        """Take the component ``key`` out of its registry (or the hidden ones)."""
        entry = self._table(kind).pop(key, None)
        hidden = self._hidden().pop((kind, key), None)
        return entry if entry is not None else hidden

    def _present(self, kind: Kind, key: str) -> bool:
        return key in self._table(kind) or (kind, key) in self._hidden()

    def _swap_classes(self) -> None:
        """Make the registries answer requests naming a version (once, on the first one)."""
        n = self.native
        registries: tuple[tuple[Any, type], ...] = (
            (n.tools, VersionedTools),
            (n.prompts, VersionedPrompts),
            (n.resources, VersionedResources),
        )
        for registry, cls in registries:
            if not isinstance(registry, cls):
                registry.__class__ = cls
                registry.versions = self

    # -- registering ------------------------------------------------------------------------

    def add(
        self,
        kind: Kind,
        key: str,
        version: str | None,
        tags: Iterable[str] | None,
        register: Callable[[], Any],
    ) -> Any:
        """Register one component (``register`` registers it natively and returns its
        entry) as version ``version`` of ``key``; the entry."""
        what = _SINGULAR[kind]
        group = self.kept.get((kind, key))
        if version is None:
            if group:
                some = next(iter(group))
                raise ValueError(
                    f"Cannot add unversioned {what} {key!r}: versioned {what}s with this "
                    f"name already exist (e.g., version={some!r}). "
                    "Either version all components or none."
                )
            entry = register()
            if not self._unversioned_pass():
                self.dropped[(kind, key)] = self._detach(kind, key)
                self._changed(kind)
            return entry
        if group is None and self._present(kind, key):
            raise ValueError(
                f"Cannot add versioned {what} {key!r} (version={version!r}): an unversioned "
                f"{what} with this name already exists. Either version all components or none."
            )
        self._swap_classes()
        self.native.components  # noqa: B018 (made now, it keeps each name's first place)
        table = self._table(kind)
        order = list(table)
        if group is not None:
            self._detach(kind, key)
        try:
            entry = register()
        finally:
            self._detach(kind, key)  # kept here; the one served goes back below
        if group is None:
            group = self.kept[(kind, key)] = {}
        elif version in group:
            logger.warning("Component already exists: %s:%s@%s", what, key, version)
        group[version] = _Version(entry, frozenset(tags or ()))
        self.refresh(kind, key)
        _in_order(table, order)
        return entry

    def remove(self, kind: Kind, key: str, version: str | None) -> bool:
        """Unregister every version of ``key`` (``version`` None) or one; False when ``key``
        is not versioned (KeyError for a version it does not have)."""
        group = self.kept.get((kind, key))
        if group is None:
            return False
        if version is not None:
            if version not in group:
                what = _SINGULAR[kind].capitalize()
                raise KeyError(f"{what} {key!r} version {version!r} not found")
            del group[version]
            if group:
                self.refresh(kind, key)
                return True
        del self.kept[(kind, key)]
        self._detach(kind, key)
        control = self.native.component_control
        if control is not None:
            control.forget(kind, key)
        self._changed(kind)
        return True

    # -- what is served ---------------------------------------------------------------------

    def _unversioned_pass(self) -> bool:
        return all(include for _, include in self.filters)

    def allowed(self, kind: Kind, key: str) -> list[str]:
        """The versions of ``key`` served now, highest first."""
        control = self.native.component_control
        out: list[str] = []
        for version, kept in self.kept.get((kind, key), {}).items():
            if not all(spec.matches(version) for spec, _ in self.filters):
                continue
            on = True
            for rule in self.rules:
                if rule.applies(kind, key, version):
                    on = rule.on
            if not on:
                continue
            if control is not None:
                if control.include is not None and not kept.tags & control.include:
                    continue
                if kept.tags & control.exclude:
                    continue
            out.append(version)
        return sorted(out, key=version_sort_key, reverse=True)

    def refresh(self, kind: Kind, key: str) -> None:
        """Serve the highest allowed version of ``key`` (none: the name is not served),
        listed with every allowed version."""
        group = self.kept[(kind, key)]
        versions = self.allowed(kind, key)
        table = self._table(kind)
        hidden = self._hidden()
        control = self.native.component_control
        if not versions:
            self._detach(kind, key)
            self._changed(kind)
            return
        kept = group[versions[0]]
        entry = kept.entry
        meta = entry.definition.setdefault("_meta", {})
        meta["fastmcp"] = {**meta.get("fastmcp", {}), "versions": versions}
        if control is not None:
            if kept.tags:
                control.tags[(kind, key)] = kept.tags
            else:
                control.tags.pop((kind, key), None)
        if (kind, key) in hidden:
            hidden[(kind, key)] = entry
        else:
            absent = key not in table
            table[key] = entry
            if absent and control is not None:
                control._reorder(kind, table)
        if control is not None:
            control._apply((kind, key))  # hidden or shown by name and by these tags
        self._changed(kind)

    def refresh_all(self) -> None:
        """Look at every versioned component again (a filter or a rule changed), and at the
        unversioned ones a filter may exclude."""
        for kind, key in list(self.kept):
            self.refresh(kind, key)
        keep = self._unversioned_pass()
        if keep:
            for (kind, key), entry in list(self.dropped.items()):
                self._table(kind)[key] = entry
                del self.dropped[(kind, key)]
                control = self.native.component_control
                if control is not None:
                    control._reorder(kind, self._table(kind))
                    control._apply((kind, key))
                self._changed(kind)
            return
        for kind in ("tools", "prompts", "resources", "templates"):
            for key in list(self._table(kind)):
                if (kind, key) not in self.kept:
                    self.dropped[(kind, key)] = self._table(kind).pop(key)
            for hk in [k for k in self._hidden() if k[0] == kind and k not in self.kept]:
                self.dropped[hk] = self._hidden().pop(hk)
            self._changed(kind)

    def add_filter(self, spec: VersionSpec, include_unversioned: bool) -> None:
        """A :class:`VersionFilter` on this server."""
        self.filters.append((spec, include_unversioned))
        self._swap_classes()
        self.refresh_all()

    def add_rule(self, rule: VersionRule) -> None:
        """``enable``/``disable`` with ``version=``."""
        self.rules.append(rule)
        self._swap_classes()
        self.refresh_all()

    def pick(self, kind: Kind, key: str, served: Any, wanted: str) -> Any:
        """The entry a request for version ``wanted`` of ``key`` gets (``served``: what
        the registry serves by default), or None when no such version is served."""
        group = self.kept.get((kind, key))
        if group is None or not any(v.entry is served for v in group.values()):
            return served  # unversioned: any version will do
        spec = VersionSpec(eq=wanted)
        for version in self.allowed(kind, key):
            if spec.matches(version):
                return group[version].entry
        return None


def _in_order(table: dict[str, Any], order: list[str]) -> None:
    """Put ``table`` (in place) back in ``order``, names not in it after."""
    rank = {name: i for i, name in enumerate(order)}
    names = list(table)
    ranks = [rank.get(n, len(rank)) for n in names]
    if ranks != sorted(ranks):
        items = sorted(table.items(), key=lambda item: rank.get(item[0], len(rank)))
        table.clear()
        table.update(items)


class VersionedTools(_UnknownAsResult):
    """Tools answering ``_meta.fastmcp.version`` (see the module)."""

    versions: Versions

    def lookup(self, params: JSONObject | None) -> Any:
        """The tool a ``tools/call`` names, in the version it asks for."""
        entry = super().lookup(params)
        wanted = requested_version(params)
        if wanted is None:
            return entry
        chosen = self.versions.pick("tools", entry.name, entry, wanted)
        if chosen is None:
            raise McpError(INVALID_PARAMS, f"Unknown tool: {entry.name}")
        return chosen

    def _unknown(self, params: Any) -> dict[str, Any] | None:
        unknown = super()._unknown(params)
        if unknown is None and requested_version(params) is not None:
            try:
                self.lookup(params)
            except McpError:
                return error_result(self.unknown_text(params["name"]))
        return unknown


class VersionedPrompts(FastPrompts):
    """Prompts answering ``_meta.fastmcp.version`` (see the module)."""

    versions: Versions

    def chosen(self, name: str, entry: Any, params: JSONObject | None) -> Any:
        """The version of ``entry`` the request asks for (McpError when not served)."""
        wanted = requested_version(params)
        if wanted is None:
            return entry
        chosen = self.versions.pick("prompts", name, entry, wanted)
        if chosen is None:
            raise McpError(INVALID_PARAMS, f"Unknown prompt: {name!r}")
        return chosen

    async def render(self, entry: Any, params: JSONObject | None, rctx: Any) -> JSONObject:
        """``prompts/get`` of this entry."""
        if self.prompts.get(entry.name) is entry:
            return await super().render(entry, params, rctx)
        view = copy.copy(self)
        view.prompts = {entry.name: entry}
        return await FastPrompts.render(view, entry, params, rctx)


class VersionedResources(FastResources):
    """Resources and templates answering ``_meta.fastmcp.version`` (see the module)."""

    versions: Versions

    async def read_resource(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """``resources/read``, of the version the request asks for."""
        wanted = requested_version(params)
        uri = params.get("uri") if type(params) is dict else None
        if wanted is None or not isinstance(uri, str):
            return await super().read_resource(params, rctx)
        found = self.find(uri)
        if found is None:
            return await super().read_resource(params, rctx)
        entry = found[0]
        kind: Kind = "templates" if entry.template is not None else "resources"
        chosen = self.versions.pick(kind, entry.uri, entry, wanted)
        if chosen is None:
            raise McpError(INVALID_PARAMS, f"Resource not found: {uri!r}", {"uri": uri})
        view = copy.copy(self)
        if kind == "templates":
            view.resources, view.templates = {}, {entry.uri: chosen}
        else:
            view.resources, view.templates = {entry.uri: chosen}, {}
        return await super(VersionedResources, view).read_resource(params, rctx)


# -- components sourced per request (providers) -------------------------------------------


def passes(filters: list[tuple[VersionSpec, bool]], version: str | None) -> bool:
    """Whether a component of ``version`` passes a server's version filters."""
    return all(spec.matches(version, match_none=include) for spec, include in filters)


def listed(
    filters: list[tuple[VersionSpec, bool]], items: list[tuple[str, str | None, Any]]
) -> list[Any]:
    """What fastmcp lists of ``items`` ((key, version, component) in order): those passing
    ``filters``, one per key (at the place of its first), the highest version, with every
    listed version of it. The components are returned as ``(component, versions)``,
    ``versions`` None for an unversioned key."""
    groups: dict[str, list[tuple[str | None, Any]]] = {}
    for key, version, component in items:
        if passes(filters, version):
            groups.setdefault(key, []).append((version, component))
    out: list[Any] = []
    for group in groups.values():
        top = max(group, key=lambda vc: version_sort_key(vc[0]))
        versions = sorted(
            (v for v, _ in group if v is not None), key=version_sort_key, reverse=True
        )
        out.append((top[1], versions or None))
    return out


def lookup_spec(filters: list[tuple[VersionSpec, bool]], params: Any) -> VersionSpec | None:
    """The version spec a provider is asked with for a request: the version it names (if
    any) within the server's filters."""
    wanted = requested_version(params)
    spec = None if wanted is None else VersionSpec(eq=wanted)
    for filter_spec, _ in filters:
        spec = filter_spec.intersect(spec)
    return spec
