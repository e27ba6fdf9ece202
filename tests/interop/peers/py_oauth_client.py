"""The official Python SDK's OAuth client (``OAuthClientProvider``) against a protected
Streamable HTTP server: it discovers the authorization server, registers, follows the
authorization URL without a browser (the server approves at once), exchanges the code,
calls TOOL and prints its text, refreshes the token and calls again. Run in the peer venv:

    .cache/peers/py/bin/python tests/interop/peers/py_oauth_client.py URL TOOL [--mode M]

The output is one JSON object: ``{"first", "second", "refreshed", "client_id"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

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


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("tool")
    parser.add_argument("--mode", default="legacy")
    args = parser.parse_args()
    redirected: dict[str, Any] = {}

    async def redirect_handler(url: str) -> None:  # the "browser": the server approves at once
        async with httpx2.AsyncClient() as http:
            r = await http.get(url, follow_redirects=False)
        query = parse_qs(urlsplit(r.headers["location"]).query)
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
            redirect_uris=["http://127.0.0.1:3998/callback"],
            grant_types=["authorization_code", "refresh_token"],
        ),
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
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
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main())
