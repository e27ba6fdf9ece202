"""fastmcp servers that are their own authorization server (``InMemoryOAuthProvider``, an
``OAuthProvider`` subclass of the server's own, ``MultiAuth`` with a token verifier beside
one), run over HTTP on fastmcp and unchanged on mcpkit, and driven through the same OAuth
flow: metadata, dynamic registration (and its refusals), authorization (and its errors,
answered 400 or redirected), the code grant with PKCE, refresh, revocation, then
``tools/list`` and ``tools/call`` with the tokens. Each answer's status, headers a client
reads and body must be equal once the values that differ by nature (the port, client IDs
and secrets, codes and tokens, timestamps) are named by their order of appearance."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_fastmcp_auth import ACCEPT, INIT, rpc_result, started

#: Each test starts two HTTP servers (one on fastmcp) and sends each a few dozen requests.
pytestmark = pytest.mark.timeout(180)

SERVER = str(Path(SERVERS) / "fastmcp_oauth_memory.py")
REDIRECT = "http://127.0.0.1:9/cb"
HEADERS = ("content-type", "cache-control", "pragma", "location", "www-authenticate")
#: The random values fastmcp's in-memory provider and the registration endpoint mint.
MINTED = re.compile(
    r"test_(auth_code|access_token|refresh_token)_[0-9a-f]+"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}"
)


class Recorder:
    """Sends a flow's requests to one server and keeps each answer, normalised."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=30)
        self.names: dict[str, str] = {}
        self.answers: dict[str, Any] = {}
        issuer = json.dumps({"issuer_url": base + "/"}, sort_keys=True, separators=(",", ":"))
        self.names["configured:" + hashlib.sha256(issuer.encode()).hexdigest()] = "SOURCE"

    def _name(self, match: re.Match[str]) -> str:
        value = match.group(0)
        if value not in self.names:
            self.names[value] = f"<minted {len(self.names)}>"
        return self.names[value]

    def normal(self, text: str) -> str:
        """``text`` with the port and minted values named (in order of appearance)."""
        for value, name in self.names.items():
            text = text.replace(value, name)
        text = text.replace(self.base.rsplit(":", 1)[1], "PORT")
        return MINTED.sub(self._name, text)

    def record(self, label: str, response: httpx.Response) -> httpx.Response:
        body: Any = self.normal(response.text)
        if response.headers.get("content-type", "").startswith("application/json"):
            body = json.loads(body)
            if isinstance(body, dict) and "client_id_issued_at" in body:
                body["client_id_issued_at"] = "<time>"
        headers = {k: self.normal(response.headers[k]) for k in HEADERS if k in response.headers}
        if label.startswith("mcp"):  # the MCP answers: their content, JSON or SSE alike
            headers.pop("content-type", None)
            headers.pop("cache-control", None)
            body = rpc_result(response) if response.status_code == 200 else body
            if response.status_code == 200:
                body = json.loads(self.normal(json.dumps(body)))
                body.get("result", {}).get("serverInfo", {}).pop("version", None)
        self.answers[label] = {"status": response.status_code, "headers": headers, "body": body}
        return response

    def mcp(self, label: str, token: str, method: str, params: dict[str, Any]) -> Any:
        """``initialize`` then ``method`` with ``token``: the answer to ``method``."""
        headers = {**ACCEPT, "authorization": f"Bearer {token}"}
        init = self.record(
            f"mcp {label} initialize", self.http.post("/mcp", json=INIT, headers=headers)
        )
        if init.status_code != 200:
            return None
        session = {**headers, "mcp-session-id": init.headers["mcp-session-id"]}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.http.post("/mcp", json=note, headers=session)
        request = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
        return self.record(f"mcp {label}", self.http.post("/mcp", json=request, headers=session))


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(40)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def code_of(response: httpx.Response) -> str:
    return parse_qs(urlsplit(response.headers["location"]).query)["code"][0]


