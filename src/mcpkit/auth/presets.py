"""Presets of the OAuth proxy for common identity providers: one line each.

::

    app = Server("private", auth=GitHubProvider(client_id=..., client_secret=...,
                                                base_url="https://mcp.example.com"))

Register ``<base_url>/oauth/callback`` as the redirect URI of the client at the provider.
The OpenID Connect providers' endpoints are read from their OpenID configuration (at the
first login); GitHub, which has none, has fixed endpoints and its user API. Every preset
takes the :class:`~mcpkit.auth.OAuthProxy` options (``scopes_supported``, ``secret``,
``store``, ``proxy_store``, ``consent``...) and an override of where the provider lives
(``issuer=``, or ``github_url=``/``api_url=``), the default being the real provider.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from mcpkit.auth.oauth_proxy import DEFAULT_CLAIMS, OAuthProxy

__all__ = [
    "Auth0Provider",
    "CognitoProvider",
    "EntraIDProvider",
    "GitHubProvider",
    "GoogleProvider",
    "KeycloakProvider",
    "OIDCProvider",
    "OktaProvider",
    "WorkOSProvider",
]

_DISCOVERY = "/.well-known/openid-configuration"


class OIDCProvider(OAuthProxy):
    """Any OpenID Connect provider, by its ``issuer`` URL (its configuration at
    ``issuer + /.well-known/openid-configuration`` unless ``discovery_url`` says)."""

    def __init__(
        self,
        *,
        issuer: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        discovery_url: str | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("upstream_scopes", ("openid", "email", "profile"))
        super().__init__(
            base_url,
            client_id=client_id,
            client_secret=client_secret,
            issuer=issuer,
            discovery_url=discovery_url or issuer.rstrip("/") + _DISCOVERY,
            **options,
        )


class GitHubProvider(OAuthProxy):
    """GitHub (an OAuth App or a GitHub App's user authorization): no OpenID Connect, so
    fixed endpoints under ``github_url`` and the user from ``api_url``'s ``/user``; the
    subject is the numeric user id (``login``, ``name``, ``email`` as claims)."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        base_url: str,
        github_url: str = "https://github.com",
        api_url: str = "https://api.github.com",
        **options: Any,
    ) -> None:
        github, api = github_url.rstrip("/"), api_url.rstrip("/")
        options.setdefault("upstream_scopes", ("read:user", "user:email"))
        options.setdefault("claims", ("login", "name", "email"))
        super().__init__(
            base_url,
            client_id=client_id,
            client_secret=client_secret,
            issuer=github,
            authorization_endpoint=github + "/login/oauth/authorize",
            token_endpoint=github + "/login/oauth/access_token",
            userinfo_endpoint=api + "/user",
            subject_claim="id",
            token_auth_method="client_secret_post",
            **options,
        )


class GoogleProvider(OIDCProvider):
    """Google (``https://accounts.google.com``), whose ID tokens may name their issuer
    without the scheme (``accounts.google.com``)."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        base_url: str,
        issuer: str = "https://accounts.google.com",
        **options: Any,
    ) -> None:
        super().__init__(
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )

    def issuer_accepted(self, claims: Any) -> bool:
        iss = claims.get("iss")
        return bool(
            iss == self.upstream_issuer or iss == urlsplit(str(self.upstream_issuer)).netloc
        )


class EntraIDProvider(OIDCProvider):
    """Microsoft Entra ID (Azure AD), v2.0 endpoints of ``tenant`` (its id or domain;
    ``organizations``, ``consumers`` or ``common`` for multi-tenant apps, whose ID tokens
    name the user's tenant in their issuer). ``oid`` and ``tid`` come as claims."""

    _MULTI = ("common", "organizations", "consumers")

    def __init__(
        self,
        *,
        tenant: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        authority: str = "https://login.microsoftonline.com",
        **options: Any,
    ) -> None:
        self.authority = authority.rstrip("/")
        self.tenant = tenant
        options.setdefault("claims", (*DEFAULT_CLAIMS, "oid", "tid"))
        super().__init__(
            issuer=f"{self.authority}/{tenant}/v2.0",
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )
        # The configuration's issuer names the tenant by id (a template for multi-tenant
        # apps: "{authority}/{tenantid}/v2.0"), whatever ``tenant`` named it by.
        self.upstream_issuer = None

    def issuer_accepted(self, claims: Any) -> bool:
        iss = claims.get("iss")
        if self.tenant not in self._MULTI:
            return bool(iss == self.configuration.get("issuer"))
        tid = claims.get("tid")
        return isinstance(tid, str) and iss == f"{self.authority}/{tid}/v2.0"


class OktaProvider(OIDCProvider):
    """Okta: the custom authorization server ``authorization_server`` (``default``) of
    ``domain`` (``dev-123.okta.com``); None for the org authorization server."""

    def __init__(
        self,
        *,
        domain: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        authorization_server: str | None = "default",
        issuer: str | None = None,
        **options: Any,
    ) -> None:
        if issuer is None:
            issuer = f"https://{domain}"
            if authorization_server is not None:
                issuer += f"/oauth2/{authorization_server}"
        super().__init__(
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )


class Auth0Provider(OIDCProvider):
    """Auth0: the tenant's ``domain`` (``acme.eu.auth0.com`` or a custom domain); its
    issuer ends with a slash."""

    def __init__(
        self,
        *,
        domain: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        issuer: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            issuer=issuer or f"https://{domain}/",
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )


class KeycloakProvider(OIDCProvider):
    """Keycloak: ``realm`` on the server at ``server_url`` (``https://sso.example.com``)."""

    def __init__(
        self,
        *,
        server_url: str,
        realm: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        **options: Any,
    ) -> None:
        super().__init__(
            issuer=f"{server_url.rstrip('/')}/realms/{realm}",
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )


class WorkOSProvider(OIDCProvider):
    """WorkOS AuthKit: the environment's AuthKit domain (``acme.authkit.app`` or a custom
    one)."""

    def __init__(
        self,
        *,
        authkit_domain: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        issuer: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            issuer=issuer or f"https://{authkit_domain}",
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )


class CognitoProvider(OIDCProvider):
    """AWS Cognito: the user pool ``user_pool_id`` (``eu-west-1_AbCdE``; its region is
    its prefix unless ``region`` says), its app client with a secret; the hosted UI's
    endpoints come from the pool's configuration. ``cognito:username`` comes as a claim."""

    def __init__(
        self,
        *,
        user_pool_id: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        region: str | None = None,
        issuer: str | None = None,
        **options: Any,
    ) -> None:
        region = region or user_pool_id.split("_", 1)[0]
        options.setdefault("claims", (*DEFAULT_CLAIMS, "cognito:username"))
        super().__init__(
            issuer=issuer or f"https://cognito-idp.{region}.amazonaws.com/{user_pool_id}",
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            **options,
        )
