"""The official SDK's machine-to-machine stories driven in process: ``sdk_m2m_stories.py
EXAMPLES_DIR`` builds each app of ``stories/oauth_client_credentials`` and
``stories/identity_assertion`` (``server.py`` and ``server_lowlevel.py``, their ``build_app()``,
lifespan included), sends it the requests its client and README send (the metadata, the
grant with good and bad credentials or ID-JAGs, a registration asking for the jwt-bearer
grant, the MCP requests with and without the token) and prints every answer as JSON lines,
the same on the SDK and on mcpkit."""

import asyncio
import base64
import importlib
import json
import sys
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, sys.argv[1])

HOST = "127.0.0.1:8000"
HEADERS = ("content-type", "cache-control", "pragma", "www-authenticate", "mcp-session-id")
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FORM = {"content-type": "application/x-www-form-urlencoded"}
AS_METADATA = "/.well-known/oauth-authorization-server"


async def call(app: Any, method: str, path: str, body: bytes = b"", **headers: str) -> Any:
    """One request to ``app``: its status, the headers a client reads and its body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", HOST.encode())]
        + [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    out: dict[str, Any] = {"status": None, "headers": {}, "body": b""}

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop()
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

    await app(scope, receive, send)
    text = out["body"].decode()
    kind = out["headers"].get("content-type", "")
    if path == "/mcp" and out["status"] == 200:  # an MCP answer: its messages, JSON or SSE
        out["headers"].pop("content-type", None)
        out["headers"].pop("cache-control", None)
        if kind.startswith("application/json"):
            out["body"] = [json.loads(text)]
        else:
            lines = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            out["body"] = [json.loads(line) for line in lines if line]
    elif text and kind.startswith("application/json"):
        out["body"] = json.loads(text)
    else:
        out["body"] = text
    return out


class Lifespan:
    """The app's lifespan, started and ended around the requests."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def __aenter__(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self.task = asyncio.create_task(self.app(scope, self.inbox.get, self.outbox.put))
        await self.inbox.put({"type": "lifespan.startup"})
        answer = await self.outbox.get()
        assert answer["type"] == "lifespan.startup.complete", answer

    async def __aexit__(self, *exc: object) -> None:
        await self.inbox.put({"type": "lifespan.shutdown"})
        await self.outbox.get()
        await self.task


def show(label: str, answer: Any) -> None:
    body = answer["body"]
    if isinstance(body, dict) and "access_token" in body:
        body["access_token"] = "<token>"
    print(json.dumps({"label": label, **answer}, sort_keys=True))


