"""What most server features need of the server that holds them: its three registries.

A feature names :class:`Registries` (or a Protocol built on it, with the one or two more
members it reads) instead of :class:`~mcpkit.server.app.Server`, so it stays below the server
in the layers and can be given anything that has the registries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mcpkit.server.prompts import PromptRegistry
    from mcpkit.server.resources import ResourceRegistry
    from mcpkit.server.tools import ToolRegistry

__all__ = ["Registries"]


class Registries(Protocol):
    """A server's tools, prompts and resources (a :class:`~mcpkit.server.app.Server` has
    them)."""

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def prompts(self) -> PromptRegistry: ...

    @property
    def resources(self) -> ResourceRegistry: ...
