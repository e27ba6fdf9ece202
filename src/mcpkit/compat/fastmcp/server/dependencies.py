"""``fastmcp.server.dependencies`` on mcpkit: :func:`get_context`, the Context of the
request being served, from anywhere inside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from mcpkit.compat.fastmcp.context import Context

if TYPE_CHECKING:
    from mcpkit.server.context import Context as NativeContext

__all__ = ["get_context"]


def get_context() -> Context:
    """The :class:`Context` of the request being served (RuntimeError outside of one)."""
    from mcpkit.server.logging import current_context

    # The logging bridge's current context is the request's own Context.
    native = cast("NativeContext[Any] | None", current_context.get())
    if native is None:
        raise RuntimeError("No active context found.")
    return Context(native, getattr(native.server, "compat_owner", None))
