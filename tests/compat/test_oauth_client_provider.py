"""``mcp.client.auth.OAuthClientProvider`` (the SDK's authorization code client) on mcpkit,
compared with mcp 2.x.

The ``stories/oauth`` story's own ``client.py`` and ``docs_src/oauth_clients/tutorial001.py``
(copied unchanged, see ``examples/NOTICE``) run on mcp 2.x and unchanged on mcpkit
(``python -m mcpkit.compat``), each against its own copy of the same server: the story's app
on mcp 2.x (``servers/sdk_oauth_story_http.py``, its documents naming the origin the client
expects), which logs every request it receives, the query of ``/authorize`` and the body of
``/register`` and ``/token`` included. The tutorial's handlers print the authorization URL
and read the redirect URL from the keyboard: ``clients/official_oauth_tutorial.py`` is the
user who opens the one and pastes the other. What the clients print and every request the
server receives must be equal, the random values (client IDs and secrets, states, PKCE
challenges and verifiers, codes, tokens) named instead.

Then, in process against a stand-in server, the refresh of an expired token and a redirect
whose ``state`` is not the one sent (refused with the SDK's ``OAuthFlowError``, no code
redeemed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import listening
from tests.compat.test_m2m_auth import EXAMPLES, STORIES, ours_env
from tests.compat.test_unchanged import peer

CLIENTS = Path(__file__).resolve().parent / "clients"
TUTORIAL = EXAMPLES / "oauth_clients_tutorial001.py"
#: The values either side draws at random, named by what they are.
RANDOM = ("client_id", "client_secret", "state", "code_challenge", "code_verifier", "code")
_BEARER = re.compile(r"Bearer [\w.~+/-]+=*")
#: The ``simple-auth`` example (its legacy server is its own authorization server).
SIMPLE_AUTH = EXAMPLES.parent / "official_v2_auth"


class OAuthStoryServer:
    """``stories/oauth``'s app on mcp 2.x, its documents naming ``base`` (by default its own
    origin), logging the requests it receives; with ``legacy``, the ``simple-auth``
    example's legacy server instead."""

    def __init__(self, base: str | None = None, *, legacy: bool = False) -> None:
        self.port = free_port()
        base = base or f"http://127.0.0.1:{self.port}"
        argv = [str(SERVERS / "sdk_oauth_story_http.py"), str(STORIES), str(self.port), base]
        if legacy:
            argv = [str(SERVERS / "sdk_legacy_auth_http.py"), str(SIMPLE_AUTH), str(self.port)]
        self.proc = subprocess.Popen(
            [str(peer("mcp2")), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        listening(self.proc, self.port)

    def received(self) -> list[dict[str, Any]]:
        """Every request it logged (it is stopped first), the random values and the port
        named."""
        self.proc.terminate()
        stdout, _ = self.proc.communicate(timeout=30)
        out = []
        for line in stdout.splitlines():
            if line.startswith("{"):
                line = line.replace(f":{self.port}", ":<port>")
                request = json.loads(_BEARER.sub("Bearer <token>", line))
                for part in ("query", "form"):
                    for name in RANDOM:
                        if name in request.get(part, {}):
                            request[part][name] = f"<{name}>"
                out.append(request)
        return out


def run(command: list[str], argv: list[str], env: dict[str, str] | None) -> tuple[str, str]:
    done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, done.stderr


def sides(tmp_path: Path) -> list[tuple[list[str], dict[str, str] | None]]:
    """mcp 2.x, and mcpkit (``python -m mcpkit.compat``)."""
    return [
        ([str(peer("mcp2"))], None),
        ([sys.executable, "-m", "mcpkit.compat"], ours_env()),
    ]


def discovery_revisions(sent: list[dict[str, Any]]) -> set[str | None]:
    """The ``MCP-Protocol-Version`` headers of the metadata requests (the latest revision
    each SDK knows: mcpkit's names 2.x's), taken out of the requests."""
    return {
        r["headers"].pop("mcp-protocol-version", None)
        for r in sent
        if r["path"].startswith("/.well-known/")
    }


@pytest.mark.timeout(300)
def test_story_client_runs_unchanged(tmp_path: Path) -> None:
    """``stories/oauth/client.py`` with ``--http``: both pass (``OK``) and the server receives
    the same login (metadata, the SDK's registration document with the scope selected from
    the resource's metadata, the authorization request, the code's redemption) once: the
    reconnection reuses the token and the registration. The MCP requests differ as
    ``test_oauth_clients_official.py`` says (pinned to 2026-07-28, mcpkit's client asks
    ``server/discover`` first; the SDK's lists the tools after a call)."""
    servers = [OAuthStoryServer("http://127.0.0.1:8000") for _ in range(2)]
    outcomes = []
    try:
        for (command, env), server in zip(sides(tmp_path), servers, strict=True):
            argv = [str(CLIENTS / "official_story_client.py"), str(STORIES), str(server.port)]
            _, stderr = run(command, [*argv, "oauth"], env)
            outcomes.append(stderr.strip().splitlines()[-1])
    finally:
        for server in servers:
            server.proc.terminate()  # both stopped before either log is read
    sent_by_sdk, sent_by_mcpkit = (server.received() for server in servers)
    assert outcomes == ["OK: oauth (http/modern)"] * 2
    assert discovery_revisions(sent_by_sdk) == {"2026-07-28"}
    assert discovery_revisions(sent_by_mcpkit) == {"2026-07-28"}

    def authorization(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in sent if r["path"] != "/mcp"]

    assert authorization(sent_by_mcpkit) == authorization(sent_by_sdk)
    assert [r["path"] for r in authorization(sent_by_mcpkit)] == [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/authorize",
        "/token",
    ]
    registered = authorization(sent_by_mcpkit)[2]["json"]
    assert registered["scope"] == "mcp" and registered["client_name"] == "oauth-story-client"
    token = authorization(sent_by_mcpkit)[4]["form"]
    assert token["grant_type"] == "authorization_code"
    assert token["resource"] == "http://127.0.0.1:8000/mcp"
    for sent in (sent_by_sdk, sent_by_mcpkit):
        mcp = [r for r in sent if r["path"] == "/mcp"]
        assert "authorization" not in mcp[0]["headers"]  # the first, answered 401
        assert all(r["headers"]["authorization"] == "Bearer <token>" for r in mcp[1:])


@pytest.mark.timeout(300)
def test_docs_tutorial001_prints_and_sends_what_the_sdk_does(tmp_path: Path) -> None:
    """``docs_src/oauth_clients/tutorial001.py``: the same authorization URL shown (the
    parameters in the SDK's order), the same tools printed, and the same requests received:
    metadata, registration (the snippet's ``scope="user"`` replaced by the scope the resource
    names, as the SDK does), the user's visit to ``/authorize``, the token request and the
    MCP requests."""
    servers = [OAuthStoryServer("http://localhost:8001") for _ in range(2)]
    printed = []
    try:
        for (command, env), server in zip(sides(tmp_path), servers, strict=True):
            argv = [str(CLIENTS / "official_oauth_tutorial.py"), str(TUTORIAL), str(server.port)]
            stdout, _ = run(command, argv, env)
            printed.append(stdout)
    finally:
        for server in servers:
            server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = (server.received() for server in servers)

    def shown(stdout: str) -> list[str]:
        lines = stdout.splitlines()
        visit = urlsplit(lines[0].removeprefix("Visit: "))
        query = [(k, f"<{k}>" if k in RANDOM else v) for k, v in parse_qsl(visit.query)]
        return [f"Visit: {visit.scheme}://{visit.netloc}{visit.path}", repr(query), *lines[1:]]

    assert shown(printed[1]) == shown(printed[0])
    assert shown(printed[1]) == [
        "Visit: http://localhost:8001/authorize",
        repr(
            [
                ("response_type", "code"),
                ("client_id", "<client_id>"),
                ("redirect_uri", "http://localhost:3030/callback"),
                ("state", "<state>"),
                ("code_challenge", "<code_challenge>"),
                ("code_challenge_method", "S256"),
                ("resource", "http://localhost:8001/mcp"),
                ("scope", "mcp"),
            ]
        ),
        "Paste the URL you were redirected to: ['whoami']",
    ]
    assert discovery_revisions(sent_by_sdk) == {"2026-07-28"}
    assert discovery_revisions(sent_by_mcpkit) == {"2026-07-28"}
    assert sent_by_mcpkit == sent_by_sdk
    assert [r["path"] for r in sent_by_mcpkit] == [
        "/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/authorize",
        "/token",
        "/mcp",
        "/mcp",
    ]
    assert sent_by_mcpkit[3]["json"]["scope"] == "mcp"


@pytest.mark.timeout(300)
def test_v1_shape_sends_what_mcp_1x_sends(tmp_path: Path) -> None:
    """mcp 1.x's shape (``clients/official_v1_oauth.py``: a ``callback_handler`` returning
    ``(code, state)``, ``timeout=``, the provider on a plain ``httpx.AsyncClient``) on mcp 1.x
    and on mcpkit: the same answer and storage, the same requests, but for 1.x's
    registration, which names no ``application_type`` (mcpkit's, as 2.x's, says
    ``native``), and the revision its metadata requests name."""
    servers = [OAuthStoryServer() for _ in range(2)]
    printed = []
    try:
        commands = [([str(peer("mcp1"))], None), ([sys.executable, "-m", "mcpkit.compat"], None)]
        for (command, env), server in zip(commands, servers, strict=True):
            argv = [str(CLIENTS / "official_v1_oauth.py"), str(server.port)]
            stdout, _ = run(command, argv, env)
            printed.append(stdout.splitlines())
    finally:
        for server in servers:
            server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = (server.received() for server in servers)
    assert printed[1] == printed[0]
    assert printed[1] == [
        "200 text/event-stream",
        "OAuthToken Bearer mcp 3600",
        "OAuthClientInformationFull Example MCP Client mcp client_secret_post",
    ]
    # 1.x names its latest revision, mcpkit 2.x's
    assert discovery_revisions(sent_by_sdk) == {"2025-11-25"}
    assert discovery_revisions(sent_by_mcpkit) == {"2026-07-28"}
    registered = next(r for r in sent_by_mcpkit if r["path"] == "/register")
    assert registered["json"].pop("application_type") == "native"
    assert sent_by_mcpkit == sent_by_sdk
    assert [r["path"] for r in sent_by_mcpkit] == [
        "/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/authorize",
        "/token",
        "/mcp",
    ]


@pytest.mark.timeout(300)
def test_a_server_without_resource_metadata_as_the_sdk(tmp_path: Path) -> None:
    """The ``simple-auth`` example's legacy server (2025-03-26: no protected resource
    metadata, the server its own authorization server) and the provider as the tutorial
    builds it (``clients/official_legacy_oauth.py``, logging in at the example's login page):
    both well-known URLs of the resource metadata asked for, then the origin's authorization
    server metadata, the scope it lists registered and asked for; the same output and
    requests on mcp 2.x and on mcpkit."""
    servers = [OAuthStoryServer(legacy=True) for _ in range(2)]
    printed = []
    try:
        for (command, env), server in zip(sides(tmp_path), servers, strict=True):
            argv = [str(CLIENTS / "official_legacy_oauth.py"), str(server.port)]
            stdout, _ = run(command, argv, env)
            printed.append(stdout.splitlines())
    finally:
        for server in servers:
            server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = (server.received() for server in servers)
    assert printed[1] == printed[0]
    assert printed[1] == [
        "['get_time']",
        "Bearer user 3600",
        "Legacy Agent user client_secret_post",
    ]
    assert discovery_revisions(sent_by_sdk) == {"2026-07-28"}
    assert discovery_revisions(sent_by_mcpkit) == {"2026-07-28"}
    assert sent_by_mcpkit == sent_by_sdk
    assert [r["path"] for r in sent_by_mcpkit] == [
        "/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/authorize",
        "/login/callback",
        "/token",
        "/mcp",
        "/mcp",
    ]


# -- in process: the refresh and a state that does not match ----------------------------------

BASE = "http://127.0.0.1:9"
MCP_URL = f"{BASE}/mcp"


class StandIn:
    """A resource server and its authorization server, answering from memory."""

    def __init__(self, first_expires_in: int = 3600) -> None:
        self.first_expires_in = first_expires_in
        self.valid: set[str] = set()
        self.token_forms: list[dict[str, str]] = []
        self.paths: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.paths.append(path)
        if path == "/mcp":
            sent = request.headers.get("authorization", "").removeprefix("Bearer ")
            if sent in self.valid:
                return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {}})
            prm = f"{BASE}/.well-known/oauth-protected-resource/mcp"
            challenge = f'Bearer error="invalid_token", resource_metadata="{prm}"'
            return httpx.Response(401, headers={"www-authenticate": challenge})
        if path == "/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(
                200,
                json={
                    "resource": MCP_URL,
                    "authorization_servers": [f"{BASE}/"],
                    "scopes_supported": ["mcp"],
                },
            )
        if path == "/.well-known/oauth-authorization-server":
            return httpx.Response(
                200,
                json={
                    "issuer": f"{BASE}/",
                    "authorization_endpoint": f"{BASE}/authorize",
                    "token_endpoint": f"{BASE}/token",
                    "registration_endpoint": f"{BASE}/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["client_secret_post"],
                },
            )
        if path == "/register":
            return httpx.Response(
                201,
                json={
                    **json.loads(request.content),
                    "client_id": "client-1",
                    "client_secret": "secret-1",
                    "token_endpoint_auth_method": "client_secret_post",
                },
            )
        if path == "/token":
            form = dict(parse_qsl(request.content.decode()))
            self.token_forms.append(form)
            access = f"access-{len(self.token_forms)}"
            self.valid = {access}
            answer: dict[str, Any] = {"access_token": access, "token_type": "Bearer"}
            if form["grant_type"] == "authorization_code":
                answer |= {"expires_in": self.first_expires_in, "refresh_token": "refresh-1"}
            else:
                answer |= {"expires_in": 3600}  # no new refresh token: the old one is kept
            return httpx.Response(200, json=answer)
        return httpx.Response(404)


