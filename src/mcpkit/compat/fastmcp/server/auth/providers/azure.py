"""``fastmcp.server.auth.providers.azure`` on mcpkit: :class:`AzureJWTVerifier` and
:class:`AzureProvider` (fastmcp's OAuth proxy to Microsoft Entra ID, served by mcpkit's)."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["OIDC_SCOPES", "AzureJWTVerifier", "AzureProvider", "EntraOBOToken"]

#: The claims of an Entra ID access token a tool gets as ``upstream_claims``.
_UPSTREAM_CLAIMS = (
    "sub",
    "oid",
    "tid",
    "azp",
    "name",
    "given_name",
    "family_name",
    "preferred_username",
    "upn",
    "email",
    "roles",
    "groups",
)

#: Scopes asked for as they are (not under the application's URI).
OIDC_SCOPES = frozenset({"openid", "profile", "email", "offline_access"})


class AzureJWTVerifier(JWTVerifier):
    """Microsoft Entra ID access tokens of one application: the tenant's keys and issuer
    (no issuer check for a multi-tenant app), the audience the client ID or its URI, the
    scopes checked in short form and advertised under the application's URI."""

    def __init__(
        self,
        *,
        client_id: str,
        tenant_id: str,
        required_scopes: list[str] | None = None,
        identifier_uri: str | None = None,
        base_authority: str = "login.microsoftonline.com",
    ) -> None:
        self._identifier_uri = identifier_uri or f"api://{client_id}"
        multi_tenant = tenant_id in ("organizations", "consumers", "common")
        super().__init__(
            jwks_uri=f"https://{base_authority}/{tenant_id}/discovery/v2.0/keys",
            issuer=None if multi_tenant else f"https://{base_authority}/{tenant_id}/v2.0",
            audience=[client_id, self._identifier_uri],
            algorithm="RS256",
            required_scopes=required_scopes,
        )

    @property
    def scopes_supported(self) -> list[str]:
        """The scopes as clients ask Entra ID for them (under the application's URI)."""
        return self.get_challenge_scopes()

    def get_challenge_scopes(self, required_scopes: list[str] | None = None) -> list[str]:
        """The scopes under the application's URI (OIDC scopes and full URIs as they are)."""
        scopes = self.required_scopes if required_scopes is None else required_scopes
        return [
            s if s in OIDC_SCOPES or "://" in s or "/" in s else f"{self._identifier_uri}/{s}"
            for s in scopes
        ]


