"""The token and revocation endpoints of the embedded authorization server.

:class:`TokenEndpoint` (a base of
:class:`~mcpkit.auth.authorization_server.AuthorizationServer`) redeems an authorization
code once (PKCE S256, the same client, redirect URI and resource; a replayed code revokes
what it gave), refreshes with rotation (a replayed refresh token revokes its whole family),
issues the access tokens (RFC 9068 JWTs, ``typ: at+jwt``, ES256, ``aud`` the resource,
``sid`` the grant) and revokes refresh token families (RFC 7009).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit.auth.as_clients import ClientAuthentication
from mcpkit.auth.as_http import EndpointError, error_response, json_response, read_form
from mcpkit.auth.as_store import RefreshGrant, RegisteredClient, digest

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["GRANTS", "TokenEndpoint"]

#: The grants the token endpoint serves.
GRANTS: Final = ("authorization_code", "refresh_token")


class TokenEndpoint(ClientAuthentication):
    """``/token`` and ``/revoke`` (a base of the authorization server)."""

    access_token_ttl: int
    refresh_token_ttl: int | None
    kid: str
    _key: Any
    on_revoke: Callable[[str], Awaitable[None]] | None

    async def token(self, request: Request) -> Response:
        """The token endpoint: ``authorization_code`` and ``refresh_token`` grants."""
        try:
            form = await read_form(request)
            client = await self._client(request, form)
            grant = form.get("grant_type")
            if grant not in client.grant_types:
                raise EndpointError("unsupported_grant_type", f"Grant {grant!r} not allowed")
            if grant == "authorization_code":
                body = await self._redeem(client, form)
            else:
                body = await self._refresh(client, form)
        except EndpointError as exc:
            return error_response(exc.error, exc.description, exc.status)
        return json_response(body, 200, no_store=True)

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: a refresh token (and its family) stops working. Access tokens are
        short-lived JWTs, not tracked: they run out (``access_token_ttl``)."""
        try:
            form = await read_form(request)
            client = await self._client(request, form)
        except EndpointError as exc:
            return error_response(exc.error, exc.description, exc.status)
        grant = await self.store.get_refresh(digest(form.get("token", "")))
        if grant is not None and grant.client_id == client.client_id:
            await self.store.revoke_family(grant.family)
            if self.on_revoke is not None:
                await self.on_revoke(grant.family)
        return json_response({}, 200)

    async def _redeem(self, client: RegisteredClient, form: dict[str, str]) -> dict[str, Any]:
        key = digest(form.get("code", ""))
        code = await self.store.take_code(key)
        if code is None:
            family = await self.store.code_replayed(key)
            if family is not None:  # OAuth 2.1 s4.1.3: revoke what the code gave
                await self.store.revoke_family(family)
            raise EndpointError("invalid_grant", "The code is invalid, used or expired")
        if code.client_id != client.client_id:
            raise EndpointError("invalid_grant", "The code was issued to another client")
        if code.expires_at <= self._now():
            raise EndpointError("invalid_grant", "The code has expired")
        if form.get("redirect_uri") != code.redirect_uri:
            raise EndpointError("invalid_grant", "redirect_uri differs from the authorization's")
        verifier = form.get("code_verifier", "")
        computed = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        if not 43 <= len(verifier) <= 128 or not hmac.compare_digest(computed, code.code_challenge):
            raise EndpointError("invalid_grant", "The code_verifier does not match")
        if "resource" in form and form["resource"] != code.resource:
            raise EndpointError("invalid_target", "resource differs from the authorization's")
        return await self._issue(
            client.client_id, code.subject, code.scopes, code.resource, code.family, code.claims
        )

    async def _refresh(self, client: RegisteredClient, form: dict[str, str]) -> dict[str, Any]:
        key = digest(form.get("refresh_token", ""))
        grant = await self.store.get_refresh(key)
        if grant is None or grant.client_id != client.client_id:
            raise EndpointError("invalid_grant", "The refresh token is invalid")
        if await self.store.family_revoked(grant.family):
            raise EndpointError("invalid_grant", "The refresh token was revoked")
        if not await self.store.mark_used(key):  # replayed: whoever holds it is suspect
            await self.store.revoke_family(grant.family)
            raise EndpointError("invalid_grant", "The refresh token was already used")
        if grant.expires_at is not None and grant.expires_at <= self._now():
            raise EndpointError("invalid_grant", "The refresh token has expired")
        scopes = grant.scopes
        if form.get("scope"):
            asked = tuple(form["scope"].split())
            if not set(asked) <= set(scopes):
                raise EndpointError("invalid_scope", "A refresh cannot widen the scopes")
            scopes = asked
        if "resource" in form and form["resource"] != grant.resource:
            raise EndpointError("invalid_target", "resource differs from the grant's")
        return await self._issue(
            client.client_id, grant.subject, scopes, grant.resource, grant.family, grant.claims
        )

    async def _issue(
        self,
        client_id: str,
        subject: str,
        scopes: tuple[str, ...],
        resource: str,
        family: str,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        from joserfc import jwt

        now = int(self._now())
        claims = {
            **(extra or {}),
            "sid": family,  # the grant: a revocation ends it
            "iss": self.issuer,
            "aud": resource,
            "sub": subject,
            "client_id": client_id,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + self.access_token_ttl,
            "jti": secrets.token_urlsafe(16),
        }
        header = {"alg": "ES256", "typ": "at+jwt", "kid": self.kid}
        access = jwt.encode(header, claims, self._key, algorithms=["ES256"])
        refresh = secrets.token_urlsafe(32)
        await self.store.put_refresh(
            digest(refresh),
            RefreshGrant(
                client_id,
                scopes,
                resource,
                subject,
                family,
                now + self.refresh_token_ttl if self.refresh_token_ttl is not None else None,
                claims=dict(extra or {}),
            ),
        )
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.access_token_ttl,
            "refresh_token": refresh,
            "scope": " ".join(scopes),
        }
