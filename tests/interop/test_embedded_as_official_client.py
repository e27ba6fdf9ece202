"""The official SDKs' OAuth clients against mcpkit's embedded authorization server: the
Python one (discovery, dynamic registration, the authorization code with PKCE, a tool call
with the token, a refresh with a rotated refresh token, another call; both eras) and the
TypeScript one (the same flow to the first call)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from mcpkit import Context, Server
from mcpkit.auth import AuthorizationServer, MemoryAuthStore
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.interop.conftest import PEER_SCRIPTS, locate_node_peer, locate_python_peer

CLIENT = PEER_SCRIPTS / "py_oauth_client.py"
TS_CLIENT = PEER_SCRIPTS / "ts_oauth_client.mjs"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_official_python_client(mode: str) -> None:
    python: Path = locate_python_peer().python
    late = Late()
    async with running(late) as base:
        issuer = AuthorizationServer(
            base, resource=base + "/mcp", approve=lambda r: "grace", scopes_supported=["mcp"]
        )
        app = Server("embedded-as", auth=issuer.resource_server())
        issued: list[float] = []

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            issued.append(time.time())
            return f"{ctx.auth.subject} {' '.join(sorted(ctx.auth.scopes))}"

        issuer.install(app)
        late.app = app.http_app()
        proc = await asyncio.create_subprocess_exec(
            str(python),
            str(CLIENT),
            base + "/mcp",
            "whoami",
            "--mode",
            mode,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        await late.app.aclose()
    assert proc.returncode == 0, err.decode()[-3000:]
    report = json.loads(out)
    assert report["first"] == "grace mcp" and report["second"] == "grace mcp"
    assert report["refreshed"] is True and report["client_id"]
    assert len(issued) == 2
    store = issuer.store
    assert isinstance(store, MemoryAuthStore)
    # one refresh token was exchanged (rotated) for the second call
    assert [g.used for g in store.refresh.values()].count(True) == 1


async def test_official_typescript_client() -> None:
    node = locate_node_peer()
    late = Late()
    async with running(late) as base:
        issuer = AuthorizationServer(
            base, resource=base + "/mcp", approve=lambda r: "linus", scopes_supported=["mcp"]
        )
        app = Server("embedded-as", auth=issuer.resource_server())

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.client_id}"

        issuer.install(app)
        late.app = app.http_app()
        proc = await asyncio.create_subprocess_exec(
            str(node.node),
            str(TS_CLIENT),
            base + "/mcp",
            "whoami",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=node.env(),
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        await late.app.aclose()
    assert proc.returncode == 0, err.decode()[-3000:]
    report = json.loads(out)
    assert report["clientId"] and report["text"] == f"linus {report['clientId']}"
    # the run-out access token was refreshed (rotated refresh token) and the call made again
    assert report["second"] == report["text"] and report["refreshed"] is True
