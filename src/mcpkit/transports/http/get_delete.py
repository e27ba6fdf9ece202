"""GET and DELETE of the Streamable HTTP endpoint (2025-era sessions only).

GET opens the session's standalone SSE stream, or with ``Last-Event-ID`` resumes a stream
from the event after that one; DELETE ends the session (in the shared store too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from mcpkit.transports.http.asgi import (
    NO_BODY,
    SSE_HEADERS,
    Receive,
    RequestHeaders,
    Send,
    accepts,
    respond,
    respond_error,
)
from mcpkit.transports.http.host import end_session
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection

if TYPE_CHECKING:
    from mcpkit.transports.http.app_view import HttpApp

__all__ = ["serve_delete", "serve_get"]


async def _session_for(app: HttpApp, h: RequestHeaders, send: Send) -> HttpSessionTransport | None:
    """The session a GET or DELETE names (None: answered here, 400 or 404)."""
    pv = h.protocol_version
    if pv is not None and pv not in app.supported_names:
        await respond_error(send, 400, INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {pv!r}")
        return None
    sid = h.session_id
    if sid is None:
        await respond_error(
            send, 400, INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header"
        )
        return None
    return await app.session_of(sid, send, None, False)


async def serve_get(app: HttpApp, h: RequestHeaders, receive: Receive, send: Send) -> None:
    """The session's standalone stream, or a stream resumed after ``Last-Event-ID``."""
    if not accepts(h.accept, "text/event-stream"):
        await respond_error(send, 406, INVALID_REQUEST, "Not Acceptable: accept text/event-stream")
        return
    transport = await _session_for(app, h, send)
    if transport is None:
        return
    conn = SSEConnection(app.options.max_stream_buffer)
    if h.last_event_id:
        if app.shared is not None:
            try:
                resumed = await transport.aresume(h.last_event_id, conn)  # type: ignore[attr-defined]
            except Exception as exc:
                await respond_error(send, 503, INTERNAL_ERROR, str(exc))
                return
        else:
            resumed = transport.resume(h.last_event_id, conn)
        if not resumed:
            await respond_error(
                send,
                400,
                INVALID_REQUEST,
                "Bad Request: unknown Last-Event-ID for this session (cannot resume)",
            )
            return
    else:
        transport.open_standalone(conn)
    headers = [*SSE_HEADERS, (b"mcp-session-id", transport.session_id.encode())]  # type: ignore[union-attr]
    await app.stream_sse(transport, conn, headers, receive, send, watch=True)


async def serve_delete(app: HttpApp, h: RequestHeaders, send: Send) -> None:
    """End the session (200), in the shared store first when there is one."""
    transport = await _session_for(app, h, send)
    if transport is None:
        return
    if app.shared is not None and transport.session_id is not None:
        try:
            await app.shared.delete(transport.session_id)
        except Exception as exc:
            await respond_error(send, 503, INTERNAL_ERROR, str(exc))
            return
    await end_session(transport)
    await respond(send, 200, b"", NO_BODY)
