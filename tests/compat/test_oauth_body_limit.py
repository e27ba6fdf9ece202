"""The request body limit of the authorization server the SDK serves beside an MCP endpoint
(``auth_server_provider=``; fastmcp's ``OAuthProvider``): the same server on the SDK and
unchanged on mcpkit is sent a body over 4 MiB at each endpoint, declared by its length or
streamed without one, and one within the limit; status, headers (CORS ones included) and
body must be equal."""

from __future__ import annotations

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
    """``size`` bytes in 64 KiB pieces (sent chunked: no length declared)."""
    piece = b"a=" + b"x" * (64 * 1024 - 2)
    sent = 0
    while sent < size:
        yield piece
        sent += len(piece)


def answers(base: str) -> dict[str, Any]:
    """Each endpoint's answer to a body too large (declared, streamed) and one within."""
    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=60) as http:
        for path in ("/authorize", "/token", "/register", "/revoke"):
            for label, content in (
                ("declared", b"a=" + b"x" * LIMIT),
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
        expected = answers(sdk)
        got = answers(ours)
    assert got == expected
    assert expected["/register declared"][0] == 413
    assert expected["/token declared"] == "not limited"
