"""Enterprise-managed authorization (SEP-990): the user's identity provider exchanges its ID
token for an identity assertion JWT authorization grant (ID-JAG, RFC 8693 token exchange),
which the client then presents to the MCP server's authorization server with the RFC 7523 JWT
bearer grant (``OAuthClientAuth(grant_type="jwt_bearer", assertion=id_jag_assertion(...))``).
"""

from __future__ import annotations

import httpx

from mcpkit.auth.client import AssertionProvider
from mcpkit.auth.discovery import AuthorizationServerMetadata
from mcpkit.auth.errors import OAuthError

__all__ = ["ID_JAG", "TOKEN_EXCHANGE", "id_jag_assertion"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


def id_jag_assertion(
    idp_token_endpoint: str,
    id_token: str,
    *,
    idp_client_id: str,
    idp_client_secret: str | None = None,
    scope: str | None = None,
    http_client: httpx.AsyncClient | None = None,
) -> AssertionProvider:
    """An assertion provider that asks the IdP for an ID-JAG for the authorization server
    (``audience`` = its issuer) and the MCP server (``resource``)."""

    async def provide(meta: AuthorizationServerMetadata, resource: str) -> str:
        form = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "audience": meta.issuer,
            "resource": resource,
            "subject_token": id_token,
            "subject_token_type": ID_TOKEN,
            "client_id": idp_client_id,
        }
        if idp_client_secret:
            form["client_secret"] = idp_client_secret
        if scope:
            form["scope"] = scope
        try:
            if http_client is not None:
                response = await http_client.post(idp_token_endpoint, data=form)
            else:
                async with httpx.AsyncClient(timeout=30.0) as http:
                    response = await http.post(idp_token_endpoint, data=form)
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__  # a timeout's text is empty
            raise OAuthError(f"Token exchange at {idp_token_endpoint} failed: {reason}") from exc
        try:
            doc = response.json()
        except ValueError:
            doc = None
        token = doc.get("access_token") if isinstance(doc, dict) else None
        if response.status_code != 200 or not isinstance(token, str) or not token:
            error = doc.get("error") if isinstance(doc, dict) else None
            raise OAuthError(
                f"Token exchange at {idp_token_endpoint} failed: HTTP {response.status_code}"
                + (f" {error}" if error else ""),
                error=error if isinstance(error, str) else None,
            )
        return token

    return provide
