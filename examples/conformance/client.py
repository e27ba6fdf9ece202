"""The client program of the official MCP conformance suite, in mcpkit.

The suite starts a mock server per scenario and runs this program with the server URL as the
last argument; the scenario name is in ``MCP_CONFORMANCE_SCENARIO``. Each scenario is a few
lines of ordinary :class:`mcpkit.Client` use. An unknown scenario exits with status 1. The
wire follows ``MCP_CONFORMANCE_PROTOCOL_VERSION``: ``2026-07-28`` pins the client to the
stateless revision, any other to the handshake.

    MCP_CONFORMANCE_SCENARIO=tools_call python examples/conformance/client.py http://localhost:3000/mcp
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcpkit import Client
from mcpkit.auth import (
    ClientMetadata,
    OAuthClientAuth,
    PrivateKey,
    headless_authorization_handler,
)

CLIENT_INFO = {"name": "mcpkit-conformance-client", "version": "1.0.0"}
MODERN = "2026-07-28"

Scenario = Callable[[str], Awaitable[None]]
SCENARIOS: dict[str, Scenario] = {}
#: MCP_CONFORMANCE_CONTEXT (credentials for some auth scenarios).
CONTEXT: dict[str, Any] = {}
#: The client ID metadata document URL the suite expects (auth/basic-cimd).
CIMD_URL = "https://conformance-test.local/client-metadata.json"


def connect(url: str, **kwargs: Any) -> Client:
    """A client on the wire the suite asked for."""
    modern = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") == MODERN
    return Client(url, client_info=CLIENT_INFO, era=MODERN if modern else "legacy", **kwargs)


def scenario(name: str) -> Callable[[Scenario], Scenario]:
    def register(fn: Scenario) -> Scenario:
        SCENARIOS[name] = fn
        return fn

    return register


@scenario("initialize")
async def initialize(url: str) -> None:
    """Connect (initialize + initialized), look around, disconnect."""
    async with connect(url) as client:
        await client.list_tools()


@scenario("tools_call")
async def tools_call(url: str) -> None:
    """List the tools and call ``add_numbers``."""
    async with connect(url) as client:
        tools = {tool.name for tool in await client.list_tools()}
        if "add_numbers" not in tools:
            raise RuntimeError(f"add_numbers is not among the server's tools: {sorted(tools)}")
        result = await client.call_tool("add_numbers", {"a": 5, "b": 3})
        print(result.content)


@scenario("elicitation-sep1034-client-defaults")
async def elicitation_defaults(url: str) -> None:
    """Accept an elicitation without filling anything in: mcpkit applies the schema's
    defaults (SEP-1034) to the fields the user left out."""

    def accept_defaults(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {}}

    async with connect(url, elicitation_handler=accept_defaults) as client:
        await client.list_tools()
        result = await client.call_tool("test_client_elicitation_defaults", {})
        print(result.content)


@scenario("sse-retry")
async def sse_retry(url: str) -> None:
    """Call a tool whose SSE stream the server cuts before the result: mcpkit waits for the
    ``retry`` delay and resumes the stream with ``Last-Event-ID``."""
    async with connect(url) as client:
        await client.list_tools()
        result = await client.call_tool("test_reconnection", {})
        print(result.content)


@scenario("json-schema-2020-12-preservation")
async def json_schema_preservation(url: str) -> None:
    """Echo the input schema of ``json_schema_2020_12_tool`` back, exactly as received."""
    async with connect(url) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        schema = tools["json_schema_2020_12_tool"].input_schema
        result = await client.call_tool("json_schema_echo", {"schema": schema})
        print(result.content)


@scenario("request-metadata")
async def request_metadata(url: str) -> None:
    """The first request is refused with -32022: the client retries with a version the
    server lists; then a second request."""
    async with connect(url) as client:
        await client.list_tools()


@scenario("sep-2322-client-request-state")
async def request_state(url: str) -> None:
    """Multi round-trip requests: the elicitation of ``test_mrtr_echo_state`` is answered
    while an unrelated call runs on its own; then a request without state and a result
    without ``resultType``."""
    asked = asyncio.Event()
    release = asyncio.Event()

    async def confirm(params: Any, ctx: Any) -> dict[str, Any]:
        if not asked.is_set():
            asked.set()
            await release.wait()
        return {"action": "accept", "content": {"confirmed": True}}

    async with connect(url, elicitation_handler=confirm) as client:
        echo = asyncio.ensure_future(client.call_tool("test_mrtr_echo_state", {}))
        await asked.wait()
        print((await client.call_tool("test_mrtr_unrelated", {})).content)
        release.set()
        print((await echo).content)
        print((await client.call_tool("test_mrtr_no_state", {})).content)
        print((await client.call_tool("test_mrtr_no_result_type", {})).content)


@scenario("http-standard-headers")
async def standard_headers(url: str) -> None:
    """One request of every kind the routing headers name."""
    async with connect(url) as client:
        for tool in await client.list_tools():
            await client.call_tool(tool.name, {})
        for resource in await client.list_resources():
            await client.read_resource(resource.uri)
        for prompt in await client.list_prompts():
            await client.get_prompt(prompt.name)


@scenario("http-custom-headers")
async def custom_headers(url: str) -> None:
    """The calls of the context's ``toolCalls``: annotated arguments travel as headers too."""
    async with connect(url) as client:
        await client.list_tools()
        for call in CONTEXT.get("toolCalls", []):
            print((await client.call_tool(call["name"], call.get("arguments", {}))).content)