def registered_flow(base: str) -> dict[str, Any]:
    """The in-memory provider's flow: registration to revocation, then MCP with tokens."""
    r = Recorder(base)
    get, post = r.http.get, r.http.post
    r.record("resource metadata", get("/.well-known/oauth-protected-resource/mcp"))
    r.record("server metadata", get("/.well-known/oauth-authorization-server"))
    r.record("openid alias", get("/.well-known/openid-configuration"))
    r.record("no token", post("/mcp", json=INIT, headers=ACCEPT))
    r.record(
        "register bad scope", post("/register", json={"redirect_uris": [REDIRECT], "scope": "root"})
    )
    r.record("register no uris", post("/register", json={"client_name": "x"}))
    r.record(
        "register bad grant",
        post("/register", json={"redirect_uris": [REDIRECT], "grant_types": ["refresh_token"]}),
    )
    r.record(
        "register public",
        post("/register", json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}),
    )
    client = r.record(
        "register",
        post(
            "/register",
            json={"redirect_uris": [REDIRECT], "client_name": "probe", "scope": "read write"},
        ),
    ).json()
    cid, secret = client["client_id"], client["client_secret"]
    verifier, challenge = pkce()
    ask = {"client_id": cid, "response_type": "code", "code_challenge": challenge, "state": "s1"}
    r.record("authorize unknown client", get("/authorize", params={**ask, "client_id": "nobody"}))
    r.record(
        "authorize other uri",
        get("/authorize", params={**ask, "redirect_uri": "http://evil.example/cb"}),
    )
    r.record("authorize bad scope", get("/authorize", params={**ask, "scope": "admin"}))
    r.record(
        "authorize bad response type", get("/authorize", params={**ask, "response_type": "token"})
    )
    r.record(
        "authorize no challenge",
        get("/authorize", params={"client_id": cid, "response_type": "code"}),
    )
    code = code_of(
        r.record(
            "authorize",
            get("/authorize", params={**ask, "scope": "read write", "redirect_uri": REDIRECT}),
        )
    )
    grant = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": cid,
        "redirect_uri": REDIRECT,
    }
    r.record("token no secret", post("/token", data={**grant, "code_verifier": verifier}))
    r.record(
        "token bad secret",
        post("/token", data={**grant, "client_secret": "x", "code_verifier": verifier}),
    )
    r.record(
        "token bad verifier",
        post("/token", data={**grant, "client_secret": secret, "code_verifier": "x" * 43}),
    )
    r.record(
        "token other uri",
        post(
            "/token",
            data={
                **grant,
                "redirect_uri": "http://127.0.0.1:9/other",
                "client_secret": secret,
                "code_verifier": verifier,
            },
        ),
    )
    r.record(
        "token bad grant type",
        post("/token", data={**grant, "grant_type": "password", "client_secret": secret}),
    )
    tokens = r.record(
        "token", post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier})
    ).json()
    r.record(
        "token code reused",
        post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier}),
    )
    refresh = {"grant_type": "refresh_token", "client_id": cid, "client_secret": secret}
    r.record(
        "refresh wider",
        post(
            "/token",
            data={**refresh, "refresh_token": tokens["refresh_token"], "scope": "read admin"},
        ),
    )
    r.record("refresh unknown", post("/token", data={**refresh, "refresh_token": "nope"}))
    renewed = r.record(
        "refresh",
        post("/token", data={**refresh, "refresh_token": tokens["refresh_token"], "scope": "read"}),
    ).json()
    r.record(
        "refresh rotated",
        post("/token", data={**refresh, "refresh_token": tokens["refresh_token"]}),
    )
    r.mcp("old access token", tokens["access_token"], "tools/list", {})
    r.mcp("tools/list", renewed["access_token"], "tools/list", {})
    r.mcp("whoami", renewed["access_token"], "tools/call", {"name": "whoami", "arguments": {}})
    r.mcp(
        "add", renewed["access_token"], "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}
    )
    r.record(
        "revoke bad secret",
        post(
            "/revoke",
            data={"token": renewed["access_token"], "client_id": cid, "client_secret": "x"},
        ),
    )
    r.record(
        "revoke",
        post(
            "/revoke",
            data={"token": renewed["access_token"], "client_id": cid, "client_secret": secret},
        ),
    )
    r.record(
        "revoke again",
        post(
            "/revoke",
            data={"token": renewed["access_token"], "client_id": cid, "client_secret": secret},
        ),
    )
    r.mcp("revoked", renewed["access_token"], "tools/list", {})
    r.record(
        "refresh of revoked",
        post("/token", data={**refresh, "refresh_token": renewed["refresh_token"]}),
    )
    return r.answers


