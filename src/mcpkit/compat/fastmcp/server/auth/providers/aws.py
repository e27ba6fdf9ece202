"""``fastmcp.server.auth.providers.aws`` on mcpkit: fastmcp's AWS Cognito classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["AWSCognitoProvider", "AWSCognitoTokenVerifier"]

AWSCognitoProvider = unsupported("AWSCognitoProvider", __name__, "mcpkit.auth.CognitoProvider")
AWSCognitoTokenVerifier = unsupported(
    "AWSCognitoTokenVerifier", __name__, "mcpkit.auth.JWTVerifier"
)
