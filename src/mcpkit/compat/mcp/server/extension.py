"""``mcp.server.extension`` on mcpkit: 2.x's opt-in server extensions
(``MCPServer(extensions=[...])``). An extension's tools (:class:`ToolBinding`) and
resources (:class:`ResourceBinding`) are registered on the server and its ``settings()``
advertised under ``capabilities.extensions[identifier]``; contributed request methods and a
``tools/call`` interceptor are not served (``NotImplementedError`` when the server is
made)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Extension", "MethodBinding", "ResourceBinding", "ToolBinding"]

_IDENTIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)+$")


@dataclass(frozen=True)
class ToolBinding:
    """A tool an extension contributes, plus the ``_meta`` to stamp on it."""

    fn: Callable[..., Any]
    meta: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceBinding:
    """A pre-built resource an extension contributes (``mcp.server.mcpserver.resources``),
    served as ``MCPServer.add_resource`` serves it."""

    resource: Any


@dataclass(frozen=True)
class MethodBinding:
    """A new request method an extension serves (not served)."""

    method: str
    params_type: Any
    handler: Callable[..., Any]
    protocol_versions: frozenset[str] | None = None


class Extension:
    """Base class of an extension: set ``identifier`` (reverse-DNS, ``vendor/name``) and
    override :meth:`settings` and :meth:`tools`."""

    identifier: str

    def settings(self) -> dict[str, Any]:
        """What is advertised at ``capabilities.extensions[identifier]``."""
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        """The tools this extension contributes."""
        return ()

    def resources(self) -> Sequence[ResourceBinding]:
        """The resources this extension contributes."""
        return ()

    def methods(self) -> Sequence[MethodBinding]:
        """Request methods contributed (not served: ``NotImplementedError``)."""
        return ()

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        """Wrap ``tools/call`` (overriding it is not served: ``NotImplementedError``)."""
        return await call_next(ctx)


def apply_extension(server: Any, extension: Any, applied: dict[str, dict[str, Any]]) -> None:
    """Register ``extension``'s tools on the compat ``server`` and record its settings in
    ``applied`` (identifier -> settings); what is not served raises at once."""
    identifier = getattr(extension, "identifier", None)
    owner = type(extension).__name__
    if not isinstance(identifier, str) or not _IDENTIFIER.match(identifier):
        raise ValueError(f"{owner}: extension identifier {identifier!r} is not 'vendor/name'")
    if identifier in applied:
        raise ValueError(f"Extension {identifier!r} is already registered")
    unserved = [
        what
        for what, present in (
            ("methods", bool(extension.methods())),
            (
                "intercept_tool_call",
                type(extension).intercept_tool_call is not Extension.intercept_tool_call,
            ),
        )
        if present
    ]
    if unserved:
        raise NotImplementedError(
            f"extension {identifier!r}: {', '.join(unserved)} not served by mcpkit's compat "
            "layer (its tools and settings are): register them on the native server (mcp.native)"
        )
    for tool in extension.tools():
        server.add_tool(tool.fn, meta=tool.meta, **tool.kwargs)
    for binding in extension.resources():
        server.add_resource(binding.resource)
    applied[identifier] = dict(extension.settings())
