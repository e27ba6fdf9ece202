"""The authorization endpoint of the embedded authorization server, and its consent page.

:class:`AuthorizationEndpoint` (a base of
:class:`~mcpkit.auth.authorization_server.AuthorizationServer`) validates an
``/authorize`` request (a known client, its exact redirect URI, PKCE S256, the scopes and
the resource, RFC 8707), asks the application's ``approve`` who the user is, narrows the
scopes to those the user may hold, shows the consent page when asked to, and sends the
code back to the client with ``state`` and ``iss`` (RFC 9207). Errors about the client or
its redirect URI are shown to the user, never sent to an unverified URI.
"""

from __future__ import annotations

import hmac
import inspect
import secrets
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

from mcpkit.auth.as_clients import ClientAuthentication
from mcpkit.auth.as_http import EndpointError, error_page, read_form
from mcpkit.auth.as_store import AuthCode, RegisteredClient, digest
from mcpkit.auth.cimd import ClientMetadataError
from mcpkit.auth.registration import is_loopback_url

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["Approve", "AuthorizationEndpoint", "AuthorizationRequest", "UserScopes"]


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A validated ``/authorize`` request, for ``approve`` to decide on: the client, the
    scopes and resource asked for, and the HTTP request (cookies, headers)."""

    client_id: str
    client_name: str | None
    scopes: tuple[str, ...]
    resource: str
    http: Request


#: Who approves: the subject, None to refuse, or a Response (a login or consent page).
Approve = Callable[[AuthorizationRequest], Any]
#: The scopes a user may hold: ``(subject, claims) -> scopes`` (or an awaitable of them).
UserScopes = Callable[[str, Mapping[str, Any]], Iterable[str] | Awaitable[Iterable[str]]]


def _redirect(redirect: str, params: dict[str, str], status: int) -> Response:
    """Back to the client's ``redirect`` URI with ``params`` in its query."""
    from starlette.responses import RedirectResponse

    sep = "&" if urlsplit(redirect).query else "?"
    return RedirectResponse(redirect + sep + urlencode(params), status_code=status)


