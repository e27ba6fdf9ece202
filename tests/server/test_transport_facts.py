"""What the server learns about its transport it reads from ``Transport.info`` and asks of
``Transport.close_response_stream``, for any transport (here an in-memory one that says it
is HTTP), instead of probing for attributes."""

from __future__ import annotations

from typing import Any

from mcpkit import Context, Server
from mcpkit.jsonrpc import RequestId
from mcpkit.server.session import AppSession
from mcpkit.server.tasks import TaskManager
from mcpkit.session import ClientSession
from mcpkit.transports import MemoryTransport
from mcpkit.transports.base import TransportInfo
from tests.server.helpers import CLIENT_INFO, call, connected, text


class ClosableEnd(MemoryTransport):
    """A server end that can close response streams and carries an HTTP session id."""

    info = TransportInfo(kind="http", session_id="sid-7", closable_streams=True)

    def __init__(self) -> None:
        super().__init__()
        self.closed_streams: list[RequestId] = []

    def close_response_stream(self, request_id: RequestId) -> bool:
        self.closed_streams.append(request_id)
        return True


async def test_close_sse_stream_and_task_owner_come_from_the_transport(wire: Any) -> None:
    app = Server("facts")

    @app.tool()
    async def closer(ctx: Context) -> str:
        return f"{ctx.close_sse_stream()} {ctx.request_id}"

    a, b = MemoryTransport(), ClosableEnd()
    a._peer, b._peer = b, a
    server = app.session(b, tracer=wire())
    client = ClientSession(a, tracer=wire())
    async with app.running():
        await server.start()
        await client.start()
        try:
            await client.initialize(CLIENT_INFO, {}, protocol_version="2025-11-25")
            reply = text(await call(client, "closer"))
            closed, rid = reply.split()
            assert closed == "True"
            assert [str(r) for r in b.closed_streams] == [rid]
            assert TaskManager._default_owner(server) == "sid-7"
        finally:
            await client.close()
            await server.close()


async def test_task_owner_without_http_is_the_session_key() -> None:
    app = Server("owner")
    a, b = MemoryTransport.pair()
    session = app.session(b)
    assert isinstance(session, AppSession)
    assert TaskManager._default_owner(session) == session.task_owner_key
    assert TaskManager._default_owner(app.session(a)) != session.task_owner_key


async def test_memory_transport_has_no_stream_to_close(wire: Any) -> None:
    app = Server("plain")

    @app.tool()
    async def closer(ctx: Context) -> bool:
        return ctx.close_sse_stream()

    async with connected(app, wire) as (client, _):
        assert (await call(client, "closer"))["structuredContent"] == {"result": False}
