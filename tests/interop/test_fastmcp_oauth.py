"""mcpkit's OAuth client against an authorization server built on the official SDK's auth
routes (fastmcp's InMemoryOAuthProvider, run from fastmcp's own interpreter): it registers
dynamically, authenticates at the token endpoint the way the server prefers
(``client_secret_post``, listed first) and, registered for ``client_secret_basic``, sends
``client_id`` in the form beside the Basic header (that token handler requires it)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from mcpkit import Client
from mcpkit.auth import ClientMetadata, OAuthClientAuth, headless_authorization_handler
from tests.interop.conftest import PEERS_DIR

SERVER = Path(__file__).resolve().parent / "peers" / "fastmcp_oauth_server.py"
FASTMCP_PYTHON = PEERS_DIR / "fastmcp" / "bin" / "python"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def fastmcp_oauth() -> AsyncIterator[str]:
    if not FASTMCP_PYTHON.exists():
        pytest.fail(f"fastmcp is not installed ({FASTMCP_PYTHON}): run scripts/peers.sh")
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        str(FASTMCP_PYTHON),
        str(SERVER),
        str(port),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,  # its request log would fill a pipe
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                if proc.returncode is not None:
                    raise RuntimeError(f"the fastmcp server exited ({proc.returncode})")
                with contextlib.suppress(httpx.TransportError):
                    r = await http.get(base + "/.well-known/oauth-authorization-server")
                    if r.status_code == 200:
                        break
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError("the fastmcp server did not start")
        yield base
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


def auth(url: str, method: str | None = None) -> OAuthClientAuth:
    return OAuthClientAuth(
        url,
        authorization_handler=headless_authorization_handler(),
        client_metadata=ClientMetadata(
            client_name="mcpkit-interop",
            redirect_uris=["http://127.0.0.1:3999/callback"],
            token_endpoint_auth_method=method,
        ),
    )


@pytest.mark.parametrize("method", [None, "client_secret_basic", "client_secret_post"])
async def test_oauth_against_the_official_sdk_auth_routes(
    fastmcp_oauth: str, method: str | None
) -> None:
    url = fastmcp_oauth + "/mcp"
    flow = auth(url, method)
    async with Client(url, auth=flow) as c:
        client_id = (await c.call_tool("whoami")).content[0].text
    registered = flow._client_info
    assert registered is not None and registered.client_id == client_id
    # without a choice of its own the client takes the server's first listed method
    assert registered.token_endpoint_auth_method == (method or "client_secret_post")
