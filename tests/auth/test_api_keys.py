"""API keys without an authorization server: a verifier from a mapping, a file or a
function, scopes and a principal per key, hashed storage, ``Authorization: Bearer`` and
``X-API-Key``, no protected resource metadata for a key-only server, keys beside OAuth."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Client, Context, Server
from mcpkit.auth import AccessToken, APIKey, APIKeyVerifier, ResourceServer, hash_api_key
from mcpkit.auth.discovery import parse_www_authenticate
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.http import raw

ADA = "sk-ada-0123456789abcdef"
BOB = "sk-bob-fedcba9876543210"


def make_server(auth: Any = None) -> Server:
    app = Server("keys", auth=auth)

    @app.tool()
    def whoami(ctx: Context) -> str:
        token = ctx.auth
        assert token is not None
        return f"{token.subject} {token.client_id} {' '.join(sorted(token.scopes))}"

    return app


def keys(**options: Any) -> APIKeyVerifier:
    return APIKeyVerifier(
        {
            ADA: APIKey(subject="ada", client_id="laptop", scopes={"mcp", "admin"}),
            hash_api_key(BOB): "mcp",  # stored as a hash; scopes only
        },
        **options,
    )


def challenge(r: httpx.Response) -> Any:
    [c] = parse_www_authenticate(r.headers["www-authenticate"])
    return c


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_server_auth_takes_a_key_verifier(era: str) -> None:
    asgi = make_server(keys()).http_app()
    async with running(asgi) as base:
        url = base + "/mcp"
        async with Client(url, headers={"Authorization": f"Bearer {ADA}"}, era=era) as c:
            assert (await c.call_tool("whoami")).content[0].text == "ada laptop admin mcp"
        async with Client(url, headers={"Authorization": f"Bearer {BOB}"}, era=era) as c:
            text = (await c.call_tool("whoami")).content[0].text
            # the principal of a key without a subject: derived from its hash, not the key
            assert text == f"key-{hashlib.sha256(BOB.encode()).hexdigest()[:16]} None mcp"
            assert BOB not in text
    await asgi.aclose()


async def test_refusals_and_no_metadata() -> None:
    asgi = make_server(keys()).http_app()
    async with running(asgi) as base, httpx.AsyncClient() as http:
        url = base + "/mcp"
        r = await http.post(url, json=raw.init_message(), headers=raw.headers())
        assert r.status_code == 401
        c = challenge(r)
        assert c.scheme == "bearer" and c.error is None
        assert c.resource_metadata is None  # no OAuth here: nothing to discover
        assert c.params["realm"] == "mcp"
        for bad in (f"Bearer {ADA}x", "Bearer", f"Basic {ADA}", f"Bearer {hash_api_key(BOB)}"):
            r = await http.post(
                url, json=raw.init_message(), headers=raw.headers(authorization=bad)
            )
            assert r.status_code == 401, bad
            assert challenge(r).error == "invalid_token"
            assert r.json()["error"] == "invalid_token"
        # no protected resource metadata: the well-known path is just another path
        prm = base + "/.well-known/oauth-protected-resource/mcp"
        assert (await http.get(prm)).status_code == 401
        r = await http.get(prm, headers={"authorization": f"Bearer {ADA}"})
        assert r.status_code == 404
        assert asgi.auth.metadata is None and asgi.auth.metadata_url is None
    await asgi.aclose()


async def test_x_api_key_header_only_when_asked() -> None:
    for header, accepted in ((None, False), ("X-API-Key", True)):
        asgi = make_server(keys(header=header)).http_app()
        async with running(asgi) as base, httpx.AsyncClient() as http:
            r = await http.post(
                base + "/mcp", json=raw.init_message(), headers=raw.headers(x_api_key=ADA)
            )
            assert (r.status_code == 200) is accepted, r.status_code
            if accepted:
                async with Client(base + "/mcp", headers={"X-API-Key": ADA}) as c:
                    text = (await c.call_tool("whoami")).content[0].text
                    assert text.startswith("ada ")
        await asgi.aclose()


async def test_sessions_stay_with_their_key() -> None:
    asgi = make_server(keys()).http_app()
    async with running(asgi) as base, httpx.AsyncClient() as http:
        url = base + "/mcp"
        r = await http.post(
            url, json=raw.init_message(), headers=raw.headers(authorization=f"Bearer {ADA}")
        )
        sid = r.headers["mcp-session-id"]
        r = await http.post(
            url,
            json=raw.tool_call(1, "whoami"),
            headers=raw.headers(sid, authorization=f"Bearer {BOB}"),
        )
        assert r.status_code == 404  # another principal cannot use ada's session
    await asgi.aclose()


async def test_scopes_and_expiry_are_enforced() -> None:
    verifier = APIKeyVerifier(
        {
            ADA: APIKey(subject="ada", scopes="mcp"),
            BOB: APIKey(subject="bob", scopes="mcp", expires_at=time.time() - 1),
            "sk-reader": APIKey(subject="carol", scopes="read"),
        }
    )
    rs = ResourceServer(verifier, required_scopes=["mcp"])
    asgi = make_server().http_app(auth=rs)
    async with running(asgi) as base, httpx.AsyncClient() as http:
        url = base + "/mcp"

        async def status(key: str) -> httpx.Response:
            return await http.post(
                url, json=raw.init_message(), headers=raw.headers(authorization=f"Bearer {key}")
            )

        assert (await status(ADA)).status_code == 200
        r = await status(BOB)
        assert r.status_code == 401 and r.json()["error_description"] == "The API key has expired"
        r = await status("sk-reader")
        assert r.status_code == 403
        c = challenge(r)
        assert c.error == "insufficient_scope" and c.scope.split()[0] == "mcp"
    await asgi.aclose()


async def test_verifier_keeps_only_hashes() -> None:
    verifier = keys()
    held = repr(verifier.__dict__).encode() + b"".join(verifier._keys)
    assert ADA.encode() not in held and BOB.encode() not in held
    token = await verifier.verify_token(ADA)
    assert token is not None and token.subject == "ada" and token.scopes == {"mcp", "admin"}
    assert "sk-ada" not in repr(token)  # the key is not in the token's repr either
    assert await verifier.verify_token(ADA[:-1]) is None
    assert await verifier.verify_token("") is None
    assert verifier.revoke(ADA) and not verifier.revoke(ADA)
    assert await verifier.verify_token(ADA) is None
    with pytest.raises(ValueError, match="SHA-256"):
        APIKeyVerifier({"sha256:abcd": "mcp"})
    with pytest.raises(ValueError, match="non-empty"):
        APIKeyVerifier({"": "mcp"})


async def test_keys_from_a_function() -> None:
    calls: list[str] = []

    def lookup(key: str) -> APIKey | None:
        calls.append(key)
        return APIKey(subject="svc", scopes="mcp") if key == "sk-db" else None

    async def alookup(key: str) -> AccessToken | None:
        return AccessToken(key, subject="async", scopes=frozenset({"mcp"})) if key == "k" else None

    sync_verifier = APIKeyVerifier(lookup)
    assert (await sync_verifier.verify_token("sk-db")).subject == "svc"  # type: ignore[union-attr]
    assert await sync_verifier.verify_token("nope") is None and calls == ["sk-db", "nope"]
    with pytest.raises(TypeError):
        sync_verifier.add("x")
    asgi = make_server(APIKeyVerifier(alookup)).http_app()
    async with running(asgi) as base:
        async with Client(base + "/mcp", headers={"Authorization": "Bearer k"}) as c:
            assert (await c.call_tool("whoami")).content[0].text == "async None mcp"
    await asgi.aclose()


async def test_keys_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_bytes(
        orjson.dumps(
            {
                "keys": [
                    {
                        "sha256": hashlib.sha256(ADA.encode()).hexdigest().upper(),
                        "subject": "ada",
                        "scopes": ["mcp", "admin"],
                        "claims": {"team": "core"},
                    },
                    {"key": BOB, "client_id": "ci", "scopes": "mcp", "expires_at": 4e9},
                ]
            }
        )
    )
    verifier = APIKeyVerifier.from_file(path, header="X-API-Key")
    assert len(verifier) == 2 and verifier.header == b"x-api-key"
    ada = await verifier.verify_token(ADA)
    assert ada is not None and ada.subject == "ada" and ada.claims == {"team": "core"}
    bob = await verifier.verify_token(BOB)
    assert bob is not None and bob.client_id == "ci" and bob.expires_at == 4e9
    for doc, message in (
        (b"[", "not JSON"),
        (b"{}", "expected"),
        (b'{"keys": [1]}', "not an object"),
        (b'{"keys": [{"subject": "x"}]}', "exactly one"),
        (b'{"keys": [{"key": "a", "sha256": "b"}]}', "exactly one"),
        (b'{"keys": [{"key": "a", "scope": "mcp"}]}', "unknown field"),
        (b'{"keys": [{"sha256": "zz"}]}', "SHA-256"),
        (b'{"keys": [{"key": "a", "expires_at": "soon"}]}', "Unix time"),
        (b'{"keys": [{"key": "a", "subject": 3}]}', "'subject' is a string"),
    ):
        path.write_bytes(doc)
        with pytest.raises(ValueError, match=message):
            APIKeyVerifier.from_file(path)


async def test_keys_beside_oauth() -> None:
    """OAuth tokens keep their audience check; keys (this server's own) have none."""
    oauth = {"tok-other": AccessToken("tok-other", subject="eve", resource="https://x/mcp")}

    def verify(token: str) -> AccessToken | None:
        return oauth.get(token)

    app = make_server()
    late = Late()
    async with running(late) as base:
        url = base + "/mcp"
        oauth["tok-ada"] = AccessToken("tok-ada", subject="ada-oauth", resource=url)
        rs = ResourceServer(
            verify, resource=url, authorization_servers=["https://as.example"], api_keys=keys()
        )
        asgi = late.app = app.http_app(auth=rs)
        async with httpx.AsyncClient() as http:
            assert (await http.get(rs.metadata_url)).json()["resource"] == url
            for token, status in ((ADA, 200), ("tok-ada", 200), ("tok-other", 401)):
                r = await http.post(
                    url,
                    json=raw.init_message(),
                    headers=raw.headers(authorization=f"Bearer {token}"),
                )
                assert r.status_code == status, token
            r = await http.post(url, json=raw.init_message(), headers=raw.headers())
            assert challenge(r).resource_metadata == rs.metadata_url
    await asgi.aclose()


def test_configuration_errors() -> None:
    with pytest.raises(ValueError, match="authorization server"):
        ResourceServer(lambda t: None, resource="https://x/mcp", authorization_servers=[])
    with pytest.raises(ValueError, match="one APIKeyVerifier"):
        ResourceServer(keys(), api_keys=keys())
    with pytest.raises(ValueError, match="DPoP"):
        ResourceServer(keys(), dpop=True)
    with pytest.raises(TypeError, match="ResourceServer or an APIKeyVerifier"):
        Server("x", auth={"sk": "mcp"})
    with pytest.raises(TypeError):
        make_server().http_app(auth="sk-plain")
