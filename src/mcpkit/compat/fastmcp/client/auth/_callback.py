"""The browser step of fastmcp's OAuth client: open the authorization URL in the user's
browser (``webbrowser.open``) and wait on a loopback HTTP server for the redirect back.

:func:`browser_authorization_handler` is an :data:`mcpkit.auth.AuthorizationHandler`: it
returns the URL the browser was sent back to (mcpkit's client checks its ``state``, ``iss``
and code). The browser is opened from a worker thread, so a test may replace
``webbrowser.open`` with a function that follows the redirects itself.
"""

from __future__ import annotations

import asyncio
import html
import webbrowser
from urllib.parse import parse_qs, urlsplit

from mcpkit.auth.authorization_code import AuthorizationHandler

__all__ = ["browser_authorization_handler"]

_PAGE = "<!doctype html><meta charset=utf-8><title>{title}</title><h1>{title}</h1><p>{detail}</p>"


def browser_authorization_handler(
    host: str, port: int, *, path: str = "/callback", timeout: float = 300.0
) -> AuthorizationHandler:
    """Open the authorization URL in a browser and return the redirect received at
    ``http://host:port/path`` (TimeoutError after ``timeout`` seconds)."""

    async def handle(url: str) -> str:
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[str] = loop.create_future()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                line = await reader.readline()
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                parts = line.decode("latin-1").split()
                target = parts[1] if len(parts) >= 2 else "/"
                if urlsplit(target).path != path:
                    await _answer(writer, 404, "Not found", "")
                    return
                query = parse_qs(urlsplit(target).query)
                error = query.get("error", [None])[0]
                if error:
                    detail = query.get("error_description", [error])[0] or error
                    await _answer(writer, 400, "Authentication failed", detail)
                else:
                    await _answer(
                        writer, 200, "Authentication successful", "You may close this window."
                    )
                if not arrived.done():
                    arrived.set_result(f"http://{host}:{port}{target}")
            finally:
                writer.close()

        bind = host.strip("[]")
        server = await asyncio.start_server(
            serve, "127.0.0.1" if bind == "localhost" else bind, port
        )
        try:
            await asyncio.to_thread(webbrowser.open, url)
            return await asyncio.wait_for(arrived, timeout)
        except TimeoutError:
            raise TimeoutError(f"OAuth callback timed out after {timeout} seconds") from None
        finally:
            server.close()
            await server.wait_closed()

    return handle


async def _answer(writer: asyncio.StreamWriter, status: int, title: str, detail: str) -> None:
    body = _PAGE.format(title=html.escape(title), detail=html.escape(detail)).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
