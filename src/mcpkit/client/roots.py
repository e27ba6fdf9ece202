"""Serving ``roots/list``: the directories and files the client exposes to the server.

``roots`` is a list (of :class:`~mcpkit.types.Root`, wire dicts, ``file://`` URIs or plain
paths) or a callable returning one (sync or async), evaluated on every ``roots/list``.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpkit.client._util import maybe_await
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject

if TYPE_CHECKING:
    from mcpkit.session import RequestContext

__all__ = ["RootLike", "RootsSource", "root_to_wire", "roots_to_wire", "serve_roots"]

RootLike = "Root | dict[str, Any] | str | os.PathLike[str]"
RootsSource = Any  # Iterable[RootLike] | Callable[[], Iterable[RootLike] | Awaitable[...]]


def root_to_wire(root: Any) -> JSONObject:
    """One root as its wire dict (paths become absolute ``file://`` URIs named by basename)."""
    from mcpkit.types import Root

    if isinstance(root, Root):
        return root.to_wire()
    if isinstance(root, dict):
        return Root.model_validate(root).to_wire()
    if isinstance(root, (str, os.PathLike)):
        text = os.fspath(root)
        if "://" in text:
            return {"uri": text}
        path = Path(text).expanduser().resolve()
        return {"uri": path.as_uri(), "name": path.name or str(path)}
    raise TypeError(f"A root must be a Root, a dict, a URI or a path, not {type(root).__name__}")


def roots_to_wire(roots: Iterable[Any]) -> list[JSONObject]:
    """Every root as its wire dict."""
    return [root_to_wire(r) for r in roots]


def serve_roots(
    get: Callable[[], Any],
) -> Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]:
    """A session request handler for ``roots/list``; ``get()`` returns the current source."""

    async def serve(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        source = get()
        if callable(source):
            source = await maybe_await(source())
        try:
            return {"roots": roots_to_wire(source or [])}
        except (TypeError, ValueError) as exc:
            raise McpError(INTERNAL_ERROR, f"The client's roots are invalid: {exc}") from None

    return serve
