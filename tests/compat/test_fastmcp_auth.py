"""fastmcp servers protected with ``fastmcp.server.auth`` providers (``JWTVerifier`` with a
public key or a JWKS URL, ``RemoteAuthProvider``, ``StaticTokenVerifier``,
``DebugTokenVerifier``), run over HTTP on fastmcp and unchanged on mcpkit, and sent the same
requests with the same tokens (valid, invalid, missing, expired, for another audience or
issuer, without a required scope): the status, ``WWW-Authenticate`` and body of each answer,
the protected resource metadata, and the tool results (the claims ``get_access_token()``
gives the tool) must be equal, and be what fastmcp documents."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.driving import SUITE_ENV, warmed
from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_unchanged import peer

#: Each test starts two HTTP servers (one on fastmcp) and sends each a few dozen requests:
#: on a loaded machine that takes more than the suite's default 60 seconds.
pytestmark = pytest.mark.timeout(180)

ISSUER = "https://issuer.example.com"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def keypair() -> tuple[Any, dict[str, Any]]:
    """An RSA key and its public JWK (kid ``k1``)."""
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
    return key, key.as_dict(private=False)


def token(key: Any, kid: str | None = None, **claims: Any) -> str:
    """A JWT with ``claims`` (iat/exp one hour around now unless given), RS256 with an RSA
    key, ES256 with an EC one."""
    from joserfc import jwt

    now = int(time.time())
    payload = {"iss": ISSUER, "sub": "ada", "iat": now, "exp": now + 3600, **claims}
    payload = {k: v for k, v in payload.items() if v is not None}
    alg = "ES256" if key.key_type == "EC" else "RS256"
    header = {"alg": alg, **({"kid": kid} if kid else {})}
    return jwt.encode(header, payload, key, algorithms=[alg])


@pytest.fixture(scope="module")
def keys() -> tuple[Any, Any]:
    """The issuer's key and a stranger's."""
    return keypair()[0], keypair()[0]


def documents_server(documents: dict[str, Any]) -> tuple[str, ThreadingHTTPServer]:
    """A local HTTP server answering GET ``path`` with ``documents[path]`` as JSON (an
    issuer's JWKS and metadata, offline)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            document = documents.get(self.path)
            body = json.dumps(document).encode()
            self.send_response(404 if document is None else 200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def jwks_server(jwk: dict[str, Any]) -> tuple[str, ThreadingHTTPServer]:
    """A local JWKS endpoint (the issuer, offline)."""
    base, server = documents_server({"/jwks": {"keys": [jwk]}})
    return base + "/jwks", server


def listening(proc: Any, port: int) -> None:
    """Wait until ``proc`` listens on ``port`` (a loaded machine may take long to start a
    Python server; a server that exits fails the test with its error output)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited: {proc.stderr.read()}") from None
            time.sleep(0.1)
    raise AssertionError("the server did not start listening")


@contextlib.contextmanager
def started(args: list[str]) -> Iterator[tuple[str, str]]:
    """The server file and ``args`` served on fastmcp and on mcpkit at once: their base
    URLs."""
    ports = free_port(), free_port()
    commands = [[str(peer("fastmcp")), *args], [sys.executable, "-m", "mcpkit.compat", *args]]
    # The tests add only variables the servers read as they build their providers.
    procs = [
        subprocess.Popen(
            warmed([*command, str(port)], imports_env=SUITE_ENV),
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


def answer(response: httpx.Response, base: str) -> dict[str, Any]:
    """What a client reads of a refusal or a document (the server's own port as PORT)."""
    port = base.rsplit(":", 1)[1]
    text = response.text.replace(port, "PORT")
    body: Any = text
    if response.headers.get("content-type", "").startswith("application/json"):
        body = json.loads(text)
    challenge = response.headers.get("www-authenticate")
    return {
        "status": response.status_code,
        "www-authenticate": challenge and challenge.replace(port, "PORT"),
        "body": body,
    }


def rpc_result(response: httpx.Response) -> Any:
    """The JSON-RPC message of a POST's answer (JSON or one SSE event), read as a client
    does: a result's ``isError`` left out is False (fastmcp sends it, mcpkit leaves it out)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        message = json.loads(data[-1])
    else:
        message = response.json()
    if isinstance(message.get("result"), dict):
        message["result"].setdefault("isError", False)
    return message


def call_tool(base: str, bearer: str, name: str, args: dict[str, Any]) -> Any:
    """Initialize a session with ``bearer`` and call one tool: the ``tools/call`` answer."""
    headers = {**ACCEPT, "authorization": f"Bearer {bearer}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        init = http.post("/mcp", json=INIT)
        assert init.status_code == 200, init.text
        session = {"mcp-session-id": init.headers["mcp-session-id"]}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp", json=note, headers=session).status_code == 202
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
        return rpc_result(http.post("/mcp", json=call, headers=session))


def session_of_another(base: str, owner: str, other: str) -> dict[str, Any]:
    """The answer to a call made with ``other``'s valid token in ``owner``'s session."""
    with httpx.Client(base_url=base, timeout=30) as http:
        init = http.post("/mcp", json=INIT, headers={**ACCEPT, "authorization": f"Bearer {owner}"})
        assert init.status_code == 200, init.text
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {
            **ACCEPT,
            "authorization": f"Bearer {other}",
            "mcp-session-id": init.headers["mcp-session-id"],
        }
        response = http.post("/mcp", json=call, headers=headers)
        return {"status": response.status_code}


async def modern_whoami(base: str, bearer: str) -> Any:
    """``whoami`` called on the 2026-07-28 wire with mcpkit's client."""
    from mcpkit import Client

    headers = {"Authorization": f"Bearer {bearer}"}
    async with Client(base + "/mcp", headers=headers, era="2026-07-28") as client:
        return (await client.call_tool("whoami", {})).structured_content


def refusals(base: str, tokens: dict[str, str | None]) -> dict[str, Any]:
    """The answer to an ``initialize`` with each credential (None: no Authorization)."""
    out = {}
    with httpx.Client(base_url=base, timeout=30) as http:
        for label, credential in tokens.items():
            headers = dict(ACCEPT)
            if credential is not None:
                headers["authorization"] = credential
            response = http.post("/mcp", json=INIT, headers=headers)
            if response.status_code == 200:  # accepted: the initialize result (JSON or SSE)
                message = rpc_result(response)
                message["result"]["serverInfo"].pop("version")
                out[label] = {"status": 200, "body": message}
            else:
                out[label] = answer(response, base)
    return out


def metadata(base: str, path: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=30) as http:
        return answer(http.get(path), base)


def same(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    for label in theirs:
        assert ours[label] == theirs[label], label


INVALID = (
    "Authentication failed. The provided bearer token is invalid, expired, or no longer "
    "recognized by the server. To resolve: clear authentication tokens in your MCP client "
    "and reconnect. Your client should automatically re-register and obtain new tokens."
)
PRM = "http://127.0.0.1:PORT/.well-known/oauth-protected-resource/mcp"


def test_jwt_public_key_behind_remote_auth_provider(keys: tuple[Any, Any], tmp_path: Path) -> None:
    """``RemoteAuthProvider(JWTVerifier(public_key=...))``: metadata, challenges naming it,
    tokens refused for each reason fastmcp checks, and a valid one reaching the tool."""
    key, stranger = keys
    pem = tmp_path / "public.pem"
    pem.write_bytes(key.as_pem(private=False))
    good = dict(aud="compat-api", scope="mcp:read mcp:write", client_id="cli-7")
    credentials: dict[str, str | None] = {
        "missing": None,
        "basic": "Basic YWRhOnB3",
        "bearer alone": "Bearer",
        "not a jwt": "Bearer nope",
        "other key": "Bearer " + token(stranger, **good),
        "other audience": "Bearer " + token(key, **{**good, "aud": "elsewhere"}),
        "other issuer": "Bearer " + token(key, **{**good, "iss": "https://evil.example"}),
        "no scope": "Bearer " + token(key, **{**good, "scope": "mcp:write"}),
        "expired": "Bearer " + token(key, **{**good, "exp": int(time.time()) - 60}),
        "not yet": "Bearer " + token(key, **{**good, "nbf": int(time.time()) + 3600}),
    }
    valid = token(key, **good, tenant="acme")
    argv = [str(SERVERS / "fastmcp_auth_jwt.py"), "pem", str(pem)]
    with started(argv) as (theirs_url, ours_url):
        theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
        same(theirs, ours)
        meta = [
            metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in (theirs_url, ours_url)
        ]
        assert meta[1] == meta[0]
        results = [call_tool(u, valid, "whoami", {}) for u in (theirs_url, ours_url)]
        assert results[1] == results[0]
        added = [call_tool(u, valid, "add", {"a": 2, "b": 3}) for u in (theirs_url, ours_url)]
        assert added[1] == added[0]
        unknown = [metadata(u, "/elsewhere") for u in (theirs_url, ours_url)]
        assert unknown[1] == unknown[0]
    assert ours["missing"] == {
        "status": 401,
        "www-authenticate": f'Bearer scope="mcp:read", resource_metadata="{PRM}"',
        "body": "",
    }
    assert ours["basic"] == ours["missing"]
    for label in ("not a jwt", "other key", "other audience", "other issuer", "no scope"):
        assert ours[label]["status"] == 401, label
        assert ours[label]["body"] == {"error": "invalid_token", "error_description": INVALID}
        assert ours[label]["www-authenticate"] == (
            f'Bearer error="invalid_token", error_description="{INVALID}", '
            f'scope="mcp:read", resource_metadata="{PRM}"'
        )
    assert meta[1] == {
        "status": 200,
        "www-authenticate": None,
        "body": {
            "resource": "http://127.0.0.1:PORT/mcp",
            "authorization_servers": [ISSUER],
            "scopes_supported": ["mcp:read"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Compat API",
        },
    }
    who = results[1]["result"]["structuredContent"]
    assert who["client_id"] == "cli-7"
    assert who["scopes"] == ["mcp:read", "mcp:write"]
    assert who["subject"] == "ada"
    assert who["claims"]["tenant"] == "acme" and who["claims"]["aud"] == "compat-api"
    assert added[1]["result"]["structuredContent"] == {"result": 5}
    assert unknown[1]["status"] == 404


def test_jwt_jwks_verifier_alone(keys: tuple[Any, Any]) -> None:
    """``JWTVerifier(jwks_uri=..., audience=[...])`` as ``auth``: no metadata (fastmcp
    serves none for a bare verifier), keys fetched from the JWKS by ``kid``."""
    key, stranger = keys
    url, jwks = jwks_server(key.as_dict(private=False))
    try:
        credentials: dict[str, str | None] = {
            "missing": None,
            "valid kid": None,  # filled below: valid ones go to the tool
            "unknown kid": "Bearer " + token(key, kid="k9", aud="compat-api"),
            "other key": "Bearer " + token(stranger, kid="k1", aud="compat-api"),
            "other audience": "Bearer " + token(key, kid="k1", aud=["x", "y"]),
        }
        del credentials["valid kid"]
        valid = token(key, kid="k1", aud=["other-api", "z"], scp=["a", "b"], azp="app")
        argv = [str(SERVERS / "fastmcp_auth_jwt.py"), "jwks", url]
        with started(argv) as (theirs_url, ours_url):
            theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
            same(theirs, ours)
            results = [call_tool(u, valid, "whoami", {}) for u in (theirs_url, ours_url)]
            assert results[1] == results[0]
            meta = [
                metadata(u, "/.well-known/oauth-protected-resource/mcp")
                for u in (theirs_url, ours_url)
            ]
            assert meta[1] == meta[0]
    finally:
        jwks.shutdown()
    assert ours["missing"] == {"status": 401, "www-authenticate": "Bearer", "body": ""}
    assert ours["unknown kid"]["status"] == ours["other audience"]["status"] == 401
    assert meta[1]["status"] == 404
    who = results[1]["result"]["structuredContent"]
    assert (who["client_id"], who["scopes"]) == ("app", ["a", "b"])


@pytest.mark.parametrize("mode", ["static", "debug", "debug-admin"])
def test_static_and_debug_verifiers(mode: str) -> None:
    """``StaticTokenVerifier`` (scopes, expiry, required scope) and ``DebugTokenVerifier``
    (which checks no scope: a required scope it does not grant is the server's 403)."""
    credentials: dict[str, str | None] = {
        "missing": None,
        "unknown": "Bearer tok-eve",
        "lower case scheme": "bearer tok-ada",
        "bob (no write)": "Bearer tok-bob",
        "expired": "Bearer tok-old",
        "debug": "Bearer dbg-42",
        "not debug": "Bearer xyz",
    }
    valid = "tok-ada" if mode == "static" else "dbg-42"
    argv = [str(SERVERS / "fastmcp_auth_static.py"), mode]
    with started(argv) as (theirs_url, ours_url):
        theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
        same(theirs, ours)
        health = [metadata(u, "/health") for u in (theirs_url, ours_url)]
        assert health[1] == health[0] == {"status": 200, "www-authenticate": None, "body": "OK"}
        if mode != "debug-admin":
            results = [call_tool(u, valid, "whoami", {}) for u in (theirs_url, ours_url)]
            assert results[1] == results[0]
        if mode == "static":
            hijack = [session_of_another(u, "tok-ada", "tok-cy") for u in (theirs_url, ours_url)]
            assert hijack[1]["status"] == hijack[0]["status"] == 404, hijack
            modern = asyncio.run(modern_whoami(ours_url, valid))
    if mode == "static":
        assert ours["missing"] == {
            "status": 401,
            "www-authenticate": 'Bearer scope="write"',
            "body": "",
        }
        for label in ("unknown", "bob (no write)", "expired"):
            assert ours[label]["status"] == 401, label
        assert ours["lower case scheme"]["status"] == 200
        who = results[1]["result"]["structuredContent"]
        assert who["client_id"] == "ada-cli" and who["scopes"] == ["write", "read"]
        assert modern == who  # the 2026-07-28 wire (mcpkit's alone) gives the tool the same
        assert who["claims"] == {"client_id": "ada-cli", "scopes": ["write", "read"], "sub": "ada"}
    elif mode == "debug":
        assert ours["debug"]["status"] == 200 and ours["not debug"]["status"] == 401
        who = results[1]["result"]["structuredContent"]
        assert who["claims"] == {"token": "dbg-42"} and who["client_id"] == "debugger"
    else:
        assert ours["debug"] == {
            "status": 403,
            "www-authenticate": (
                'Bearer error="insufficient_scope", error_description="Required scope: admin", '
                'scope="read admin"'
            ),
            "body": {"error": "insufficient_scope", "error_description": "Required scope: admin"},
        }


def test_jwt_verifier_refuses_ssrf_safe() -> None:
    """``JWTVerifier(ssrf_safe=True)`` names what mcpkit does not do (never a silent
    downgrade); the identity providers are served (tests/compat/test_fastmcp_oauth_proxy*.py)."""
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

    with pytest.raises(NotImplementedError, match="ssrf_safe"):
        JWTVerifier(jwks_uri="https://idp.example.com/jwks", ssrf_safe=True)


def test_parse_scopes_as_fastmcp() -> None:
    """``fastmcp.utilities.auth.parse_scopes`` (which servers use to read scope settings)
    reads each form as fastmcp does."""
    from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

    values = [None, "", "  ", "a b", "a,b , c", '["x", " y ", ""]', "[broken", ["p", " q", ""]]
    code = (
        "import json, sys; from fastmcp.utilities.auth import parse_scopes; "
        "print(json.dumps([parse_scopes(v) for v in json.loads(sys.argv[1])]))"
    )
    out = subprocess.run(
        [str(peer("fastmcp")), "-c", code, json.dumps(values)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [parse_scopes(v) for v in values] == json.loads(out.stdout)


#: fastmcp's examples/auth servers that run offline against a local stand-in for their
#: identity provider: the file, the variable naming the provider, the provider's path under
#: the stand-in, where its JWKS is, the claims of a token it issues for the example, and
#: the tools called with it.
EXAMPLES: dict[str, dict[str, Any]] = {
    "authkit": {
        "file": "auth_authkit_server.py",
        "variable": "AUTHKIT_DOMAIN",
        "prefix": "",
        "jwks": "/oauth2/jwks",
        "claims": {"aud": "http://127.0.0.1:8000/mcp", "sub": "user_1", "sid": "s1"},
        "calls": [("echo", {"message": "hi"})],
    },
    "keycloak_oauth": {
        "file": "auth_keycloak_oauth_server.py",
        "variable": "KEYCLOAK_REALM_URL",
        "prefix": "/realms/fastmcp",
        "jwks": "/protocol/openid-connect/certs",
        "claims": {"scope": "openid profile", "azp": "mcp-client", "sub": "u-42"},
        "calls": [("echo", {"message": "hi"}), ("get_access_token_claims", {})],
    },
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_auth_example_offline(
    name: str, keys: tuple[Any, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fastmcp's ``examples/auth/<name>`` against a local stand-in for its identity provider
    (its JWKS, for AuthKit its authorization server metadata too): the protected resource
    metadata, the authorization server metadata (AuthKit's forwarded; 404 for Keycloak),
    the refusals, and the tools called with a token the provider would issue."""
    case = EXAMPLES[name]
    key, stranger = keys
    documents: dict[str, Any] = {}
    base, server = documents_server(documents)
    issuer = base + case["prefix"]
    documents[case["prefix"] + case["jwks"]] = {"keys": [key.as_dict(private=False)]}
    as_metadata = {
        "issuer": issuer,
        "authorization_endpoint": issuer + "/oauth2/authorize",
        "token_endpoint": issuer + "/oauth2/token",
        "code_challenge_methods_supported": ["S256"],
    }
    documents[case["prefix"] + "/.well-known/oauth-authorization-server"] = as_metadata
    monkeypatch.setenv(case["variable"], issuer)
    example = Path(__file__).parent / "examples" / "fastmcp" / case["file"]
    launcher = tmp_path / "launch.py"
    launcher.write_text(
        "import runpy, sys\n"
        f"mcp = runpy.run_path({str(example)!r})['mcp']\n"
        "mcp.run(transport='http', host='127.0.0.1', port=int(sys.argv[1]), show_banner=False)\n"
    )
    claims = {"iss": issuer, **case["claims"]}
    valid = token(key, kid="k1", **claims)
    credentials: dict[str, str | None] = {
        "missing": None,
        "other audience": "Bearer " + token(key, kid="k1", **{**claims, "aud": "elsewhere"}),
        "other issuer": "Bearer " + token(key, kid="k1", **{**claims, "iss": "https://x.y"}),
        "other key": "Bearer " + token(stranger, kid="k1", **claims),
        "no scope": "Bearer " + token(key, kid="k1", **{**claims, "scope": "profile"}),
        "valid": "Bearer " + valid,
    }
    try:
        with started([str(launcher)]) as (theirs_url, ours_url):
            urls = (theirs_url, ours_url)
            theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            results = [[call_tool(u, valid, *call) for call in case["calls"]] for u in urls]
    finally:
        server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    assert ours["valid"]["status"] == 200
    for label in ("other issuer", "other key"):
        assert ours[label]["status"] == 401, label
    assert prm[1]["body"]["resource"] == "http://127.0.0.1:8000/mcp"
    assert prm[1]["body"]["authorization_servers"] == [issuer]
    assert results[1][0]["result"]["content"] == [{"type": "text", "text": "hi"}]
    if name == "authkit":
        assert ours["other audience"]["status"] == 401
        assert asm[1]["body"] == as_metadata
        assert ours["missing"]["www-authenticate"] == (
            'Bearer resource_metadata="http://127.0.0.1:8000/.well-known/'
            'oauth-protected-resource/mcp"'
        )
    else:
        assert ours["no scope"]["status"] == 401
        assert asm[1]["status"] == 404
        assert results[1][1]["result"]["structuredContent"] == {
            "sub": "u-42",
            "scope": "openid profile",
            "azp": "mcp-client",
        }


def introspection_server(answers: dict[str, Any], method: str) -> tuple[str, Any]:
    """A local RFC 7662 endpoint answering ``answers[token]`` (inactive for others) to the
    resource server ``rs`` authenticated with ``method``; 401 to anyone else."""
    from urllib.parse import parse_qs

    basic = "Basic " + base64.b64encode(b"rs:rs-secret").decode()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if method == "client_secret_basic":
                allowed = self.headers.get("authorization") == basic
            else:
                allowed = (form.get("client_id"), form.get("client_secret")) == ("rs", "rs-secret")
            document = answers.get(form.get("token", ""), {"active": False})
            body = json.dumps(document if allowed else {"error": "invalid_client"}).encode()
            self.send_response(200 if allowed else 401)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/introspect", server


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_introspection_verifier(method: str) -> None:
    """``IntrospectionTokenVerifier`` with either client authentication: active (with and
    without ``client_id``), inactive, unknown, expired, for another audience, without the
    required scope: the same answers and claims on both."""
    now = int(time.time())
    good = {"active": True, "scope": "mcp extra", "aud": ["compat-api"], "sub": "ada"}
    answers = {
        "op-ada": {**good, "client_id": "cli-1", "exp": now + 600, "tenant": "acme"},
        "op-nocid": {**good, "exp": now + 600},
        "op-old": {**good, "exp": now - 10},
        "op-other": {**good, "aud": "elsewhere"},
        "op-noscope": {**good, "scope": "extra"},
        "op-off": {**good, "active": False},
    }
    url, endpoint = introspection_server(answers, method)
    credentials: dict[str, str | None] = {
        "missing": None,
        **{label: "Bearer " + label for label in ("op-old", "op-other", "op-noscope", "op-off")},
        "unknown": "Bearer op-eve",
    }
    argv = [str(SERVERS / "fastmcp_auth_introspection.py"), url, method]
    try:
        with started(argv) as (theirs_url, ours_url):
            urls = (theirs_url, ours_url)
            theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
            same(theirs, ours)
            results = [
                [call_tool(u, t, "whoami", {}) for t in ("op-ada", "op-nocid")] for u in urls
            ]
    finally:
        endpoint.shutdown()
    assert results[1] == results[0]
    for label, answer_ in ours.items():
        assert answer_["status"] == 401, label
    who = results[1][0]["result"]["structuredContent"]
    assert (who["client_id"], who["scopes"], who["subject"]) == ("cli-1", ["mcp", "extra"], "ada")
    assert who["claims"]["tenant"] == "acme"
    assert results[1][1]["result"]["structuredContent"]["client_id"] == "ada"


#: Presets that are resource servers: where the stand-in serves the JWKS and the
#: authorization server metadata, the key type, the issuer and audience of their tokens.
PRESETS: dict[str, dict[str, Any]] = {
    "supabase": {
        "jwks": "/auth/v1/.well-known/jwks.json",
        "metadata": "/auth/v1/.well-known/oauth-authorization-server",
        "ec": True,
        "issuer": "/auth/v1",
        "claims": {"aud": "authenticated", "role": "authenticated"},
    },
    "scalekit": {
        "jwks": "/keys",
        "metadata": "/.well-known/oauth-authorization-server/resources/res_1",
        "ec": False,
        "issuer": "/resources/res_1",
        "claims": {"aud": "res_1", "scope": "mcp", "client_id": "sk-client"},
    },
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_resource_server_presets(name: str, keys: tuple[Any, Any]) -> None:
    """``SupabaseProvider`` and ``ScalekitProvider`` against a local stand-in for the
    provider: metadata (the authorization server's forwarded), refusals, a valid token."""
    from joserfc.jwk import ECKey

    case = PRESETS[name]
    key = ECKey.generate_key("P-256", parameters={"kid": "k1"}) if case["ec"] else keys[0]
    documents: dict[str, Any] = {case["jwks"]: {"keys": [key.as_dict(private=False)]}}
    base, server = documents_server(documents)
    documents[case["metadata"]] = {"issuer": base + case["issuer"], "scopes_supported": ["mcp"]}
    claims = {"iss": base + case["issuer"], **case["claims"]}
    valid = token(key, kid="k1", **claims)
    credentials: dict[str, str | None] = {
        "missing": None,
        "other audience": "Bearer " + token(key, kid="k1", **{**claims, "aud": "elsewhere"}),
        "other issuer": "Bearer " + token(key, kid="k1", **{**claims, "iss": base + "/x"}),
        "rsa for ec" if case["ec"] else "other key": "Bearer " + token(keys[1], kid="k1", **claims),
        "valid": "Bearer " + valid,
    }
    argv = [str(SERVERS / "fastmcp_auth_presets.py"), name, base]
    try:
        with started(argv) as (theirs_url, ours_url):
            urls = (theirs_url, ours_url)
            theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
            same(theirs, ours)
            prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
            asm = [metadata(u, "/.well-known/oauth-authorization-server") for u in urls]
            results = [call_tool(u, valid, "whoami", {}) for u in urls]
    finally:
        server.shutdown()
    assert prm[1] == prm[0]
    assert asm[1] == asm[0]
    assert results[1] == results[0]
    assert ours["valid"]["status"] == 200
    assert all(a["status"] == 401 for label, a in ours.items() if label != "valid")
    assert prm[1]["body"]["authorization_servers"] == [base + case["issuer"]]
    assert asm[1]["body"] == documents[case["metadata"]]


def session_calls(base: str, bearer: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Open a session with ``bearer`` and send each (method, params): the answers (the
    ``result`` or ``error`` of each)."""
    headers = {**ACCEPT, "authorization": f"Bearer {bearer}"}
    out = []
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        init = http.post("/mcp", json=INIT)
        assert init.status_code == 200, init.text
        session = {"mcp-session-id": init.headers["mcp-session-id"]}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp", json=note, headers=session).status_code == 202
        for i, (method, params) in enumerate(calls, start=2):
            request = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
            message = rpc_result(http.post("/mcp", json=request, headers=session))
            out.append(message.get("result", message.get("error")))
    return out


def test_component_auth_require_scopes(tmp_path: Path) -> None:
    """``auth=require_scopes(...)`` on a tool (one check or several), a resource and a
    prompt: hidden from, and refused to, a token without the scopes, as fastmcp does."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("tools/list", {}),
        ("resources/list", {}),
        ("prompts/list", {}),
        ("tools/call", {"name": "wipe", "arguments": {}}),
        ("tools/call", {"name": "report", "arguments": {}}),
        ("resources/read", {"uri": "audit://log"}),
        ("prompts/get", {"name": "review", "arguments": {"topic": "x"}}),
    ]
    argv = [str(SERVERS / "fastmcp_auth_components.py")]
    seen = {}
    with started(argv) as (theirs_url, ours_url):
        for bearer in ("t-user", "t-auditor", "t-admin"):
            theirs = session_calls(theirs_url, bearer, calls)
            ours = session_calls(ours_url, bearer, calls)
            for (method, params), mine, ref in zip(calls, ours, theirs, strict=True):
                assert mine == ref, (bearer, method, params)
            seen[bearer] = ours
    names = {b: [t["name"] for t in answers[0]["tools"]] for b, answers in seen.items()}
    assert names == {
        "t-user": ["hello"],
        "t-auditor": ["hello"],
        "t-admin": ["hello", "wipe", "report"],
    }
    assert seen["t-user"][3] == {
        "content": [{"type": "text", "text": "Unknown tool: 'wipe'"}],
        "isError": True,
    }
    assert seen["t-admin"][4]["content"] == [{"type": "text", "text": "report"}]


def test_rsa_key_pair_tokens_verify_on_fastmcp() -> None:
    """``RSAKeyPair`` (fastmcp's test helper): a token it creates is accepted by fastmcp's
    own ``JWTVerifier`` with the pair's public key, with the claims asked for."""
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier, RSAKeyPair

    pair = RSAKeyPair.generate()
    made = pair.create_token(
        subject="ada",
        issuer="https://issuer.example.com",
        audience="compat-api",
        scopes=["read", "write"],
        additional_claims={"tenant": "acme"},
        kid="k1",
    )
    code = (
        "import asyncio, json, sys\n"
        "from fastmcp.server.auth.providers.jwt import JWTVerifier\n"
        "v = JWTVerifier(public_key=sys.argv[1], issuer='https://issuer.example.com',"
        " audience='compat-api')\n"
        "t = asyncio.run(v.verify_token(sys.argv[2]))\n"
        "print(json.dumps(t and [t.client_id, t.scopes, t.claims['tenant']]))\n"
    )
    out = subprocess.run(
        [str(peer("fastmcp")), "-c", code, pair.public_key, made],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == ["ada", ["read", "write"], "acme"]
    ours = JWTVerifier(public_key=pair.public_key, issuer="https://issuer.example.com")
    found = asyncio.run(ours.verify_token(made))
    assert found is not None and found.claims["aud"] == "compat-api"


def test_jwt_verifier_subclass_hooks(keys: tuple[Any, Any]) -> None:
    """A ``JWTVerifier`` subclass overriding fastmcp's ``_validate_issuer`` and
    ``_extract_scopes`` (as fastmcp's own provider verifiers do) is consulted."""
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

    class TenantVerifier(JWTVerifier):
        def _validate_issuer(self, issuer: Any) -> bool:
            return isinstance(issuer, str) and issuer.startswith(ISSUER + "/tenants/")

        def _extract_scopes(self, claims: dict[str, Any]) -> list[str]:
            return list(claims.get("permissions", []))

    key = keys[0]
    verifier = TenantVerifier(
        public_key=key.as_pem(private=False), issuer=ISSUER, required_scopes=["notes:read"]
    )
    tenant = token(key, iss=ISSUER + "/tenants/7", permissions=["notes:read"])
    other = token(key, iss="https://elsewhere.example.com", permissions=["notes:read"])
    found = asyncio.run(verifier.verify_token(tenant))
    assert found is not None and found.scopes == ["notes:read"]
    assert asyncio.run(verifier.verify_token(other)) is None


def test_provider_verifiers_as_fastmcp(keys: tuple[Any, Any]) -> None:
    """``Auth0JWTVerifier`` (``permissions`` as scopes) and ``AWSCognitoTokenVerifier``
    (the audience checked against ``client_id``, the claims cut to Cognito's) judge the same
    tokens as fastmcp's, with the same results."""
    key = keys[0]
    pem = key.as_pem(private=False).decode()
    tokens = [
        token(key, aud="api", scope="openid", permissions=["notes:read", "notes:write"]),
        token(key, aud="api", permissions="a b"),
        token(key, client_id="app-1", username="ada", **{"cognito:groups": ["admins"]}),
        token(key, client_id="app-2", username="bob"),
    ]
    code = (
        "import asyncio, json, sys\n"
        "from fastmcp.server.auth.providers.auth0 import Auth0JWTVerifier\n"
        "from fastmcp.server.auth.providers.aws import AWSCognitoTokenVerifier\n"
        "pem, tokens = sys.argv[1], json.loads(sys.argv[2])\n"
        "verifiers = [Auth0JWTVerifier(public_key=pem, audience='api'),\n"
        "             AWSCognitoTokenVerifier(public_key=pem, audience='app-1')]\n"
        "async def main():\n"
        "    out = []\n"
        "    for v in verifiers:\n"
        "        for t in tokens:\n"
        "            a = await v.verify_token(t)\n"
        "            kept = a and {k: w for k, w in a.claims.items() if k not in ('iat', 'exp')}\n"
        "            out.append(a and [a.client_id, a.scopes, a.subject, kept])\n"
        "    return out\n"
        "print(json.dumps(asyncio.run(main())))\n"
    )
    out = subprocess.run(
        [str(peer("fastmcp")), "-c", code, pem, json.dumps(tokens)],
        capture_output=True,
        text=True,
        check=True,
    )
    from mcpkit.compat.fastmcp.server.auth.providers.auth0 import Auth0JWTVerifier
    from mcpkit.compat.fastmcp.server.auth.providers.aws import AWSCognitoTokenVerifier

    verifiers = [
        Auth0JWTVerifier(public_key=pem, audience="api"),
        AWSCognitoTokenVerifier(public_key=pem, audience="app-1"),
    ]

    async def ours() -> list[Any]:
        found = []
        for verifier in verifiers:
            for made in tokens:
                a = await verifier.verify_token(made)
                claims = (
                    None
                    if a is None
                    else {k: w for k, w in a.claims.items() if k not in ("iat", "exp")}
                )
                found.append(a and [a.client_id, a.scopes, a.subject, claims])
        return found

    mine = asyncio.run(ours())
    assert mine == json.loads(out.stdout)
    assert mine[0][1] == ["openid", "notes:read", "notes:write"]
    assert mine[6] is not None and mine[6][3]["cognito:groups"] == ["admins"]
    assert mine[7] is None  # another client_id


def test_azure_jwt_verifier_offline() -> None:
    """``AzureJWTVerifier`` behind ``RemoteAuthProvider``: the metadata advertises the
    scopes under the application's URI, the challenge names them, and requests without a
    usable token are refused, the same on both (its keys are Microsoft's: no valid token
    offline)."""
    credentials: dict[str, str | None] = {
        "missing": None,
        "not a jwt": "Bearer nope",
        "basic": "Basic YTpi",
    }
    argv = [str(SERVERS / "fastmcp_auth_presets.py"), "azure", "tenant-1"]
    with started(argv) as (theirs_url, ours_url):
        urls = (theirs_url, ours_url)
        theirs, ours = refusals(theirs_url, credentials), refusals(ours_url, credentials)
        same(theirs, ours)
        prm = [metadata(u, "/.well-known/oauth-protected-resource/mcp") for u in urls]
    assert prm[1] == prm[0]
    assert prm[1]["body"]["scopes_supported"] == ["api://app-1/access_as_user", "openid"]
    assert ours["missing"]["www-authenticate"].startswith(
        'Bearer scope="api://app-1/access_as_user openid", resource_metadata='
    )
