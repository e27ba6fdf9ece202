"""``mcp.client.auth.exceptions`` on mcpkit: the OAuth client's errors, as the SDK names them."""

from __future__ import annotations

__all__ = ["OAuthFlowError", "OAuthRegistrationError", "OAuthTokenError"]


class OAuthFlowError(Exception):
    """An OAuth flow failed."""


class OAuthTokenError(OAuthFlowError):
    """A token request failed."""


class OAuthRegistrationError(OAuthFlowError):
    """A client registration failed."""
