"""Serving ``roots/list``: the directories and files the client exposes to the server.

``roots`` is a list (of :class:`~mcpkit.types.Root`, wire dicts, ``file://`` URIs or plain
paths) or a callable returning one (sync or async), evaluated on every ``roots/list``.
Root URIs must be ``file://`` URIs (the spec's MUST) without ``..`` segments (no path
traversal); plain paths are made absolute and resolved.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import unquote, urlsplit

from mcpkit.client._util import maybe_await
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject

if TYPE_CHECKING:
    from mcpkit.session import RequestContext
    from mcpkit.types import Root

__all__ = [
    "RootLike",
    "RootsSource",
    "check_roots",
    "root_to_wire",
    "roots_to_wire",
    "serve_roots",
]

RootLike: TypeAlias = "Root | dict[str, Any] | str | os.PathLike[str]"
"""One root: a :class:`~mcpkit.types.Root`, its wire dict, a ``file://`` URI or a path."""

RootsSource: TypeAlias = (
    "Iterable[RootLike] | Callable[[], Iterable[RootLike] | Awaitable[Iterable[RootLike]]]"
)
"""The client's roots: a list, or a callable (sync or async) returning one on each
``roots/list``."""


def _checked(wire: JSONObject) -> JSONObject:
    uri = wire.get("uri")
    parts = urlsplit(uri) if isinstance(uri, str) else None
    if parts is None or parts.scheme.lower() != "file":
        raise ValueError(f"A root must be a file:// URI, not {uri!r}")
    if ".." in unquote(parts.path).split("/"):
        raise ValueError(f"A root URI must not contain '..' segments: {uri!r}")
    return wire


def root_to_wire(root: Any) -> JSONObject:
    """One root as its wire dict (paths become absolute ``file://`` URIs named by basename).

    Raises ValueError for a URI that is not ``file://`` or has ``..`` segments."""
    from mcpkit.types import Root

    if isinstance(root, Root):
        return _checked(root.to_wire())
    if isinstance(root, dict):
        return _checked(Root.model_validate(root).to_wire())
    if isinstance(root, (str, os.PathLike)):
        text = os.fspath(root)
        if "://" in text:
            return _checked({"uri": text})
        path = Path(text).expanduser().resolve()
        return {"uri": path.as_uri(), "name": path.name or str(path)}
    raise TypeError(f"A root must be a Root, a dict, a URI or a path, not {type(root).__name__}")


def roots_to_wire(roots: Iterable[Any]) -> list[JSONObject]:
    """Every root as its wire dict."""
    return [root_to_wire(r) for r in roots]


def check_roots(source: RootsSource | None) -> None:
    """Fail early (ValueError/TypeError) on a static roots list with an invalid root; a
    callable is checked each time it is called."""
    if source is not None and not callable(source):
        roots_to_wire(source)


def serve_roots(
    get: Callable[[], RootsSource | None],
) -> Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]:
    """A session request handler for ``roots/list``; ``get()`` returns the current source."""

    async def serve(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        source = get()
        roots = await maybe_await(source()) if callable(source) else source
        try:
            return {"roots": roots_to_wire(roots or [])}
        except (TypeError, ValueError) as exc:
            raise McpError(INTERNAL_ERROR, f"The client's roots are invalid: {exc}") from None

    return serve
