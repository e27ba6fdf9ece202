"""fastmcp's resource-server presets for hosted authorization servers served by mcpkit:
``ScalekitProvider`` and ``PropelAuthProvider``.

fastmcp's ``examples/auth/scalekit_oauth/server.py`` and ``propelauth_oauth/server.py`` run
unchanged on fastmcp and on mcpkit against a local stand-in for the provider (its keys or
its introspection endpoint, and its authorization server metadata). A client's view must
agree on both: the refusals and their ``WWW-Authenticate``, the protected resource
metadata, the authorization server metadata (forwarded from the provider), and the tools
called with a token the provider would issue.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.compat.test_fastmcp_auth import (
    call_tool,
    documents_server,
    keypair,
    metadata,
    refusals,
    same,
    started,
    token,
)

#: Each case starts two HTTP servers (one on fastmcp).
pytestmark = pytest.mark.timeout(240)

EXAMPLES = Path(__file__).parent / "examples" / "fastmcp"

#: Runs an example (``sys.argv``: the file, the port) as its ``__main__`` block would, on
#: the host the test reaches. python-dotenv (which the PropelAuth example imports) is a
#: dependency of fastmcp, not of mcpkit: where it is missing, a ``load_dotenv`` that finds
#: no ``.env`` stands in (there is none above the examples on either side).
LAUNCHER = """
import runpy, sys, types

try:
    import dotenv
except ImportError:
    dotenv = types.ModuleType("dotenv")
    dotenv.load_dotenv = lambda *args, **kwargs: False
    sys.modules["dotenv"] = dotenv
mcp = runpy.run_path(sys.argv[1])["mcp"]
mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
"""


def launcher(tmp: Path) -> Path:
    path = tmp / "launch.py"
    path.write_text(LAUNCHER)
    return path


def test_scalekit_oauth_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``examples/auth/scalekit_oauth``: the environment's keys, tokens of the resource
    (issued by the environment or the resource, audience the resource ID), Scalekit's
    metadata for the resource forwarded; the same on both."""
    key, stranger = keypair()[0], keypair()[0]
    documents: dict[str, Any] = {"/keys": {"keys": [key.as_dict(private=False)]}}
    base, server = documents_server(documents)
    as_path = "/.well-known/oauth-authorization-server/resources/res_1"
    documents[as_path] = {
        "issuer": base + "/resources/res_1",
        "authorization_endpoint": base + "/oauth/authorize",
        "token_endpoint": base + "/oauth/token",
        "scopes_supported": ["mcp:read"],
    }
    monkeypatch.setenv("SCALEKIT_ENVIRONMENT_URL", base)
    monkeypatch.setenv("SCALEKIT_RESOURCE_ID", "res_1")
    monkeypatch.setenv("SCALEKIT_REQUIRED_SCOPES", "mcp:read")
    claims = {"iss": base, "aud": "res_1", "sub": "u-1", "scope": "mcp:read", "client_id": "c"}
    valid = token(key, kid="k1", **claims)
    by_resource = token(key, kid="k1", **{**claims, "iss": base + "/resources/res_1"})
    credentials: dict[str, str | None] = {
        "missing": None,
        "other audience": "Bearer " + token(key, kid="k1", **{**claims, "aud": "res_2"}),
        "other issuer": "Bearer " + token(key, kid="k1", **{**claims, "iss": base + "/x"}),
        "other key": "Bearer " + token(stranger, kid="k1", **claims),
        "no scope": "Bearer " + token(key, kid="k1", **{**claims, "scope": "other"}),
        "expired": "Bearer " + token(key, kid="k1", **{**claims, "exp": int(time.time()) - 60}),
        "valid": "Bearer " + valid,
        "issued by the resource": "Bearer " + by_resource,
    }
    example = EXAMPLES / "auth_scalekit_oauth_server.py"
    try:
        with started([str(launcher(tmp_path)), str(example)]) as urls:
            theirs, ours = (refusals(u, credentials) for u in urls)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            calls = [("echo", {"message": "hi"}), ("auth_status", {})]
            results = [[call_tool(u, valid, *call) for call in calls] for u in urls]
    finally:
        server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    assert ours["valid"]["status"] == ours["issued by the resource"]["status"] == 200
    refused = ("missing", "other audience", "other issuer", "other key", "no scope", "expired")
    assert all(ours[label]["status"] == 401 for label in refused)
    assert prm[1]["body"]["authorization_servers"] == [base + "/resources/res_1"]
    assert prm[1]["body"]["resource"] == "http://127.0.0.1:8000/mcp"
    assert asm[1]["body"] == documents[as_path]
    assert results[1][0]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert results[1][1]["result"]["structuredContent"]["provider"] == "Scalekit"


