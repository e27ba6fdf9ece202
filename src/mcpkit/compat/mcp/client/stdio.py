"""``mcp.client.stdio`` on mcpkit: ``StdioServerParameters`` (the same model; ``Client``
starts it as the SDK does) and ``stdio_client`` (importable, not usable)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from mcpkit.compat.mcp.client._missing import not_provided

if TYPE_CHECKING:
    from mcpkit.transports.stdio import StdioClientTransport

__all__ = [
    "DEFAULT_INHERITED_ENV_VARS",
    "StdioServerParameters",
    "get_default_environment",
    "stdio_client",
]

#: The variables of this process a stdio server inherits (the SDK's allow-list; the
#: parameters' ``env`` is merged over them).
DEFAULT_INHERITED_ENV_VARS = (
    [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
    ]
    if sys.platform == "win32"
    else ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]
)


class StdioServerParameters(BaseModel):
    """How to start a stdio server: ``command``, ``args``, ``env``, ``cwd``."""

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    encoding: str = "utf-8"
    encoding_error_handler: str = "strict"


def stdio_client(server: Any, errlog: Any = None) -> Any:
    """Not provided: ``mcpkit.Client([server.command, *server.args])`` instead."""
    not_provided("stdio_client")


def get_default_environment() -> dict[str, str]:
    """This process's :data:`DEFAULT_INHERITED_ENV_VARS` that are set (exported shell
    functions, values starting ``()``, left out)."""
    return {
        key: value
        for key in DEFAULT_INHERITED_ENV_VARS
        if (value := os.environ.get(key)) is not None and not value.startswith("()")
    }


def _compat_args(command: str, args: list[str]) -> list[str]:
    """A server run by this interpreter (``sys.executable``, as the SDK's examples start
    their servers) runs through ``python -m mcpkit.compat`` when this process serves ``mcp``
    from the compat layer: there, as here, its ``import mcp`` is the compat layer's."""
    import os
    import sys

    from mcpkit.import_aliases import CompatFinder

    aliased = any(isinstance(finder, CompatFinder) for finder in sys.meta_path)
    same = os.path.realpath(command) == os.path.realpath(sys.executable)
    if aliased and same and args and (args[0] == "-m" or not args[0].startswith("-")):
        return ["-m", "mcpkit.compat", *(args[1:] if args[0] == "-m" else args)]
    return args


def stdio_transport(server: StdioServerParameters) -> StdioClientTransport:
    """mcpkit's transport starting ``server`` as the SDK's ``Client`` does: the command and
    arguments in ``cwd``, the environment :func:`get_default_environment` with ``env`` over
    it (nothing else of this process's), the server's stderr written to this process's."""
    from mcpkit.transports.stdio import StdioClientTransport

    return StdioClientTransport(
        server.command,
        _compat_args(server.command, list(server.args)),
        env=get_default_environment() | (server.env or {}),
        inherit_env=False,
        cwd=server.cwd,
        stderr="inherit",
    )
