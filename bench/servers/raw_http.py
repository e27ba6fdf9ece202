"""Baseline: MCP Streamable HTTP on plain asyncio streams and orjson (no framework).

Usage: python raw_http.py --port P [--stateless] [--json-response] [--tools N]

HTTP/1.1 keep-alive, POST (and DELETE to end a session). With sessions an initialize gets
an Mcp-Session-Id and every later request must carry a known one; without --json-response
the answer is one SSE event (`event: message`) in a Content-Length body, otherwise plain
JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

import orjson
from raw_stdio import add_tools, handle

SESSIONS: set[bytes] = set()


def response(status: bytes, body: bytes = b"", ctype: bytes = b"", extra: bytes = b"") -> bytes:
    head = b"HTTP/1.1 " + status + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n"
    if ctype:
        head += b"content-type: " + ctype + b"\r\n"
    return head + extra + b"\r\n" + body


async def serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stateless: bool, json_response: bool
) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            headers = {}
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
            sid = headers.get(b"mcp-session-id")
            if head.startswith(b"DELETE "):  # end a session
                found = sid in SESSIONS
                SESSIONS.discard(sid or b"")
                writer.write(response(b"200 OK" if found else b"404 Not Found"))
                continue
            msg = orjson.loads(body)
            extra = b""
            if not stateless and isinstance(msg, dict) and msg.get("method") == "initialize":
                sid = uuid.uuid4().hex.encode()
                SESSIONS.add(sid)
                extra = b"mcp-session-id: " + sid + b"\r\n"
            elif not stateless and sid not in SESSIONS:
                writer.write(response(b"404 Not Found"))
                continue
            resp = handle(msg)
            if resp is None:
                writer.write(response(b"202 Accepted"))
            elif json_response:
                writer.write(response(b"200 OK", orjson.dumps(resp), b"application/json", extra))
            else:
                data = b"event: message\ndata: " + orjson.dumps(resp) + b"\n\n"
                writer.write(response(b"200 OK", data, b"text/event-stream", extra))
    except (asyncio.IncompleteReadError, ConnectionError, orjson.JSONDecodeError, ValueError):
        pass
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    args = parser.parse_args()
    add_tools(args.tools)
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, args.stateless, args.json_response),
        "127.0.0.1",
        args.port,
        limit=1 << 24,
    )
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
