"""Each preset of the OAuth proxy against a stand-in of its provider (tests/auth/standin_idp.py)
serving that provider's published shape: where its issuer and configuration live, the names
of its endpoints, how its client authenticates, the claims of its ID token or user API. A
login runs through the preset to mcpkit's token, whose subject and claims must be the
provider's user: a wrong endpoint, discovery path or claim mapping fails. Each preset's
defaults point at the real provider."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mcpkit import Server
from mcpkit.auth import (
    Auth0Provider,
    CognitoProvider,
    EntraIDProvider,
    GitHubProvider,
    GoogleProvider,
    KeycloakProvider,
    OAuthProxy,
    OIDCProvider,
    OktaProvider,
    WorkOSProvider,
)
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.auth.standin_idp import StandIn

REDIRECT = "http://127.0.0.1:3999/callback"
ID, SECRET = "preset-client", "preset-secret"
TID = "9188040d-6c67-4c5b-b112-36a304b66dad"


@dataclass
class Case:
    """A provider's stand-in, the preset in front of it, and who must come out."""

    standin: Callable[[str], StandIn]
    preset: Callable[[str, str], OAuthProxy]  # (stand-in origin, mcpkit base URL)
    subject: str
    claims: dict[str, Any]


def _oidc(issuer_path: str, prefix: str, **kw: Any) -> Callable[[str], StandIn]:
    def make(origin: str) -> StandIn:
        shape = {
            "authorize": prefix + "/authorize",
            "token": prefix + "/token",
            "jwks": prefix + "/keys",
            "userinfo": prefix + "/userinfo",
        } | kw
        return StandIn(ID, SECRET, issuer_path=issuer_path, **shape)

    return make


def _with(factory: Callable[[str], StandIn], **late: Callable[[str], Any]) -> Any:
    """``factory`` with fields that depend on the stand-in's origin."""

    def make(origin: str) -> StandIn:
        s = factory(origin)
        for name, value in late.items():
            setattr(s, name, value(origin))
        return s

    return make


ADA = {"sub": "00u1a2b3", "email": "ada@example.com", "email_verified": True, "name": "Ada"}

