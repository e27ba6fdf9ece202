"""A dual-era test server and raw helpers for the modern (2026-07-28) Streamable HTTP tests.

``modern_server()`` is a real :class:`mcpkit.Server` (tools with progress, logging, a slow
one that records its cancellation, one with an ``x-mcp-header`` parameter); ``serve`` runs
its HTTP app under uvicorn with every message the server sends checked against the schema
of its revision (tests/wire.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from mcpkit import Server
from mcpkit.server.context import Context
from mcpkit.transports.http import StreamableHTTPApp, running
from mcpkit.transports.http.options import FIELDS, HttpServerOptions
from mcpkit.transports.http.sse import ServerSentEvent, SSEDecoder
from tests.wire import WireChecker

V = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "modern-http-test", "version": "1.0.0"}

#: What the slow tool saw: "started", "cancelled", "finished".
SLOW_EVENTS: list[str] = []


def meta(version: str = V, capabilities: dict[str, Any] | None = None, **extra: Any) -> Any:
    out: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    }
    out.update(extra)
    return out


def request(rid: Any, method: str, params: dict[str, Any] | None = None, **m: Any) -> Any:
    body = dict(params or {})
    body.setdefault("_meta", meta(**m))
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": body}


def headers(method: str | None, name: str | None = None, version: str | None = V, **extra: str):  # type: ignore[no-untyped-def]
    h = {"content-type": "application/json", "accept": ACCEPT}
    if version is not None:
        h["mcp-protocol-version"] = version
    if method is not None:
        h["mcp-method"] = method
    if name is not None:
        h["mcp-name"] = name
    h.update(extra)
    return h


def call(rid: Any, tool: str, arguments: dict[str, Any] | None = None, **m: Any) -> Any:
    return request(rid, "tools/call", {"name": tool, "arguments": arguments or {}}, **m)


def modern_server() -> Server:
    app = Server("modern-http", "1.0.0")

    @app.tool()
    def echo(text: str = "hi") -> str:
        """Echo the text."""
        return text

    @app.tool()
    async def progress(ctx: Context, steps: int = 3) -> str:
        """Report progress, then answer."""
        for i in range(steps):
            await ctx.progress(i + 1, steps)
            await asyncio.sleep(0.01)
        return "done"

    @app.tool()
    async def chatty(ctx: Context) -> str:
        """Log twice, then answer."""
        await ctx.info("one")
        await ctx.info("two")
        return "said"

    @app.tool()
    async def slow(seconds: float = 5.0) -> str:
        """Sleep; records whether it was cancelled."""
        SLOW_EVENTS.append("started")
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            SLOW_EVENTS.append("cancelled")
            raise
        SLOW_EVENTS.append("finished")
        return "slept"

    def region_tool(region: str, count: int = 1) -> str:
        return f"{region}:{count}"

    app.add_tool(
        region_tool,
        name="regional",
        description="A tool whose region parameter is mirrored in a header.",
        input_schema={
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
            },
            "required": ["region"],
        },
    )

    @app.prompt()
    def hello(name: str = "you") -> str:
        """A greeting prompt."""
        return f"Hello {name}"

    @app.resource("test://one", mime_type="text/plain")
    def one() -> str:
        """One resource."""
        return "one"

    return app


class Served:
    def __init__(self, app: StreamableHTTPApp, base: str, checkers: list[WireChecker]) -> None:
        self.app = app
        self.url = base + app.path
        self.checkers = checkers

    def sent(self, method: str | None = None) -> list[Any]:
        """Every message the server sessions sent (optionally only ``method``'s)."""
        return [m for c in self.checkers for m in c.sent(method)]


@contextlib.asynccontextmanager
async def serve(
    wire: Callable[..., WireChecker],
    server: Server | None = None,
    *,
    check_received: bool = True,
    **options: Any,
) -> AsyncIterator[Served]:
    """Serve ``server`` (default :func:`modern_server`) over HTTP on a free loopback port."""
    srv = server or modern_server()
    checkers: list[WireChecker] = []

    def factory(transport: Any) -> Any:
        checker = wire(V, check_received=check_received)
        checkers.append(checker)
        return srv.session(transport, tracer=checker)

    settings = {k: options.pop(k) for k in list(options) if k in FIELDS}
    app = StreamableHTTPApp(factory, options=HttpServerOptions(**settings), **options)
    async with srv.running(), running(app) as base:
        try:
            yield Served(app, base, checkers)
        finally:
            await app.aclose()


def events_of(body: bytes) -> list[ServerSentEvent]:
    return SSEDecoder().feed(body)


def messages_of(body: bytes) -> list[Any]:
    return [orjson.loads(e.data) for e in events_of(body) if e.data]


async def raw_post(url: str, body: Any, hdrs: list[tuple[str, str]]) -> tuple[int, bytes]:
    """POST with header bytes exactly as given (h11 refuses values with surrounding spaces);
    returns the status and the body of a ``Connection: close`` response."""
    rest = url.split("://", 1)[1]
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.rpartition(":")
    data = orjson.dumps(body)
    head = [f"POST /{path} HTTP/1.1", f"Host: {hostport}", f"Content-Length: {len(data)}"]
    head += [f"{k}: {v}" for k, v in hdrs] + ["Connection: close", "", ""]
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write("\r\n".join(head).encode("latin-1") + data)
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    status_line, _, remainder = response.partition(b"\r\n")
    _, _, payload = remainder.partition(b"\r\n\r\n")
    return int(status_line.split()[1]), payload