async def mcp_calls(app: Any, label: str, token: str | None) -> None:
    """``initialize``, ``tools/list`` and ``tools/call whoami`` with ``token``."""
    headers = {"accept": "application/json, text/event-stream", "content_type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
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
    answer = await call(app, "POST", "/mcp", json.dumps(init).encode(), **headers)
    if answer["status"] != 200:
        show(f"{label} mcp initialize", answer)
        return
    session = answer["headers"].pop("mcp-session-id", "")
    answer["body"][0]["result"].pop("serverInfo")
    show(f"{label} mcp initialize", answer)
    headers = {**headers, "mcp_session_id": session, "mcp_protocol_version": "2025-11-25"}
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    await call(app, "POST", "/mcp", note, **headers)
    for n, (method, params) in enumerate(
        [("tools/list", {}), ("tools/call", {"name": "whoami", "arguments": {}})], 2
    ):
        request = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        answer = await call(app, "POST", "/mcp", json.dumps(request).encode(), **headers)
        answer["headers"].pop("mcp-session-id", None)
        for message in answer["body"]:
            result = message.get("result", {})
            if "content" in result:
                result.setdefault("isError", False)  # absent or false: the same to a client
        show(f"{label} mcp {method}", answer)


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


async def client_credentials(name: str) -> None:
    module = importlib.import_module(f"stories.oauth_client_credentials.{name}")
    story = importlib.import_module("stories.oauth_client_credentials.server")
    app = module.build_app()
    label = f"oauth_client_credentials/{name}"
    async with Lifespan(app):
        show(
            f"{label} as metadata",
            await call(app, "GET", "/.well-known/oauth-authorization-server"),
        )
        prm = await call(app, "GET", "/.well-known/oauth-protected-resource/mcp")
        show(f"{label} prm", prm)
        await mcp_calls(app, f"{label} no token", None)
        grant = urlencode({"grant_type": "client_credentials", "scope": story.DEMO_SCOPE}).encode()
        good = basic(story.DEMO_CLIENT_ID, story.DEMO_CLIENT_SECRET)
        wrong = basic(story.DEMO_CLIENT_ID, "nope")
        show(
            f"{label} token wrong secret",
            await call(app, "POST", "/token", grant, **FORM, authorization=wrong),
        )
        other = urlencode({"grant_type": "password"}).encode()
        show(
            f"{label} token other grant",
            await call(app, "POST", "/token", other, **FORM, authorization=good),
        )
        answer = await call(app, "POST", "/token", grant, **FORM, authorization=good)
        token = answer["body"]["access_token"]
        show(f"{label} token", answer)
        await mcp_calls(app, f"{label} token", token)
        await mcp_calls(app, f"{label} unknown token", "access_unknown")


async def identity_assertion(name: str) -> None:
    module = importlib.import_module(f"stories.identity_assertion.{name}")
    story = importlib.import_module("stories.identity_assertion.server")
    idp = importlib.import_module("stories.identity_assertion.idp")
    shared = importlib.import_module("stories._shared.auth")
    app = module.build_app()
    label = f"identity_assertion/{name}"

    def id_jag(**override: str) -> str:
        claims = {
            "subject": "alice@example.com",
            "client_id": story.DEMO_CLIENT_ID,
            "audience": story.ISSUER,
            "resource": shared.MCP_URL,
            "scope": story.DEMO_SCOPE,
            **override,
        }
        return str(idp.issue_id_jag(**claims))

    def grant(assertion: str, secret: str = story.DEMO_CLIENT_SECRET) -> bytes:
        form = {
            "grant_type": JWT_BEARER,
            "assertion": assertion,
            "client_id": story.DEMO_CLIENT_ID,
            "client_secret": secret,
            "resource": shared.MCP_URL,
            "scope": story.DEMO_SCOPE,
        }
        return urlencode(form).encode()

    async with Lifespan(app):
        show(
            f"{label} as metadata",
            await call(app, "GET", "/.well-known/oauth-authorization-server"),
        )
        show(f"{label} prm", await call(app, "GET", "/.well-known/oauth-protected-resource/mcp"))
        registration = {
            "redirect_uris": ["http://localhost:3030/cb"],
            "grant_types": ["authorization_code", JWT_BEARER],
        }
        body = json.dumps(registration).encode()
        answer = await call(app, "POST", "/register", body, content_type="application/json")
        show(f"{label} register jwt-bearer", answer)
        await mcp_calls(app, f"{label} no token", None)
        once = id_jag()
        answer = await call(app, "POST", "/token", grant(once), **FORM)
        token = answer["body"]["access_token"]
        show(f"{label} token", answer)
        show(f"{label} token replayed", await call(app, "POST", "/token", grant(once), **FORM))
        cases = {
            "other client": grant(id_jag(client_id="someone-else")),
            "other resource": grant(id_jag(resource="http://127.0.0.1:9/mcp")),
            "other audience": grant(id_jag(audience="https://elsewhere.example.com/")),
            "wrong secret": grant(id_jag(), secret="nope"),
            "forged": grant("not-an-id-jag"),
        }
        for case, form in cases.items():
            show(f"{label} token {case}", await call(app, "POST", "/token", form, **FORM))
        await mcp_calls(app, f"{label} token", token)


async def main() -> None:
    for name in ("server", "server_lowlevel"):
        await client_credentials(name)
        await identity_assertion(name)


asyncio.run(main())
