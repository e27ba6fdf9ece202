"""The OAuth proxy in front of a real OpenID provider: the npm package ``oidc-provider``
(certified), started here on 127.0.0.1 with dynamic registration off, PKCE required and ONE
client registered beforehand, as GitHub or Google would be. mcpkit's client and the official
Python and TypeScript SDKs' connect to an mcpkit server behind the proxy; the provider's
login and consent pages and mcpkit's consent page are answered with form posts as a browser
would, and clicked in headless Chromium (each of the three clients); tokens are issued, a
tool is called as the provider's user, a refresh works, a revocation ends access (each of
the three clients), nothing the clients receive carries a token of the provider's, and two
users logged in with Chromium see different tools by scope."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest

from mcpkit import Client, Context, Server
from mcpkit.auth import ClientMetadata, MemoryAuthStore, MemoryTokenStore, OAuthClientAuth
from mcpkit.auth.oauth_proxy import OAuthProxy
from mcpkit.auth.proxy_store import MemoryProxyStore
from mcpkit.transports.http import running
from mcpkit.transports.http.client import StreamableHTTPClientTransport
from tests.auth.conftest import Late
from tests.interop.conftest import PEER_SCRIPTS, locate_node_peer, locate_python_peer

UPSTREAM = PEER_SCRIPTS / "oidc_upstream.mjs"
PY_CLIENT = PEER_SCRIPTS / "py_oauth_client.py"
TS_CLIENT = PEER_SCRIPTS / "ts_oauth_client.mjs"
REDIRECT = "http://127.0.0.1:3999/callback"
CLIENT_ID = "mcpkit-proxy"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def oidc_provider(redirect_uri: str, secret: str) -> AsyncIterator[str]:
    """oidc-provider on a free port, with ``redirect_uri`` for its one client: its issuer."""
    node = locate_node_peer()
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        str(node.node),
        str(UPSTREAM),
        str(port),
        CLIENT_ID,
        secret,
        redirect_uri,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=node.env(),
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        if not line.startswith(b"ready "):
            err = await proc.stderr.read() if proc.stderr else b""
            raise AssertionError(f"oidc-provider did not start: {line!r} {err.decode()[-2000:]}")
        yield line.split()[1].decode()
    finally:
        proc.terminate()
        await proc.wait()


class Tee(httpx.AsyncByteStream):
    def __init__(self, inner: Any, sink: bytearray) -> None:
        self.inner, self.sink = inner, sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.sink.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class Recording(httpx.AsyncBaseTransport):
    """Every byte the client receives: status lines, headers and bodies."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.received = bytearray()
        self.urls: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        response = await self.inner.handle_async_request(request)
        for name, value in response.headers.raw:
            self.received.extend(name + b": " + value + b"\n")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=Tee(response.stream, self.received),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Browser:
    """A user's browser: follows redirects, keeps cookies, answers the provider's login and
    consent pages and mcpkit's consent page."""

    user: str
    http: httpx.AsyncClient = field(default_factory=lambda: httpx.AsyncClient(timeout=30))
    seen: list[str] = field(default_factory=list)

    async def __call__(self, url: str) -> str:
        response = await self.http.get(url)
        for _ in range(30):
            self.seen.append(str(response.url))
            if response.is_redirect:
                target = urljoin(str(response.url), response.headers["location"])
                if target.startswith(REDIRECT):
                    return target
                response = await self.http.get(target)
                continue
            assert response.status_code == 200, (response.status_code, response.text[:500])
            response = await self.submit(response)
        raise AssertionError("the login did not end")

    async def submit(self, page: httpx.Response) -> httpx.Response:
        html = page.text
        form = re.search(r"<form[^>]*action=\"([^\"]+)\"[^>]*>(.*?)</form>", html, re.S)
        assert form is not None, html[:1000]
        action, body = unescape(form.group(1)), form.group(2)
        data = {
            unescape(n): unescape(v)
            for n, v in re.findall(r'<input type=hidden name=(\w+) value="([^"]*)"', body)
        }
        data |= dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"/>', body))
        if 'name="login"' in body:  # the provider's login page
            data |= {"login": self.user, "password": "any"}
        if "name=decision" in body:  # mcpkit's consent page
            data["decision"] = "allow"
        return await self.http.post(urljoin(str(page.url), action), data=data)