CASES = {
    "github": Case(
        lambda o: StandIn(
            ID,
            SECRET,
            authorize="/login/oauth/authorize",
            token="/login/oauth/access_token",
            userinfo="/user",
            discovery=None,
            auth_method="client_secret_post",
            user={
                "id": 583231,
                "login": "octocat",
                "name": "The Octocat",
                "email": "octocat@github.com",
                "node_id": "MDQ6VXNlcjU4MzIzMQ==",
            },
        ),
        lambda o, b: GitHubProvider(
            client_id=ID, client_secret=SECRET, base_url=b, github_url=o, api_url=o, consent=False
        ),
        "583231",
        {"login": "octocat", "name": "The Octocat", "email": "octocat@github.com"},
    ),
    "google": Case(
        _with(
            lambda o: StandIn(
                ID,
                SECRET,
                authorize="/o/oauth2/v2/auth",
                token="/token",
                jwks="/oauth2/v3/certs",
                userinfo="/v1/userinfo",
                revocation="/revoke",
                user={"sub": "110169484474386276334", "email": "ada@gmail.com"},
            ),
            # Google's ID tokens may say "accounts.google.com", without the scheme
            id_claims=lambda o: {
                "iss": urlsplit(o).netloc,
                "sub": "110169484474386276334",
                "email": "ada@gmail.com",
                "email_verified": True,
                "hd": "example.com",
            },
        ),
        lambda o, b: GoogleProvider(
            client_id=ID, client_secret=SECRET, base_url=b, issuer=o, consent=False
        ),
        "110169484474386276334",
        {"email": "ada@gmail.com", "email_verified": True},
    ),
    "entra-tenant": Case(
        _with(
            _oidc(
                "/contoso.onmicrosoft.com/v2.0",
                "/contoso.onmicrosoft.com/oauth2/v2.0",
                jwks="/contoso.onmicrosoft.com/discovery/v2.0/keys",
                userinfo="/oidc/userinfo",
                user={"sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"},
            ),
            # the configuration and the ID token name the tenant by its id
            extra_metadata=lambda o: {"issuer": f"{o}/{TID}/v2.0"},
            id_claims=lambda o: {
                "iss": f"{o}/{TID}/v2.0",
                "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
                "oid": "00000000-0000-0000-66f3-3332eca7ea81",
                "tid": TID,
                "preferred_username": "ada@contoso.com",
                "name": "Ada",
            },
        ),
        lambda o, b: EntraIDProvider(
            tenant="contoso.onmicrosoft.com",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            authority=o,
            consent=False,
        ),
        "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
        {"oid": "00000000-0000-0000-66f3-3332eca7ea81", "tid": TID, "name": "Ada"},
    ),
    "entra-multitenant": Case(
        _with(
            _oidc(
                "/organizations/v2.0",
                "/organizations/oauth2/v2.0",
                jwks="/organizations/discovery/v2.0/keys",
            ),
            extra_metadata=lambda o: {"issuer": o + "/{tenantid}/v2.0"},
            id_claims=lambda o: {
                "iss": f"{o}/{TID}/v2.0",
                "sub": "pairwise-sub",
                "tid": TID,
                "preferred_username": "ada@fabrikam.com",
            },
        ),
        lambda o, b: EntraIDProvider(
            tenant="organizations",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            authority=o,
            consent=False,
        ),
        "pairwise-sub",
        {"tid": TID, "preferred_username": "ada@fabrikam.com"},
    ),
    "okta": Case(
        _oidc(
            "/oauth2/default",
            "/oauth2/default/v1",
            revocation="/oauth2/default/v1/revoke",
            id_claims=ADA,
            user=ADA,
        ),
        lambda o, b: OktaProvider(
            domain="dev-1.okta.com",
            issuer=o + "/oauth2/default",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            consent=False,
        ),
        "00u1a2b3",
        {"email": "ada@example.com", "name": "Ada"},
    ),
    "auth0": Case(
        lambda o: StandIn(
            ID,
            SECRET,
            authorize="/authorize",
            token="/oauth/token",
            jwks="/.well-known/jwks.json",
            userinfo="/userinfo",
            revocation="/oauth/revoke",
            issuer_suffix="/",  # Auth0's issuer ends with a slash
            id_claims={"sub": "auth0|5f7c8ec7c33c6c004bbafe82", "email": "ada@example.com"},
            user={"sub": "auth0|5f7c8ec7c33c6c004bbafe82", "nickname": "ada"},
        ),
        lambda o, b: Auth0Provider(
            domain="acme.eu.auth0.com",
            issuer=o + "/",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            consent=False,
        ),
        "auth0|5f7c8ec7c33c6c004bbafe82",
        {"email": "ada@example.com"},
    ),
    "keycloak": Case(
        _oidc(
            "/realms/acme",
            "/realms/acme/protocol/openid-connect",
            authorize="/realms/acme/protocol/openid-connect/auth",
            jwks="/realms/acme/protocol/openid-connect/certs",
            revocation="/realms/acme/protocol/openid-connect/revoke",
            id_claims={"sub": "f1b2c3", "preferred_username": "ada", "email": "ada@acme.test"},
            user={"sub": "f1b2c3", "preferred_username": "ada"},
        ),
        lambda o, b: KeycloakProvider(
            server_url=o,
            realm="acme",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            consent=False,
        ),
        "f1b2c3",
        {"preferred_username": "ada", "email": "ada@acme.test"},
    ),
    "workos": Case(
        _oidc(
            "",
            "/oauth2",
            jwks="/oauth2/jwks",
            id_claims={"sub": "user_01HXYZ", "email": "ada@example.com"},
            user={"sub": "user_01HXYZ", "email": "ada@example.com", "name": "Ada"},
        ),
        lambda o, b: WorkOSProvider(
            authkit_domain="acme.authkit.app",
            issuer=o,
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            consent=False,
        ),
        "user_01HXYZ",
        {"email": "ada@example.com", "name": "Ada"},
    ),
    "cognito": Case(
        _oidc(
            "/eu-west-1_AbC123",
            "/oauth2",
            jwks="/eu-west-1_AbC123/.well-known/jwks.json",
            userinfo="/oauth2/userInfo",
            revocation="/oauth2/revoke",
            id_claims={
                "sub": "4b1c7f2e-0000-4000-8000-1a2b3c4d5e6f",
                "cognito:username": "ada",
                "email": "ada@example.com",
                "email_verified": True,
                "token_use": "id",
            },
            user={"sub": "4b1c7f2e-0000-4000-8000-1a2b3c4d5e6f", "username": "ada"},
        ),
        lambda o, b: CognitoProvider(
            user_pool_id="eu-west-1_AbC123",
            issuer=o + "/eu-west-1_AbC123",
            client_id=ID,
            client_secret=SECRET,
            base_url=b,
            consent=False,
        ),
        "4b1c7f2e-0000-4000-8000-1a2b3c4d5e6f",
        {"cognito:username": "ada", "email": "ada@example.com"},
    ),
    "oidc": Case(
        _oidc("/tenants/t1", "/tenants/t1/oidc", id_claims=ADA, user=ADA),
        lambda o, b: OIDCProvider(
            issuer=o + "/tenants/t1", client_id=ID, client_secret=SECRET, base_url=b, consent=False
        ),
        "00u1a2b3",
        {"email": "ada@example.com"},
    ),
}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )
    return verifier, challenge


