"""Request limits under real uvicorn: oversized headers get 431, a body that does not arrive
in time gets 408, an idle keep-alive connection is closed."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import httpx

from mcpkit import Server
from mcpkit.transports.http import running

INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)


async def test_a_single_huge_header_and_too_many_headers_get_431() -> None:
    asgi = Server("limits").http_app()
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        headers = {"accept": "application/json, text/event-stream"}
        headers["content-type"] = "application/json"
        ok = await http.post(base + "/mcp", content=INIT, headers=headers)
        assert ok.status_code == 200
        huge = await http.post(
            base + "/mcp", content=INIT, headers={**headers, "x-big": "a" * (1024 * 1024)}
        )
        assert huge.status_code == 431
        many = {**headers, **{f"x-h{i}": "1" for i in range(150)}}
        assert (await http.post(base + "/mcp", content=INIT, headers=many)).status_code == 431
    await asgi.aclose()


async def open_raw(base: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    return reader, writer, parts.netloc


async def test_a_body_that_stops_arriving_gets_408() -> None:
    asgi = Server("limits").http_app(body_timeout=0.3)
    async with running(asgi) as base:
        reader, writer, netloc = await open_raw(base)
        try:
            writer.write(
                f"POST /mcp HTTP/1.1\r\nHost: {netloc}\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
                '{"jsonrpc":'.encode()
            )
            await writer.drain()
            started = time.monotonic()
            status = await asyncio.wait_for(reader.readline(), 5)
            assert status.startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 3
        finally:
            writer.close()
    await asgi.aclose()


async def test_an_idle_keep_alive_connection_is_closed() -> None:
    asgi = Server("limits").http_app()
    async with running(asgi, timeout_keep_alive=1) as base:
        reader, writer, netloc = await open_raw(base)
        try:
            writer.write(f"GET / HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200")
            started = time.monotonic()
            rest = await asyncio.wait_for(reader.read(), 5)  # the body, then EOF when closed
            assert b"MCP server" in rest
            assert 0.5 < time.monotonic() - started < 4
        finally:
            writer.close()
    await asgi.aclose()


async def test_a_request_head_that_stops_arriving_gets_408_and_is_closed() -> None:
    asgi = Server("limits").http_app()
    async with running(asgi, head_timeout=0.3) as base:
        reader, writer, netloc = await open_raw(base)
        try:
            writer.write(f"POST /mcp HTTP/1.1\r\nHost: {netloc}\r\nX-Slow: ".encode())
            await writer.drain()
            started = time.monotonic()
            answer = await asyncio.wait_for(reader.read(), 5)  # everything, up to the close
            assert answer.startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 3
        finally:
            writer.close()
        # A connection that sends nothing at all is closed too.
        reader, writer, _ = await open_raw(base)
        try:
            assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.1 408")
        finally:
            writer.close()
        # Normal requests are unaffected.
        async with httpx.AsyncClient(timeout=5) as http:
            assert (await http.get(base + "/")).status_code == 200
    await asgi.aclose()
