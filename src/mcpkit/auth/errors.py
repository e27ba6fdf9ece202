"""Errors of the OAuth machinery.

:class:`OAuthError` (a :class:`mcpkit.errors.AuthError`) is the base; the refusals the
spec's security checks call for have their own subclasses, so a caller can tell them apart
from an authorization server's failure.
"""

from __future__ import annotations

from typing import Any

from mcpkit.errors import AuthError

__all__ = [
    "AuthorizationServerMismatchError",
    "IssuerMismatchError",
    "OAuthError",
    "ResourceMismatchError",
]


class OAuthError(AuthError):
    """Authorization could not be obtained (discovery, registration, the authorization
    response or the token endpoint failed, or a security check refused to go on).

    ``error`` is the OAuth error code when an endpoint returned one (``invalid_grant``, ...).
    """

    def __init__(self, message: str, *, error: str | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.error = error
        self.data = data


class IssuerMismatchError(OAuthError):
    """An issuer check failed (RFC 8414 section 3.3, RFC 9207 section 2.4): authorization
    server metadata naming another issuer than the one it was fetched for, or an
    authorization response whose ``iss`` is missing (when advertised) or differs from the
    recorded issuer. Nothing from the offending document or response was used."""

    def __init__(self, message: str, *, expected: str, received: str | None) -> None:
        super().__init__(message, error="issuer_mismatch")
        self.expected = expected
        self.received = received


class ResourceMismatchError(OAuthError):
    """The protected resource metadata's ``resource`` (RFC 9728 section 3.3) does not identify
    the MCP server the client connects to: the metadata was not used."""

    def __init__(self, message: str, *, resource: str, server_url: str) -> None:
        super().__init__(message, error="resource_mismatch")
        self.resource = resource
        self.server_url = server_url


class AuthorizationServerMismatchError(OAuthError):
    """Pre-registered client credentials are bound to another authorization server than the
    one the protected resource metadata now names: they are not sent there."""

    def __init__(self, message: str, *, bound_to: str, issuer: str) -> None:
        super().__init__(message, error="authorization_server_mismatch")
        self.bound_to = bound_to
        self.issuer = issuer