class Storage:
    """The SDK's ``TokenStorage`` in memory, remembering what it was handed."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client_info: Any = None
        self.handed: list[Any] = []

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens
        self.handed.append(tokens)

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


def provider(stand_in: StandIn, storage: Storage, tamper: bool = False) -> Any:
    """The SDK's provider as the tutorial builds it, its handlers completing the login."""
    from pydantic import AnyUrl

    from mcpkit.compat.mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcpkit.compat.mcp.shared.auth import OAuthClientMetadata

    shown: list[str] = []

    async def redirect_handler(url: str) -> None:
        shown.append(url)

    async def callback_handler() -> AuthorizationCodeResult:
        state = dict(parse_qsl(urlsplit(shown[-1]).query))["state"]
        return AuthorizationCodeResult(code="the-code", state="forged" if tamper else state)

    auth = OAuthClientProvider(
        server_url=MCP_URL,
        client_metadata=OAuthClientMetadata(
            client_name="unit", redirect_uris=[AnyUrl("http://localhost:3030/callback")]
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    auth._inner._http_client = httpx.AsyncClient(transport=httpx.MockTransport(stand_in))
    return auth


async def test_an_expired_token_is_refreshed() -> None:
    """A token past its expiry is refreshed before the next request (the SDK's form: the
    refresh token, the client's credentials, the resource), the refresh token kept when the
    answer names none, the new token handed to the storage; no second authorization."""
    stand_in, storage = StandIn(first_expires_in=0), Storage()
    auth = provider(stand_in, storage)
    async with httpx.AsyncClient(transport=httpx.MockTransport(stand_in), auth=auth) as http:
        first = await http.post(MCP_URL, json={})
        second = await http.post(MCP_URL, json={})
    assert (first.status_code, second.status_code) == (200, 200)
    assert stand_in.paths.count("/authorize") == 0  # the handlers stand for the browser
    assert [f["grant_type"] for f in stand_in.token_forms] == [
        "authorization_code",
        "refresh_token",
    ]
    assert stand_in.token_forms[1] == {
        "grant_type": "refresh_token",
        "refresh_token": "refresh-1",
        "client_id": "client-1",
        "client_secret": "secret-1",
        "resource": MCP_URL,
    }
    assert [t.access_token for t in storage.handed] == ["access-1", "access-2"]
    assert storage.handed[1].refresh_token == "refresh-1"
    assert storage.client_info.client_id == "client-1"
    assert storage.client_info.issuer == f"{BASE}/"
    assert stand_in.paths.count("/register") == 1


async def test_the_storage_is_read_back() -> None:
    """A new provider over the storage another filled sends the stored token at once, and
    when that token is refused authorizes again with the stored registration (no second
    ``/register``)."""
    stand_in, storage = StandIn(), Storage()
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(stand_in), auth=provider(stand_in, storage)
    ) as http:
        assert (await http.post(MCP_URL, json={})).status_code == 200
    assert stand_in.paths.count("/register") == 1
    stand_in.paths.clear()
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(stand_in), auth=provider(stand_in, storage)
    ) as http:
        assert (await http.post(MCP_URL, json={})).status_code == 200
        assert stand_in.paths == ["/mcp"]  # the stored token, sent at once
        stand_in.valid = set()  # the server forgets it
        assert (await http.post(MCP_URL, json={})).status_code == 200
    assert "/register" not in stand_in.paths
    assert stand_in.token_forms[-1]["client_id"] == "client-1"


