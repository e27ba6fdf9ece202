"""The request body limit of the authorization server the SDK serves beside an MCP endpoint
(``auth_server_provider=``; fastmcp's ``OAuthProvider``): the same server on the SDK and
unchanged on mcpkit is sent a body over 4 MiB at each endpoint, declared by its length or
streamed without one, and one within the limit; status, headers (CORS ones included) and
body must be equal."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_fastmcp_auth import started as started_fastmcp
from tests.compat.test_mcp_auth import PROVIDER, started

pytestmark = pytest.mark.timeout(180)

LIMIT = 4 * 1024 * 1024
FORM = {"content-type": "application/x-www-form-urlencoded", "origin": "http://app.example"}
VARYING = {"date", "server", "transfer-encoding"}


def chunks(size: int) -> Iterator[bytes]:
    """At least ``size`` bytes in 64 KiB pieces (sent chunked: no length declared), the
    limit passed by the last piece only, so the server answers once all was sent."""
    piece = b"a=" + b"x" * (64 * 1024 - 2)
    sent = 0
    while sent < size:
        yield piece
        sent += len(piece)


def declared_too_large(base: str, path: str) -> tuple[int, dict[str, str], str]:
    """The answer to a POST declaring a body over the limit, sent without the body (the
    server answers before reading it; sending it would race the server's close)."""
    host, port = base.removeprefix("http://").split(":")
    head = "".join(f"{k}: {v}\r\n" for k, v in FORM.items())
    request = f"POST {path} HTTP/1.1\r\nhost: {host}:{port}\r\n{head}"
    request += f"content-length: {LIMIT + 1}\r\n\r\n"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request.encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            raw += sock.recv(65536)
        top, _, body = raw.partition(b"\r\n\r\n")
        lines = top.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        while len(body) < int(headers.get("content-length", "0")):
            body += sock.recv(65536)
    kept = {k: v for k, v in headers.items() if k not in VARYING and k != "connection"}
    return int(lines[0].split()[1]), kept, body.decode()


def answers(base: str, unlimited: tuple[str, ...] = ()) -> dict[str, Any]:
    """Each endpoint's answer to a body too large (declared, streamed) and one within (no
    declared one for the ``unlimited`` paths: they would wait for it)."""
    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=60) as http:
        for path in ("/authorize", "/token", "/register", "/revoke"):
            if path not in unlimited:
                out[f"{path} declared"] = declared_too_large(base, path)
            for label, content in (
                ("streamed", chunks(LIMIT + 1)),
                ("within", b"a=b"),
            ):
                answer = http.post(path, content=content, headers=FORM)
                headers = {k: v for k, v in answer.headers.items() if k not in VARYING}
                if answer.status_code == 413:
                    out[f"{path} {label}"] = (answer.status_code, headers, answer.text)
                else:  # not the limit's answer (what else is refused is compared elsewhere)
                    out[f"{path} {label}"] = "not limited"
    return out


@pytest.mark.parametrize(("peer_name", "generation"), [("mcp2", "v2"), ("mcp1", "v1")])
def test_authorization_server_body_limit_as_on_the_sdk(peer_name: str, generation: str) -> None:
    """``/authorize``, ``/token``, ``/register`` and ``/revoke`` answer a body over 4 MiB
    with the SDK's 413 "Request body too large" (with the CORS headers where CORS is on)."""
    with started(peer_name, [PROVIDER, generation, "PORT"]) as (sdk, ours):
        expected = answers(sdk)
        got = answers(ours)
    assert got == expected
    for path in ("/authorize", "/token", "/register", "/revoke"):
        assert expected[f"{path} declared"][0] == expected[f"{path} streamed"][0] == 413
        assert expected[f"{path} within"] == "not limited"
    assert expected["/token declared"][1]["access-control-allow-origin"] == "*"


def test_fastmcp_authorization_server_body_limit() -> None:
    """fastmcp's ``OAuthProvider``: the same, but for its own ``/token``, which has none."""
    server = str(Path(SERVERS) / "fastmcp_oauth_memory.py")
    with started_fastmcp([server, "memory"]) as (sdk, ours):
        expected = answers(sdk, ("/token",))
        got = answers(ours, ("/token",))
    assert got == expected
    assert expected["/register declared"][0] == 413
    assert expected["/token streamed"] == "not limited"
