"""The HTTP+SSE endpoints of the official SDK's ``run(transport="sse")`` (its
``sse_app()``): ``GET /sse`` opens a session's stream, whose ``endpoint`` event names
``/messages/?session_id=...``, and the POSTs to ``/messages/`` are answered as the SDK's
``SseServerTransport`` answers them (``202 Accepted``, or its 400/404/405/413 with the same
texts). Served in place of mcpkit's own HTTP+SSE endpoints by the app ``run("sse")`` makes,
behind its Host/Origin and bearer checks."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from mcpkit.compat.mcp.server.sse import DEFAULT_MAX_REQUEST_BODY_SIZE, SseServerTransport
from mcpkit.transports.http.asgi import Receive, RequestHeaders, Scope, Send, respond

if TYPE_CHECKING:
    from mcpkit.server.app import Server as NativeServer

__all__ = ["SdkSseEndpoints"]


class SdkSseEndpoints:
    """``sse_path`` and ``message_path`` of the SDK's SSE app for ``server`` (what
    :class:`~mcpkit.transports.http.server.StreamableHTTPApp` asks its ``legacy`` part)."""

    def __init__(
        self,
        server: NativeServer[Any],
        sse_path: str = "/sse",
        message_path: str = "/messages/",
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
        lifespan: Callable[[], AbstractAsyncContextManager[Any]] | None = None,
    ) -> None:
        self.server = server
        #: Entered by each connection (as the SDK's ``Server.run`` enters the lifespan),
        #: what it yields kept in the server's ``connection_lifespans`` (None: not).
        self.lifespan = lifespan
        self.transport = SseServerTransport(message_path, None, max_request_body_size)
        self.sse_path = "/" + sse_path.strip("/")
        self.messages_path = "/" + message_path.strip("/")
        #: Whether the messages path is a mount (``/messages/``: any path under it).
        self.mounted = message_path.endswith("/")

    async def handle(
        self, path: str, method: str, scope: Scope, h: RequestHeaders, receive: Receive, send: Send
    ) -> bool:
        """Serve the request if it is for one of the two endpoints (``path`` without its
        trailing slash); False otherwise."""
        if path == self.sse_path:
            if method not in ("GET", "HEAD"):
                text = b"Method Not Allowed"
                head = [
                    (b"allow", b"GET, HEAD"),
                    (b"content-length", b"%d" % len(text)),
                    (b"content-type", b"text/plain; charset=utf-8"),
                ]
                await respond(send, 405, text, head)
                return True
            async with self.transport.connect_sse(scope, receive, send) as streams:
                connection = streams[0].connection
                if self.lifespan is None:
                    await connection.serve(self.server)
                    return True
                entries: dict[str, Any] = self.server.connection_lifespans  # type: ignore[attr-defined]
                async with self.lifespan() as state:
                    entries[connection.session_id] = state
                    try:
                        await connection.serve(self.server)
                    finally:
                        entries.pop(connection.session_id, None)
            return True
        if path != self.messages_path:
            return False
        raw: str = scope["path"]
        if self.mounted and not raw.endswith("/"):
            # Starlette's router sends the path of a mount without its slash there.
            query = scope.get("query_string", b"")
            location = f"{scope.get('scheme', 'http')}://{h.host or 'localhost'}{raw}/"
            if query:
                location += "?" + query.decode("latin-1")
            head = [(b"content-length", b"0"), (b"location", location.encode())]
            await respond(send, 307, b"", head)
            return True
        await self.transport.handle_post_message(scope, receive, send)
        return True

    async def aclose(self) -> None:
        """Nothing to end: each stream ends its session."""
