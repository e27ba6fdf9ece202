"""``mcp.server.models`` on mcpkit: :class:`InitializationOptions`, the identity and
capabilities a low-level server declares at ``initialize``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["InitializationOptions"]


class InitializationOptions(BaseModel):
    """What ``Server.run`` declares: ``server_name``/``server_version`` (the
    ``serverInfo``), ``capabilities`` (a ``ServerCapabilities``), ``instructions``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    server_name: str
    server_version: str
    title: str | None = None
    description: str | None = None
    capabilities: Any
    instructions: str | None = None
    website_url: str | None = None
    icons: list[Any] | None = None