async def login(case: Case) -> tuple[dict[str, Any], StandIn, OAuthProxy]:
    """A login through the preset: the claims of mcpkit's access token."""
    mcp, upstream = Late(), Late()
    async with (
        running(mcp) as base,
        running(upstream) as origin,
        httpx.AsyncClient(timeout=30) as browser,
    ):
        idp = case.standin(origin)
        idp.origin, idp.redirect_uri = origin, base + "/oauth/callback"
        upstream.app = idp.app()
        proxy = case.preset(origin, base)
        mcp.app = Server("preset", auth=proxy).http_app()
        r = await browser.post(
            base + "/register",
            json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
        )
        client_id = r.json()["client_id"]
        verifier, challenge = pkce()
        r = await browser.get(
            base + "/authorize",
            params={
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": "s",
            },
        )
        assert r.status_code == 302, r.text
        r = await browser.get(r.headers["location"])  # the provider's authorization endpoint
        assert r.status_code == 302, r.text
        r = await browser.get(r.headers["location"])  # mcpkit's callback
        assert r.status_code == 302, r.text
        back = {k: v[0] for k, v in parse_qs(urlsplit(r.headers["location"]).query).items()}
        assert "code" in back, back
        r = await browser.post(
            base + "/token",
            data={
                "grant_type": "authorization_code",
                "code": back["code"],
                "code_verifier": verifier,
                "redirect_uri": REDIRECT,
                "client_id": client_id,
            },
        )
        assert r.status_code == 200, r.text
        token = await proxy.server.verifier().verify_token(r.json()["access_token"])
        await mcp.app.aclose()
    return {**token.claims, "sub": token.subject}, idp, proxy


@pytest.mark.parametrize("name", list(CASES))
async def test_preset_against_its_provider_shape(name: str) -> None:
    case = CASES[name]
    claims, idp, proxy = await login(case)
    assert claims["sub"] == case.subject
    for key, value in case.claims.items():
        assert claims.get(key) == value, (key, claims)
    asked = idp.authorize_requests[-1]
    assert asked["client_id"] == ID and asked["code_challenge_method"] == "S256"
    assert set(proxy.upstream_scopes) == set(asked["scope"].split())


async def test_entra_multitenant_refuses_a_token_naming_another_tenant() -> None:
    case = CASES["entra-multitenant"]
    standin = case.standin

    def forged(origin: str) -> StandIn:
        s = standin(origin)
        assert s.id_claims is not None
        s.id_claims = {**s.id_claims, "tid": "someone-elses-tenant"}
        return s

    with pytest.raises(AssertionError, match="another issuer"):
        await login(Case(forged, case.preset, case.subject, case.claims))


def test_defaults_point_at_the_real_providers() -> None:
    kw: dict[str, Any] = {"client_id": "c", "client_secret": "s", "base_url": "https://mcp.test"}
    gh = GitHubProvider(**kw)
    assert gh.authorization_endpoint == "https://github.com/login/oauth/authorize"
    assert gh.token_endpoint == "https://github.com/login/oauth/access_token"
    assert gh.userinfo_endpoint == "https://api.github.com/user"
    assert gh.callback_url == "https://mcp.test/oauth/callback"
    well_known = "/.well-known/openid-configuration"
    expected = {
        "https://accounts.google.com": GoogleProvider(**kw),
        "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0": EntraIDProvider(
            tenant="contoso.onmicrosoft.com", **kw
        ),
        "https://dev-1.okta.com/oauth2/default": OktaProvider(domain="dev-1.okta.com", **kw),
        "https://dev-1.okta.com": OktaProvider(
            domain="dev-1.okta.com", authorization_server=None, **kw
        ),
        "https://acme.eu.auth0.com": Auth0Provider(domain="acme.eu.auth0.com", **kw),
        "https://sso.example.com/realms/acme": KeycloakProvider(
            server_url="https://sso.example.com/", realm="acme", **kw
        ),
        "https://acme.authkit.app": WorkOSProvider(authkit_domain="acme.authkit.app", **kw),
        "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123": CognitoProvider(
            user_pool_id="eu-west-1_AbC123", **kw
        ),
    }
    for issuer, preset in expected.items():
        assert preset.discovery_url == issuer + well_known, issuer
    assert Auth0Provider(domain="acme.eu.auth0.com", **kw).upstream_issuer == (
        "https://acme.eu.auth0.com/"
    )