@scenario("http-invalid-tool-headers")
async def invalid_tool_headers(url: str) -> None:
    """Tools with invalid ``x-mcp-header`` annotations are left out of the list: call the
    others."""
    async with connect(url) as client:
        for tool in await client.list_tools():
            print((await client.call_tool(tool.name, {"region": "us-west1"})).content)


@scenario("json-schema-ref-no-deref")
async def ref_no_deref(url: str) -> None:
    """List the tools; a ``$ref`` in a schema is kept as it is, never fetched."""
    async with connect(url) as client:
        for tool in await client.list_tools():
            print(tool.name)


AUTH_CODE_SCENARIOS = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/dpop",  # DPoP is used when the server challenges with it (RFC 9449)
    "auth/dpop-nonce",
]


async def oauth_workload(url: str, auth: OAuthClientAuth) -> None:
    """Connect with OAuth, list the tools and call ``test-tool``."""
    async with connect(url, auth=auth) as client:
        await client.list_tools()
        result = await client.call_tool("test-tool", {})
        print(result.content)


async def authorization_code(url: str) -> None:
    """The authorization code flow, following the authorization redirect headlessly. The
    identity: pre-registered credentials from the context, else the CIMD URL where the
    authorization server supports it, else dynamic registration."""
    auth = OAuthClientAuth(
        url,
        authorization_handler=headless_authorization_handler(),
        client_metadata=ClientMetadata(
            client_name=CLIENT_INFO["name"], redirect_uris=["http://localhost:3000/callback"]
        ),
        client_metadata_url=CIMD_URL,
        client_id=CONTEXT.get("client_id"),
        client_secret=CONTEXT.get("client_secret"),
        client_issuer=CONTEXT.get("issuer"),
    )
    await oauth_workload(url, auth)


for _name in AUTH_CODE_SCENARIOS:
    SCENARIOS[_name] = authorization_code


@scenario("auth/client-credentials-basic")
@scenario("auth/client-credentials-jwt")
async def client_credentials(url: str) -> None:
    """The client credentials grant with the context's secret (client_secret_basic) or
    private key (private_key_jwt, ES256)."""
    pem = CONTEXT.get("private_key_pem")
    auth = OAuthClientAuth(
        url,
        grant_type="client_credentials",
        client_id=CONTEXT["client_id"],
        client_secret=CONTEXT.get("client_secret"),
        private_key=PrivateKey(pem, CONTEXT.get("signing_algorithm", "ES256")) if pem else None,
    )
    await oauth_workload(url, auth)


@scenario("auth/wif-jwt-bearer")
async def workload_identity(url: str) -> None:
    """The RFC 7523 JWT bearer grant with the workload's JWT from the context."""
    auth = OAuthClientAuth(
        url, grant_type="jwt_bearer", client_id=CONTEXT["client_id"], assertion=CONTEXT["valid_jwt"]
    )
    await oauth_workload(url, auth)


@scenario("auth/enterprise-managed-authorization")
async def enterprise_managed(url: str) -> None:
    """SEP-990: exchange the IdP's ID token for an ID-JAG, then the JWT bearer grant."""
    from mcpkit.auth.enterprise import id_jag_assertion

    auth = OAuthClientAuth(
        url,
        grant_type="jwt_bearer",
        client_id=CONTEXT["client_id"],
        client_secret=CONTEXT.get("client_secret"),
        assertion=id_jag_assertion(
            CONTEXT["idp_token_endpoint"],
            CONTEXT["idp_id_token"],
            idp_client_id=CONTEXT["idp_client_id"],
        ),
    )
    await oauth_workload(url, auth)


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    run = SCENARIOS.get(name)
    if run is None or len(sys.argv) < 2:
        print(f"Unknown scenario {name!r} (known: {', '.join(SCENARIOS)})", file=sys.stderr)
        return 1
    CONTEXT.update(json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}"))
    if CONTEXT:
        print(f"context keys: {sorted(CONTEXT)}", file=sys.stderr)
    asyncio.run(run(sys.argv[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