async def test_mcpkit_client_through_the_proxy_to_oidc_provider() -> None:
    secret = secrets.token_urlsafe(24)
    late = Late()
    async with running(late) as base:
        async with oidc_provider(base + "/oauth/callback", secret) as issuer:
            proxy = OAuthProxy(
                base,
                client_id=CLIENT_ID,
                client_secret=secret,
                issuer=issuer,
                discovery_url=issuer + "/.well-known/openid-configuration",
                scopes_supported=["mcp"],
                secret="deployment secret",
            )
            app = Server("behind-proxy", auth=proxy)

            @app.tool()
            def whoami(ctx: Context) -> str:
                assert ctx.auth is not None
                return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

            late.app = app.http_app()
            url = base + "/mcp"
            recording = Recording()
            tokens = MemoryTokenStore()
            browser = Browser("alice")
            async with httpx.AsyncClient(transport=recording, timeout=30) as http:
                flow = OAuthClientAuth(
                    url,
                    authorization_handler=browser,
                    client_metadata=ClientMetadata(
                        client_name="proxy-e2e", redirect_uris=[REDIRECT]
                    ),
                    store=tokens,
                    http_client=http,
                )
                transport = StreamableHTTPClientTransport(url, auth=flow, httpx_client=http)
                async with Client(transport) as c:
                    result = await c.call_tool("whoami")
                    assert result.content[0].text == "alice alice@example.com"
                    first = await tokens.get_token(url)
                    assert first is not None and first.refresh_token
                    # the access token runs out: the client refreshes (rotation) and calls again
                    first.expires_at = 0
                    result = await c.call_tool("whoami")
                    assert result.content[0].text == "alice alice@example.com"
                    second = await tokens.get_token(url)
                    assert second is not None and second.access_token != first.access_token
                    assert second.refresh_token != first.refresh_token

                # the user logged in at the provider, and allowed the client on mcpkit's page
                assert any("/interaction/" in u for u in browser.seen)
                assert any(u == base + "/authorize/consent" for u in browser.seen)
                # the browser went to the provider, as the pre-registered client, with PKCE
                to_provider = [u for u in browser.seen if u.startswith(issuer + "/auth?")]
                assert to_provider, browser.seen
                sent = parse_qs(urlsplit(to_provider[0]).query)
                assert sent["client_id"] == [CLIENT_ID]
                assert sent["code_challenge_method"] == ["S256"]
                assert sent["redirect_uri"] == [base + "/oauth/callback"]

                # mcpkit's token is its own: issuer, audience, the provider's user
                at = await proxy.server.verifier().verify_token(second.access_token)
                assert at.subject == "alice" and at.resource == url
                assert at.claims["iss"] == base and at.claims["idp"] == issuer
                upstream = await proxy.upstream_tokens(at)
                assert upstream is not None and upstream["access_token"]
                secrets_of_provider = [
                    upstream[k]
                    for k in ("access_token", "id_token", "refresh_token")
                    if k in upstream
                ]
                assert "id_token" in upstream
                # nothing the client received carries them, nor does the store in clear
                received = bytes(recording.received)
                assert b"whoami" in received or b"alice@example.com" in received
                store = proxy.proxy_store
                assert isinstance(store, MemoryProxyStore)
                raw = b"".join(v for v, _ in store.values.values())
                for value in secrets_of_provider:
                    assert value.encode() not in received
                    assert value.encode() not in raw
                    assert all(value not in u for u in recording.urls)
                # and the client never spoke to the provider itself
                assert not [u for u in recording.urls if u.startswith(issuer)]

                # revocation ends access: the refresh token, and the access token with it
                meta = (await http.get(base + "/.well-known/oauth-authorization-server")).json()
                client_id = at.client_id
                assert client_id is not None
                r = await http.post(
                    meta["revocation_endpoint"],
                    data={"token": second.refresh_token, "client_id": client_id},
                )
                assert r.status_code == 200
                r = await http.post(
                    meta["token_endpoint"],
                    data={
                        "grant_type": "refresh_token",
                        "refresh_token": second.refresh_token,
                        "client_id": client_id,
                    },
                )
                assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
                r = await http.post(
                    url,
                    headers={
                        "authorization": f"Bearer {second.access_token}",
                        "accept": "application/json, text/event-stream",
                        "content-type": "application/json",
                    },
                    json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                )
                assert r.status_code == 401
                # the provider's tokens are gone from the store
                assert await proxy.upstream_tokens(at) is None
            assert isinstance(proxy.server.store, MemoryAuthStore)
            await browser.http.aclose()
            await late.app.aclose()