class AzureProvider(OAuthProxy):
    """fastmcp's Microsoft Entra ID login (v2.0 endpoints of ``tenant_id`` under
    ``base_authority``), on mcpkit's OAuth proxy: the application's scopes asked for
    under its ``identifier_uri`` (``api://<client_id>`` by default) with
    ``additional_authorize_scopes`` and ``offline_access``, no ``resource`` sent upstream
    (Entra ID's v2.0 endpoints take none), the access token checked against the tenant's
    keys for the application's audience and its non-OIDC ``required_scopes``. The
    on-behalf-of exchange (``EntraOBOToken``) is not provided."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str | None = None,
        tenant_id: str,
        required_scopes: list[str],
        base_url: str,
        identifier_uri: str | None = None,
        additional_authorize_scopes: list[str] | None = None,
        base_authority: str = "login.microsoftonline.com",
        token_issuer: str | None = None,
        extra_authorize_params: dict[str, str] | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        scopes = parse_scopes(required_scopes) or []
        additional = parse_scopes(additional_authorize_scopes) or []
        if "offline_access" not in additional:
            additional = [*additional, "offline_access"]
        self.identifier_uri = identifier_uri or f"api://{client_id}"
        self.additional_authorize_scopes = additional
        validation = [s for s in scopes if s not in OIDC_SCOPES]
        if not validation:
            raise ValueError(
                "AzureProvider requires at least one non-OIDC scope in "
                "required_scopes (e.g., 'read', 'write'). OIDC scopes like "
                "'openid', 'profile', 'email', and 'offline_access' are not "
                "included in Azure access token claims and cannot be used for "
                "scope enforcement."
            )
        authority = f"https://{base_authority}/{tenant_id}"
        verifier = JWTVerifier(
            jwks_uri=f"{authority}/discovery/v2.0/keys",
            issuer=token_issuer or f"{authority}/v2.0",
            audience=[client_id, self.identifier_uri],
            algorithm="RS256",
            required_scopes=validation,
        )
        super().__init__(
            upstream_authorization_endpoint=f"{authority}/oauth2/v2.0/authorize",
            upstream_token_endpoint=f"{authority}/oauth2/v2.0/token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            extra_authorize_params=(
                {"prompt": "select_account"}
                if extra_authorize_params is None
                else extra_authorize_params
            ),
            valid_scopes=scopes,
            **options,
        )
        self.engine.forward_resource = False
        self.engine.upstream_scopes = (*self._prefixed(self.required_scopes), *additional)
        # Entra ID is told the scopes again when the code (or a refresh token) is redeemed.
        self.engine.extra_token_params["scope"] = " ".join(self.engine.upstream_scopes)

    @classmethod
    def from_b2c(
        cls,
        *,
        tenant_name: str,
        policy_name: str,
        client_id: str,
        client_secret: str | None = None,
        required_scopes: list[str],
        base_url: str,
        custom_domain: str | None = None,
        identifier_uri: str | None = None,
        token_issuer: str | None = None,
        **options: Any,
    ) -> AzureProvider:
        """An Azure AD B2C login: the user flow ``policy_name`` of ``tenant_name`` (short
        name) under ``<tenant_name>.b2clogin.com`` or ``custom_domain``, the application's
        URI ``https://<tenant_name>.onmicrosoft.com/<client_id>`` by default, no issuer
        check unless ``token_issuer`` is given, no account-picker prompt by default."""
        if ".onmicrosoft.com" in tenant_name:
            raise ValueError(
                "tenant_name should be the short name without the .onmicrosoft.com suffix "
                f"(e.g. 'mytenant'), got {tenant_name!r}"
            )
        if custom_domain is not None:
            custom_domain = (
                custom_domain.removeprefix("https://").removeprefix("http://").rstrip("/")
            )
        if options.get("extra_authorize_params") is None:
            options["extra_authorize_params"] = {}
        provider = cls(
            client_id=client_id,
            client_secret=client_secret,
            tenant_id=f"{tenant_name}.onmicrosoft.com/{policy_name}",
            required_scopes=required_scopes,
            base_url=base_url,
            base_authority=custom_domain or f"{tenant_name}.b2clogin.com",
            identifier_uri=identifier_uri or f"https://{tenant_name}.onmicrosoft.com/{client_id}",
            token_issuer=token_issuer,
            **options,
        )
        if isinstance(provider.token_verifier, JWTVerifier):
            provider.token_verifier.issuer = token_issuer
        return provider

    def upstream_claims(self, upstream: dict[str, Any]) -> dict[str, Any] | None:
        """The user's identity claims of the Entra ID access token (a JWT the verifier
        has checked), as fastmcp passes them on."""
        import base64
        import json

        token = upstream.get("access_token")
        try:
            payload = str(token).split(".")[1]
            claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except (IndexError, ValueError):
            return None
        if not isinstance(claims, dict):
            return None
        kept = {k: claims[k] for k in _UPSTREAM_CLAIMS if k in claims}
        return kept or None

    def _prefixed(self, scopes: list[str]) -> list[str]:
        """The scopes as Entra ID is asked for them (the application's under its URI)."""
        return [
            s if s in OIDC_SCOPES or "://" in s or "/" in s else f"{self.identifier_uri}/{s}"
            for s in scopes
        ]


def EntraOBOToken(scopes: list[str]) -> Any:
    """fastmcp's on-behalf-of token dependency: not provided on mcpkit."""
    raise NotImplementedError(
        "fastmcp's EntraOBOToken (Entra ID's on-behalf-of exchange) is not supported on "
        "mcpkit: exchange the upstream token yourself (mcpkit.auth.OAuthProxy."
        "upstream_tokens gives it) (docs/migration.md)"
    )
