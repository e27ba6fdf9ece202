"""Raw HTTP helpers for the bad-input and resumption tests."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from mcpkit.transports.http.sse import ServerSentEvent, SSEDecoder

ACCEPT = "application/json, text/event-stream"


def headers(sid: str | None = None, **extra: str) -> dict[str, str]:
    h = {"content-type": "application/json", "accept": ACCEPT}
    if sid is not None:
        h["mcp-session-id"] = sid
        h["mcp-protocol-version"] = "2025-11-25"
    h.update({k.replace("_", "-"): v for k, v in extra.items()})
    return h


def init_message(rid: Any = 0, version: str = "2025-11-25") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }


async def open_session(http: httpx.AsyncClient, url: str, version: str = "2025-11-25") -> str:
    r = await http.post(url, json=init_message(version=version), headers=headers())
    assert r.status_code == 200, r.text
    sid = r.headers["mcp-session-id"]
    r = await http.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=headers(sid),
    )
    assert r.status_code == 202 and r.content == b""
    return sid


def tool_call(rid: Any, name: str, progress: bool = False, **arguments: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if progress:
        params["_meta"] = {"progressToken": f"p{rid}"}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def read_events(
    response: httpx.Response, until: Any = None, decoder: SSEDecoder | None = None
) -> list[ServerSentEvent]:
    """Events of a streamed response until ``until(event)`` is true or the stream ends."""
    decoder = decoder or SSEDecoder()
    out: list[ServerSentEvent] = []
    async for chunk in response.aiter_bytes():
        for event in decoder.feed(chunk):
            out.append(event)
            if until is not None and until(event):
                return out
    return out


def messages(events: list[ServerSentEvent]) -> list[Any]:
    return [orjson.loads(e.data) for e in events if e.data]