async def ping(http: httpx.AsyncClient, base: str, access_token: str) -> httpx.Response:
    return await http.post(
        base + "/mcp",
        headers={
            "authorization": f"Bearer {access_token}",
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
    )


async def revocation_ends_access(
    proxy: OAuthProxy,
    base: str,
    client_id: str,
    tokens: dict[str, Any],
    secret: str | None = None,
    method: str | None = None,
) -> None:
    """Revoke the client's refresh token as the client would (authenticated as it
    registered): the refresh token, the access token and the provider's tokens behind them
    stop working."""
    at = await proxy.server.verifier().verify_token(tokens["access_token"])
    assert await proxy.upstream_tokens(at) is not None
    me: dict[str, str] = {"client_id": client_id}
    auth: Any = None
    if secret is not None and method == "client_secret_basic":
        auth = httpx.BasicAuth(client_id, secret)
    elif secret is not None:
        me["client_secret"] = secret
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await ping(http, base, tokens["access_token"])).status_code != 401
        meta = (await http.get(base + "/.well-known/oauth-authorization-server")).json()
        r = await http.post(
            meta["revocation_endpoint"], data={"token": tokens["refresh_token"], **me}, auth=auth
        )
        assert r.status_code == 200, r.text
        r = await http.post(
            meta["token_endpoint"],
            data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **me},
            auth=auth,
        )
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
        assert (await ping(http, base, tokens["access_token"])).status_code == 401
    assert await proxy.upstream_tokens(at) is None


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_official_python_client_through_the_proxy(mode: str) -> None:
    """The official Python SDK's OAuth client, its "browser" logging in on oidc-provider's
    pages and allowing on mcpkit's: a call, a refresh, another call; what it ends up
    holding is mcpkit's, never the provider's."""
    python = locate_python_peer().python
    secret = secrets.token_urlsafe(24)
    late = Late()
    async with running(late) as base:
        async with oidc_provider(base + "/oauth/callback", secret) as issuer:
            proxy = OAuthProxy(
                base,
                client_id=CLIENT_ID,
                client_secret=secret,
                issuer=issuer,
                discovery_url=issuer + "/.well-known/openid-configuration",
                scopes_supported=["mcp"],
            )
            app = Server("behind-proxy", auth=proxy)

            @app.tool()
            def whoami(ctx: Context) -> str:
                assert ctx.auth is not None
                return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

            late.app = app.http_app()
            proc = await asyncio.create_subprocess_exec(
                str(python),
                str(PY_CLIENT),
                base + "/mcp",
                "whoami",
                "--mode",
                mode,
                "--login",
                "grace",
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(proc.communicate(), 90)
            assert proc.returncode == 0, err.decode()[-3000:]
            report = json.loads(out)
            assert report["first"] == report["second"] == "grace grace@example.com"
            assert report["refreshed"] is True
            held = report["tokens"]
            at = await proxy.server.verifier().verify_token(held["access_token"])
            assert at.subject == "grace" and at.client_id == report["client_id"]
            upstream = await proxy.upstream_tokens(at)
            assert upstream is not None
            for key in ("access_token", "id_token", "refresh_token"):
                if key in upstream:
                    assert upstream[key] not in out.decode()
            await revocation_ends_access(
                proxy,
                base,
                report["client_id"],
                held,
                report["client_secret"],
                report["token_endpoint_auth_method"],
            )
            await late.app.aclose()


async def test_official_typescript_client_through_the_proxy() -> None:
    """The official TypeScript SDK v2 client, its "browser" logging in on oidc-provider's
    pages and allowing on mcpkit's: a tool call with mcpkit's token, a refresh after the
    server's 401 (rotated refresh token) and another call, none of the provider's tokens in
    what it holds; revoking its refresh token ends its access."""
    node = locate_node_peer()
    secret = secrets.token_urlsafe(24)
    late = Late()
    async with running(late) as base:
        async with oidc_provider(base + "/oauth/callback", secret) as issuer:
            proxy = OAuthProxy(
                base,
                client_id=CLIENT_ID,
                client_secret=secret,
                issuer=issuer,
                discovery_url=issuer + "/.well-known/openid-configuration",
                scopes_supported=["mcp"],
            )
            app = Server("behind-proxy", auth=proxy)

            @app.tool()
            def whoami(ctx: Context) -> str:
                assert ctx.auth is not None
                return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

            late.app = app.http_app()
            proc = await asyncio.create_subprocess_exec(
                str(node.node),
                str(TS_CLIENT),
                base + "/mcp",
                "whoami",
                "--login",
                "linus",
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=node.env(),
            )
            out, err = await asyncio.wait_for(proc.communicate(), 90)
            assert proc.returncode == 0, err.decode()[-3000:]
            report = json.loads(out)
            assert report["text"] == report["second"] == "linus linus@example.com"
            assert report["refreshed"] is True
            at = await proxy.server.verifier().verify_token(report["tokens"]["access_token"])
            assert at.subject == "linus" and at.client_id == report["clientId"]
            upstream = await proxy.upstream_tokens(at)
            assert upstream is not None
            for key in ("access_token", "id_token", "refresh_token"):
                if key in upstream:
                    assert upstream[key] not in out.decode()
            await revocation_ends_access(proxy, base, report["clientId"], report["tokens"])
            await late.app.aclose()


async def chromium_login(
    page: Any, url: str, user: str, redirect: str = REDIRECT, seen: list[str] | None = None
) -> str:
    """In Chromium: the provider's login and consent, then mcpkit's consent page, clicked
    as a user would; the URL the browser is sent back to (``redirect``...). ``seen`` gets
    the provider's consent page URL, then the title and the text of mcpkit's."""
    arrived: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))

    async def at_client(route: Any) -> None:
        if not arrived.done():
            arrived.set_result(route.request.url)
        await route.fulfill(status=200, body="You may close this window.")

    await page.route(redirect + "**", at_client)
    await page.goto(url)
    await page.fill("input[name=login]", user)
    await page.fill("input[name=password]", "any")
    await page.click("button[type=submit]")
    await page.wait_for_selector("button:has-text('Continue')")
    shown = [page.url]
    await page.click("button:has-text('Continue')")  # the provider's consent
    await page.wait_for_selector("button[value=allow]")
    shown += [await page.title(), await page.inner_text("body")]
    await page.click("button[value=allow]")  # mcpkit's consent page
    if seen is not None:
        seen.extend(shown)
    try:
        return await asyncio.wait_for(arrived, 30)
    except TimeoutError:
        raise AssertionError(f"stuck at {page.url}: {console}") from None


