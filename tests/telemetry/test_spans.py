"""Client and server spans: named and attributed after the MCP semantic conventions, one
trace from the mcpkit client to the mcpkit server on both eras, in memory and over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from opentelemetry import baggage, context, trace
from opentelemetry.trace import SpanKind, StatusCode

from mcpkit import Client, McpError, Server
from mcpkit.server.middleware import CallNext, MiddlewareContext
from mcpkit.telemetry import ClientTelemetry, OpenTelemetryMiddleware
from mcpkit.transports.http import running
from tests.telemetry.conftest import Otel

ERAS = ["legacy", "2026-07-28"]
VERSION = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


def make_app(otel: Otel, *outer: Any) -> Server:
    app = Server("traced", "1.0", middleware=outer)
    app.add_middleware(OpenTelemetryMiddleware(**otel.providers))

    @app.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    @app.tool()
    def fails() -> str:
        """A tool error (isError)."""
        raise ValueError("nope")

    @app.tool()
    def whose_baggage() -> str:
        """The baggage the request's context carries."""
        return str(baggage.get_baggage("user.id"))

    @app.prompt()
    def greet(name: str) -> str:
        """A prompt."""
        return f"Hello {name}"

    @app.resource("res://one")
    def one() -> str:
        return "1"

    return app


@asynccontextmanager
async def connected(app: Server, otel: Otel, era: str, transport: str) -> AsyncIterator[Client]:
    tracing = ClientTelemetry(**otel.providers)
    if transport == "memory":
        async with Client(app, era=era, tracing=tracing) as client:  # type: ignore[arg-type]
            yield client
        return
    async with (
        running(app.http_app()) as base,
        Client(base + "/mcp", era=era, tracing=tracing) as client,  # type: ignore[arg-type]
    ):
        yield client


@pytest.mark.parametrize("transport", ["memory", "http"])
@pytest.mark.parametrize("era", ERAS)
async def test_a_trace_crosses_client_to_server(otel: Otel, era: str, transport: str) -> None:
    app = make_app(otel)
    async with connected(app, otel, era, transport) as client:
        otel.exporter.clear()
        result = await client.call_tool("echo", {"text": "hi"})
        assert result.content[0].text == "hi"  # type: ignore[union-attr]

    client_span = otel.span(SpanKind.CLIENT, "tools/call echo")
    server_span = otel.span(SpanKind.SERVER, "tools/call echo")
    assert server_span.context.trace_id == client_span.context.trace_id
    assert server_span.parent is not None
    assert server_span.parent.span_id == client_span.context.span_id
    assert server_span.parent.is_remote
    for span in (client_span, server_span):
        attrs = dict(span.attributes or {})
        assert attrs["mcp.method.name"] == "tools/call"
        assert attrs["gen_ai.tool.name"] == "echo"
        assert attrs["gen_ai.operation.name"] == "execute_tool"
        assert attrs["mcp.protocol.version"] == VERSION[era]
        assert "error.type" not in attrs
        assert span.status.status_code is StatusCode.UNSET
        if transport == "http":
            assert attrs["network.transport"] == "tcp"
            assert attrs["network.protocol.name"] == "http"
        else:
            assert "network.transport" not in attrs
    # Both sides name the same JSON-RPC request.
    assert client_span.attributes is not None and server_span.attributes is not None
    assert (
        client_span.attributes["jsonrpc.request.id"] == server_span.attributes["jsonrpc.request.id"]
    )
    if transport == "http":
        assert client_span.attributes["server.address"] == "127.0.0.1"
        assert isinstance(client_span.attributes["server.port"], int)
        assert server_span.attributes["client.address"] == "127.0.0.1"
        if era == "legacy":  # a 2025 HTTP session has an id, both sides know it
            sid = client_span.attributes["mcp.session.id"]
            assert sid and server_span.attributes["mcp.session.id"] == sid
        else:
            assert "mcp.session.id" not in server_span.attributes


@pytest.mark.parametrize("era", ERAS)
async def test_the_caller_s_span_and_baggage_reach_the_server(otel: Otel, era: str) -> None:
    app = make_app(otel)
    tracer = otel.tracer_provider.get_tracer("test")
    async with connected(app, otel, era, "memory") as client:
        otel.exporter.clear()
        token = context.attach(baggage.set_baggage("user.id", "alice"))
        try:
            with tracer.start_as_current_span("agent turn") as outer:
                result = await client.call_tool("whose_baggage", {})
        finally:
            context.detach(token)
    assert result.content[0].text == "alice"  # type: ignore[union-attr]
    client_span = otel.span(SpanKind.CLIENT, "tools/call whose_baggage")
    server_span = otel.span(SpanKind.SERVER, "tools/call whose_baggage")
    assert client_span.parent is not None
    assert client_span.parent.span_id == outer.get_span_context().span_id
    assert server_span.context.trace_id == outer.get_span_context().trace_id


