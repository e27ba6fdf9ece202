"""``mcp.server.transport_security`` on mcpkit: :class:`TransportSecuritySettings`, the
DNS-rebinding protection settings (mcpkit's HTTP app checks Host and Origin itself)."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["TransportSecuritySettings"]


class TransportSecuritySettings(BaseModel):
    """Allowed ``Host`` and ``Origin`` values of the HTTP transport."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)
