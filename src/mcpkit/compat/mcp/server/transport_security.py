"""``mcp.server.transport_security`` on mcpkit: :class:`TransportSecuritySettings`, the
DNS-rebinding protection settings (mcpkit's HTTP app checks Host and Origin itself)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["TransportSecuritySettings", "native_host_origin"]


class TransportSecuritySettings(BaseModel):
    """Allowed ``Host`` and ``Origin`` values of the HTTP transport."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)


def native_host_origin(settings: Any) -> dict[str, Any]:
    """mcpkit's Host/Origin options for the official SDK's ``transport_security=`` (None or
    :class:`TransportSecuritySettings`): protection on checks ``Host`` against
    ``allowed_hosts`` and a browser's ``Origin`` against ``allowed_origins``; off, the
    official SDK checks neither, nor does mcpkit then."""
    if settings is None:
        return {}
    if not settings.enable_dns_rebinding_protection:
        return {"dns_rebinding_protection": False, "allowed_origins": ["*"]}
    return {
        "dns_rebinding_protection": True,
        "allowed_hosts": list(settings.allowed_hosts),
        "allowed_origins": list(settings.allowed_origins),
    }