async def test_a_state_that_does_not_match_is_refused() -> None:
    """A redirect carrying another ``state`` than the one sent raises the SDK's
    ``OAuthFlowError`` and no code is redeemed."""
    from mcpkit.compat.mcp.client.auth import OAuthFlowError

    stand_in, storage = StandIn(), Storage()
    auth = provider(stand_in, storage, tamper=True)
    async with httpx.AsyncClient(transport=httpx.MockTransport(stand_in), auth=auth) as http:
        with pytest.raises(OAuthFlowError, match="state"):
            await http.post(MCP_URL, json={})
    assert stand_in.token_forms == []
    assert storage.tokens is None


def test_the_sdks_arguments() -> None:
    """A client ID metadata document URL is checked as the SDK checks it; 1.x's ``timeout``
    is taken; the SDK's resource check override is refused, not ignored."""
    from pydantic import AnyUrl

    from mcpkit.compat.mcp.client.auth import OAuthClientProvider
    from mcpkit.compat.mcp.shared.auth import OAuthClientMetadata

    meta = OAuthClientMetadata(redirect_uris=[AnyUrl("http://localhost:3030/callback")])
    with pytest.raises(ValueError, match="client_metadata_url must be a valid HTTPS URL"):
        OAuthClientProvider(MCP_URL, meta, Storage(), client_metadata_url="https://x.example/")
    assert OAuthClientProvider(MCP_URL, meta, Storage(), None, None, 60.0).timeout == 60.0

    async def anything(server_url: str, resource: str | None) -> None:
        return None

    with pytest.raises(NotImplementedError, match="validate_resource_url"):
        OAuthClientProvider(MCP_URL, meta, Storage(), validate_resource_url=anything)
    assert os.path.exists(TUTORIAL)


def test_the_sdks_module() -> None:
    """``mcp.client.auth.oauth2`` names the provider, ``TokenStorage`` and
    ``PKCEParameters`` (whose ``generate()`` draws a verifier as the SDK's and its S256
    challenge)."""
    import base64
    import hashlib

    from mcpkit.compat.mcp.client import auth
    from mcpkit.compat.mcp.client.auth import oauth2

    assert oauth2.OAuthClientProvider is auth.OAuthClientProvider
    assert oauth2.TokenStorage is auth.TokenStorage
    pkce = oauth2.PKCEParameters.generate()
    assert len(pkce.code_verifier) == 128
    digest = hashlib.sha256(pkce.code_verifier.encode()).digest()
    assert pkce.code_challenge == base64.urlsafe_b64encode(digest).decode().rstrip("=")
