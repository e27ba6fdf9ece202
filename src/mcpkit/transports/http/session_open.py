"""Opening a 2025-era session over Streamable HTTP: an ``initialize`` POST without a session
id gets a new session (an :class:`~mcpkit.transports.http.session_transport.HttpSessionTransport`,
or a Redis view when sessions are shared), held by the app's session host once its
``initialize`` succeeded. Past ``max_sessions_per_client`` (sessions of one authenticated
principal, else of one remote address) the answer is 429, past ``max_sessions`` 503, each
after the idle sessions were reaped.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, MessageKind
from mcpkit.owner import principal as current_owner
from mcpkit.transports.http.asgi import SSE_HEADERS, Scope, Send, respond_error, respond_json
from mcpkit.transports.http.session_transport import HttpSessionTransport, stored_answer

if TYPE_CHECKING:
    from mcpkit.transports.http.app_view import HttpApp

__all__ = ["open_session"]


async def open_session(app: HttpApp, msg: dict[str, Any], send: Send, scope: Scope) -> None:
    """Serve an ``initialize`` POST (no session id) with a new session, within the
    app's ``max_sessions_per_client`` and ``max_sessions``."""
    owner = current_owner()
    client = owner if owner is not None else _remote_address(scope)
    if client is not None:
        cap = app.options.max_sessions_per_client
        table = app.table
        if cap is not None and table.client_count(client) >= cap:
            await app.host.reap()
            if table.client_count(client) >= cap:
                await respond_error(
                    send,
                    429,
                    INVALID_REQUEST,
                    f"Too many sessions for this client (at most {cap}): end one with "
                    "DELETE or try again later",
                    msg["id"],
                    [(b"retry-after", b"30")],
                )
                return
        # The slot is taken at once: concurrent initializes of one client count too.
        table.take_client(client)
    slot = [client] if client is not None else []
    try:
        await _open(app, msg, send, owner, slot)
    finally:
        for unused in slot:  # no session took it
            app.table.release_client(unused)


async def _open(
    app: HttpApp, msg: dict[str, Any], send: Send, owner: str | None, slot: list[str]
) -> None:
    """Serve an ``initialize`` with a new session; a session kept takes its client's
    ``slot`` (emptied: the slot is given back when the session ends)."""
    limit = app.options.max_sessions
    if len(app.table) >= limit:
        await app.host.reap()
        if len(app.table) >= limit:
            await respond_error(
                send,
                503,
                INVALID_REQUEST,
                "Too many sessions: try again later",
                msg["id"],
                [(b"retry-after", b"5")],
            )
            return
    sid = secrets.token_urlsafe(24)
    while sid in app.table:
        sid = secrets.token_urlsafe(24)
    transport = (HttpSessionTransport if app.shared is None else app.shared.new_transport)(
        sid,
        event_store=app.event_store,
        max_buffer=app.options.max_stream_buffer,
        retry_ms=app.options.sse_retry_ms,
        on_close=app.table.forget,
        slow_reader_timeout=app.options.slow_reader_timeout,
    )
    transport.owner = owner
    if app.sdk_streams and app.json_response:
        transport.drop_json_notifications()
    served = app.served_app()
    if served is not None:
        session = served.open_session(transport)
        await transport.start(session)
    else:
        session = app.session_factory(transport)
        await session.start()
    future = transport.expect_json([msg["id"]])
    session.receive_classified(msg, MessageKind.REQUEST)
    try:
        data = await future
    except asyncio.CancelledError:
        if not future.cancelled():
            await session.close()
            raise
        await session.close()
        await respond_error(send, 500, INVALID_REQUEST, "Session closed during initialize")
        return
    ok = b'"error"' not in data or "error" not in orjson.loads(data)
    headers: list[tuple[bytes, bytes]] = []
    if ok and not session.closed and app.shared is not None:
        transport.protocol_version = session.protocol_version
        try:
            await app.shared.store(transport)
        except Exception as exc:
            await session.close()
            await respond_error(send, 503, INTERNAL_ERROR, str(exc), msg["id"])
            return
    if ok and not session.closed:
        transport.protocol_version = session.protocol_version
        if slot:  # the client's slot is the session's now, given back when it ends
            transport.client_key = slot.pop()
        transport.touch()
        app.host.register(transport)
        headers.append((b"mcp-session-id", sid.encode()))
    else:
        await session.close()
    if app.sdk_streams and not app.json_response:
        # the official SDKs answer initialize on an SSE stream of its one message
        body = b"event: message\r\ndata: " + data + b"\r\n\r\n"
        store = app.event_store
        if store is not None and store.names_events and ok and not session.closed:
            body = stored_answer(transport, data)
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
        await send({"type": "http.response.body", "body": body})
        return
    await respond_json(send, 200, data, headers)


def _remote_address(scope: Scope) -> str | None:
    """The client's address of an HTTP request (what the ASGI server says), or None."""
    client = scope.get("client")
    return "address:" + str(client[0]) if client else None
