"""fastmcp's machine-to-machine client providers: ``fastmcp_m2m.py URL ISSUER KEY_PEM`` calls
the server's ``whoami`` tool with ``ClientCredentialsOAuthProvider`` (its client secret sent
by HTTP Basic, then in the form, the scopes given and the server's; a wrong secret; bound
to another authorization server) and with ``PrivateKeyJWTOAuthProvider`` (a locally signed
assertion, then a malformed one), and prints what each sees."""

import asyncio
import sys
from pathlib import Path

from fastmcp import Client
from fastmcp.client.auth import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
    static_assertion_provider,
)

URL, ISSUER, KEY = sys.argv[1], sys.argv[2], Path(sys.argv[3]).read_text()


def providers():
    yield (
        "basic",
        ClientCredentialsOAuthProvider(
            client_id="m2m-basic", client_secret="basic-secret", scopes=["mcp:tools"], issuer=ISSUER
        ),
    )
    yield (
        "post",
        ClientCredentialsOAuthProvider(
            URL,
            client_id="m2m-post",
            client_secret="post-secret",
            token_endpoint_auth_method="client_secret_post",
            issuer=ISSUER,
        ),
    )
    yield (
        "wrong secret",
        ClientCredentialsOAuthProvider(
            client_id="m2m-basic", client_secret="nope", scopes="mcp:tools", issuer=ISSUER
        ),
    )
    yield (
        "other issuer",
        ClientCredentialsOAuthProvider(
            client_id="m2m-basic", client_secret="basic-secret", issuer="http://127.0.0.1:9/oidc"
        ),
    )
    signed = SignedJWTParameters(issuer="m2m-jwt", subject="m2m-jwt", signing_key=KEY)
    yield (
        "private key jwt",
        PrivateKeyJWTOAuthProvider(
            client_id="m2m-jwt",
            assertion_provider=signed.create_assertion_provider(),
            scopes=["mcp:tools"],
            issuer=ISSUER,
        ),
    )
    yield (
        "bad assertion",
        PrivateKeyJWTOAuthProvider(
            client_id="m2m-jwt",
            assertion_provider=static_assertion_provider("a.b.c"),
            issuer=ISSUER,
        ),
    )


async def main() -> None:
    for name, auth in providers():
        try:
            async with Client(URL, auth=auth) as client:
                tools = await client.list_tools()
                result = await client.call_tool("whoami", {})
                print(name, [t.name for t in tools], result.content[0].text)
        except Exception as exc:
            print(name, "failed:", type(exc).__name__)


asyncio.run(main())
