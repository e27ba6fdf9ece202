"""Dynamic client registration (RFC 7591) at the embedded authorization server.

:class:`Registration` (a base of
:class:`~mcpkit.auth.authorization_server.AuthorizationServer`) serves ``/register``: exact
redirect URIs (https, loopback or an app's own scheme), one of the supported client
authentication methods and grants; a confidential client gets a secret, stored hashed.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcpkit.auth.as_clients import AUTH_METHODS
from mcpkit.auth.as_http import error_response, json_response
from mcpkit.auth.as_store import AuthStore, RegisteredClient, digest
from mcpkit.auth.as_token import GRANTS
from mcpkit.auth.cimd import valid_redirect_uri

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["Registration"]


class Registration:
    """``/register`` (a base of the authorization server)."""

    store: AuthStore
    _now: Callable[[], float]

    async def register(self, request: Request) -> Response:
        """RFC 7591 dynamic client registration."""
        import orjson

        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return error_response("invalid_client_metadata", "The body is not JSON")
        if not isinstance(body, dict):
            return error_response("invalid_client_metadata", "The body is not a JSON object")
        uris = body.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            return error_response("invalid_redirect_uri", "redirect_uris must be a non-empty list")
        for uri in uris:
            if not valid_redirect_uri(uri):
                return error_response(
                    "invalid_redirect_uri", f"Not an https, loopback or app redirect URI: {uri}"
                )
        method = body.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in AUTH_METHODS:
            return error_response("invalid_client_metadata", f"Unsupported auth method {method!r}")
        grants = body.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or not set(grants) <= set(GRANTS):
            return error_response("invalid_client_metadata", f"Unsupported grant types {grants!r}")
        client_id = uuid.uuid4().hex
        secret = None if method == "none" else secrets.token_urlsafe(32)
        doc = {
            **{k: v for k, v in body.items() if k != "client_secret"},
            "client_id": client_id,
            "client_id_issued_at": int(self._now()),
            "token_endpoint_auth_method": method,
            "grant_types": grants,
            "redirect_uris": uris,
        }
        await self.store.add_client(
            RegisteredClient(
                client_id,
                tuple(uris),
                method,
                digest(secret) if secret else None,
                tuple(grants),
                doc,
            )
        )
        if secret is not None:
            doc["client_secret"] = secret
            doc["client_secret_expires_at"] = 0
        return json_response(doc, 201)
