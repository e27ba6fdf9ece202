"""``fastmcp.server.dependencies`` on mcpkit: :func:`get_context`, the Context of the
request being served, from anywhere inside it."""

from __future__ import annotations

from mcpkit.compat.fastmcp.context import Context

__all__ = ["get_context"]


def get_context() -> Context:
    """The :class:`Context` of the request being served (RuntimeError outside of one)."""
    from mcpkit.server.logging import current_context

    native = current_context.get()
    if native is None:
        raise RuntimeError("No active context found.")
    return Context(native, getattr(native.server, "compat_owner", None))