async def test_mcpkit_client_with_the_pages_clicked_in_chromium() -> None:
    """A real browser (headless Chromium) on the pages: the provider's login and consent,
    then mcpkit's consent page, clicked as a user would; the client calls the tool."""
    from playwright.async_api import async_playwright

    from tests.dev.test_browser import ARGS, CHROMIUM

    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: run scripts/system_packages.sh"
    secret = secrets.token_urlsafe(24)
    late = Late()
    async with (
        running(late) as base,
        oidc_provider(base + "/oauth/callback", secret) as issuer,
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        proxy = OAuthProxy(
            base,
            client_id=CLIENT_ID,
            client_secret=secret,
            issuer=issuer,
            discovery_url=issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp"],
        )
        app = Server("behind-proxy", auth=proxy)

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

        late.app = app.http_app()
        page = await (await browser.new_context()).new_page()
        seen: list[str] = []

        async def click_through(url: str) -> str:
            return await chromium_login(page, url, "dora", seen=seen)

        flow = OAuthClientAuth(
            base + "/mcp",
            authorization_handler=click_through,
            client_metadata=ClientMetadata(client_name="chromium", redirect_uris=[REDIRECT]),
        )
        try:
            async with Client(base + "/mcp", auth=flow) as c:
                result = await c.call_tool("whoami")
                assert result.content[0].text == "dora dora@example.com"
        finally:
            await browser.close()
            await late.app.aclose()
        assert seen[0].startswith(issuer + "/interaction/") and seen[1] == "Allow access?"


async def test_two_users_see_different_tools_by_scope_in_chromium() -> None:
    """Two users log in at the provider in headless Chromium and allow on mcpkit's consent
    page; ``user_scopes`` grants the admin scope to one of them only (from the email the
    provider gave). Both eras: the admin's list has the scoped tool and the call works;
    the other's list lacks it and the call is refused as for a tool that does not exist."""
    from playwright.async_api import async_playwright

    from mcpkit import McpError
    from tests.dev.test_browser import ARGS, CHROMIUM

    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: run scripts/system_packages.sh"
    secret = secrets.token_urlsafe(24)
    late = Late()
    granted: list[tuple[str, tuple[str, ...]]] = []

    def user_scopes(subject: str, claims: Any) -> set[str]:
        granted.append((subject, tuple(sorted(claims))))
        return {"mcp", "admin"} if claims.get("email") == "ada@example.com" else {"mcp"}

    async with (
        running(late) as base,
        oidc_provider(base + "/oauth/callback", secret) as issuer,
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        proxy = OAuthProxy(
            base,
            client_id=CLIENT_ID,
            client_secret=secret,
            issuer=issuer,
            discovery_url=issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp", "admin"],
            user_scopes=user_scopes,
        )
        app = Server("behind-proxy", auth=proxy)

        @app.tool()
        def status(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject}: all green"

        @app.tool(scopes=["admin"])
        def restart(service: str) -> str:
            return f"restarted {service}"

        late.app = app.http_app()
        consent_pages: dict[str, str] = {}
        outcomes: dict[tuple[str, str], tuple[list[str], str, str]] = {}
        try:
            for user in ("ada", "bob"):
                page = await (await browser.new_context()).new_page()  # a browser of their own

                async def click_through(url: str, user: str = user, page: Any = page) -> str:
                    shown: list[str] = []
                    back = await chromium_login(page, url, user, seen=shown)
                    consent_pages[user] = shown[2]  # the text of mcpkit's consent page
                    return back

                tokens = MemoryTokenStore()
                for era in ("legacy", "2026-07-28"):
                    flow = OAuthClientAuth(
                        base + "/mcp",
                        authorization_handler=click_through,
                        client_metadata=ClientMetadata(
                            client_name=f"chromium-{user}", redirect_uris=[REDIRECT]
                        ),
                        store=tokens,
                    )
                    async with Client(base + "/mcp", auth=flow, era=era) as c:
                        names = [t.name for t in await c.list_tools()]
                        said = (await c.call_tool("status")).content[0].text
                        try:
                            result = await c.call_tool("restart", {"service": "db"})
                            outcome = result.content[0].text
                        except McpError as exc:
                            outcome = f"{exc.code} {exc.message}"
                    outcomes[(user, era)] = (names, said, outcome)
        finally:
            await browser.close()
            await late.app.aclose()
        for era in ("legacy", "2026-07-28"):
            assert outcomes[("ada", era)] == (
                ["status", "restart"],
                "ada: all green",
                "restarted db",
            )
            assert outcomes[("bob", era)] == (
                ["status"],
                "bob: all green",
                "-32602 Unknown tool: restart",
            )
        # one login each (the second era reused the tokens), the scopes the consent page showed
        assert [s for s, _ in granted] == ["ada", "bob"]
        assert "admin" in consent_pages["ada"] and "admin" not in consent_pages["bob"]


@pytest.mark.parametrize("sdk", ["python", "typescript"])
async def test_official_clients_with_the_pages_clicked_in_chromium(sdk: str) -> None:
    """The official SDKs' clients, their authorization URL opened in headless Chromium and
    the provider's and mcpkit's pages clicked through: a tool call, a refresh, and a
    revocation that ends their access."""
    from playwright.async_api import async_playwright

    from tests.dev.test_browser import ARGS, CHROMIUM

    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: run scripts/system_packages.sh"
    secret = secrets.token_urlsafe(24)
    late = Late()
    async with (
        running(late) as base,
        oidc_provider(base + "/oauth/callback", secret) as issuer,
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        proxy = OAuthProxy(
            base,
            client_id=CLIENT_ID,
            client_secret=secret,
            issuer=issuer,
            discovery_url=issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp"],
        )
        app = Server("behind-proxy", auth=proxy)

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

        late.app = app.http_app()
        if sdk == "python":
            command = [str(locate_python_peer().python), str(PY_CLIENT)]
            extra = ["--mode", "2026-07-28", "--external"]
            redirect, env = "http://127.0.0.1:3998/callback", None
        else:
            node = locate_node_peer()
            command = [str(node.node), str(TS_CLIENT)]
            extra = ["--external"]
            redirect, env = "http://127.0.0.1:3997/callback", node.env()
        proc = await asyncio.create_subprocess_exec(
            *command,
            base + "/mcp",
            "whoami",
            *extra,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        try:
            assert proc.stdout is not None and proc.stdin is not None
            line = await asyncio.wait_for(proc.stdout.readline(), 60)
            assert line, (await proc.stderr.read()).decode()[-3000:] if proc.stderr else ""
            url = json.loads(line)["authorize"]
            page = await (await browser.new_context()).new_page()
            back = await chromium_login(page, url, "erin", redirect)
            assert "code=" in back
            proc.stdin.write(back.encode() + b"\n")
            await proc.stdin.drain()
            out, err = await asyncio.wait_for(proc.communicate(), 90)
            assert proc.returncode == 0, err.decode()[-3000:]
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            await browser.close()
        report = json.loads(out.decode().strip().splitlines()[-1])
        if sdk == "python":
            assert report["first"] == report["second"] == "erin erin@example.com"
            client_id, held = report["client_id"], report["tokens"]
            secret_used = report["client_secret"], report["token_endpoint_auth_method"]
        else:
            assert report["text"] == report["second"] == "erin erin@example.com"
            client_id, held, secret_used = report["clientId"], report["tokens"], (None, None)
        assert report["refreshed"] is True
        at = await proxy.server.verifier().verify_token(held["access_token"])
        assert at.subject == "erin" and at.client_id == client_id
        await revocation_ends_access(proxy, base, client_id, held, *secret_used)
        await late.app.aclose()
