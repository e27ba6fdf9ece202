"""The official SDK's server auth (``auth=AuthSettings(...)`` with ``token_verifier=`` or
``auth_server_provider=``, on 2.x's ``MCPServer``, 1.x's ``FastMCP`` and the low-level
``Server``), run over HTTP on the SDK and unchanged on mcpkit, and sent the same requests:
the SDK's own examples (a resource server with a token verifier) and a server that is its
own authorization server, driven through registration, authorization, the code grant with
PKCE, refresh, revocation and MCP requests with the tokens (and their refusals). Each
answer's status, the headers a client reads and the body must be equal once the values that
differ by nature (the port, client IDs and secrets, codes and tokens, timestamps) are named
by their order of appearance."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import warmed
from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import ACCEPT, INIT, listening
from tests.compat.test_fastmcp_oauth_server import REDIRECT, Recorder, code_of, pkce
from tests.compat.test_unchanged import peer

#: Each test starts two HTTP servers (one on the SDK) and sends each a few dozen requests.
pytestmark = pytest.mark.timeout(180)

APP = str(Path(SERVERS) / "sdk_auth_app.py")
PROVIDER = str(Path(SERVERS) / "sdk_oauth_provider.py")
TOKENS = str(Path(SERVERS) / "sdk_auth_tokens.py")
ORIGIN = {"origin": "http://app.example", "access-control-request-method": "GET"}


@contextlib.contextmanager
def started(peer_name: str, args: list[str]) -> Iterator[tuple[str, str]]:
    """``args`` (a script and its arguments, the port last) run on the SDK ``peer_name``
    and on mcpkit at once: their base URLs."""
    ports = free_port(), free_port()
    commands = [[str(peer(peer_name))], [sys.executable, "-m", "mcpkit.compat"]]
    procs = [
        subprocess.Popen(
            warmed([*command, *[str(port) if a == "PORT" else a for a in args]]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command, port in zip(commands, ports, strict=True)
    ]
    try:
        for proc, port in zip(procs, ports, strict=True):
            listening(proc, port)
        yield f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def mcp_calls(r: Recorder, label: str, token: str | None, calls: list[dict[str, Any]]) -> None:
    """``initialize`` with ``token`` then each request of ``calls`` in its session."""
    headers = dict(ACCEPT)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    init = r.record(f"mcp {label} initialize", r.http.post("/mcp", json=INIT, headers=headers))
    if init.status_code != 200:
        return
    session = {**headers, "mcp-session-id": init.headers["mcp-session-id"]}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    r.http.post("/mcp", json=note, headers=session)
    for n, call in enumerate(calls, 2):
        request = {"jsonrpc": "2.0", "id": n, **call}
        r.record(
            f"mcp {label} {call['method']}", r.http.post("/mcp", json=request, headers=session)
        )


def resource_server_flow(base: str, token: str, tool: str) -> dict[str, Any]:
    """A resource server's answers: its metadata, the refusals, the tool with the token."""
    r = Recorder(base)
    get, post = r.http.get, r.http.post
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        r.record(f"metadata {path}", get(path))
    r.record(
        "metadata preflight",
        r.http.options("/.well-known/oauth-protected-resource/mcp", headers=ORIGIN),
    )
    r.record("metadata post", post("/.well-known/oauth-protected-resource/mcp"))
    r.record("server metadata", get("/.well-known/oauth-authorization-server"))
    r.record("other path", get("/elsewhere"))
    r.record("no token", post("/mcp", json=INIT, headers=ACCEPT))
    r.record("basic", post("/mcp", json=INIT, headers={**ACCEPT, "authorization": "Basic eDp5"}))
    r.record("get no token", get("/mcp", headers=ACCEPT))
    mcp_calls(r, "bad token", "not-a-token", [])
    call = {"method": "tools/call", "params": {"name": tool, "arguments": {}}}
    mcp_calls(r, "token", token, [{"method": "tools/list", "params": {}}, call])
    return r.answers


#: The SDK's examples (2.x's of ``examples/official_v2_auth``, the stories' under
#: ``official_v2:``, 1.x's under ``official_v1:``): module, server attribute, a token its
#: verifier accepts, its tool.
EXAMPLES = [
    ("official_v2:stories.bearer_auth.server", "build_app", "demo-token", "whoami", []),
    ("official_v2:stories.bearer_auth.server_lowlevel", "build_app", "demo-token", "whoami", []),
    ("docs_src.tutorial001", "mcp", "alice-token", "list_notes", []),
    ("docs_src.tutorial002", "mcp", "alice-token", "whoami", []),
    ("oauth_server", "mcp", "any", "get_weather", ["json"]),
    ("official_v1:oauth_server", "mcp", "any", "get_weather", []),
]


