"""``mcp.server.session`` on mcpkit: :class:`ServerSession`, the session a handler talks to
the client through."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.context import ServerSession

__all__ = ["ServerSession"]
