"""Roots from the server side: asking the client for its roots (``roots/list``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, RequestId
from mcpkit.lifecycle import has_capability
from mcpkit.server.errors import ClientCapabilityError

if TYPE_CHECKING:
    from mcpkit.session import Session
    from mcpkit.types import Root

__all__ = ["list_roots"]


async def list_roots(
    session: Session,
    related_request_id: RequestId | None = None,
    *,
    request: Callable[..., Awaitable[Any]] | None = None,
) -> list[Root]:
    """The client's roots; a clear McpError when the client did not declare ``roots``.

    ``request`` sends ``roots/list`` in place of the session (a request context's, so the
    request is related to the one being served).
    """
    from mcpkit.types import Root

    if not has_capability(session.peer_capabilities, ("roots",)):
        raise ClientCapabilityError("The client did not declare the 'roots' capability")
    if request is not None:
        result: Any = await request("roots/list")
    else:
        result = await session.request("roots/list", related_request_id=related_request_id)
    roots = result.get("roots") if isinstance(result, dict) else None
    if not isinstance(roots, list):
        raise McpError(INTERNAL_ERROR, "The client sent a malformed roots/list result")
    return [Root.from_wire(r) for r in roots]
