"""``fastmcp.resources`` on mcpkit: :class:`Resource` and :class:`ResourceTemplate` (the
objects a provider serves; ``from_function``), the ready-made ones (:mod:`.types`), and
the standalone :func:`resource` decorator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.compat.fastmcp._components import (
    FunctionResource,
    FunctionResourceTemplate,
    Resource,
    ResourceTemplate,
    marked,
)
from mcpkit.compat.fastmcp.resources.types import (
    BinaryResource,
    DirectoryResource,
    FileResource,
    TextResource,
)

__all__ = [
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "FunctionResourceTemplate",
    "Resource",
    "ResourceTemplate",
    "TextResource",
    "resource",
]


def resource(uri: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """fastmcp's standalone ``@resource("scheme://path")`` (``@mcp.resource``'s options):
    the function stays as it is, marked for a ``FileSystemProvider`` to find (a template
    when the URI has ``{...}`` or the function takes parameters)."""
    if callable(uri):
        raise TypeError("Use @resource('uri'), not @resource")
    return lambda fn: marked("resource", fn, {**options, "uri": uri})
