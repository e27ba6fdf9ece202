"""``mcp.server.auth.settings`` on mcpkit: what an authorization server offers besides the
authorization code grant."""

from __future__ import annotations

from pydantic import BaseModel

__all__ = ["ClientRegistrationOptions", "RevocationOptions"]


class ClientRegistrationOptions(BaseModel):
    """Dynamic client registration (RFC 7591): served when ``enabled``; the scopes a client
    may register (``valid_scopes``) and those it gets without asking (``default_scopes``)."""

    enabled: bool = False
    client_secret_expiry_seconds: int | None = None
    valid_scopes: list[str] | None = None
    default_scopes: list[str] | None = None


class RevocationOptions(BaseModel):
    """Token revocation (RFC 7009): served when ``enabled``."""

    enabled: bool = False
