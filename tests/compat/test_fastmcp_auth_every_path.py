"""A fastmcp server with ``auth=`` is behind its token checks however it is served: the CLI
(``mcpkit run --compat file.py:mcp -t http``, ``mcpkit run file.py:mcp -t http``, with
``--workers``), ``mcp.run("http")``, ``run("streamable-http")``, ``run("sse")`` and
``http_app()``. A request without a token, or with a wrong one, gets fastmcp's 401 over real
HTTP on 127.0.0.1, never an answer of the server; a good token is served."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.driving import warmed
from tests.compat.test_compat import free_port
from tests.compat.test_fastmcp_auth import ACCEPT, INIT, ISSUER, keypair, token

pytestmark = pytest.mark.timeout(180)

SERVER = """\
import sys

from {package} import FastMCP
from {package}.server.auth import OAuthProxy
from {package}.server.auth.providers.jwt import JWTVerifier, StaticTokenVerifier

PEM = {pem!r}
AUTHS = {{
    "static": lambda: StaticTokenVerifier(tokens={{"good": {{"client_id": "c", "scopes": []}}}}),
    "jwt": lambda: JWTVerifier(public_key=PEM, issuer={issuer!r}),
    "proxy": lambda: OAuthProxy(
        upstream_authorization_endpoint="https://idp.example.com/authorize",
        upstream_token_endpoint="https://idp.example.com/token",
        upstream_client_id="c",
        upstream_client_secret="s",
        token_verifier=StaticTokenVerifier(tokens={{}}),
        base_url="http://127.0.0.1:{port}",
    ),
}}
mcp = FastMCP("guarded", auth=AUTHS[{kind!r}]())


@mcp.tool
def secret() -> str:
    return "s3cret"


if __name__ == "__main__":
    mcp.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
"""

#: How each way serves the file.
WAYS: dict[str, list[str]] = {
    "cli-compat": [
        "-m",
        "mcpkit",
        "run",
        "-t",
        "http",
        "--port",
        "{port}",
        "--compat",
        "{file}:mcp",
    ],
    "cli": ["-m", "mcpkit", "run", "{file}:mcp", "-t", "http", "--port", "{port}"],
    "cli-workers": [
        "-m",
        "mcpkit",
        "run",
        "{file}:mcp",
        "-t",
        "http",
        "--workers",
        "2",
        "--port",
        "{port}",
    ],
    "run-http": ["{file}", "http", "{port}"],
    "run-streamable-http": ["{file}", "streamable-http", "{port}"],
    "run-sse": ["{file}", "sse", "{port}"],
}


@pytest.fixture(scope="module")
def key() -> Any:
    return keypair()[0]


def server_file(tmp_path: Path, kind: str, way: str, key: Any, port: int) -> Path:
    package = "fastmcp" if way == "cli-compat" else "mcpkit.compat.fastmcp"
    pem = key.as_pem(private=False).decode()
    source = SERVER.format(package=package, pem=pem, issuer=ISSUER, kind=kind, port=port)
    path = tmp_path / f"guarded_{kind}.py"
    path.write_text(source)
    return path


def start(argv: list[str], port: int) -> subprocess.Popen[str]:
    """``argv`` started, once it listens on ``port``."""
    proc = subprocess.Popen(
        warmed(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                stderr = proc.stderr.read() if proc.stderr else ""
                raise AssertionError(f"the server exited: {stderr}") from None
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not start listening")


def refused(answer: httpx.Response) -> None:
    assert answer.status_code == 401, answer.text
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "s3cret" not in answer.text and "result" not in answer.text


@pytest.mark.parametrize("kind", ["static", "jwt", "proxy"])
@pytest.mark.parametrize("way", list(WAYS))
def test_every_serving_path_checks_the_token(tmp_path: Path, key: Any, kind: str, way: str) -> None:
    port = free_port()
    file = server_file(tmp_path, kind, way, key, port)
    argv = [sys.executable, *(part.format(file=file, port=port) for part in WAYS[way])]
    proc = start(argv, port)
    try:
        base = f"http://127.0.0.1:{port}"
        good = {"static": "good", "jwt": token(key), "proxy": None}[kind]
        with httpx.Client(base_url=base, timeout=20) as http:
            for headers in ({}, {"authorization": "Bearer wrong"}):
                refused(http.post("/mcp", json=INIT, headers={**ACCEPT, **headers}))
                if way == "run-sse":
                    refused(http.get("/sse", headers=headers))
                    refused(http.post("/messages/?session_id=x", json=INIT, headers=headers))
            if good is not None:
                bearer = {"authorization": f"Bearer {good}"}
                answer = http.post("/mcp", json=INIT, headers={**ACCEPT, **bearer})
                assert answer.status_code == 200, answer.text
            if kind == "proxy":  # the proxy's authorization server is served beside it
                metadata = http.get("/.well-known/oauth-authorization-server")
                assert metadata.status_code == 200
                assert metadata.json()["token_endpoint"] == f"{base}/token"
    finally:
        proc.terminate()
        proc.wait(10)


def proxy() -> Any:
    from mcpkit.compat.fastmcp.server.auth import OAuthProxy
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import StaticTokenVerifier

    return OAuthProxy(
        upstream_authorization_endpoint="https://idp.example.com/authorize",
        upstream_token_endpoint="https://idp.example.com/token",
        upstream_client_id="c",
        upstream_client_secret="s",
        token_verifier=StaticTokenVerifier(tokens={}),
        base_url="http://127.0.0.1:8000",
    )


async def test_http_app_after_construction_serves_the_proxy_routes_once() -> None:
    """``http_app()`` (and the native app the CLI builds) after construction: the proxy's
    authorization server is installed once, its metadata and endpoints answer as before."""
    from mcpkit.compat.fastmcp import FastMCP

    mcp = FastMCP("guarded", auth=proxy())
    app = mcp.http_app()
    mcp.native.http_app("/mcp")
    paths = [path for path, *_ in mcp.native._custom_routes]
    assert len(paths) == len(set(paths))
    assert "/token" in paths and "/.well-known/oauth-authorization-server" in paths
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        metadata = await http.get("/.well-known/oauth-authorization-server")
        assert metadata.status_code == 200
        assert metadata.json()["token_endpoint"] == "http://127.0.0.1:8000/token"
        resource = await http.get("/.well-known/oauth-protected-resource/mcp")
        assert resource.json()["resource"] == "http://127.0.0.1:8000/mcp"
        refused(await http.post("/mcp", json=INIT, headers=ACCEPT))


async def test_auth_assigned_after_construction_is_honoured() -> None:
    """``mcp.auth = provider`` (a plain attribute in fastmcp) protects every app built
    after it, at the app's own path; ``mcp.auth = None`` takes the checks away."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.server.auth.providers.jwt import StaticTokenVerifier

    mcp = FastMCP("guarded")
    assert mcp.native.auth is None
    mcp.auth = StaticTokenVerifier(tokens={"good": {"client_id": "c", "scopes": []}})
    assert mcp.native.auth is not None
    for app, path in ((mcp.native.http_app("/api"), "/api"), (mcp.http_app(), "/mcp")):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            refused(await http.post(path, json=INIT, headers=ACCEPT))
            bearer = {**ACCEPT, "authorization": "Bearer good"}
            assert (await http.post(path, json=INIT, headers=bearer)).status_code == 200
    mcp.auth = None
    assert mcp.native.auth is None
    transport = httpx.ASGITransport(app=mcp.native.http_app("/mcp"))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        assert (await http.post("/mcp", json=INIT, headers=ACCEPT)).status_code == 200
