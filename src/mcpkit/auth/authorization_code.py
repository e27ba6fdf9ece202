"""The authorization code grant's front channel (OAuth 2.1 with PKCE S256, RFC 9207).

:func:`authorization_code_form` builds the authorization URL, hands it to the
:data:`AuthorizationHandler` (a browser, or
:func:`~mcpkit.auth.client.headless_authorization_handler`) and checks what came back to
the redirect URI, in the order that keeps a mix-up attack out: the response's issuer
(``iss``) first, then ``state``, then the code or the error. The result is the form of the
token request that redeems the code.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from mcpkit.auth.discovery import AuthorizationServerMetadata
from mcpkit.auth.errors import OAuthError
from mcpkit.auth.issuer import check_authorization_response_issuer
from mcpkit.auth.pkce import PKCE, new_state
from mcpkit.auth.tokens import ClientInfo

__all__ = ["AuthorizationHandler", "AuthorizationResponse", "authorization_code_form"]


@dataclass(frozen=True, slots=True)
class AuthorizationResponse:
    """What came back to the redirect URI: ``code``, ``state`` and (RFC 9207) ``iss``, or for
    an error response ``error`` (``code`` is then empty) with its description and URI.

    The client checks ``iss`` and ``state`` before it acts on either a code or an error.
    """

    code: str
    state: str | None = None
    iss: str | None = None
    error: str | None = None
    error_description: str | None = None
    error_uri: str | None = None

    @classmethod
    def from_redirect(cls, url: str) -> AuthorizationResponse:
        """Parse the redirect URL the authorization server sent the user agent to (its query
        is form-decoded, nothing else is normalised)."""
        query = parse_qs(urlsplit(url).query, keep_blank_values=True)

        def one(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        error = one("error")
        code = one("code")
        if error is None and not code:
            raise OAuthError("The authorization response carries neither a code nor an error")
        return cls(
            code or "",
            one("state"),
            one("iss"),
            error,
            one("error_description"),
            one("error_uri"),
        )


#: Receives the authorization URL (open it in a browser, or fetch it headlessly) and returns
#: the redirect URL the authorization server sent back, or the parsed response.
AuthorizationHandler = Callable[[str], Awaitable["str | AuthorizationResponse"]]


async def authorization_code_form(
    handler: AuthorizationHandler,
    meta: AuthorizationServerMetadata,
    client: ClientInfo,
    *,
    scope: str | None,
    redirect_uri: str,
    resource: str,
) -> dict[str, str]:
    """Run the front channel of the authorization code grant at ``meta``'s authorization
    endpoint for ``client``; the token request form redeeming the code (OAuthError when the
    server cannot do PKCE S256, the response is another issuer's or another request's, or
    it is an error)."""
    endpoint = meta.authorization_endpoint
    if endpoint is None:
        raise OAuthError(f"The authorization server {meta.issuer} has no authorization endpoint")
    if "S256" not in (meta.code_challenge_methods_supported or []):
        raise OAuthError(
            f"The authorization server {meta.issuer} does not advertise PKCE S256: refusing"
        )
    pkce = PKCE.generate()
    state = new_state()
    # The parameters in the official SDK's order (so an authorization URL shown to the user
    # reads the same as one its client shows).
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": pkce.challenge,
        "code_challenge_method": pkce.method,
        "resource": resource,
    }
    if scope:
        params["scope"] = scope
        if "offline_access" in scope.split():
            # OpenID Connect Core s11: a refresh token is asked for with prompt=consent.
            params["prompt"] = "consent"
    url = endpoint + ("&" if urlsplit(endpoint).query else "?") + urlencode(params)
    result = await handler(url)
    response = (
        result
        if isinstance(result, AuthorizationResponse)
        else AuthorizationResponse.from_redirect(result)
    )
    # RFC 9207 first: a response (error responses too) from another issuer is not acted
    # on, nor is its error shown. meta.issuer is the recorded issuer, from the validated
    # metadata of the authorization server this request went to.
    check_authorization_response_issuer(
        response.iss,
        recorded_issuer=meta.issuer,
        iss_parameter_supported=meta.iss_parameter_supported,
    )
    if response.state is None or not hmac.compare_digest(response.state.encode(), state.encode()):
        raise OAuthError(
            "The authorization response's state does not match: discarded", error="state_mismatch"
        )
    if response.error is not None:
        detail = response.error_description
        raise OAuthError(
            f"Authorization refused: {response.error}" + (f" ({detail})" if detail else ""),
            error=response.error,
        )
    if not response.code:
        raise OAuthError("The authorization response carries no code")
    return {
        "grant_type": "authorization_code",
        "code": response.code,
        "code_verifier": pkce.verifier,
        "redirect_uri": redirect_uri,
        "resource": resource,
    }
