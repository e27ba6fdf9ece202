"""Who the clients of the embedded authorization server are, and how they prove it.

:class:`ClientAuthentication` (a base of
:class:`~mcpkit.auth.authorization_server.AuthorizationServer`) finds a client (a registered
one, or the one its HTTPS client ID metadata document describes) and authenticates it at
the token and revocation endpoints: ``none`` (public clients), ``client_secret_basic``,
``client_secret_post``, or ``private_key_jwt`` (RFC 7523: a short-lived JWT signed by a key
of the client's ``jwks``, used once) for metadata document clients.
"""

from __future__ import annotations

import base64
import hmac
from collections.abc import Callable
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote, urlsplit

from mcpkit.auth.as_http import EndpointError
from mcpkit.auth.as_store import AuthStore, RegisteredClient, digest
from mcpkit.auth.cimd import ClientMetadataDocuments, ClientMetadataError

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = [
    "ASSERTION_ALGS",
    "ASSERTION_MAX_TTL",
    "ASSERTION_TYPE",
    "AUTH_METHODS",
    "ClientAuthentication",
]

#: How registered clients may authenticate (``private_key_jwt`` is for metadata documents).
AUTH_METHODS: Final = ("none", "client_secret_post", "client_secret_basic")
ASSERTION_TYPE: Final = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: The signatures a client assertion may use (asymmetric: keys from a metadata document).
ASSERTION_ALGS: Final = ("ES256", "ES384", "RS256", "PS256", "EdDSA")
#: The longest a client assertion may live (seconds).
ASSERTION_MAX_TTL: Final = 600


class ClientAuthentication:
    """Finding and authenticating clients (a base of the authorization server)."""

    issuer: str
    store: AuthStore
    documents: ClientMetadataDocuments | None
    _now: Callable[[], float]

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        """The client ``client_id`` names: a registered one, or the one its metadata
        document describes (:class:`~mcpkit.auth.cimd.ClientMetadataError` when that
        document is refused); None when unknown."""
        if self.documents is not None and self.documents.is_document_url(client_id):
            return await self.documents.client(client_id)
        return await self.store.get_client(client_id)

    async def _client(self, request: Request, form: dict[str, str]) -> RegisteredClient:
        """The authenticated client of a token or revocation request."""
        header = request.headers.get("authorization", "")
        secret: str | None = None
        used = "none"
        client_id = form.get("client_id")
        if header[:6].lower() == "basic ":
            try:
                raw = base64.b64decode(header[6:], validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                raise EndpointError("invalid_client", "Malformed Basic credentials", 401) from None
            basic_id, sep, basic_secret = raw.partition(":")
            if not sep:
                raise EndpointError("invalid_client", "Malformed Basic credentials", 401)
            basic_id, secret = unquote(basic_id), unquote(basic_secret)
            if client_id is not None and client_id != basic_id:
                raise EndpointError("invalid_client", "client_id differs from the Basic one", 401)
            client_id, used = basic_id, "client_secret_basic"
        elif "client_secret" in form:
            secret, used = form["client_secret"], "client_secret_post"
        elif "client_assertion" in form or "client_assertion_type" in form:
            used = "private_key_jwt"
            if client_id is None:
                client_id = _assertion_issuer(form.get("client_assertion", ""))
        try:
            client = await self.get_client(client_id or "")
        except ClientMetadataError as exc:
            raise EndpointError("invalid_client", str(exc), 401) from None
        if client is None:
            raise EndpointError("invalid_client", "Unknown client", 401)
        if client.auth_method != used:
            raise EndpointError(
                "invalid_client", f"This client authenticates with {client.auth_method}", 401
            )
        if used == "private_key_jwt":
            await self._check_assertion(client, form, request)
            return client
        expected = client.secret_hash
        if expected is not None and (
            secret is None or not hmac.compare_digest(digest(secret), expected)
        ):
            raise EndpointError("invalid_client", "Client authentication failed", 401)
        return client

    async def _check_assertion(
        self, client: RegisteredClient, form: dict[str, str], request: Request
    ) -> None:
        """RFC 7523 client authentication: a JWT signed by a key of the client's ``jwks``,
        ``iss`` = ``sub`` = the client, for this server (its issuer or the endpoint's URL),
        short-lived, its ``jti`` used once."""
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jwk import KeySet

        def refuse(why: str) -> EndpointError:
            return EndpointError("invalid_client", f"The client assertion {why}", 401)

        if form.get("client_assertion_type") != ASSERTION_TYPE:
            raise refuse(f"type must be {ASSERTION_TYPE}")
        try:
            keys = KeySet.import_key_set(client.metadata["jwks"])
            claims = jwt.decode(
                form.get("client_assertion", ""), keys, algorithms=list(ASSERTION_ALGS)
            )
        except (JoseError, ValueError, KeyError, TypeError):
            raise refuse("is not signed by a key of the client") from None
        c = claims.claims
        if c.get("iss") != client.client_id or c.get("sub") != client.client_id:
            raise refuse("names another client")
        aud = c.get("aud")
        audiences = aud if isinstance(aud, list) else [aud]
        endpoint = self.issuer + urlsplit(str(request.url)).path[len(urlsplit(self.issuer).path) :]
        if not ({self.issuer, endpoint} & set(audiences)):
            raise refuse("is for another server")
        now = self._now()
        exp, jti = c.get("exp"), c.get("jti")
        if not isinstance(exp, (int, float)) or not now - 30 < exp <= now + ASSERTION_MAX_TTL:
            raise refuse("has expired, or lives too long")
        if not isinstance(jti, str) or not jti:
            raise refuse("has no jti")
        if not await self.store.first_use(
            digest(f"{client.client_id} {jti}"), ASSERTION_MAX_TTL + 60
        ):
            raise refuse("was already used")


def _assertion_issuer(assertion: str) -> str | None:
    """The ``iss`` of a JWT, unverified (to find the client whose keys verify it)."""
    import orjson

    parts = assertion.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = orjson.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, orjson.JSONDecodeError):
        return None
    iss = claims.get("iss") if isinstance(claims, dict) else None
    return iss if isinstance(iss, str) else None
