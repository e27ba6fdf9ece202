"""Machine-to-machine authorization in the compat layer, compared with the real SDKs.

fastmcp's client credentials providers: ``clients/fastmcp_m2m.py``
(``ClientCredentialsOAuthProvider`` by HTTP Basic and by the form,
``PrivateKeyJWTOAuthProvider`` with ``SignedJWTParameters`` and with a static assertion, a
wrong secret) run on fastmcp 4.x and unchanged on mcpkit against the same MCP server, whose
tokens a real authorization server issues (the npm ``oidc-provider``,
``servers/oidc_m2m.mjs``): what the scripts print and every token request the authorization
server receives (its form, its ``Authorization`` header, the client assertion's header and
claims, the time and ``jti`` aside) must be equal.

SEP-990 on the official SDK's server auth: ``identity_assertion_tutorial002.py`` (the
documentation's authorization server validating ID-JAGs with ``create_auth_routes(...,
identity_assertion_enabled=True)``), ``identity_assertion_server.py`` (the snippet whose
validation is a stub failing closed) and an ``MCPServer`` that is its own authorization server
with ``AuthSettings(identity_assertion_enabled=True)``, all copied unchanged
(``examples/official_v2_m2m``, see ``examples/NOTICE``), are sent the same requests on
``mcp`` 2.x and on mcpkit by ``servers/sdk_identity_assertion.py``; every answer (status, the
headers a client reads, the body) must be equal, the minted access tokens aside. The
``oauth_client_credentials`` and ``identity_assertion`` stories' apps (under
``examples/official_v2/stories`` with the other stories) are compared the same way by
``servers/sdk_m2m_stories.py``.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import listening
from tests.compat.test_unchanged import peer
from tests.interop.conftest import locate_node_peer

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2_m2m"
#: The folder holding the official stories (``stories/``), the m2m ones among them.
STORIES = Path(__file__).resolve().parent / "examples" / "official_v2"
CLIENT = Path(__file__).resolve().parent / "clients" / "fastmcp_m2m.py"


def ours_env() -> dict[str, str]:
    """mcpkit's environment for a run of the examples: what they import beyond the SDK
    (PyJWT, httpx2, python-multipart) is in its lock (the ``dev`` extra)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def answers(
    command: list[str], env: dict[str, str] | None = None, driver: str = "sdk_identity_assertion.py"
) -> list[dict[str, Any]]:
    """What ``driver`` prints, each answer read as a client reads it (an access token by
    name, a tool result's absent ``isError`` as false); it is given the snippets' folder, or
    the stories' (``sdk_m2m_stories.py``)."""
    folder = STORIES if driver == "sdk_m2m_stories.py" else EXAMPLES
    done = subprocess.run(
        [*command, str(Path(SERVERS) / driver), str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = []
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        body = answer["body"]
        if isinstance(body, dict) and "access_token" in body:
            body["access_token"] = "<token>"
        if isinstance(body, list):
            for message in body:
                result = message.get("result", {})
                if "content" in result:
                    result.setdefault("isError", False)
        out.append(answer)
    return out


def test_identity_assertion_grant_answers_as_the_sdk() -> None:
    theirs = answers([str(peer("mcp2"))])
    ours = answers([sys.executable, "-m", "mcpkit.compat"], env=ours_env())
    assert [a["label"] for a in ours] == [a["label"] for a in theirs]
    for mine, sdk in zip(ours, theirs, strict=True):
        assert mine == sdk, mine["label"]
    by_label = {a["label"]: a for a in ours}
    # The comparison covers what matters: the grant issued, refused and advertised.
    assert by_label["tutorial002 token granted"]["status"] == 200
    assert by_label["tutorial002 token replayed"]["body"]["error"] == "invalid_grant"
    assert by_label["tutorial002 token public client"]["body"]["error"] == "unauthorized_client"
    assert by_label["disabled token granted"]["body"]["error"] == "unsupported_grant_type"
    assert by_label["snippet token"]["status"] == 500  # the stub fails closed
    profiles = by_label["mcpserver metadata"]["body"]["authorization_grant_profiles_supported"]
    assert profiles == ["urn:ietf:params:oauth:grant-profile:id-jag"]
    whoami = by_label["mcpserver mcp whoami"]["body"][0]["result"]["structuredContent"]
    assert whoami == {"result": "alice@example.com (notes:read) for http://localhost:8001/mcp"}


def test_machine_to_machine_stories_answer_as_the_sdk() -> None:
    """The ``oauth_client_credentials`` and ``identity_assertion`` stories' apps
    (``server.py`` on ``MCPServer`` with ``custom_route``, ``server_lowlevel.py`` on the
    low-level ``Server`` with ``custom_starlette_routes``), unchanged: their metadata, token
    endpoints and MCP endpoints answer as on the SDK."""
    driver = "sdk_m2m_stories.py"
    theirs = answers([str(peer("mcp2"))], driver=driver)
    ours = answers([sys.executable, "-m", "mcpkit.compat"], ours_env(), driver)
    assert [a["label"] for a in ours] == [a["label"] for a in theirs]
    for mine, sdk in zip(ours, theirs, strict=True):
        assert mine == sdk, mine["label"]
    by_label = {a["label"]: a for a in ours}
    for server in ("server", "server_lowlevel"):
        called = by_label[f"oauth_client_credentials/{server} token mcp tools/call"]
        assert called["body"][0]["result"]["structuredContent"]["client_id"] == "demo-m2m-client"
        called = by_label[f"identity_assertion/{server} token mcp tools/call"]
        assert called["body"][0]["result"]["structuredContent"]["subject"] == "alice@example.com"


@pytest.mark.parametrize("enabled", [False, True])
def test_the_grant_is_advertised_only_when_enabled(enabled: bool) -> None:
    """mcpkit's metadata for a provider without and with the flag (no SDK needed)."""
    from mcpkit.compat._oauth_server import authorization_server_metadata
    from mcpkit.compat.mcp.server.auth.settings import (
        ClientRegistrationOptions,
        RevocationOptions,
    )

    doc = authorization_server_metadata(
        "https://a.example",
        "https://a.example/",
        None,
        ClientRegistrationOptions(),
        RevocationOptions(),
        enabled,
    )
    jwt_bearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert (jwt_bearer in doc["grant_types_supported"]) is enabled
    assert ("authorization_grant_profiles_supported" in doc) is enabled


# -- fastmcp's client credentials providers --------------------------------------------------


class AuthorizationServer:
    """``servers/oidc_m2m.mjs`` running: its issuer and the token requests it logged."""

    def __init__(self, public_jwk: dict[str, Any]) -> None:
        node = locate_node_peer()
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                str(node.node),
                str(Path(SERVERS) / "oidc_m2m.mjs"),
                str(self.port),
                json.dumps(public_jwk),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=node.env(),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("ready "), line
        self.issuer = line.split()[1]

    def requests(self, count: int) -> list[dict[str, Any]]:
        """The next ``count`` token requests it logged."""
        assert self.proc.stdout is not None
        out: list[dict[str, Any]] = []
        while len(out) < count:
            line = self.proc.stdout.readline()
            assert line, "the authorization server stopped"
            if line.startswith("token "):
                out.append(json.loads(line[6:]))
        return out


def _segment(part: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def comparable_request(request: dict[str, Any]) -> dict[str, Any]:
    """A token request with its client assertion read: the header and the claims, their
    time as the lifetime and ``jti`` as its presence."""
    body = dict(request["body"])
    assertion = body.get("client_assertion", "")
    if assertion.count(".") == 2 and assertion.startswith("ey"):
        head, claims, _ = assertion.split(".")
        read = _segment(claims)
        read["lifetime"] = read.pop("exp") - read.pop("iat")
        read["jti"] = bool(read.get("jti"))
        body["client_assertion"] = {"header": _segment(head), "claims": read}
    return {**request, "body": body}


def run_client(python: list[str], url: str, issuer: str, key: Path) -> list[str]:
    done = subprocess.run(
        [*python, str(CLIENT), url, issuer, str(key)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=CLIENT.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.fixture
def m2m_servers(tmp_path: Path) -> Iterator[tuple[AuthorizationServer, str, Path]]:
    """The authorization server, the MCP server (mcpkit's, trusting its tokens) and the
    client's private key (PEM) whose public half the authorization server holds."""
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048)
    pem = tmp_path / "key.pem"
    pem.write_bytes(key.as_pem(private=True))
    server = AuthorizationServer(key.as_dict(private=False))
    port = free_port()
    resource = subprocess.Popen(
        [sys.executable, str(Path(SERVERS) / "m2m_resource.py"), str(port), server.issuer],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        listening(resource, port)
        yield server, f"http://127.0.0.1:{port}/mcp", pem
    finally:
        resource.terminate()
        server.proc.terminate()
        resource.wait(10)
        server.proc.wait(10)


@pytest.mark.timeout(300)
def test_client_credentials_providers_send_what_fastmcp_sends(
    m2m_servers: tuple[AuthorizationServer, str, Path],
) -> None:
    server, url, key = m2m_servers
    theirs = run_client([str(peer("fastmcp"))], url, server.issuer, key)
    sent_by_fastmcp = server.requests(5)
    ours = run_client([sys.executable, "-m", "mcpkit.compat"], url, server.issuer, key)
    sent_by_mcpkit = server.requests(5)
    assert ours == theirs
    assert ours == [
        "basic ['whoami'] m2m-basic ['mcp:tools']",
        "post ['whoami'] m2m-post ['mcp:tools']",
        "wrong secret failed: RuntimeError",
        "other issuer failed: RuntimeError",  # no request: its credentials are not sent
        "private key jwt ['whoami'] m2m-jwt ['mcp:tools']",
        "bad assertion failed: RuntimeError",
    ]
    assert [comparable_request(r) for r in sent_by_mcpkit] == [
        comparable_request(r) for r in sent_by_fastmcp
    ]
    signed = comparable_request(sent_by_mcpkit[3])["body"]["client_assertion"]
    assert signed["claims"]["aud"] == server.issuer and signed["header"]["alg"] == "RS256"
    assert [r["error"] for r in sent_by_mcpkit] == [
        None,
        None,
        "invalid_client",
        None,
        "invalid_request",
    ]


async def test_a_provider_without_a_url_is_bound_by_the_transport() -> None:
    """Unbound, a provider refuses as fastmcp's; given to a client, it takes its URL."""
    from mcpkit.compat.fastmcp.client.auth import ClientCredentialsOAuthProvider
    from mcpkit.compat.fastmcp.client.transports import StreamableHttpTransport

    auth = ClientCredentialsOAuthProvider(client_id="c", client_secret="s")
    request = httpx.Request("POST", "http://127.0.0.1:1/mcp")
    with pytest.raises(RuntimeError, match="has no server URL"):
        await auth.async_auth_flow(request).__anext__()
    transport = StreamableHttpTransport("http://127.0.0.1:1/mcp/", auth=auth)
    assert transport.auth is auth
    assert auth._inner is not None and auth._inner.server_url == "http://127.0.0.1:1/mcp"


async def test_client_assertion_provider_makes_the_private_key_jwt() -> None:
    """mcpkit's ``OAuthClientAuth(client_assertion=...)``: the assertion comes from the
    function (given the issuer), and ``send_client_id=False`` leaves ``client_id`` out."""
    from mcpkit.auth import OAuthClientAuth

    base = "http://127.0.0.1:1"
    issuer, resource = base + "/as", base + "/mcp"
    sent: list[dict[str, str]] = []
    audiences: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/mcp" and "authorization" not in request.headers:
            challenge = f'Bearer resource_metadata="{base}/prm"'
            return httpx.Response(401, headers={"www-authenticate": challenge})
        if path == "/prm":
            doc = {"resource": resource, "authorization_servers": [issuer]}
            return httpx.Response(200, json=doc)
        if path.startswith("/.well-known/"):
            return httpx.Response(200, json={"issuer": issuer, "token_endpoint": base + "/t"})
        if path == "/t":
            sent.append(dict(httpx.QueryParams(request.content.decode())))
            return httpx.Response(200, json={"access_token": "at", "token_type": "Bearer"})
        return httpx.Response(200, json={})

    async def assertion(audience: str) -> str:
        audiences.append(audience)
        return "signed.for." + audience

    transport = httpx.MockTransport(answer)
    for send_client_id in (True, False):
        sent.clear()
        async with httpx.AsyncClient(transport=transport) as oauth_http:
            auth = OAuthClientAuth(
                resource,
                grant_type="client_credentials",
                client_id="svc",
                token_endpoint_auth_method="private_key_jwt",
                client_assertion=assertion,
                send_client_id=send_client_id,
                http_client=oauth_http,
                allow_insecure_http=True,
            )
            async with httpx.AsyncClient(transport=transport, auth=auth) as http:
                response = await http.post(resource)
        assert response.status_code == 200
        assert sent[0]["client_assertion"] == "signed.for." + issuer
        assert ("client_id" in sent[0]) is send_client_id
    assert audiences == [issuer, issuer]