@pytest.mark.parametrize("era", ERAS)
async def test_the_context_travels_in_params_meta(otel: Otel, era: str) -> None:
    app = make_app(otel)
    seen: list[dict[str, Any] | None] = []

    async def capture(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        if ctx.method == "tools/call":
            seen.append(ctx.meta)
        return await call_next(ctx)

    app.add_middleware(capture)
    async with connected(app, otel, era, "memory") as client:
        otel.exporter.clear()
        await client.call_tool("echo", {"text": "x"}, meta={"vendor.example/k": 1})
    client_span = otel.span(SpanKind.CLIENT, "tools/call echo")
    (meta,) = seen
    assert meta is not None
    trace_id = format(client_span.context.trace_id, "032x")
    span_id = format(client_span.context.span_id, "016x")
    assert meta["traceparent"].startswith(f"00-{trace_id}-{span_id}-")  # then the flags
    assert meta["vendor.example/k"] == 1  # the caller's own _meta keys stay


async def test_errors_set_error_type_and_status(otel: Otel) -> None:
    app = make_app(otel)
    async with connected(app, otel, "legacy", "memory") as client:
        otel.exporter.clear()
        failed = await client.call_tool("fails", {})
        assert failed.is_error
        with pytest.raises(McpError) as info:
            await client.call_tool("nope", {})  # unknown tool: -32602
        assert info.value.code == -32602
        await client.get_prompt("greet", {"name": "Ada"})
        await client.read_resource("res://one")

    for kind in (SpanKind.CLIENT, SpanKind.SERVER):
        tool_error = otel.span(kind, "tools/call fails")
        assert tool_error.attributes is not None
        assert tool_error.attributes["error.type"] == "tool_error"
        assert tool_error.status.status_code is StatusCode.ERROR
        invalid = otel.span(kind, "tools/call nope")
        assert invalid.attributes is not None
        assert invalid.attributes["error.type"] == "-32602"
        assert invalid.attributes["rpc.response.status_code"] == "-32602"
        assert invalid.status.status_code is StatusCode.ERROR
        assert invalid.status.description
        prompt = otel.span(kind, "prompts/get greet")
        assert prompt.attributes is not None
        assert prompt.attributes["gen_ai.prompt.name"] == "greet"
        assert "gen_ai.tool.name" not in prompt.attributes
        read = otel.span(kind, "resources/read")  # the URI is never in the name
        assert read.attributes is not None
        assert read.attributes["mcp.resource.uri"] == "res://one"


async def test_a_request_without_trace_context_starts_a_trace_or_joins_the_ambient(
    otel: Otel,
) -> None:
    """A plain client (no tracing) gets server spans all the same: roots, or children of
    the ambient span when there is one (an HTTP server span, say)."""
    app = make_app(otel)
    async with Client(app, era="legacy") as client:
        otel.exporter.clear()
        await client.call_tool("echo", {"text": "a"})
    server_span = otel.span(SpanKind.SERVER, "tools/call echo")
    assert server_span.parent is None
    assert not otel.spans(SpanKind.CLIENT)


async def test_remote_parent_from_meta_links_the_ambient_span(otel: Otel) -> None:
    """With a context in _meta and an ambient span (here an outer middleware's, as an
    HTTP instrumentation's would be), the _meta context is the parent and the ambient span
    a link, as the conventions say."""
    from mcpkit.session import ClientSession
    from mcpkit.transports import MemoryTransport

    tracer = otel.tracer_provider.get_tracer("test")
    ambient: list[trace.Span] = []

    async def outer(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        with tracer.start_as_current_span("transport span") as span:
            if ctx.method == "tools/call":
                ambient.append(span)
            return await call_next(ctx)

    app = make_app(otel, outer)
    remote = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    async with app.running():
        client_end, server_end = MemoryTransport.pair()
        session = app.session(server_end)
        await session.start()
        client = ClientSession(client_end)
        await client.start()
        await client.initialize({"name": "raw", "version": "1"})
        otel.exporter.clear()
        await client.request(
            "tools/call",
            {"name": "echo", "arguments": {"text": "z"}, "_meta": {"traceparent": remote}},
        )
        await client.close()
        await session.close()
    server_span = otel.span(SpanKind.SERVER, "tools/call echo")
    assert server_span.parent is not None
    assert format(server_span.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert format(server_span.parent.span_id, "016x") == "b7ad6b7169203331"
    assert [link.context.span_id for link in server_span.links] == [
        ambient[0].get_span_context().span_id
    ]


async def test_tracing_off_sends_no_trace_keys(otel: Otel) -> None:
    app = Server("plain")
    seen: list[Any] = []

    async def capture(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        seen.append(ctx.meta)
        return await call_next(ctx)

    app.add_middleware(capture)

    @app.tool()
    def echo(text: str) -> str:
        return text

    tracer = otel.tracer_provider.get_tracer("test")
    async with Client(app, era="legacy") as client:
        with tracer.start_as_current_span("outer"):
            await client.call_tool("echo", {"text": "a"})
    calls = [meta for meta in seen if meta is not None]
    assert seen and all("traceparent" not in meta for meta in calls)