class AuthorizationEndpoint(ClientAuthentication):
    """``/authorize`` and ``/authorize/consent`` (a base of the authorization server)."""

    resources: list[str]
    approve: Approve
    scopes_supported: list[str]
    default_scopes: tuple[str, ...]
    user_scopes: UserScopes | None
    consent: bool
    code_ttl: int
    _consent_key: bytes

    async def authorize(self, request: Request) -> Response:
        """The authorization endpoint: errors about the client or the redirect URI are shown
        here (never sent to an unverified URI); the rest go back to the client."""
        query = request.query_params
        if any(len(query.getlist(k)) > 1 for k in query):
            return error_page(400, "A parameter is repeated")
        try:
            client = await self.get_client(query.get("client_id", ""))
        except ClientMetadataError as exc:
            return error_page(400, str(exc))
        if client is None:
            return error_page(400, "Unknown client")
        redirect = query.get("redirect_uri")
        if redirect is None or redirect not in client.redirect_uris:  # exact match
            return error_page(400, "The redirect URI is not registered for this client")
        state = query.get("state")

        def back(**params: str) -> Response:
            out = {**params, "iss": self.issuer}
            if state is not None:
                out["state"] = state
            return _redirect(redirect, out, 302)

        if query.get("response_type") != "code":
            return back(error="unsupported_response_type", error_description="Only code")
        challenge = query.get("code_challenge")
        if not challenge or query.get("code_challenge_method") != "S256":
            return back(error="invalid_request", error_description="PKCE with S256 is required")
        if len(challenge) != 43:
            return back(error="invalid_request", error_description="Malformed code_challenge")
        try:
            scopes = self._scopes(query.get("scope"))
            resource = self._resource(query.get("resource"))
        except EndpointError as exc:
            return back(error=exc.error, error_description=exc.description)
        decision = self.approve(
            AuthorizationRequest(
                client.client_id, client.metadata.get("client_name"), scopes, resource, request
            )
        )
        if inspect.isawaitable(decision):
            decision = await decision
        from starlette.responses import Response as HTTPResponse

        if isinstance(decision, HTTPResponse):
            return decision  # a login or consent page of the application's
        if not decision:
            return back(error="access_denied", error_description="The user refused")
        pending = {
            "client_id": client.client_id,
            "redirect_uri": redirect,
            "code_challenge": challenge,
            "scopes": list(scopes),
            "resource": resource,
            "subject": str(decision),
            "state": state,
        }
        return await self.grant(client, pending)

    async def grant(self, client: RegisteredClient, pending: dict[str, Any]) -> Response:
        """Finish an authorization the user was identified for: the consent page (with
        ``consent``), else the code sent back to the client. ``pending`` holds what
        ``/authorize`` validated (``client_id``, ``redirect_uri``, ``code_challenge``,
        ``scopes``, ``resource``, ``state``), the ``subject`` and optionally the ``claims``
        its tokens carry and the token ``family``."""
        if self.user_scopes is not None:
            allowed = self.user_scopes(pending["subject"], pending.get("claims") or {})
            if inspect.isawaitable(allowed):
                allowed = await allowed
            permitted = set(allowed)
            pending = {**pending, "scopes": [s for s in pending["scopes"] if s in permitted]}
        if self.consent:
            return self._consent_page(client, pending)
        out = {"code": await self._new_code(pending), "iss": self.issuer}
        if pending.get("state") is not None:
            out["state"] = pending["state"]
        return _redirect(pending["redirect_uri"], out, 302)

    async def _new_code(self, pending: dict[str, Any]) -> str:
        code = secrets.token_urlsafe(32)
        await self.store.put_code(
            digest(code),
            AuthCode(
                pending["client_id"],
                pending["redirect_uri"],
                pending["code_challenge"],
                tuple(pending["scopes"]),
                pending["resource"],
                pending["subject"],
                self._now() + self.code_ttl,
                pending.get("family") or uuid.uuid4().hex,
                dict(pending.get("claims") or {}),
            ),
        )
        return code

    def _consent_page(self, client: RegisteredClient, pending: dict[str, Any]) -> Response:
        from mcpkit.auth import consent

        csrf = secrets.token_urlsafe(24)
        ticket = consent.seal(
            self._consent_key, {**pending, "csrf": csrf, "exp": self._now() + consent.TTL}
        )
        name = str(client.metadata.get("client_name") or client.client_id)
        warning = None
        if self.documents is not None and self.documents.is_document_url(client.client_id):
            # a metadata document names itself: show where it comes from
            name = f"{name} ({urlsplit(client.client_id).netloc})"
            if is_loopback_url(pending["redirect_uri"]):
                warning = (
                    "the answer goes to a program on this computer, and any program can "
                    "claim this name there: allow only if you started it yourself."
                )
        return consent.page(
            client_name=name,
            warning=warning,
            redirect_uri=pending["redirect_uri"],
            scopes=pending["scopes"],
            resource=pending["resource"],
            action=urlsplit(self.issuer).path.rstrip("/") + "/authorize/consent",
            ticket=ticket,
            csrf=csrf,
            secure=self.issuer.startswith("https://"),
        )

    async def consent_answer(self, request: Request) -> Response:
        """The consent form's answer: allowed, the code goes back to the client; denied,
        ``access_denied``. Refused (403) without the consent cookie and a matching form
        token (cross-site request forgery), 400 for a forged or expired ticket."""
        from mcpkit.auth import consent

        try:
            form = await read_form(request)
        except EndpointError as exc:
            return error_page(400, exc.description)
        cookie = request.cookies.get(consent.COOKIE, "")
        field = form.get("csrf", "")
        if not cookie or not hmac.compare_digest(cookie.encode(), field.encode()):
            return error_page(403, "The consent form did not come from this page")
        pending = consent.open_ticket(self._consent_key, form.get("ticket", ""))
        if pending is None or not hmac.compare_digest(str(pending.get("csrf")), field):
            return error_page(400, "The consent request is invalid")
        if float(pending.get("exp", 0)) <= self._now():
            return error_page(400, "The consent request has expired: start again")
        redirect, state = pending["redirect_uri"], pending.get("state")
        out: dict[str, str]
        if form.get("decision") == "allow":
            out = {"code": await self._new_code(pending)}
        else:
            out = {"error": "access_denied", "error_description": "The user refused"}
        out["iss"] = self.issuer
        if state is not None:
            out["state"] = state
        response = _redirect(redirect, out, 303)
        response.delete_cookie(consent.COOKIE, path=consent.cookie_path(self.issuer))
        return response

    def _scopes(self, scope: str | None) -> tuple[str, ...]:
        if not scope:
            return self.default_scopes
        asked = tuple(dict.fromkeys(scope.split()))
        unknown = [s for s in asked if self.scopes_supported and s not in self.scopes_supported]
        if unknown:
            raise EndpointError("invalid_scope", f"Unknown scope(s): {' '.join(unknown)}")
        return asked

    def _resource(self, resource: str | None) -> str:
        from mcpkit.auth.server import canonical_uri

        if resource is None:
            return self.resources[0]
        for known in self.resources:
            if canonical_uri(known) == canonical_uri(resource):
                return known
        raise EndpointError("invalid_target", f"Tokens are not issued for {resource}")
