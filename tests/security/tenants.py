"""Tenants of one server for the isolation tests: a bearer-token verifier with two principals
(alice and mallory), a server with every kind of stored object (2025 sessions and their
streams, tasks of both designs, MRTR rounds), and a raw HTTP caller acting as one tenant.

Nothing here is mocked below HTTP: every request goes through uvicorn, the resource server,
the Streamable HTTP app and the server as a client's would.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from mcpkit import Context, Server
from mcpkit.auth import AccessToken, ResourceServer
from mcpkit.transports.http.sse import SSEDecoder

V2025 = "2025-11-25"
V2026 = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
#: The deployment secret of the Redis stores (wraps the shared sealing keys).
SECRET = "tenants-store-secret-0123456789abcdef"
TASKS_EXTENSION = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

TOKENS = {
    f"{who}-token": AccessToken(
        f"{who}-token", client_id="app", subject=who, scopes=frozenset({"mcp"})
    )
    for who in ("alice", "mallory")
}


async def verify(token: str) -> AccessToken | None:
    """The verifier: ``alice-token`` and ``mallory-token`` are valid, nothing else."""
    return TOKENS.get(token)


def resource_server() -> ResourceServer:
    """The resource server both principals authenticate to."""
    return ResourceServer(
        verify,
        resource="http://127.0.0.1/mcp",
        authorization_servers=["https://as.example"],
        validate_audience=False,
    )


def tenant_server(**options: Any) -> Server:
    """A server with a task tool (``secret``), a task that waits (``hold``) and a two-round
    MRTR tool (``two_steps``); ``options`` go to :class:`Server`."""
    server = Server("tenants", "1.0.0", **options)

    @server.tool(task_support="optional")
    async def secret(text: str) -> str:
        """Answers the caller's secret."""
        return f"secret of {text}"

    @server.tool(task_support="optional")
    async def hold(ctx: Context) -> str:
        """Runs until cancelled."""
        await asyncio.sleep(120)
        return "late"

    @server.tool()
    async def two_steps(ctx: Context) -> str:
        """Two questions, one per round (the first answer travels in requestState)."""
        first = await ctx.elicit("Step 1?", NAME, key="step1")
        second = await ctx.elicit("Step 2?", NAME, key="step2")
        return f"{first.data['name']} then {second.data['name']}"  # type: ignore[index]

    return server


def answer(name: str) -> dict[str, Any]:
    """An elicitation answer."""
    return {"action": "accept", "content": {"name": name}}


def sse_messages(body: bytes) -> list[Any]:
    return [orjson.loads(e.data) for e in SSEDecoder().feed(body) if e.data]


@dataclass
class Reply:
    """One HTTP answer: its status, the JSON-RPC response in it (if any), its headers."""

    status: int
    message: dict[str, Any] | None
    headers: httpx.Headers
    events: list[Any] = field(default_factory=list)

    @property
    def result(self) -> Any:
        assert self.status == 200 and self.message is not None, (self.status, self.message)
        assert "result" in self.message, self.message
        return self.message["result"]

    @property
    def error_code(self) -> int | None:
        if self.message is None or "error" not in self.message:
            return None
        return int(self.message["error"]["code"])


@dataclass
class Caller:
    """One tenant talking raw HTTP (``token`` None: anonymous)."""

    http: httpx.AsyncClient
    token: str | None
    _ids: int = 0

    def headers(self, sid: str | None = None, **extra: str) -> dict[str, str]:
        h = {"content-type": "application/json", "accept": ACCEPT, **extra}
        if self.token is not None:
            h["authorization"] = f"Bearer {self.token}"
        if sid is not None:
            h["mcp-session-id"] = sid
            h["mcp-protocol-version"] = V2025
        return h

    def _id(self) -> int:
        self._ids += 1
        return self._ids

    async def post(self, url: str, body: Any, headers: dict[str, str]) -> Reply:
        r = await self.http.post(url, content=orjson.dumps(body), headers=headers)
        message = None
        events: list[Any] = []
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            events = sse_messages(r.content)
            answers = [m for m in events if "id" in m and ("result" in m or "error" in m)]
            message = answers[-1] if answers else None
        elif r.content:
            message = orjson.loads(r.content)
        return Reply(r.status_code, message, r.headers, events)

    async def initialize(self, url: str) -> str:
        """Open a 2025 session (initialize and initialized); its id."""
        init = {
            "jsonrpc": "2.0",
            "id": self._id(),
            "method": "initialize",
            "params": {
                "protocolVersion": V2025,
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "tenant", "version": "1"},
            },
        }
        r = await self.post(url, init, self.headers())
        assert r.status == 200, (r.status, r.message)
        sid = r.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        r2 = await self.http.post(url, content=orjson.dumps(note), headers=self.headers(sid))
        assert r2.status_code == 202, r2.text
        return str(sid)

    async def rpc(
        self, url: str, method: str, params: dict[str, Any] | None = None, sid: str | None = None
    ) -> Reply:
        """A 2025 request (in session ``sid``, or stateless)."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self._id(), "method": method}
        if params is not None:
            body["params"] = params
        headers = self.headers(sid)
        if sid is None:
            headers["mcp-protocol-version"] = V2025
        return await self.post(url, body, headers)

    async def modern(
        self, url: str, method: str, params: dict[str, Any] | None = None, caps: Any = None
    ) -> Reply:
        """A 2026-07-28 request."""
        body = dict(params or {})
        body["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": V2026,
            "io.modelcontextprotocol/clientCapabilities": caps
            if caps is not None
            else {"elicitation": {}, **TASKS_EXTENSION},
            "io.modelcontextprotocol/clientInfo": {"name": "tenant", "version": "1"},
        }
        headers = self.headers(**{"mcp-protocol-version": V2026, "mcp-method": method})
        name = body.get("taskId" if method.startswith("tasks/") else "name")
        if isinstance(name, str):
            headers["mcp-name"] = name
        msg = {"jsonrpc": "2.0", "id": self._id(), "method": method, "params": body}
        return await self.post(url, msg, headers)