@pytest.mark.parametrize(
    ("module", "attr", "token", "tool", "extra"), EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_resource_server_examples_answer_as_on_the_sdk(
    module: str, attr: str, token: str, tool: str, extra: list[str]
) -> None:
    """Each example's metadata, refusals (401 with the SDK's challenge and body, 404 off the
    endpoint) and tool results (what ``get_access_token()`` gives the tool) are the SDK's."""
    generation = "mcp1" if module.startswith("official_v1:") else "mcp2"
    with started(generation, [APP, module, attr, "PORT", *extra]) as (sdk, ours):
        expected = resource_server_flow(sdk, token, tool)
        got = resource_server_flow(ours, token, tool)
    assert got == expected
    if token != "any":  # the snippet's verifier accepts no token at all
        assert expected["mcp token tools/call"]["status"] == 200
    assert expected["no token"]["status"] == 401


def provider_flow(base: str) -> dict[str, Any]:
    """An authorization server's flow, from its metadata to revocation, then MCP with the
    tokens issued (and with a token lacking the required scope)."""
    r = Recorder(base)
    get, post = r.http.get, r.http.post
    r.record("resource metadata", get("/.well-known/oauth-protected-resource/mcp"))
    r.record("server metadata", get("/.well-known/oauth-authorization-server"))
    r.record("no token", post("/mcp", json=INIT, headers=ACCEPT))
    r.record(
        "register bad scope", post("/register", json={"redirect_uris": [REDIRECT], "scope": "root"})
    )
    r.record("register no uris", post("/register", json={"client_name": "x"}))
    client = r.record(
        "register", post("/register", json={"redirect_uris": [REDIRECT], "scope": "mcp extra"})
    ).json()
    narrow = r.record(
        "register narrow", post("/register", json={"redirect_uris": [REDIRECT], "scope": "extra"})
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
    code = code_of(r.record("authorize", get("/authorize", params={**ask, "scope": "mcp extra"})))
    grant = {"grant_type": "authorization_code", "code": code, "client_id": cid}
    r.record("token no secret", post("/token", data={**grant, "code_verifier": verifier}))
    r.record(
        "token bad verifier",
        post("/token", data={**grant, "client_secret": secret, "code_verifier": "x" * 43}),
    )
    r.record(
        "token bad code",
        post(
            "/token",
            data={**grant, "code": "nope", "client_secret": secret, "code_verifier": verifier},
        ),
    )
    tokens = r.record(
        "token", post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier})
    ).json()
    refresh = {"grant_type": "refresh_token", "client_id": cid, "client_secret": secret}
    r.record(
        "refresh wider",
        post(
            "/token", data={**refresh, "refresh_token": tokens["refresh_token"], "scope": "admin"}
        ),
    )
    fresh = r.record(
        "refresh", post("/token", data={**refresh, "refresh_token": tokens["refresh_token"]})
    ).json()
    call = {"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    user = {"method": "tools/call", "params": {"name": "user", "arguments": {}}}
    mcp_calls(r, "token", fresh["access_token"], [call])
    mcp_calls(r, "user", fresh["access_token"], [user])
    v2, c2 = pkce()
    ask2 = {
        "client_id": narrow["client_id"],
        "response_type": "code",
        "code_challenge": c2,
        "scope": "extra",
    }
    code2 = code_of(r.record("authorize narrow", get("/authorize", params=ask2)))
    grant2 = {"grant_type": "authorization_code", "code": code2, "client_id": narrow["client_id"]}
    narrow_tokens = r.record(
        "token narrow",
        post(
            "/token", data={**grant2, "client_secret": narrow["client_secret"], "code_verifier": v2}
        ),
    ).json()
    mcp_calls(r, "narrow", narrow_tokens["access_token"], [call])
    r.record(
        "revoke no secret", post("/revoke", data={"token": fresh["access_token"], "client_id": cid})
    )
    r.record(
        "revoke",
        post(
            "/revoke",
            data={"token": fresh["access_token"], "client_id": cid, "client_secret": secret},
        ),
    )
    mcp_calls(r, "revoked", fresh["access_token"], [call])
    return r.answers


@pytest.mark.parametrize(
    ("peer_name", "generation"), [("mcp2", "v2"), ("mcp1", "v1"), ("mcp2", "starlette")]
)
def test_authorization_server_answers_as_on_the_sdk(peer_name: str, generation: str) -> None:
    """``auth_server_provider=`` (or, composed by hand, ``create_auth_routes`` and the
    bearer middleware around the low-level server): the same provider served by the SDK's
    routes and by mcpkit's answers each step the same (``invalid_grant`` with 400 as the SDK, where
    fastmcp answers 401), and its tokens reach the tool as ``get_access_token()``."""
    with started(peer_name, [PROVIDER, generation, "PORT"]) as (sdk, ours):
        expected = provider_flow(sdk)
        got = provider_flow(ours)
    assert got == expected
    assert expected["token bad code"]["status"] == 400
    assert expected["mcp token tools/call"]["status"] == 200
    if generation != "starlette":  # ctx.request_context.request.user
        assert "AuthenticatedUser" in str(expected["mcp user tools/call"]["body"])
    assert expected["mcp narrow initialize"]["status"] == 403
    assert expected["mcp revoked initialize"]["status"] == 401


def test_auth_arguments_refused_as_the_sdk_refuses_them() -> None:
    """A verifier without settings, both a verifier and a provider, or settings alone."""
    from mcpkit.compat.mcp.server.auth.settings import AuthSettings
    from mcpkit.compat.mcp.server.mcpserver import MCPServer

    class Verifier:
        async def verify_token(self, token: str) -> None:
            return None

    settings = AuthSettings(
        issuer_url="https://auth.example.com",  # type: ignore[arg-type]
        resource_server_url=None,
    )
    with pytest.raises(ValueError, match="without auth settings"):
        MCPServer(token_verifier=Verifier())
    with pytest.raises(ValueError, match="Cannot specify both"):
        MCPServer(auth=settings, token_verifier=Verifier(), auth_server_provider=object())
    with pytest.raises(ValueError, match="Must specify either"):
        MCPServer(auth=settings)
    with pytest.raises(ValueError, match="Issuer URL must be HTTPS"):
        MCPServer(
            auth=AuthSettings(issuer_url="http://auth.example.com", resource_server_url=None),  # type: ignore[arg-type]
            auth_server_provider=object(),
        ).streamable_http_app()


def tokens_flow(base: str) -> dict[str, Any]:
    """Each of the verifier's tokens sent to the endpoint; a session used with another
    user's token."""
    r = Recorder(base)
    r.record("metadata", r.http.get("/.well-known/oauth-protected-resource/mcp"))
    call = {"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    for token in ("valid", "expired", "narrow", "elsewhere", "no-resource", "slash", "unknown"):
        mcp_calls(r, token, token, [call])
    headers = {**ACCEPT, "authorization": "Bearer valid"}
    init = r.http.post("/mcp", json=INIT, headers=headers)
    session = {**ACCEPT, "mcp-session-id": init.headers["mcp-session-id"]}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    r.http.post("/mcp", json=note, headers={**session, "authorization": "Bearer valid"})
    request = {"jsonrpc": "2.0", "id": 2, **call}
    hijack = {**session, "authorization": "Bearer other-user"}
    r.record("mcp other user's session", r.http.post("/mcp", json=request, headers=hijack))
    return r.answers


@pytest.mark.parametrize(("peer_name", "generation"), [("mcp2", "v2"), ("mcp1", "v1")])
def test_token_checks_answer_as_on_the_sdk(peer_name: str, generation: str) -> None:
    """``validate_token_resource=True``: a token expired, without the required scope, for
    another resource or for none is refused as the SDK refuses it (401, or 403
    ``insufficient_scope``), one for this resource (a trailing slash aside) accepted; a
    session used with another user's token is answered as on the SDK."""
    with started(peer_name, [TOKENS, generation, "PORT"]) as (sdk, ours):
        expected = tokens_flow(sdk)
        got = tokens_flow(ours)
    assert got == expected
    theirs = expected["mcp other user's session"]
    assert theirs["status"] == 404
    assert theirs["body"]["error"] == {"code": -32600, "message": "Session not found"}
    assert expected["mcp valid tools/call"]["status"] == 200
    assert expected["mcp narrow initialize"]["status"] == 403
    assert expected["mcp elsewhere initialize"]["status"] == 401


def sse_flow(base: str) -> dict[str, Any]:
    """The legacy HTTP+SSE endpoints without a token, with one lacking the required scope,
    and (the stream's status alone) with a valid one."""
    r = Recorder(base)
    r.record("sse no token", r.http.get("/sse"))
    r.record("sse narrow", r.http.get("/sse", headers={"authorization": "Bearer narrow"}))
    r.record("messages no token", r.http.post("/messages/?session_id=abc", json=INIT))
    with r.http.stream("GET", "/sse", headers={"authorization": "Bearer valid"}) as stream:
        r.answers["sse valid"] = stream.status_code
    return r.answers


def test_legacy_sse_endpoints_checked_as_on_the_sdk() -> None:
    """``run(transport="sse")``: ``/sse`` and ``/messages/`` behind the same checks."""
    with started("mcp2", [TOKENS, "sse", "PORT"]) as (sdk, ours):
        expected = sse_flow(sdk)
        got = sse_flow(ours)
    assert got == expected
    assert expected["sse no token"]["status"] == 401
    assert expected["sse narrow"]["status"] == 403
    assert expected["sse valid"] == 200


def test_shared_auth_models_and_resource_checks() -> None:
    """``mcp.shared.auth``'s metadata models and ``mcp.shared.auth_utils`` as the SDK's:
    documents dumped as the SDK dumps them, resources compared as it compares them."""
    from mcpkit.compat.mcp.shared.auth import (
        AuthorizationCodeResult,
        OAuthMetadata,
        ProtectedResourceMetadata,
    )
    from mcpkit.compat.mcp.shared.auth_utils import (
        check_resource_allowed,
        resource_url_from_server_url,
    )

    prm = ProtectedResourceMetadata(
        resource="https://api.example.com",  # type: ignore[arg-type]
        authorization_servers=["https://auth.example.com"],  # type: ignore[list-item]
    )
    assert prm.model_dump(mode="json", exclude_none=True) == {
        "resource": "https://api.example.com",
        "authorization_servers": ["https://auth.example.com"],
        "bearer_methods_supported": ["header"],
    }
    with pytest.raises(ValueError):
        ProtectedResourceMetadata(resource="https://api.example.com", authorization_servers=[])  # type: ignore[arg-type]
    doc = OAuthMetadata(
        issuer="https://auth.example.com",  # type: ignore[arg-type]
        authorization_endpoint="https://auth.example.com/authorize",  # type: ignore[arg-type]
        token_endpoint="https://auth.example.com/token",  # type: ignore[arg-type]
    )
    assert doc.model_dump(mode="json", exclude_none=True)["response_types_supported"] == ["code"]
    assert AuthorizationCodeResult(code="c").state is None
    assert resource_url_from_server_url("HTTPS://API.Example.com/mcp#frag") == (
        "https://api.example.com/mcp"
    )
    assert check_resource_allowed("https://api.example.com/mcp/x", "https://api.example.com/mcp")
    assert check_resource_allowed("https://api.example.com/mcp/", "https://api.example.com/mcp")
    assert not check_resource_allowed("https://api.example.com/mcp2", "https://api.example.com/mcp")
    assert not check_resource_allowed("http://api.example.com/mcp", "https://api.example.com/mcp")


@pytest.mark.parametrize("generation", ["v1", "v2"])
async def test_native_server_of_a_protected_server_is_protected(generation: str) -> None:
    """What the CLI serves for ``file.py:mcp`` (the native server's own HTTP app, without
    ``run()`` or ``streamable_http_app()``) refuses a request without a token."""
    import httpx

    from mcpkit.compat.mcp.server.auth.settings import AuthSettings
    from mcpkit.compat.mcp.server.fastmcp import FastMCP
    from mcpkit.compat.mcp.server.mcpserver import MCPServer

    class Verifier:
        async def verify_token(self, token: str) -> None:
            return None

    settings = AuthSettings(
        issuer_url="https://auth.example.com",  # type: ignore[arg-type]
        resource_server_url="http://127.0.0.1:8000/mcp",  # type: ignore[arg-type]
        validate_token_resource=False,
    )
    kind = FastMCP if generation == "v1" else MCPServer
    server = kind("x", auth=settings, token_verifier=Verifier())
    app = server.native.http_app("/mcp")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        answer = await http.post("/mcp", json=INIT, headers=ACCEPT)
    assert answer.status_code == 401
    assert answer.json() == {
        "error": "invalid_token",
        "error_description": "Authentication required",
    }
