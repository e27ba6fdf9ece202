"""``fastmcp.client.auth.client_credentials`` on mcpkit: fastmcp's machine-to-machine
providers import; constructing one raises NotImplementedError naming mcpkit's own
(:class:`mcpkit.auth.OAuthClientAuth` with ``grant_type="client_credentials"``, or with
``private_key=`` / ``assertion=`` for signed client assertions)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClientCredentialsOAuthProvider",
    "PrivateKeyJWTOAuthProvider",
    "SignedJWTParameters",
    "static_assertion_provider",
]


def _refused(name: str, instead: str) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"fastmcp's {name} is not supported on mcpkit: use {instead} "
            "(docs/authorization.md, docs/migration.md)"
        )

    cls = type(name, (), {"__init__": __init__, "__module__": __name__})
    cls.__doc__ = f"fastmcp's {name}: not served on mcpkit (use {instead})."
    return cls


_CLIENT = 'mcpkit.auth.OAuthClientAuth(url, grant_type="client_credentials", client_id=..., '
_GRANT = _CLIENT + "client_secret=...)"
_SIGNED = _CLIENT + "private_key=...)"

ClientCredentialsOAuthProvider = _refused("ClientCredentialsOAuthProvider", _GRANT)
PrivateKeyJWTOAuthProvider = _refused("PrivateKeyJWTOAuthProvider", _SIGNED)
SignedJWTParameters = _refused("SignedJWTParameters", _SIGNED)


def static_assertion_provider(token: str) -> Any:
    """fastmcp's fixed client assertion: not served on mcpkit."""
    raise NotImplementedError(
        "fastmcp's static_assertion_provider is not supported on mcpkit: use "
        'mcpkit.auth.OAuthClientAuth(url, grant_type="jwt_bearer", client_id=..., '
        "assertion=token) (docs/authorization.md)"
    )
