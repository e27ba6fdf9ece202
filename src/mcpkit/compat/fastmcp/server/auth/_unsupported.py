"""fastmcp auth classes that mcpkit does not serve: importing them works, constructing
one raises :class:`NotImplementedError` naming what to use on mcpkit instead."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.auth.auth import AuthProvider

__all__ = ["unsupported"]


def unsupported(name: str, module: str, instead: str) -> type[AuthProvider]:
    """A class named ``name`` (of fastmcp's ``module``) whose construction raises
    NotImplementedError pointing at ``instead``."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"fastmcp's {name} is not supported on mcpkit: use {instead} "
            "(docs/authorization.md, docs/migration.md)"
        )

    cls = type(name, (AuthProvider,), {"__init__": __init__, "__module__": module})
    cls.__doc__ = f"fastmcp's {name}: not served on mcpkit (use {instead})."
    return cls
