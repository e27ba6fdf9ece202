"""What the modules :class:`~mcpkit.compat.fastmcp.FastMCP` is built of know of it, without
importing it (they sit below it): :class:`FastMCPView`, the part of its API they use, and what
``_server`` registers when it is imported: the FastMCP class (:func:`is_fastmcp`) and the
maker of a component's private server (:func:`private_server`).

This module imports nothing of the modules above it, so none of them closes an import cycle
through ``_server``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._versions import Versions
    from mcpkit.server.app import Server

__all__ = ["OWNERS", "FastMCPView", "is_fastmcp", "private_server", "register"]

F = TypeVar("F", bound=Callable[..., Any])


class FastMCPView(Protocol):
    """The part of :class:`~mcpkit.compat.fastmcp.FastMCP` its components, providers,
    transforms and Context use."""

    @property
    def name(self) -> str:
        """The server's name."""
        ...

    @property
    def native(self) -> Server[Any]:
        """The mcpkit server it registers on."""
        ...

    @property
    def _versions(self) -> Versions:
        """Its components' versions and the version filters applied to them."""
        ...

    def tool(
        self,
        name_or_fn: str | Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        **options: Any,
    ) -> Any:
        """``@mcp.tool`` (bare, named or with fastmcp's options)."""
        ...

    def add_tool(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        """Register a function or a ``Tool`` as a tool (the options of :meth:`tool`)."""
        ...

    def resource(self, uri: str, *, name: str | None = None, **options: Any) -> Callable[[F], F]:
        """``@mcp.resource(uri, ...)``."""
        ...

    def prompt(
        self,
        name_or_fn: str | Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        **options: Any,
    ) -> Any:
        """``@mcp.prompt`` (bare, named or with fastmcp's options)."""
        ...


#: The FastMCP of each native server serving providers: the one a component's Context names.
OWNERS: weakref.WeakKeyDictionary[Any, FastMCPView] = weakref.WeakKeyDictionary()

_server_class: list[type[FastMCPView]] = []
_host_maker: list[Callable[[str], FastMCPView]] = []


def register(server: type[FastMCPView], host: Callable[[str], FastMCPView]) -> None:
    """Called by ``_server`` at import: the FastMCP class and the maker of a component's
    private server."""
    _server_class[:] = [server]
    _host_maker[:] = [host]


def is_fastmcp(obj: object) -> TypeGuard[FastMCPView]:
    """Whether ``obj`` is a :class:`~mcpkit.compat.fastmcp.FastMCP` (or a subclass)."""
    return isinstance(obj, tuple(_server_class))


def private_server(name: str) -> FastMCPView:
    """A new private server named ``name`` for one function's component: a FastMCP whose
    Context names the server serving the request (:data:`OWNERS`)."""
    (make,) = _host_maker  # registered when the package is imported
    return make(name)
