"""The official SDK's SEP-990 examples driven in process: ``sdk_identity_assertion.py
EXAMPLES_DIR`` builds the authorization servers of ``identity_assertion_tutorial002.py`` (a
provider validating ID-JAGs, ``create_auth_routes(..., identity_assertion_enabled=True)``) and
of ``identity_assertion_server.py`` (a provider whose validation is a stub refusing with
NotImplementedError), an ``MCPServer`` that is its own authorization server with
``AuthSettings(identity_assertion_enabled=True)``, and the same routes without the flag; sends
each the same requests over ASGI and prints every answer (status, the headers a client reads,
the body) as JSON lines, the same on the SDK and on mcpkit."""

import asyncio
import json
import runpy
import sys
import time
import uuid
from typing import Any
from urllib.parse import urlencode

import jwt
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyHttpUrl
from starlette.applications import Starlette

HERE = sys.argv[1]
tutorial = runpy.run_path(f"{HERE}/identity_assertion_tutorial002.py")
snippet = runpy.run_path(f"{HERE}/identity_assertion_server.py")
ISSUER, MCP_URL = tutorial["ISSUER"], tutorial["MCP_SERVER"]
HEADERS = ("content-type", "cache-control", "pragma", "www-authenticate", "mcp-session-id")

# A public client allowed the grant (only a confidential client may present an ID-JAG).
tutorial["REGISTERED_CLIENTS"]["public-agent"] = OAuthClientInformationFull(
    client_id="public-agent",
    redirect_uris=None,
    grant_types=[tutorial["JWT_BEARER_GRANT_TYPE"]],
    token_endpoint_auth_method="none",
)


def id_jag(**override: Any) -> str:
    """An ID-JAG as the tutorial's IdP signs one (claims overridden by ``override``)."""
    now = int(time.time())
    typ = override.pop("typ", "oauth-id-jag+jwt")
    claims = {
        "iss": tutorial["IDP_ISSUER"],
        "sub": "alice@example.com",
        "aud": ISSUER,
        "client_id": "finance-agent",
        "resource": MCP_URL,
        "scope": "notes:read",
        "jti": str(uuid.uuid4()),
        "iat": now,
        "exp": now + 300,
        **override,
    }
    return jwt.encode(claims, tutorial["IDP_SIGNING_KEY"], algorithm="HS256", headers={"typ": typ})


async def call(
    app: Any, host: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] = {}
) -> dict[str, Any]:
    """One request to ``app``: its status, the headers a client reads and its body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "https" if "example.com" in host else "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", host.encode())]
        + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": (host.split(":")[0], 443),
    }
    sent = [{"type": "http.request", "body": body, "more_body": False}]
    out: dict[str, Any] = {"status": None, "headers": {}, "body": b""}

    async def receive() -> dict[str, Any]:
        if sent:
            return sent.pop()
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            for k, v in message.get("headers", []):
                if k.decode().lower() in HEADERS:
                    out["headers"][k.decode().lower()] = v.decode()
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    try:
        await app(scope, receive, send)
    except Exception as exc:  # the SDK's Starlette re-raises after answering 500
        out["raised"] = type(exc).__name__
    text = out["body"].decode()
    kind = out["headers"].get("content-type", "")
    if path == "/mcp" and out["status"] == 200 and kind.startswith("application/json"):
        # An MCP answer: its messages, whether sent as JSON or as a stream.
        out["body"] = [json.loads(text)]
        out["headers"].pop("content-type")
        out["headers"].pop("cache-control", None)
    elif text and kind.startswith("application/json"):
        out["body"] = json.loads(text)
    elif kind.startswith("text/event-stream"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        out["body"] = [json.loads(d) for d in data if d]
        out["headers"].pop("content-type")
        out["headers"].pop("cache-control", None)
    else:
        out["body"] = text
    return out


def form(**fields: str) -> tuple[bytes, dict[str, str]]:
    headers = {"content-type": "application/x-www-form-urlencoded"}
    return urlencode(fields).encode(), headers


def grant(assertion: str, **extra: str) -> dict[str, str]:
    return {
        "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
        "assertion": assertion,
        "client_id": "finance-agent",
        "client_secret": "finance-agent-secret",
        "resource": MCP_URL,
        "scope": "notes:read",
        **extra,
    }


def show(label: str, answer: dict[str, Any]) -> None:
    print(json.dumps({"label": label, **answer}, sort_keys=True))


async def token_requests(app: Any, host: str, label: str) -> str | None:
    """The tutorial's grant, its refusals, and the other grants: the first token issued."""
    metadata = await call(app, host, "GET", "/.well-known/oauth-authorization-server")
    show(f"{label} metadata", metadata)
    replayed = id_jag()
    public = grant(id_jag(client_id="public-agent"), client_id="public-agent")
    del public["client_secret"]
    cases: list[tuple[str, dict[str, str]]] = [
        ("granted", grant(replayed)),
        ("replayed", grant(replayed)),
        ("forged", grant("not-an-id-jag")),
        ("other audience", grant(id_jag(aud="https://other.example.com/"))),
        ("other resource", grant(id_jag(resource="https://other.example.com/mcp"))),
        ("other client", grant(id_jag(client_id="someone-else"))),
        ("not an ID-JAG", grant(id_jag(typ="JWT"))),
        ("expired", grant(id_jag(exp=int(time.time()) - 60))),
        ("no assertion", {k: v for k, v in grant("x").items() if k != "assertion"}),
        ("wrong secret", grant(id_jag(), client_secret="nope")),
        ("unknown client", grant(id_jag(), client_id="nobody")),
        ("no scope", {k: v for k, v in grant(id_jag()).items() if k != "scope"}),
        ("public client", public),
        (
            "code grant",
            {
                "grant_type": "authorization_code",
                "code": "c",
                "code_verifier": "v" * 43,
                "client_id": "finance-agent",
                "client_secret": "finance-agent-secret",
            },
        ),
    ]
    token = None
    for name, fields in cases:
        body, headers = form(**fields)
        answer = await call(app, host, "POST", "/token", body, headers)
        if isinstance(answer["body"], dict) and "access_token" in answer["body"]:
            token = token or answer["body"]["access_token"]
            answer["body"]["access_token"] = "<token>"
        show(f"{label} token {name}", answer)
    return token


