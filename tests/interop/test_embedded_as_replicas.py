"""The embedded authorization server on three replicas sharing one Redis, behind nginx on one
URL, driven by mcpkit's client and the official Python and TypeScript SDKs' clients: the
code is issued by one replica (``/authorize`` goes to r0), redeemed at another and the
refresh served by a third (``/token`` alternates between r1 and r2); MCP requests go round
robin over all three (sessions in Redis). Each replica records what it served, so the test
sees where each step happened rather than assuming it. A revocation at one replica ends the
client's refresh and access tokens at every replica (``check_revocation``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, Context, Server
from mcpkit.auth import (
    AuthorizationServer,
    ClientMetadata,
    MemoryTokenStore,
    OAuthClientAuth,
    RedisAuthStore,
    headless_authorization_handler,
)
from mcpkit.errors import McpkitError
from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.interop.conftest import PEER_SCRIPTS, locate_node_peer, locate_python_peer
from tests.scaleout.cluster import NGINX, STORE_SECRET, free_port, wait_port
from tests.scaleout.cluster import Redis as RedisProcess

PY_CLIENT = PEER_SCRIPTS / "py_oauth_client.py"
TS_CLIENT = PEER_SCRIPTS / "ts_oauth_client.mjs"
REDIRECT = "http://127.0.0.1:3996/callback"

NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream all {{ {all} }}
    upstream tokens {{ {tokens} }}
    server {{
        listen 127.0.0.1:{port};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        proxy_buffering off;
        proxy_read_timeout 600s;
        location = /authorize {{ proxy_pass http://127.0.0.1:{r0}; }}
        location = /token {{ proxy_pass http://tokens; }}
        location / {{ proxy_pass http://all; }}
    }}
}}
"""