class PropelAuth:
    """A local PropelAuth: its authorization server metadata, and its introspection
    endpoint answering ``answers[token]`` (inactive for others) to the client ``rs``
    authenticated with HTTP Basic; 401 to anyone else."""

    def __init__(self, answers: dict[str, Any]) -> None:
        basic = "Basic " + base64.b64encode(b"rs:rs-secret").decode()
        stand_in = self
        self.introspected: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/.well-known/oauth-authorization-server/oauth/2.1":
                    self.send(200, stand_in.metadata)
                else:
                    self.send(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if self.path != "/oauth/2.1/introspect":
                    self.send(404, {"error": "not_found"})
                elif self.headers.get("authorization") != basic:
                    self.send(401, {"error": "invalid_client"})
                else:
                    stand_in.introspected.append(form.get("token", ""))
                    self.send(200, answers.get(form.get("token", ""), {"active": False}))

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.metadata = {
            "issuer": self.url + "/oauth/2.1",
            "authorization_endpoint": self.url + "/oauth/2.1/authorize",
            "token_endpoint": self.url + "/oauth/2.1/token",
            "introspection_endpoint": self.url + "/oauth/2.1/introspect",
            "scopes_supported": ["read:user_data"],
        }
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


#: The example as published, and with the provider's RFC 8707 ``resource`` and required
#: scopes set (a server file of the same shape).
RESOURCE_SERVER = """
import os

from fastmcp import FastMCP
from fastmcp.server.auth.providers.propelauth import PropelAuthProvider
from fastmcp.server.dependencies import get_access_token

auth = PropelAuthProvider(
    auth_url=os.environ["PROPELAUTH_AUTH_URL"],
    introspection_client_id=os.environ["PROPELAUTH_INTROSPECTION_CLIENT_ID"],
    introspection_client_secret=os.environ["PROPELAUTH_INTROSPECTION_CLIENT_SECRET"],
    base_url="http://127.0.0.1:8000/",
    resource="http://127.0.0.1:8000/mcp",
    required_scopes=["read:user_data"],
    token_introspection_overrides={"timeout_seconds": 5, "cache_ttl_seconds": 60},
)

mcp = FastMCP("PropelAuth resource", auth=auth)


@mcp.tool
def whoami() -> dict:
    token = get_access_token()
    return {"user_id": token.claims.get("sub"), "scopes": token.scopes}
"""


@pytest.mark.parametrize("variant", ["example", "resource"])
def test_propelauth_oauth_example(
    variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``examples/auth/propelauth_oauth`` (and a server setting ``resource`` and required
    scopes): tokens checked at PropelAuth's introspection endpoint, its metadata
    forwarded, the tool seeing the user; the same on both."""
    now = int(time.time())
    good = {
        "active": True,
        "sub": "user-1",
        "client_id": "cli-1",
        "scope": "read:user_data",
        "aud": "http://127.0.0.1:8000/mcp",
        "exp": now + 600,
    }
    answers = {
        "pa-valid": good,
        "pa-other-aud": {**good, "aud": "http://elsewhere/mcp"},
        "pa-no-scope": {**good, "scope": "other"},
        "pa-expired": {**good, "exp": now - 60},
        "pa-off": {**good, "active": False},
    }
    propel = PropelAuth(answers)
    monkeypatch.setenv("PROPELAUTH_AUTH_URL", propel.url + "/")
    monkeypatch.setenv("PROPELAUTH_INTROSPECTION_CLIENT_ID", "rs")
    monkeypatch.setenv("PROPELAUTH_INTROSPECTION_CLIENT_SECRET", "rs-secret")
    if variant == "example":
        example, tool = EXAMPLES / "auth_propelauth_oauth_server.py", "whoami"
    else:
        example, tool = tmp_path / "resource.py", "whoami"
        example.write_text(RESOURCE_SERVER)
    credentials: dict[str, str | None] = {"missing": None, "unknown": "Bearer pa-eve"}
    credentials.update({label: "Bearer " + label for label in answers})
    try:
        with started([str(launcher(tmp_path)), str(example)]) as urls:
            theirs, ours = (refusals(u, credentials) for u in urls)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            results = [[call_tool(u, "pa-valid", tool, {})] for u in urls]
            if variant == "example":
                for u in urls:
                    results.append([call_tool(u, "pa-valid", "echo", {"message": "hi"})])
    finally:
        propel.server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    assert asm[1]["body"] == propel.metadata
    assert prm[1]["body"]["authorization_servers"] == [propel.url + "/oauth/2.1"]
    assert ours["pa-valid"]["status"] == 200
    assert ours["pa-off"]["status"] == ours["pa-expired"]["status"] == 401
    assert ours["unknown"]["status"] == ours["missing"]["status"] == 401
    who = results[1][0]["result"]["structuredContent"]
    assert who["user_id"] == "user-1"
    if variant == "resource":
        assert ours["pa-other-aud"]["status"] == ours["pa-no-scope"]["status"] == 401
        assert who["scopes"] == ["read:user_data"]
        assert prm[1]["body"]["scopes_supported"] == ["read:user_data"]
    else:  # no resource, no required scopes: any active token of PropelAuth's
        assert ours["pa-other-aud"]["status"] == ours["pa-no-scope"]["status"] == 200
        assert results[3] == results[2]
        assert results[3][0]["result"]["content"] == [{"type": "text", "text": "hi"}]


#: A server of the shape of fastmcp's Azure example, on an Azure AD B2C user flow.
B2C_SERVER = """
import os

from fastmcp import FastMCP
from fastmcp.server.auth.providers.azure import AzureProvider
from fastmcp.server.dependencies import get_access_token

auth = AzureProvider.from_b2c(
    tenant_name="contoso",
    policy_name="B2C_1_susi",
    client_id=os.environ["FASTMCP_SERVER_AUTH_AZURE_CLIENT_ID"],
    client_secret=os.environ["FASTMCP_SERVER_AUTH_AZURE_CLIENT_SECRET"],
    required_scopes=["read"],
    base_url="http://127.0.0.1:8000",
)

mcp = FastMCP("Azure B2C", auth=auth)


@mcp.tool
def echo(message: str) -> str:
    return message


@mcp.tool
def whoami() -> dict:
    token = get_access_token()
    return {"sub": token.claims.get("sub"), "scopes": token.scopes}
"""


def test_azure_b2c(tmp_path: Path) -> None:
    """``AzureProvider.from_b2c``: the user flow's endpoints under the tenant's
    ``b2clogin.com`` host, the scopes asked for under the tenant's application URI with
    ``offline_access`` and no account picker, and the B2C access token checked against
    the flow's keys with no issuer check (its issuer names the tenant's GUID); the same
    login and tool calls on both."""
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    from tests.compat.test_fastmcp_oauth_proxy import compare, run_both

    host, flow = "contoso.b2clogin.com", "/contoso.onmicrosoft.com/B2C_1_susi"
    key = RSAKey.generate_key(2048, parameters={"kid": "b2c-key"})
    now = int(time.time())
    claims = {
        "iss": f"https://{host}/0f1e2d3c-tenant-guid/v2.0/",
        "aud": "upstream-client",
        "sub": "b2c-user",
        "scp": "read",
        "iat": now,
        "exp": now + 3600,
    }
    access = jwt.encode({"alg": "RS256", "kid": "b2c-key"}, claims, key)
    documents = {f"{flow}/discovery/v2.0/keys": {"keys": [key.as_dict(private=False)]}}
    example = tmp_path / "b2c.py"
    example.write_text(B2C_SERVER)
    case = {"env": "FASTMCP_SERVER_AUTH_AZURE", "hosts": [host]}
    theirs, ours = run_both(
        example, case, tmp_path, "whoami", access_token=access, documents=documents
    )
    compare(theirs, ours)
    upstream = ours["upstream authorize"]
    assert (
        upstream["scope"] == "https://contoso.onmicrosoft.com/upstream-client/read offline_access"
    )
    assert "prompt" not in upstream and "resource" not in upstream
    assert ours["whoami"]["result"]["structuredContent"] == {"sub": "b2c-user", "scopes": ["read"]}
    assert ours["tools/call"]["result"]["content"] == [{"type": "text", "text": "hi"}]


def test_azure_b2c_refusals() -> None:
    """``from_b2c`` refuses a full tenant name as fastmcp does; a custom domain is the
    authority, an explicit issuer is checked."""
    from mcpkit.compat.fastmcp.server.auth.providers.azure import AzureProvider
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

    common = {"client_id": "c", "client_secret": "s", "required_scopes": ["read"]}
    with pytest.raises(ValueError, match=r"without the \.onmicrosoft\.com suffix"):
        AzureProvider.from_b2c(
            tenant_name="contoso.onmicrosoft.com",
            policy_name="B2C_1_susi",
            base_url="http://127.0.0.1:8000",
            **common,
        )
    provider = AzureProvider.from_b2c(
        tenant_name="contoso",
        policy_name="B2C_1_susi",
        base_url="http://127.0.0.1:8000",
        custom_domain="https://auth.contoso.com/",
        token_issuer="https://auth.contoso.com/guid/v2.0/",
        **common,
    )
    assert provider.engine.authorization_endpoint == (
        "https://auth.contoso.com/contoso.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize"
    )
    verifier = provider.token_verifier
    assert isinstance(verifier, JWTVerifier)
    assert verifier.issuer == "https://auth.contoso.com/guid/v2.0/"
    assert provider.engine.extra_authorize_params == {}


CLERK = "clerk.example.dev"


def clerk_stand_in(introspected: list[dict[str, str]]) -> type:
    """The OAuth proxies' stand-in with Clerk's introspection endpoint: the upstream token
    active for the application, with the scopes it was issued."""
    from tests.compat.test_fastmcp_oauth_proxy import UPSTREAM_TOKEN, StandIn

    class ClerkStandIn(StandIn):
        def post(self, h: BaseHTTPRequestHandler) -> None:
            if not h.path.startswith("/oauth/token_info"):
                super().post(h)
                return
            length = int(h.headers.get("content-length") or 0)
            form = {k: v[0] for k, v in parse_qs(h.rfile.read(length).decode()).items()}
            basic = h.headers.get("authorization", "")
            form["basic"] = base64.b64decode(basic[6:]).decode() if basic else ""
            introspected.append(form)
            if form["token"] != UPSTREAM_TOKEN:
                self.reply(h, 200, {"active": False})
                return
            info = {"active": True, "sub": "user_clerk", "scope": self.scope}
            self.reply(h, 200, {**info, "aud": self.client_id, "exp": int(time.time()) + 600})

    return ClerkStandIn


@pytest.mark.parametrize("variant", ["example", "claims"])
def test_clerk_oauth_example(variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``examples/auth/clerk_oauth`` (and the same with a tool reading the token): the
    instance's endpoints, ``openid email profile`` asked for and required, the token
    checked at Clerk's introspection endpoint (the application's credentials, HTTP
    Basic) and the profile read at its userinfo endpoint; the same on both."""
    import tests.compat.test_fastmcp_oauth_proxy as proxy_tests

    introspected: list[dict[str, str]] = []
    monkeypatch.setattr(proxy_tests, "StandIn", clerk_stand_in(introspected))
    case = {
        "env": "FASTMCP_SERVER_AUTH_CLERK",
        "hosts": [CLERK],
        "more": {"FASTMCP_SERVER_AUTH_CLERK_DOMAIN": f"https://{CLERK}/"},
    }
    example, tool = EXAMPLES / "auth_clerk_oauth_server.py", None
    if variant == "claims":
        example, tool = tmp_path / "clerk.py", "claims"
        example.write_text(
            (EXAMPLES / "auth_clerk_oauth_server.py").read_text()
            + "\n\n@mcp.tool\ndef claims() -> dict:\n"
            + "    from fastmcp.server.dependencies import get_access_token\n\n"
            + "    token = get_access_token()\n"
            + "    return {'client_id': token.client_id, 'scopes': token.scopes, "
            + "**token.claims}\n"
        )
    theirs, ours = proxy_tests.run_both(example, case, tmp_path, tool, scope="openid email profile")
    proxy_tests.compare(theirs, ours)
    assert ours["upstream authorize"]["scope"] == "openid email profile"
    assert ours["tools/call"]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert introspected and all(
        f["basic"] == "upstream-client:upstream-secret" for f in introspected
    )
    if variant == "claims":
        assert ours["claims"]["result"]["structuredContent"] == {
            "client_id": "upstream-client",
            "scopes": ["openid", "email", "profile"],
            "sub": "user_clerk",
            "aud": "upstream-client",
            "email": None,
            "email_verified": None,
            "name": None,
            "picture": None,
            "given_name": None,
            "family_name": None,
            "preferred_username": "ada",
            "iss": None,
            "clerk_user_data": {"sub": "hf-1", "preferred_username": "ada", "profile": "p"},
        }


def test_auth0_mcp_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``examples/auth/auth0_mcp`` (``Auth0MCPProvider``): the tenant's discovery document
    read at start, its tokens checked against its keys and issuer with this server's
    resource URL as audience, Auth0's metadata forwarded; the same on both."""
    key, stranger = keypair()[0], keypair()[0]
    documents: dict[str, Any] = {"/.well-known/jwks.json": {"keys": [key.as_dict(private=False)]}}
    base, server = documents_server(documents)
    documents["/.well-known/openid-configuration"] = {
        "issuer": base + "/",
        "authorization_endpoint": base + "/authorize",
        "token_endpoint": base + "/oauth/token",
        "jwks_uri": base + "/.well-known/jwks.json",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    }
    documents["/.well-known/oauth-authorization-server"] = {
        "issuer": base + "/",
        "authorization_endpoint": base + "/authorize",
        "token_endpoint": base + "/oauth/token",
        "registration_endpoint": base + "/oidc/register",
    }
    monkeypatch.setenv("AUTH0_CONFIG_URL", base + "/.well-known/openid-configuration")
    claims = {"iss": base + "/", "aud": "http://127.0.0.1:8000/mcp", "sub": "auth0|ada"}
    claims["permissions"] = ["read:things"]
    valid = token(key, kid="k1", **claims)
    credentials: dict[str, str | None] = {
        "missing": None,
        "other audience": "Bearer " + token(key, kid="k1", **{**claims, "aud": "https://api"}),
        "other issuer": "Bearer " + token(key, kid="k1", **{**claims, "iss": base + "/x/"}),
        "other key": "Bearer " + token(stranger, kid="k1", **claims),
        "valid": "Bearer " + valid,
    }
    example = EXAMPLES / "auth_auth0_mcp_server.py"
    try:
        with started([str(launcher(tmp_path)), str(example)]) as urls:
            theirs, ours = (refusals(u, credentials) for u in urls)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            results = [call_tool(u, valid, "echo", {"message": "hi"}) for u in urls]
    finally:
        server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    assert ours["valid"]["status"] == 200
    assert all(a["status"] == 401 for label, a in ours.items() if label != "valid")
    assert prm[1]["body"]["authorization_servers"] == [base + "/"]
    assert asm[1]["body"] == documents["/.well-known/oauth-authorization-server"]
    assert results[1]["result"]["content"] == [{"type": "text", "text": "hi"}]


#: A Descope-protected server: discovery of its configuration (``config_url``, the scopes
#: advertised read from it) or the project's settings with required scopes.
DESCOPE_SERVER = """
import os
import sys

from fastmcp import FastMCP
from fastmcp.server.auth.providers.descope import DescopeProvider
from fastmcp.server.dependencies import get_access_token

base = os.environ["DESCOPE_BASE_URL"]
if os.environ["DESCOPE_VARIANT"] == "config_url":
    auth = DescopeProvider(
        config_url=base + "/v1/apps/P123/.well-known/openid-configuration",
        base_url="http://127.0.0.1:8000",
    )
else:
    auth = DescopeProvider(
        project_id="P123",
        descope_base_url=base,
        base_url="http://127.0.0.1:8000",
        required_scopes=["mcp:read"],
    )

mcp = FastMCP("Descope", auth=auth)


@mcp.tool
def whoami() -> dict:
    token = get_access_token()
    return {"sub": token.claims.get("sub"), "iss": token.claims.get("iss"), "scopes": token.scopes}
"""


@pytest.mark.parametrize("variant", ["config_url", "project_id"])
def test_descope_provider(variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``DescopeProvider``: the project's tokens under each of its issuers (the project's,
    an MCP server's, a tenant's) and no other, its audience the project, the scopes
    advertised read from the discovery document when none are given, Descope's metadata
    forwarded; the same on both."""
    key, stranger = keypair()[0], keypair()[0]
    documents: dict[str, Any] = {
        "/P123/.well-known/jwks.json": {"keys": [key.as_dict(private=False)]}
    }
    base, server = documents_server(documents)
    project = base + "/v1/apps/P123"
    documents["/v1/apps/P123/.well-known/openid-configuration"] = {
        "issuer": project,
        "scopes_supported": ["openid", "mcp:read"],
    }
    documents["/v1/apps/P123/.well-known/oauth-authorization-server"] = {
        "issuer": project,
        "authorization_endpoint": project + "/authorize",
        "token_endpoint": project + "/token",
    }
    monkeypatch.setenv("DESCOPE_BASE_URL", base)
    monkeypatch.setenv("DESCOPE_VARIANT", variant)
    claims = {"iss": project, "aud": "P123", "sub": "U1", "scope": "mcp:read"}

    def bearer(**changes: Any) -> str:
        return "Bearer " + token(key, kid="k1", **{**claims, **changes})

    valid = token(key, kid="k1", **claims)
    credentials: dict[str, str | None] = {
        "missing": None,
        "project": "Bearer " + valid,
        "mcp server": bearer(iss=base + "/v1/apps/agentic/P123/M1"),
        "tenant": bearer(iss=project + "/T1"),
        "two segments": bearer(iss=project + "/T1/x"),
        "other project": bearer(iss=base + "/v1/apps/P999"),
        "other audience": bearer(aud="P999"),
        "no scope": bearer(scope="other"),
        "other key": "Bearer " + token(stranger, kid="k1", **claims),
    }
    example = tmp_path / "descope.py"
    example.write_text(DESCOPE_SERVER)
    try:
        with started([str(launcher(tmp_path)), str(example)]) as urls:
            theirs, ours = (refusals(u, credentials) for u in urls)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            results = [call_tool(u, valid, "whoami", {}) for u in urls]
    finally:
        server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    accepted = {"project", "mcp server", "tenant"}
    if variant == "config_url":
        accepted.add("no scope")
    for label, found in ours.items():
        assert found["status"] == (200 if label in accepted else 401), label
    assert prm[1]["body"]["authorization_servers"] == [project]
    assert prm[1]["body"]["scopes_supported"] == (
        ["openid", "mcp:read"] if variant == "config_url" else ["mcp:read"]
    )
    assert asm[1]["body"] == documents["/v1/apps/P123/.well-known/oauth-authorization-server"]
    assert results[1]["result"]["structuredContent"]["sub"] == "U1"