async def mcp_server() -> None:
    """An ``MCPServer`` that is its own authorization server for ID-JAGs."""
    mcp = MCPServer(
        "Notes",
        auth_server_provider=tutorial["provider"],
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(ISSUER),
            resource_server_url=AnyHttpUrl(MCP_URL),
            required_scopes=["notes:read"],
            identity_assertion_enabled=True,
            validate_token_resource=False,
        ),
    )

    @mcp.tool()
    def whoami() -> str:
        """Report which end user the ID-JAG named."""
        token = get_access_token()
        assert token is not None
        return f"{token.subject} ({', '.join(token.scopes)}) for {token.resource}"

    app = mcp.streamable_http_app()
    host = "localhost:8001"
    async with mcp.session_manager.run():
        token = await token_requests(app, host, "mcpserver")
        accept = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        }
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        body = json.dumps(init).encode()
        show("mcpserver mcp without a token", await call(app, host, "POST", "/mcp", body, accept))
        authed = {**accept, "authorization": f"Bearer {token}"}
        answer = await call(app, host, "POST", "/mcp", body, authed)
        session = answer["headers"].pop("mcp-session-id", None)
        answer["body"][0]["result"].pop("serverInfo")
        show("mcpserver mcp initialize", answer)
        authed["mcp-session-id"] = session or ""
        authed["mcp-protocol-version"] = "2025-11-25"
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        await call(app, host, "POST", "/mcp", note, authed)
        request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}}
        body = json.dumps(request).encode()
        answer = await call(app, host, "POST", "/mcp", body, authed)
        answer["headers"].pop("mcp-session-id", None)
        show("mcpserver mcp whoami", answer)


async def main() -> None:
    await token_requests(tutorial["auth_app"], "auth.example.com", "tutorial002")
    stub = snippet["IdentityAssertionProvider"]()
    routes = create_auth_routes(stub, AnyHttpUrl(ISSUER), identity_assertion_enabled=True)
    app = Starlette(routes=routes)
    body, headers = form(
        grant_type="urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion=id_jag(),
        client_id="enterprise-mcp-client",
        client_secret="enterprise-mcp-secret",
    )
    show("snippet token", await call(app, "auth.example.com", "POST", "/token", body, headers))
    disabled = Starlette(routes=create_auth_routes(tutorial["provider"], AnyHttpUrl(ISSUER)))
    await token_requests(disabled, "auth.example.com", "disabled")
    await mcp_server()


asyncio.run(main())