@dataclass
class Cluster:
    url: str  # the one public URL (nginx)
    issuers: list[AuthorizationServer]
    #: (replica, step) in the order served: "code issued", "code redeemed", "refreshed"
    served: list[tuple[str, str]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # the replica of each tool call

    def steps(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for replica, step in self.served:
            found.setdefault(step, []).append(replica)
        return found


def record(issuer: AuthorizationServer, name: str, served: list[tuple[str, str]]) -> None:
    """Note in ``served`` each code issued, redeemed and refresh served by this replica."""
    new_code, redeem, refresh = issuer._new_code, issuer._redeem, issuer._refresh

    async def issued(pending: dict[str, Any]) -> str:
        served.append((name, "code issued"))
        return await new_code(pending)

    async def redeemed(client: Any, form: dict[str, str]) -> dict[str, Any]:
        served.append((name, "code redeemed"))
        return await redeem(client, form)

    async def refreshed(client: Any, form: dict[str, str]) -> dict[str, Any]:
        served.append((name, "refreshed"))
        return await refresh(client, form)

    issuer._new_code = issued  # type: ignore[method-assign]
    issuer._redeem = redeemed  # type: ignore[method-assign]
    issuer._refresh = refreshed  # type: ignore[method-assign]


def start_nginx(directory: Path, port: int, ports: list[str]) -> subprocess.Popen[bytes]:
    """nginx on ``port``: /authorize to the first replica, /token alternating between the
    other two, the rest round robin over all."""
    assert os.path.exists(NGINX), f"{NGINX} is missing: run scripts/system_packages.sh"
    conf = directory / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(
            dir=directory,
            port=port,
            r0=ports[0],
            all=" ".join(f"server 127.0.0.1:{p};" for p in ports),
            tokens=" ".join(f"server 127.0.0.1:{p};" for p in ports[1:]),
        )
    )
    proc = subprocess.Popen(
        [NGINX, "-p", str(directory), "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_port(port, proc)
    return proc


def add_whoami(app: Server, name: str, calls: list[str]) -> None:
    @app.tool()
    def whoami(ctx: Context) -> str:
        assert ctx.auth is not None
        calls.append(name)
        return f"{ctx.auth.subject} {' '.join(sorted(ctx.auth.scopes))}"


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[Cluster]:
    redis = RedisProcess(tmp_path)
    redis.start()
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    key = AuthorizationServer(public, resource=public + "/mcp", approve=lambda r: "x")._key
    names = ["r0", "r1", "r2"]
    stores = [RedisAuthStore(redis.url) for _ in names]
    backends = [
        RedisBackend(redis.url, prefix=f"as{port}", secret=STORE_SECRET, replica_id=name)
        for name in names
    ]
    lates = [Late() for _ in names]
    nginx: subprocess.Popen[bytes] | None = None
    cluster = Cluster(public, [])
    try:
        async with contextlib.AsyncExitStack() as stack:
            bases = [await stack.enter_async_context(running(late)) for late in lates]
            for name, late, store, backend in zip(names, lates, stores, backends, strict=True):
                issuer = AuthorizationServer(
                    public,
                    resource=public + "/mcp",
                    approve=lambda r: "grace",
                    scopes_supported=["mcp"],
                    store=store,
                    signing_key=key,
                    check_revocation=True,
                )
                record(issuer, name, cluster.served)
                app = Server("replica", auth=issuer.resource_server(), store=backend)
                add_whoami(app, name, cluster.calls)
                issuer.install(app)
                late.app = app.http_app()
                cluster.issuers.append(issuer)
            ports = [b.rsplit(":", 1)[1] for b in bases]
            nginx = await asyncio.to_thread(start_nginx, tmp_path, port, ports)
            yield cluster
            nginx.terminate()
            await asyncio.to_thread(nginx.wait, 10)
            for late in lates:
                await late.app.aclose()
    finally:
        if nginx is not None and nginx.poll() is None:
            nginx.kill()
        for store in stores:
            await store.aclose()
        for backend in backends:
            await backend.aclose()
        redis.stop()


async def check_revocation(
    cluster: Cluster,
    client_id: str,
    tokens: dict[str, Any],
    secret: str | None = None,
    method: str | None = None,
) -> None:
    """The client's refresh token revoked in its name at one replica: no replica accepts
    its access token or refreshes it any more."""
    import httpx

    me: dict[str, str] = {"client_id": client_id}
    auth: Any = None
    if secret is not None and method == "client_secret_basic":
        auth = httpx.BasicAuth(client_id, secret)
    elif secret is not None:
        me["client_secret"] = secret
    access, refresh = tokens["access_token"], tokens["refresh_token"]
    for issuer in cluster.issuers:
        assert (await issuer.resource_server()._verify(access)).subject == "grace"  # type: ignore[misc]
    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.post(cluster.url + "/revoke", data={"token": refresh, **me}, auth=auth)
        assert r.status_code == 200, r.text
        for _ in range(2):  # /token alternates between r1 and r2
            r = await http.post(
                cluster.url + "/token",
                data={"grant_type": "refresh_token", "refresh_token": refresh, **me},
                auth=auth,
            )
            assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
    for issuer in cluster.issuers:
        with pytest.raises(McpkitError, match="revoked"):
            await issuer.resource_server()._verify(access)  # type: ignore[misc]


def check_spread(cluster: Cluster) -> None:
    """One code issued at r0, redeemed at another replica, the refresh at the third."""
    steps = cluster.steps()
    assert steps["code issued"] == ["r0"], cluster.served
    assert len(steps["code redeemed"]) == 1 and len(steps["refreshed"]) == 1, cluster.served
    assert {"r0", steps["code redeemed"][0], steps["refreshed"][0]} == {"r0", "r1", "r2"}
    assert len(cluster.calls) == 2


async def test_mcpkit_client_on_three_replicas(cluster: Cluster) -> None:
    url = cluster.url + "/mcp"
    tokens = MemoryTokenStore()
    flow = OAuthClientAuth(
        url,
        authorization_handler=headless_authorization_handler(),
        client_metadata=ClientMetadata(client_name="replicas", redirect_uris=[REDIRECT]),
        store=tokens,
    )
    async with Client(url, auth=flow) as c:
        assert (await c.call_tool("whoami")).content[0].text == "grace mcp"
        first = await tokens.get_token(url)
        assert first is not None
        first.expires_at = 0  # run out: refreshed at the next request
        assert (await c.call_tool("whoami")).content[0].text == "grace mcp"
        second = await tokens.get_token(url)
        assert second is not None and second.refresh_token != first.refresh_token
    check_spread(cluster)
    client = await tokens.get_client(cluster.url)
    assert client is not None
    held = {"access_token": second.access_token, "refresh_token": second.refresh_token}
    await check_revocation(
        cluster, client.client_id, held, client.client_secret, client.token_endpoint_auth_method
    )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_official_python_client_on_three_replicas(cluster: Cluster, mode: str) -> None:
    python = locate_python_peer().python
    proc = await asyncio.create_subprocess_exec(
        str(python),
        str(PY_CLIENT),
        cluster.url + "/mcp",
        "whoami",
        "--mode",
        mode,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()[-3000:]
    report = json.loads(out)
    assert report["first"] == report["second"] == "grace mcp" and report["refreshed"] is True
    check_spread(cluster)
    await check_revocation(
        cluster,
        report["client_id"],
        report["tokens"],
        report["client_secret"],
        report["token_endpoint_auth_method"],
    )


async def test_official_typescript_client_on_three_replicas(cluster: Cluster) -> None:
    node = locate_node_peer()
    proc = await asyncio.create_subprocess_exec(
        str(node.node),
        str(TS_CLIENT),
        cluster.url + "/mcp",
        "whoami",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=node.env(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()[-3000:]
    report = json.loads(out)
    assert report["text"] == report["second"] == "grace mcp" and report["refreshed"] is True
    check_spread(cluster)
    await check_revocation(cluster, report["clientId"], report["tokens"])
