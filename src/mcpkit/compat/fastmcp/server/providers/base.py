"""fastmcp's :class:`Provider`: components sourced at request time.

A subclass overrides the private hooks (``_list_tools``, ``_get_tool``, ...) or the public
ones (``list_tools``, ``get_tool(name, version)``, ...), all async; a ``get_*`` hook
answers None for "not mine". The server asks its providers on every request, in the order
they were added, after its own components (see :mod:`._host`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

from mcpkit.compat.fastmcp._components import Prompt, Resource, ResourceTemplate, Tool

__all__ = ["Provider"]

C = TypeVar("C", Tool, Resource, ResourceTemplate, Prompt)


def _highest(matching: list[C]) -> C | None:
    """The highest version among ``matching`` (an unversioned one is lowest)."""
    if not matching:
        return None
    return max(matching, key=lambda c: _version_key(c.version))


def _version_key(version: str | None) -> tuple[int, Any]:
    if version is None:
        return (0, ())
    parts = version.lstrip("v").split(".")
    if all(p.isdigit() for p in parts):
        return (2, tuple(int(p) for p in parts))
    return (1, version)


def _wanted(version: Any, component: Any) -> bool:
    """True when ``component`` meets the version spec (None: any)."""
    if version is None:
        return True
    matches = getattr(version, "matches", None)
    if callable(matches):
        return bool(matches(component.version))
    return bool(str(version) == component.version)


class Provider:
    """Base class of providers: every hook answers nothing until overridden."""

    def __init__(self) -> None:
        self._transforms: list[Any] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # -- public hooks (what the server asks) -----------------------------------------------

    async def list_tools(self) -> Sequence[Tool]:
        """Every tool this provider has now."""
        return await self._list_tools()

    async def get_tool(self, name: str, version: Any = None) -> Tool | None:
        """The tool named ``name`` (the highest version meeting ``version``), or None."""
        return await self._get_tool(name, version)

    async def list_resources(self) -> Sequence[Resource]:
        """Every resource this provider has now."""
        return await self._list_resources()

    async def get_resource(self, uri: str, version: Any = None) -> Resource | None:
        """The resource at ``uri``, or None."""
        return await self._get_resource(uri, version)

    async def list_resource_templates(self) -> Sequence[ResourceTemplate]:
        """Every resource template this provider has now."""
        return await self._list_resource_templates()

    async def get_resource_template(self, uri: str, version: Any = None) -> ResourceTemplate | None:
        """The template ``uri`` matches, or None."""
        return await self._get_resource_template(uri, version)

    async def list_prompts(self) -> Sequence[Prompt]:
        """Every prompt this provider has now."""
        return await self._list_prompts()

    async def get_prompt(self, name: str, version: Any = None) -> Prompt | None:
        """The prompt named ``name``, or None."""
        return await self._get_prompt(name, version)

    # -- private hooks (what a subclass overrides) -----------------------------------------

    async def _list_tools(self) -> Sequence[Tool]:
        return []

    async def _get_tool(self, name: str, version: Any = None) -> Tool | None:
        tools = await self._list_tools()
        return _highest([t for t in tools if t.name == name and _wanted(version, t)])

    async def _list_resources(self) -> Sequence[Resource]:
        return []

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        resources = await self._list_resources()
        return _highest([r for r in resources if r.uri_text() == uri and _wanted(version, r)])

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return []

    async def _get_resource_template(
        self, uri: str, version: Any = None
    ) -> ResourceTemplate | None:
        templates = await self._list_resource_templates()
        return _highest(
            [t for t in templates if t.matches(uri) is not None and _wanted(version, t)]
        )

    async def _list_prompts(self) -> Sequence[Prompt]:
        return []

    async def _get_prompt(self, name: str, version: Any = None) -> Prompt | None:
        prompts = await self._list_prompts()
        return _highest([p for p in prompts if p.name == name and _wanted(version, p)])

    # -- lifecycle and the rest ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Entered with the server's lifespan: override for setup and teardown."""
        yield

    def add_transform(self, transform: Any) -> None:
        """Transforms on a provider are not supported on mcpkit (NotImplementedError)."""
        raise NotImplementedError(
            f"{type(self).__name__}.add_transform is not supported on mcpkit; "
            "add the transform to the server"
        )

    def enable(self, **criteria: Any) -> Provider:
        """Visibility rules on a provider are not supported on mcpkit (NotImplementedError)."""
        raise NotImplementedError(f"{type(self).__name__}.enable is not supported on mcpkit")

    def disable(self, **criteria: Any) -> Provider:
        """Visibility rules on a provider are not supported on mcpkit (NotImplementedError)."""
        raise NotImplementedError(f"{type(self).__name__}.disable is not supported on mcpkit")
