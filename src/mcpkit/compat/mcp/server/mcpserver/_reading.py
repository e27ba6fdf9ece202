"""``resources/read`` of an ``MCPServer`` (2.x) answered as the SDK answers it: a URI
nothing serves, or whose template values fail the template's :class:`ResourceSecurity`, is
``-32602 Unknown resource: <uri>``; a template whose function fails (its arguments
included) is ``-32603 Error creating resource from template <uri>``; an exploded variable
the URI leaves out is an empty list. The URI is the data of each."""

from __future__ import annotations

import functools
from contextvars import ContextVar
from typing import Any

from mcpkit.compat.mcp.server.mcpserver.resources.templates import (
    DEFAULT_RESOURCE_SECURITY,
    ResourceSecurity,
)
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.server.resources import ResourceEntry, ResourceRegistry

__all__ = ["READING", "OfficialResources"]

#: The URI of the ``resources/read`` being answered (for the failure's text).
READING: ContextVar[str | None] = ContextVar("mcpkit_compat_reading", default=None)


@functools.lru_cache(maxsize=256)
def _exploded(template: str) -> tuple[str, ...]:
    """The exploded variables of ``template`` outside its query."""
    from mcpkit.compat.mcp.shared.uri_template import UriTemplate

    variables = UriTemplate.parse(template).variables
    return tuple(v.name for v in variables if v.explode and v.operator not in "?&")


def unknown(uri: str) -> McpError:
    """The SDK's answer for a URI it serves nothing at."""
    return McpError(INVALID_PARAMS, f"Unknown resource: {uri}", {"uri": uri})


class OfficialResources(ResourceRegistry):
    """A resource registry answering reads as ``MCPServer`` does (set on the native
    server's registry by swapping its class; :meth:`configure` gives it its policies)."""

    #: Each template's own policy, by template.
    security: dict[str, ResourceSecurity]
    #: The server's policy (``MCPServer(resource_security=...)``).
    default_security: ResourceSecurity

    def configure(self, default: ResourceSecurity | None) -> None:
        """Start with no template policy and ``default`` (the SDK's when None)."""
        self.security = {}
        self.default_security = default or DEFAULT_RESOURCE_SECURITY

    def find(self, uri: str) -> tuple[ResourceEntry, dict[str, Any]] | None:
        """The entry and values for ``uri``; :func:`unknown` when the values fail the
        template's policy."""
        found = super().find(uri)
        if found is None or found[0].template is None:
            return found
        entry, variables = found
        for name in _exploded(entry.uri):
            variables.setdefault(name, [])
        if self.security.get(entry.uri, self.default_security).validate(variables) is not None:
            raise unknown(uri)
        return entry, variables

    async def read(self, uri: Any, request: Any, rctx: Any = None) -> list[JSONObject]:
        """The contents of ``uri``, its failures as the SDK answers them."""
        token = READING.set(uri if isinstance(uri, str) else None)
        try:
            return await super().read(uri, request, rctx)
        except McpError as exc:
            mine = isinstance(uri, str) and exc.__cause__ is None
            if not mine or not exc.message.startswith(f"Resource not found: {uri}"):
                raise
            if exc.message == f"Resource not found: {uri}":
                raise unknown(uri) from None
            # the values did not fit the function's parameters
            text = f"Error creating resource from template {uri}"
            raise McpError(INTERNAL_ERROR, text, {"uri": uri}) from None
        finally:
            READING.reset(token)
