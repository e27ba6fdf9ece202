"""``fastmcp.server.transforms.VersionFilter`` on mcpkit: a server serves only the versions
of its components in a range (``version_gte`` <= version < ``version_lt``), the highest of
them by default; unversioned components pass unless ``include_unversioned=False``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpkit.compat.fastmcp.server.transforms import Transform
from mcpkit.compat.fastmcp.utilities.versions import VersionSpec

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView

__all__ = ["VersionFilter"]


class VersionFilter(Transform):
    """Serves the versions ``>= version_gte`` and ``< version_lt`` (at least one given)."""

    def __init__(
        self,
        *,
        version_gte: str | None = None,
        version_lt: str | None = None,
        include_unversioned: bool = True,
    ) -> None:
        if version_gte is None and version_lt is None:
            raise ValueError("At least one of version_gte or version_lt must be specified")
        self.version_gte = version_gte
        self.version_lt = version_lt
        self.include_unversioned = include_unversioned
        self._spec = VersionSpec(gte=version_gte, lt=version_lt)

    def __repr__(self) -> str:
        parts = []
        if self.version_gte:
            parts.append(f"version_gte={self.version_gte!r}")
        if self.version_lt:
            parts.append(f"version_lt={self.version_lt!r}")
        if not self.include_unversioned:
            parts.append("include_unversioned=False")
        return f"VersionFilter({', '.join(parts)})"

    def install(self, server: FastMCPView) -> None:
        """Filter ``server``'s components (those registered later too)."""
        server._versions.add_filter(self._spec, self.include_unversioned)
