"""The official SDK's OAuth client side (``mcp.client.auth``) on mcpkit, compared with mcp 2.x.

``clients/official_m2m.py`` builds the SDK's ``ClientCredentialsOAuthProvider``
(``mcp.client.auth.extensions.client_credentials``) for several cases (HTTP Basic with the
caller's scope, with the scope the server names, bound by ``issuer=``, ``client_secret_post``,
a wrong secret), hands it to an ``httpx2.AsyncClient(auth=...)`` and that client to
``streamable_http_client(url, http_client=...)`` and ``mcp.client.Client``, as the SDK's
``oauth_client_credentials`` story and ``docs_src/oauth_clients/tutorial002.py`` do. It runs
on mcp 2.x and unchanged on mcpkit, each against its own copy of the same server: the
story's app (``stories/oauth_client_credentials/server.py``, copied unchanged, see
``examples/NOTICE``) served by mcp 2.x (``servers/sdk_m2m_story_http.py``), which logs every
request it receives. What the client prints and every request the server receives
(metadata, token and MCP requests: method, path, ``Authorization``, the token request's form)
must be equal, the access tokens aside.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import listening
from tests.compat.test_m2m_auth import STORIES, _segment, ours_env
from tests.compat.test_unchanged import peer

CLIENT = Path(__file__).resolve().parent / "clients" / "official_m2m.py"
ID_JAG_CLIENT = CLIENT.parent / "official_id_jag.py"
STORY_CLIENT = CLIENT.parent / "official_story_client.py"
_BEARER = re.compile(r"Bearer access_[0-9a-f]+")


class StoryServer:
    """The story's app on mcp 2.x, logging the requests it receives."""

    def __init__(self, story: str = "oauth_client_credentials") -> None:
        self.port = free_port()
        argv = [str(SERVERS / "sdk_m2m_story_http.py"), str(STORIES), str(self.port), story]
        self.proc = subprocess.Popen(
            [str(peer("mcp2")), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        listening(self.proc, self.port)

    def received(self) -> list[dict[str, Any]]:
        """Every request it logged (it is stopped first), the access tokens normalised."""
        self.proc.terminate()
        stdout, _ = self.proc.communicate(timeout=30)
        out = []
        for line in stdout.splitlines():
            if line.startswith("{"):
                out.append(read_assertion(json.loads(_BEARER.sub("Bearer <token>", line))))
        return out


def read_assertion(request: dict[str, Any]) -> dict[str, Any]:
    """A token request's ID-JAG read: its header and claims, the time and ``jti`` aside."""
    form = request.get("form", {})
    if form.get("assertion", "").startswith("ey"):
        head, claims, _ = form["assertion"].split(".")
        read = _segment(claims)
        read["lifetime"] = read.pop("exp") - read.pop("iat")
        read["jti"] = bool(read.get("jti"))
        form["assertion"] = {"header": _segment(head), "claims": read}
    return request


def run_client(
    command: list[str], port: int, env: dict[str, str] | None, client: Path = CLIENT
) -> list[str]:
    done = subprocess.run(
        [*command, str(client), str(STORIES), str(port)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.timeout(300)
def test_client_credentials_provider_sends_what_the_sdk_sends() -> None:
    sdk_server, our_server = StoryServer(), StoryServer()
    try:
        theirs = run_client([str(peer("mcp2"))], sdk_server.port, None)
        ours = run_client([sys.executable, "-m", "mcpkit.compat"], our_server.port, ours_env())
    finally:
        sdk_server.proc.terminate()  # both stopped before either log is read
        our_server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = sdk_server.received(), our_server.received()
    assert ours == theirs
    whoami = "['whoami'] {'client_id': 'demo-m2m-client', 'scopes': ['mcp:tools']}"
    stored = "('Bearer', 'mcp:tools', 3600)"
    assert ours == [
        f"basic {whoami} {stored}",
        f"scope from the server {whoami} {stored}",
        f"issuer {whoami} {stored}",
        "post failed: OAuthTokenError",  # the story's token endpoint takes Basic alone
        "wrong secret failed: OAuthTokenError",
    ]
    # The metadata requests name the latest revision (MCP-Protocol-Version) on both.
    revisions = [
        r["headers"]["mcp-protocol-version"]
        for r in sent_by_mcpkit
        if r["path"].startswith("/.well-known/")
    ]
    assert set(revisions) == {"2026-07-28"}
    assert sent_by_mcpkit == sent_by_sdk
    tokens = [r for r in sent_by_mcpkit if r["path"] == "/token"]
    assert [r["form"].get("client_secret") for r in tokens] == [
        None,
        None,
        None,
        "demo-m2m-secret",
        None,
    ]
    assert all(r["form"]["resource"] == "http://127.0.0.1:8000/mcp" for r in tokens)


@pytest.mark.timeout(300)
def test_identity_assertion_provider_sends_what_the_sdk_sends() -> None:
    """SEP-990: ``IdentityAssertionOAuthProvider`` against the ``identity_assertion`` story's
    server, as its client builds it (client_secret_post and _basic, without a scope, a wrong
    secret, an ID-JAG that does not verify, an issuer with no metadata, no secret)."""
    sdk_server, our_server = StoryServer("identity_assertion"), StoryServer("identity_assertion")
    command = [sys.executable, "-m", "mcpkit.compat"]
    try:
        theirs = run_client([str(peer("mcp2"))], sdk_server.port, None, ID_JAG_CLIENT)
        ours = run_client(command, our_server.port, ours_env(), ID_JAG_CLIENT)
    finally:
        sdk_server.proc.terminate()  # both stopped before either log is read
        our_server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = sdk_server.received(), our_server.received()
    assert ours == theirs
    whoami = (
        "['whoami'] {'subject': 'alice@example.com', 'client_id': 'finance-agent', "
        "'scopes': ['mcp']}"
    )
    asked = "[('http://127.0.0.1:8000/', 'http://127.0.0.1:8000/mcp')]"
    assert ours == [
        f"post {whoami} ('Bearer', 'mcp', 3600) {asked}",
        f"basic failed: OAuthTokenError {asked}",  # the story's client takes the form's secret
        f"no scope {whoami} ('Bearer', 'mcp', 3600) {asked}",
        f"wrong secret failed: OAuthTokenError {asked}",
        "forged assertion failed: OAuthTokenError []",
        "other issuer failed: OAuthFlowError []",
        "no secret failed: ValueError []",
    ]
    assert sent_by_mcpkit == sent_by_sdk
    # The resource server is never asked which authorization server to use.
    assert not [r for r in sent_by_mcpkit if "oauth-protected-resource" in r["path"]]
    granted = next(r["form"] for r in sent_by_mcpkit if r["path"] == "/token")
    assert granted["assertion"]["claims"]["aud"] == "http://127.0.0.1:8000/"
    assert granted["assertion"]["header"]["typ"] == "oauth-id-jag+jwt"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("story", ["oauth_client_credentials", "identity_assertion"])
def test_story_client_runs_unchanged(story: str) -> None:
    """The stories' ``client.py`` (with their ``_harness.py`` and ``manifest.toml``, copied
    unchanged) run with ``--http`` on mcp 2.x and on mcpkit against the story's server on mcp
    2.x: both pass (``OK``), and the authorization server receives the same requests (its
    metadata and token endpoint). The MCP requests differ in one way: pinned to 2026-07-28
    (the harness's ``mode=``), the SDK's client sends ``tools/list`` at once, mcpkit's asks
    ``server/discover`` first."""
    sdk_server, our_server = StoryServer(story), StoryServer(story)
    outcomes = []
    try:
        for command, server, env in (
            ([str(peer("mcp2"))], sdk_server, None),
            ([sys.executable, "-m", "mcpkit.compat"], our_server, ours_env()),
        ):
            done = subprocess.run(
                [*command, str(STORY_CLIENT), str(STORIES), str(server.port), story],
                capture_output=True,
                text=True,
                timeout=180,
                env=env,
            )
            outcomes.append((done.returncode, done.stderr.strip().splitlines()[-1]))
    finally:
        sdk_server.proc.terminate()  # both stopped before either log is read
        our_server.proc.terminate()
    sent_by_sdk, sent_by_mcpkit = sdk_server.received(), our_server.received()
    assert outcomes == [(0, f"OK: {story} (http/modern)")] * 2

    def authorization(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in sent if r["path"] != "/mcp"]

    assert authorization(sent_by_mcpkit) == authorization(sent_by_sdk)
    assert [r["path"] for r in authorization(sent_by_mcpkit)][-1] == "/token"
    called = [r.get("mcp") for r in sent_by_mcpkit if "authorization" in r["headers"]]
    assert called[-2:] == ["tools/list", "tools/call"]


def test_a_root_issuer_with_and_without_its_slash_is_one_server() -> None:
    """mcpkit's client binds pre-registered credentials to ``client_issuer``: the SDK's
    comparison (RFC 8414's exact string, a root issuer's trailing slash aside)."""
    from mcpkit.auth.client import same_issuer

    assert same_issuer("http://127.0.0.1:8000", "http://127.0.0.1:8000/")
    assert same_issuer("https://as.example/", "https://as.example")
    assert not same_issuer("https://as.example/tenant", "https://as.example/tenant/")
    assert not same_issuer("https://as.example", "https://other.example/")


async def test_the_target_carries_the_clients_auth_and_headers() -> None:
    """``streamable_http_client(url, http_client=...)`` hands the client's ``auth=`` and the
    caller's headers (not those the HTTP client sets itself) to mcpkit's client; an issuer
    that is not an http(s) URL is refused as the SDK refuses it."""
    import httpx

    from mcpkit.compat.mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
    )
    from mcpkit.compat.mcp.client.streamable_http import streamable_http_client

    class Storage:
        async def get_tokens(self) -> None:
            return None

        async def set_tokens(self, tokens: Any) -> None:
            raise AssertionError("no token is issued here")

    auth = ClientCredentialsOAuthProvider("http://127.0.0.1:1/mcp", Storage(), "c", "s")
    async with httpx.AsyncClient(auth=auth, headers={"X-Team": "a"}) as http:
        target = streamable_http_client("http://127.0.0.1:1/mcp", http_client=http)
    assert target.auth is auth
    assert target.headers == {"x-team": "a"}
    with pytest.raises(ValueError, match="issuer must be"):
        ClientCredentialsOAuthProvider("http://x/mcp", Storage(), "c", "s", issuer="as.example")
