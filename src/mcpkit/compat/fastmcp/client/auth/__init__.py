"""``fastmcp.client.auth`` on mcpkit: :class:`BearerAuth` (a fixed token) and :class:`OAuth`
(fastmcp's browser flow on :class:`mcpkit.auth.OAuthClientAuth`), and the machine-to-machine
providers of the ``client_credentials`` grant on it (:class:`ClientCredentialsOAuthProvider`,
:class:`PrivateKeyJWTOAuthProvider`)."""

from mcpkit.compat.fastmcp.client.auth.bearer import BearerAuth
from mcpkit.compat.fastmcp.client.auth.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
    static_assertion_provider,
)
from mcpkit.compat.fastmcp.client.auth.oauth import OAuth

__all__ = [
    "BearerAuth",
    "ClientCredentialsOAuthProvider",
    "OAuth",
    "PrivateKeyJWTOAuthProvider",
    "SignedJWTParameters",
    "static_assertion_provider",
]
