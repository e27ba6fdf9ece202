"""fastmcp's visibility API on mcpkit's component control and per-caller visibility
(:mod:`mcpkit.server.components`, :mod:`mcpkit.server.visibility`): ``mcp.disable(...)`` /
``mcp.enable(...)`` for everyone, ``ctx.enable_components(...)`` /
``ctx.disable_components(...)`` / ``ctx.reset_visibility()`` for one session.

fastmcp matches a component when it meets every criterion given; mcpkit's rules name
components or tags, so the criteria that map onto them are served (``names`` or ``tags``,
narrowed by ``components`` for a session; ``version=`` with or without ``names`` and
``components`` for everyone, :mod:`._versions`) and any other combination (``keys``,
``match_all``, ``only``, names with tags, a session's ``version=``) raises
NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._versions import VersionRule
    from mcpkit.server.app import Server
    from mcpkit.server.context import Context as NativeContext

__all__ = ["reset", "session_rule", "set_global", "version_rule"]

_KINDS = {"tool": "tools", "resource": "resources", "template": "templates", "prompt": "prompts"}
#: The notifications fastmcp sends, in its order, when a session's visibility changes.
_NOTIFY = (
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
)


def _unsupported(what: str, given: dict[str, Any]) -> None:
    extra = sorted(k for k, v in given.items() if v)
    if extra:
        raise NotImplementedError(
            f"{what}({', '.join(f'{k}=...' for k in extra)}) is not "
            "supported on mcpkit: name components or tags"
        )


def _kinds(components: Iterable[str] | None) -> list[str] | None:
    if not components:
        return None
    unknown = set(components) - set(_KINDS)
    if unknown:
        raise ValueError(f"components are among {sorted(_KINDS)}, not {sorted(unknown)}")
    return sorted({_KINDS[c] for c in components})


def set_global(
    server: Server[Any],
    on: bool,
    names: Iterable[str] | None,
    tags: Iterable[str] | None,
    components: Iterable[str] | None,
    **rest: Any,
) -> None:
    """``mcp.enable(...)`` (``on``) or ``mcp.disable(...)``: by tags for every component,
    or by names (tool or prompt names, resource URIs, URI templates) of ``components``."""
    what = "enable" if on else "disable"
    _unsupported(what, rest)
    if names and tags:
        _unsupported(what, {"names": True, "tags": True})
    if tags:
        if components:
            _unsupported(what, {"tags": True, "components": True})
        (server.enable if on else server.disable)(tags=set(tags))
        return
    kinds = _kinds(components) or list(_KINDS.values())
    for name in names or ():
        found = False
        for kind in kinds:
            try:
                server.components.set_enabled(kind, name, on)  # type: ignore[arg-type]
            except KeyError:
                continue
            found = True
        if not found:
            raise KeyError(f"no component {name!r} is registered")


def version_rule(
    on: bool,
    names: Iterable[str] | None,
    tags: Iterable[str] | None,
    components: Iterable[str] | None,
    version: Any,
    rest: dict[str, Any],
) -> VersionRule:
    """``mcp.enable(version=...)`` (``on``) or ``mcp.disable(version=...)``: the versions
    ``version`` matches of the components named (all when no names), of ``components``."""
    from mcpkit.compat.fastmcp._versions import VersionRule
    from mcpkit.compat.fastmcp.utilities.versions import VersionSpec

    what = "enable" if on else "disable"
    _unsupported(what, {**rest, "tags": tags})
    if not isinstance(version, VersionSpec):
        raise TypeError(f"{what}(version=...) takes a VersionSpec, not {type(version).__name__}")
    kinds = _kinds(components)
    return VersionRule(
        on,
        version,
        None if names is None else frozenset(names),
        None if kinds is None else frozenset(kinds),
    )


async def session_rule(
    ctx: NativeContext[Any],
    on: bool,
    names: Iterable[str] | None,
    tags: Iterable[str] | None,
    components: Iterable[str] | None,
    **rest: Any,
) -> None:
    """``ctx.enable_components(...)`` (``on``) or ``ctx.disable_components(...)``."""
    what = "enable_components" if on else "disable_components"
    _unsupported(what, rest)
    if names and tags:
        _unsupported(what, {"names": True, "tags": True})
    if not names and not tags:
        _unsupported(what, {"match_all": True})
    kinds = _kinds(components)
    if on:
        await ctx.enable(*(names or ()), tags=tags, kinds=kinds)
    else:
        await ctx.disable(*(names or ()), tags=tags, kinds=kinds)


async def reset(ctx: NativeContext[Any]) -> None:
    """``ctx.reset_visibility()``: the caller's rules dropped; this session is told that
    every list changed."""
    from mcpkit.bus import BusEvent
    from mcpkit.server.state import StateOwnerMissing, state_owner
    from mcpkit.server.subscriptions import audience
    from mcpkit.server.visibility import RULES_KEY

    try:
        owner = state_owner(ctx)
    except StateOwnerMissing:
        return
    server = ctx.server
    await server.state_store.delete(owner, RULES_KEY)
    if ctx.envelope is None:
        for method in _NOTIFY:
            await ctx.session.send_quietly(method)
        return
    for kind in ("tools", "resources", "prompts"):
        server.relay.publish(BusEvent.list_changed(kind, audience(owner)))
