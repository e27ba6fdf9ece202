"""``mcp.client.stdio`` on mcpkit: ``StdioServerParameters`` (the same model) and
``stdio_client`` (importable, not usable)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from mcpkit.compat.mcp.client._missing import not_provided

__all__ = ["StdioServerParameters", "stdio_client"]


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
