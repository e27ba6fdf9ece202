"""The official Python and TypeScript SDKs' clients identify themselves to mcpkit's embedded
authorization server with client ID metadata documents (no registration): each document is
served over HTTPS on 127.0.0.1 with a certificate of a private CA the server is told to
trust (``verify=``), and loopback is allowed (``allow_loopback``, the development setting).
The server fetches each document once, the clients authorize, call a tool and refresh with
the document URL as their client_id."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mcpkit import Context, Server
from mcpkit.auth import AuthorizationServer, ClientMetadataDocuments, MemoryAuthStore
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.interop.conftest import PEER_SCRIPTS, locate_node_peer, locate_python_peer

PY_CLIENT = PEER_SCRIPTS / "py_oauth_client.py"
TS_CLIENT = PEER_SCRIPTS / "ts_oauth_client.mjs"
REDIRECTS = {"py": "http://127.0.0.1:3998/callback", "ts": "http://127.0.0.1:3997/callback"}


def certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1: (certificate, key) PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def run_peer(sdk: str, url: str, document: str) -> dict[str, Any]:
    if sdk == "py":
        python = locate_python_peer().python
        command = [str(python), str(PY_CLIENT), url, "whoami", "--mode", "2026-07-28"]
        command += ["--client-metadata-url", document]
        env = None
    else:
        node = locate_node_peer()
        command = [str(node.node), str(TS_CLIENT), url, "whoami"]
        env = {**node.env(), "CLIENT_METADATA_URL": document}
    proc = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()[-3000:]
    return dict(json.loads(out))


async def test_official_clients_with_client_id_metadata_documents(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    hits: list[str] = []
    documents: dict[str, bytes] = {}

    async def serve(request: Request) -> Response:
        hits.append(request.url.path)
        body = documents.get(request.url.path)
        if body is None:
            return Response(b"", 404)
        return Response(body, headers={"content-type": "application/json"})

    trusted = ssl.create_default_context(cafile=str(cert))
    docs_app = Starlette(routes=[Route("/{name:path}", serve)])
    late = Late()
    async with (
        running(late) as base,
        running(
            docs_app, server="uvicorn", ssl_certfile=str(cert), ssl_keyfile=str(key)
        ) as docs_base,
    ):
        origin = "https://" + docs_base.split("://", 1)[1]
        urls = {sdk: f"{origin}/clients/{sdk}.json" for sdk in REDIRECTS}
        for sdk, doc_url in urls.items():
            documents[f"/clients/{sdk}.json"] = orjson.dumps(
                {
                    "client_id": doc_url,
                    "client_name": f"official-{sdk}",
                    "redirect_uris": [REDIRECTS[sdk]],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                }
            )
        issuer = AuthorizationServer(
            base,
            resource=base + "/mcp",
            approve=lambda r: "grace",
            scopes_supported=["mcp"],
            client_id_metadata_documents=ClientMetadataDocuments(
                allow_loopback=True, verify=trusted
            ),
        )
        app = Server("embedded-as", auth=issuer.resource_server())

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.client_id}"

        issuer.install(app)
        late.app = app.http_app()
        try:
            py = await run_peer("py", base + "/mcp", urls["py"])
            ts = await run_peer("ts", base + "/mcp", urls["ts"])
        finally:
            await late.app.aclose()
    assert py["first"] == py["second"] == f"grace {urls['py']}"
    assert py["refreshed"] is True and py["client_id"] == urls["py"]
    assert ts["text"] == ts["second"] == f"grace {urls['ts']}"
    assert ts["refreshed"] is True and ts["clientId"] == urls["ts"]
    store = issuer.store
    assert isinstance(store, MemoryAuthStore) and store.clients == {}  # nobody registered
    # each document fetched once (cached for the authorization, the code, the refresh)
    assert sorted(hits) == ["/clients/py.json", "/clients/ts.json"]
