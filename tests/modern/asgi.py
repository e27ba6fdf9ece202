"""Driving an ASGI app in process with one request: no sockets, no HTTP server."""

from __future__ import annotations

from typing import Any

_JSON_AND_SSE = b"application/json, text/event-stream"


def post_scope(*extra: tuple[bytes, bytes], accept: bytes = _JSON_AND_SSE) -> dict[str, Any]:
    """The ASGI scope of a POST to /mcp on 127.0.0.1:8000 with JSON content, ``accept``
    and the ``extra`` headers."""
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", accept),
            (b"content-type", b"application/json"),
            *extra,
        ],
    }


async def post(app: Any, scope: dict[str, Any], body: bytes) -> tuple[int, bytes, list[Any]]:
    """Serve one request whose whole ``body`` is there at once: the answer's status, body
    (every body message joined) and headers."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    head = sent[0]
    return head["status"], b"".join(m.get("body", b"") for m in sent[1:]), head["headers"]
