"""``mcp.server.mcpserver.resources.templates`` on mcpkit: :class:`ResourceSecurity`, the
checks an ``MCPServer`` runs on the values a template takes from a URI before its function
sees them (a URI failing them is an unknown resource, as there)."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from mcpkit.compat.mcp.shared.path_security import contains_path_traversal, is_absolute_path

__all__ = ["DEFAULT_RESOURCE_SECURITY", "ResourceSecurity", "ResourceSecurityError"]


@dataclass(frozen=True)
class ResourceSecurity:
    """What a template's values may not hold: a ``..`` climbing above the start, an
    absolute path, a NUL; ``exempt_params`` are not checked."""

    reject_path_traversal: bool = True
    reject_absolute_paths: bool = True
    reject_null_bytes: bool = True
    exempt_params: Set[str] = field(default_factory=frozenset)

    def validate(self, params: Mapping[str, Any]) -> str | None:
        """The name of the first value failing the policy (each item of a list checked),
        or None."""
        for name, value in params.items():
            if name in self.exempt_params:
                continue
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, str):
                    continue
                if self.reject_null_bytes and "\0" in item:
                    return name
                if self.reject_path_traversal and contains_path_traversal(item):
                    return name
                if self.reject_absolute_paths and is_absolute_path(item):
                    return name
        return None


#: The default: traversal, absolute paths and NUL refused.
DEFAULT_RESOURCE_SECURITY = ResourceSecurity()


class ResourceSecurityError(ValueError):
    """A template's value failed its :class:`ResourceSecurity`."""

    def __init__(self, template: str, param: str) -> None:
        super().__init__(f"Parameter {param!r} of template {template!r} failed security validation")
        self.template = template
        self.param = param
