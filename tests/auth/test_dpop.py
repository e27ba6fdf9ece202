"""DPoP (RFC 9449) on the client: proofs on the token request and on every request to the
protected resource, ``Authorization: DPoP``, and the nonce retries at both servers. The
protected resource here is a small HTTP stub (no MCP traffic): it checks the proofs."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcpkit.auth import OAuthClientAuth, headless_authorization_handler
from mcpkit.auth.dpop import DPoPKey, htu_of
from mcpkit.transports.http import running
from tests.auth.mock_as import MockAS, check_proof


class DPoPResource:
    def __init__(self, mock: MockAS, nonce: str | None) -> None:
        self.mock = mock
        self.nonce = nonce
        self.base = ""
        self.jtis: list[str] = []
        self.schemes: list[str] = []

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/.well-known/oauth-protected-resource/mcp", self.prm),
                Route("/mcp", self.mcp, methods=["POST"]),
            ]
        )

    async def prm(self, request: Request) -> Response:
        return JSONResponse(
            {"resource": self.base + "/mcp", "authorization_servers": [self.mock.issuer]}
        )

    async def mcp(self, request: Request) -> Response:
        meta = f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        self.schemes.append(scheme)
        if scheme != "DPoP" or token not in self.mock.dpop_keys:
            return Response(status_code=401, headers={"www-authenticate": f"DPoP {meta}"})
        claims, jkt = check_proof(request.headers["dpop"], "POST", self.base + "/mcp")
        digest = hashlib.sha256(token.encode()).digest()
        assert claims["ath"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        assert jkt == self.mock.dpop_keys[token]
        self.jtis.append(claims["jti"])
        if self.nonce is not None and claims.get("nonce") != self.nonce:
            return Response(
                status_code=401,
                headers={
                    "www-authenticate": f'DPoP error="use_dpop_nonce", {meta}',
                    "dpop-nonce": self.nonce,
                },
            )
        return JSONResponse({"ok": True})


async def run_flow(as_nonce: str | None, rs_nonce: str | None) -> tuple[MockAS, DPoPResource]:
    mock = MockAS(dpop=True, dpop_nonce=as_nonce)
    rs = DPoPResource(mock, rs_nonce)
    async with running(mock.app()) as as_base, running(rs.app()) as rs_base:
        mock.base, rs.base = as_base, rs_base
        auth = OAuthClientAuth(
            rs_base + "/mcp", authorization_handler=headless_authorization_handler()
        )
        async with httpx.AsyncClient(auth=auth) as http:
            for _ in range(3):
                r = await http.post(rs_base + "/mcp", json={})
                assert r.status_code == 200
        assert auth.token is not None and auth.token.token_type == "DPoP"
    return mock, rs


async def test_dpop_bound_tokens() -> None:
    mock, rs = await run_flow(None, None)
    [token_request] = mock.events("token")
    assert "dpop" in token_request
    assert len(rs.jtis) == 3 and len(set(rs.jtis)) == 3  # a fresh proof every time
    assert rs.schemes == ["", "DPoP", "DPoP", "DPoP"]


async def test_dpop_nonces() -> None:
    mock, rs = await run_flow("as-nonce", "rs-nonce")
    tokens = mock.events("token")
    assert [t["dpop"].get("nonce") for t in tokens] == [None, "as-nonce"]
    # one retry for the resource's nonce; later requests carry it from the start
    assert rs.schemes == ["", "DPoP", "DPoP", "DPoP", "DPoP"]


def test_proof_claims() -> None:
    key = DPoPKey()
    proof = key.proof("get", "https://rs.example/mcp?x=1#f", access_token="tok", nonce="n")
    claims, jkt = check_proof(proof, "GET", "https://rs.example/mcp")
    assert claims["nonce"] == "n" and jkt == key.thumbprint
    assert htu_of("https://a/b?c#d") == "https://a/b"


async def test_no_dpop_without_challenge() -> None:
    """Plain bearer servers get plain bearer tokens even if the AS could bind them."""
    mock = MockAS(dpop=True)
    async with running(mock.app()) as as_base:
        mock.base = as_base
        auth: Any = OAuthClientAuth(
            "http://127.0.0.1:1/mcp", authorization_handler=headless_authorization_handler()
        )
        assert auth._tokens.dpop_for(await _meta(mock)) is None
        auth._tokens.dpop_challenged = True
        assert auth._tokens.dpop_for(await _meta(mock)) is not None


async def _meta(mock: MockAS) -> Any:
    from mcpkit.auth.discovery import discover_authorization_server

    async with httpx.AsyncClient() as http:
        return await discover_authorization_server(http, mock.issuer)
