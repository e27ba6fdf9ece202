"""The official Python SDK's OAuth client (``OAuthClientProvider``) against a protected
Streamable HTTP server: it discovers the authorization server, registers, follows the
authorization URL without a browser (the server approves at once), exchanges the code,
calls TOOL and prints its text, refreshes the token and calls again (with ``--login USER``
the "browser" logs in as USER and allows on the pages it is shown: an OAuth proxy's
provider, a consent page). Run in the peer venv:

    .cache/peers/py/bin/python tests/interop/peers/py_oauth_client.py URL TOOL [--mode M]

With ``--client-metadata-url URL`` the client's identity is that client ID metadata
document (used when the authorization server supports them). With ``--external`` a real
browser is driven by whoever runs it: the authorization URL is printed as
``{"authorize": URL}`` and the redirect URL read back from stdin.

The output is one JSON object: ``{"first", "second", "refreshed", "client_id",
"client_secret", "token_endpoint_auth_method", "tokens"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
from mcp.client import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken


class Memory:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


REDIRECT = "http://127.0.0.1:3998/callback"  # never listened on: the browser stops there


async def browse(url: str, user: str) -> str:
    """A browser: follows redirects, keeps cookies, logs in as ``user`` and allows on the
    pages' forms, until the redirect to the client; that URL."""
    async with httpx2.AsyncClient(timeout=30) as http:
        r = await http.get(url)
        for _ in range(30):
            if r.is_redirect:
                target = urljoin(str(r.url), r.headers["location"])
                if target.startswith(REDIRECT):
                    return target
                r = await http.get(target)
                continue
            form = re.search(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', r.text, re.S)
            if r.status_code != 200 or form is None:
                raise RuntimeError(f"unexpected page {r.status_code}: {r.text[:300]}")
            body = form.group(2)
            data = {
                unescape(n): unescape(v)
                for n, v in re.findall(
                    r'<input type="?hidden"? name="?(\w+)"? value="([^"]*)"', body
                )
            }
            if 'name="login"' in body:
                data |= {"login": user, "password": "any"}
            if "name=decision" in body:
                data["decision"] = "allow"
            r = await http.post(urljoin(str(r.url), unescape(form.group(1))), data=data)
    raise RuntimeError("the login did not end")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("tool")
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--login", help="log in as this user on the pages shown (a proxy)")
    parser.add_argument(
        "--client-metadata-url", help="the client ID metadata document to use as client_id"
    )
    parser.add_argument(
        "--external",
        action="store_true",
        help='print {"authorize": URL} and read the redirect URL from stdin (a real browser)',
    )
    args = parser.parse_args()
    redirected: dict[str, Any] = {}

    async def redirect_handler(url: str) -> None:  # the "browser": the server approves at once
        if args.external:
            print(json.dumps({"authorize": url}), flush=True)
            location = (await asyncio.to_thread(sys.stdin.readline)).strip()
        elif args.login is not None:
            location = await browse(url, args.login)
        else:
            async with httpx2.AsyncClient() as http:
                r = await http.get(url, follow_redirects=False)
            location = r.headers["location"]
        query = parse_qs(urlsplit(location).query)
        redirected.update({k: v[0] for k, v in query.items()})

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(
            code=redirected["code"], state=redirected.get("state"), iss=redirected.get("iss")
        )

    storage = Memory()
    provider = OAuthClientProvider(
        args.url,
        OAuthClientMetadata(
            client_name="official-python",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
        ),
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=args.client_metadata_url,
    )
    report: dict[str, Any] = {}
    async with httpx2.AsyncClient(auth=provider) as http:
        async with Client(streamable_http_client(args.url, http_client=http), mode=args.mode) as c:
            result = await c.call_tool(args.tool, {})
            report["first"] = result.content[0].text  # type: ignore[union-attr]
            first = storage.tokens
            assert first is not None
            # the access token has run out: the provider refreshes it
            provider.context.token_expiry_time = 1.0
            result = await c.call_tool(args.tool, {})
            report["second"] = result.content[0].text  # type: ignore[union-attr]
            report["refreshed"] = storage.tokens is not None and (
                storage.tokens.access_token != first.access_token
            )
    report["client_id"] = storage.client.client_id if storage.client else None
    if storage.client is not None:  # how it authenticates (for a revocation in its name)
        report["client_secret"] = storage.client.client_secret
        report["token_endpoint_auth_method"] = storage.client.token_endpoint_auth_method
    if storage.tokens is not None:
        report["tokens"] = storage.tokens.model_dump(mode="json")
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main())