def compare(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    assert list(ours) == list(theirs)
    for label in theirs:
        assert ours[label] == theirs[label], label


def test_in_memory_provider_full_flow() -> None:
    """``InMemoryOAuthProvider``: every answer of the flow as fastmcp's, and what the flow
    must give: tokens that reach the tools, rotated refresh tokens, revocation ending both."""
    with started([SERVER, "memory"]) as (theirs, ours):
        expected, got = registered_flow(theirs), registered_flow(ours)
    compare(expected, got)
    assert got["token"]["status"] == 200 and got["refresh"]["status"] == 200
    assert got["mcp add"]["body"]["result"]["structuredContent"] == {"result": 5}
    assert got["mcp whoami"]["body"]["result"]["structuredContent"]["scopes"] == ["read"]
    assert got["mcp revoked initialize"]["status"] == 401
    assert got["refresh of revoked"]["status"] == 401
    assert got["server metadata"]["body"]["revocation_endpoint"] == "http://127.0.0.1:PORT/revoke"


def test_provider_subclass_of_the_servers_own() -> None:
    """An ``OAuthProvider`` subclass implementing the provider methods itself (a
    pre-registered public client, numbered tokens, ``admin`` refused by ``authorize``):
    the same answers on both, its own tokens reaching the tool."""

    def flow(base: str) -> dict[str, Any]:
        r = Recorder(base)
        get, post = r.http.get, r.http.post
        r.record("server metadata", get("/.well-known/oauth-authorization-server"))
        r.record("resource metadata", get("/.well-known/oauth-protected-resource/mcp"))
        r.record("no registration", post("/register", json={"redirect_uris": [REDIRECT]}))
        verifier, challenge = pkce()
        ask = {"client_id": "cli", "response_type": "code", "code_challenge": challenge}
        r.record(
            "authorize admin", get("/authorize", params={**ask, "scope": "admin", "state": "z"})
        )
        code = code_of(r.record("authorize", get("/authorize", params={**ask, "scope": "read"})))
        grant = {"grant_type": "authorization_code", "code": code, "client_id": "cli"}
        r.record(
            "token redirect given",
            post("/token", data={**grant, "redirect_uri": REDIRECT, "code_verifier": verifier}),
        )
        tokens = r.record("token", post("/token", data={**grant, "code_verifier": verifier})).json()
        r.mcp("whoami", tokens["access_token"], "tools/call", {"name": "whoami", "arguments": {}})
        refresh = {
            "grant_type": "refresh_token",
            "client_id": "cli",
            "refresh_token": tokens["refresh_token"],
        }
        renewed = r.record("refresh", post("/token", data=refresh)).json()
        r.record(
            "revoke",
            post(
                "/revoke",
                data={
                    "token": renewed["access_token"],
                    "client_id": "cli",
                    "token_type_hint": "access_token",
                },
            ),
        )
        r.mcp("revoked", renewed["access_token"], "tools/list", {})
        return r.answers

    with started([SERVER, "custom"]) as (theirs, ours):
        expected, got = flow(theirs), flow(ours)
    compare(expected, got)
    assert got["token"]["body"]["access_token"] == "at-2"
    assert got["mcp whoami"]["body"]["result"]["structuredContent"] == {
        "client_id": "cli",
        "scopes": ["read"],
        "subject": "ada",
    }
    location = got["authorize admin"]["headers"]["location"]
    assert "error=access_denied" in location and "state=z" in location


def test_multi_auth_server_and_verifier() -> None:
    """``MultiAuth(server=InMemoryOAuthProvider(...), verifiers=[StaticTokenVerifier])``:
    the server's endpoints and metadata, and both sources' tokens reaching the tool with
    fastmcp's source-qualified client IDs."""

    def flow(base: str) -> dict[str, Any]:
        r = Recorder(base)
        get, post = r.http.get, r.http.post
        r.record("resource metadata", get("/.well-known/oauth-protected-resource/mcp"))
        r.record("server metadata", get("/.well-known/oauth-authorization-server"))
        client = r.record("register", post("/register", json={"redirect_uris": [REDIRECT]})).json()
        verifier, challenge = pkce()
        ask = {
            "client_id": client["client_id"],
            "response_type": "code",
            "code_challenge": challenge,
            "scope": "read",
        }
        code = code_of(r.record("authorize", get("/authorize", params=ask)))
        grant = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client["client_id"],
            "client_secret": client["client_secret"],
            "code_verifier": verifier,
        }
        tokens = r.record("token", post("/token", data=grant)).json()
        r.mcp(
            "server token",
            tokens["access_token"],
            "tools/call",
            {"name": "whoami", "arguments": {}},
        )
        r.mcp("static token", "tok-ci", "tools/call", {"name": "whoami", "arguments": {}})
        r.mcp("unknown token", "tok-nobody", "tools/list", {})
        return r.answers

    with started([SERVER, "multi"]) as (theirs, ours):
        expected, got = flow(theirs), flow(ours)
    compare(expected, got)
    static = got["mcp static token"]["body"]["result"]["structuredContent"]
    assert json.loads(static["client_id"])[1:] == ["ci-bot", None, "ci"]
    server = got["mcp server token"]["body"]["result"]["structuredContent"]
    assert json.loads(server["client_id"])[0] == "SOURCE"


async def native_client_flow(base: str) -> dict[str, Any]:
    """mcpkit's own OAuth client (discovery, registration, the code grant through the
    headless handler) against the server at ``base``: what the tools answer."""
    from mcpkit import Client
    from mcpkit.auth import ClientMetadata, OAuthClientAuth, headless_authorization_handler

    auth = OAuthClientAuth(
        base + "/mcp",
        authorization_handler=headless_authorization_handler(),
        client_metadata=ClientMetadata(client_name="native", redirect_uris=[REDIRECT]),
        allow_insecure_http=True,
    )
    async with Client(base + "/mcp", auth=auth) as client:
        tools = sorted(tool.name for tool in await client.list_tools())
        who = (await client.call_tool("whoami", {})).structured_content
        added = (await client.call_tool("add", {"a": 4, "b": 5})).structured_content
    assert auth.token is not None and auth.client_info is not None
    assert who is not None and who.pop("client_id") == auth.client_info.client_id
    return {"tools": tools, "whoami": who, "add": added, "scope": auth.token.scope}


async def test_mcpkit_oauth_client_on_both() -> None:
    """mcpkit's ``OAuthClientAuth`` with the headless handler gets a token from each
    server's provider and reaches the tools the same way."""
    with started([SERVER, "memory"]) as (theirs, ours):
        expected, got = await native_client_flow(theirs), await native_client_flow(ours)
    assert got == expected
    assert got["add"] == {"result": 9} and got["whoami"]["scopes"] == ["read"]
