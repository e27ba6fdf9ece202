"""``fastmcp.server.auth.oidc_proxy`` on mcpkit: :class:`OIDCProxy`, fastmcp's
:class:`~mcpkit.compat.fastmcp.server.auth.oauth_proxy.OAuthProxy` configured from an
OpenID Connect provider's discovery document (read when constructed, as fastmcp does),
its tokens checked by a ``JWTVerifier`` on the provider's keys unless ``token_verifier``
is given."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy

__all__ = ["OIDCProxy"]


#: What a discovery document must hold unless ``strict=False`` (OpenID Connect Discovery's
#: required metadata, as fastmcp checks it); the first four are URLs.
REQUIRED = (
    "issuer",
    "authorization_endpoint",
    "token_endpoint",
    "jwks_uri",
    "response_types_supported",
    "subject_types_supported",
    "id_token_signing_alg_values_supported",
)


def check_configuration(document: dict[str, Any]) -> None:
    """ValueError naming the first required metadata missing or not a URL."""
    from pydantic import ValidationError

    for index, name in enumerate(REQUIRED):
        value = document.get(name)
        if not value:
            raise ValueError(f"Missing required configuration metadata: {name}")
        if index < 4:
            try:
                AnyHttpUrl(str(value))
            except ValidationError:
                raise ValueError(f"Invalid URL for configuration metadata: {name}") from None


def oidc_configuration(config_url: str, timeout_seconds: float | None) -> dict[str, Any]:
    """The provider's discovery document (ValueError when it cannot be read)."""
    import httpx

    try:
        response = httpx.get(config_url, timeout=timeout_seconds)
        response.raise_for_status()
        document = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise ValueError(f"Failed to fetch OIDC configuration from {config_url}: {exc}") from exc
    if not isinstance(document, dict):
        raise ValueError(f"The OIDC configuration at {config_url} is not a JSON object")
    return document


class OIDCProxy(OAuthProxy):
    """An OAuth proxy to an OpenID Connect provider found at ``config_url``."""

    def __init__(
        self,
        *,
        config_url: AnyHttpUrl | str,
        strict: bool | None = None,
        client_id: str,
        client_secret: str | None = None,
        audience: str | None = None,
        timeout_seconds: int | None = 10,
        token_verifier: TokenVerifier | None = None,
        algorithm: str | None = None,
        required_scopes: list[str] | None = None,
        verify_id_token: bool = False,
        base_url: AnyHttpUrl | str,
        extra_authorize_params: dict[str, str] | None = None,
        extra_token_params: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        if not config_url:
            raise ValueError("Missing required config URL")
        if not client_id:
            raise ValueError("Missing required client id")
        if not base_url:
            raise ValueError("Missing required base URL")
        if token_verifier is not None and algorithm is not None:
            raise ValueError(
                "Cannot specify 'algorithm' when providing a custom token_verifier. "
                "Configure the algorithm on your token verifier instead."
            )
        if token_verifier is not None and required_scopes is not None:
            raise ValueError(
                "Cannot specify 'required_scopes' when providing a custom token_verifier. "
                "Configure required scopes on your token verifier instead."
            )
        #: The provider's discovery document.
        self.oidc_config = oidc_configuration(str(config_url), timeout_seconds)
        config = self.oidc_config
        if strict is not False:
            check_configuration(config)
        if not config.get("authorization_endpoint") or not config.get("token_endpoint"):
            raise ValueError("Missing required OIDC endpoints")
        if token_verifier is None:
            token_verifier = self.get_token_verifier(
                algorithm=algorithm,
                audience=client_id if verify_id_token else audience,
                required_scopes=None if verify_id_token else required_scopes,
                timeout_seconds=timeout_seconds,
            )
        authorize_params = {"audience": audience} if audience else {}
        token_params = dict(authorize_params)
        authorize_params.update(extra_authorize_params or {})
        token_params.update(extra_token_params or {})
        super().__init__(
            upstream_authorization_endpoint=str(config["authorization_endpoint"]),
            upstream_token_endpoint=str(config["token_endpoint"]),
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            upstream_revocation_endpoint=config.get("revocation_endpoint"),
            token_verifier=token_verifier,
            base_url=base_url,
            extra_authorize_params=authorize_params or None,
            extra_token_params=token_params or None,
            **options,
        )
        self.engine.verify_id_token = verify_id_token
        if verify_id_token and required_scopes:
            self.required_scopes = list(required_scopes)

    def get_token_verifier(
        self,
        *,
        algorithm: str | None = None,
        audience: str | None = None,
        required_scopes: list[str] | None = None,
        timeout_seconds: int | None = None,
    ) -> TokenVerifier:
        """A ``JWTVerifier`` of the provider's tokens (its keys and issuer)."""
        from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

        return JWTVerifier(
            jwks_uri=str(self.oidc_config["jwks_uri"]),
            issuer=str(self.oidc_config["issuer"]),
            algorithm=algorithm,
            audience=audience,
            required_scopes=required_scopes,
        )
