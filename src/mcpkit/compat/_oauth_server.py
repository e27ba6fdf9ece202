"""The endpoints of an authorization server implementing the official SDK's provider
protocol (``mcp.server.auth.provider.OAuthAuthorizationServerProvider``), served beside the
MCP endpoint on mcpkit: for the official SDK's ``MCPServer(auth_server_provider=...)`` and
for fastmcp's ``OAuthProvider``.

The provider decides (who a client is, what a code or token grants, what to issue); these
endpoints validate the requests and shape the answers as the SDK's do: the metadata
(RFC 8414), ``/authorize`` (a code with PKCE S256, errors redirected to a registered URI or
answered 400), ``/token`` (the code and refresh grants, client authentication by secret;
``invalid_client`` answered 401, ``invalid_grant`` 400 as the official SDK answers it or
401 as fastmcp does; with ``identity_assertion``, the SEP-990 jwt-bearer grant handed to the
provider's ``exchange_identity_assertion``), ``/register`` (RFC 7591) and ``/revoke``
(RFC 7009) when the provider's options enable them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import parse_qsl, unquote

from pydantic import AnyUrl, BaseModel, Field, TypeAdapter, ValidationError

from mcpkit.asgi_types import ASGIApp, Receive, Scope, Send
from mcpkit.compat.mcp.server.auth.provider import (
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcpkit.compat.mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcpkit.compat.mcp.shared.auth import (
    JWT_BEARER_GRANT_TYPE,
    InvalidRedirectUriError,
    InvalidScopeError,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["authorization_server_apps", "authorization_server_metadata"]

logger = logging.getLogger(__name__)

_URL = TypeAdapter(AnyUrl)
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
#: The grant profile an authorization server accepting ID-JAGs advertises (SEP-990).
ID_JAG_GRANT_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag"


def _describe(error: ValidationError) -> str:
    """A validation error as the SDK's endpoints word it (one ``loc: msg`` line each)."""
    return "\n".join(
        f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in error.errors()
    )


def _json(
    body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse({k: v for k, v in body.items() if v is not None}, status, headers=headers)


async def _form(request: Request) -> dict[str, str]:
    """A form-encoded body (the last value of a repeated parameter, as Starlette's form)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return {}
    return dict(parse_qsl((await request.body()).decode("utf-8", "replace"), True))


def authorization_server_metadata(
    base_url: str,
    issuer: str,
    service_documentation_url: str | None,
    registration: ClientRegistrationOptions,
    revocation: RevocationOptions,
    identity_assertion: bool = False,
) -> dict[str, Any]:
    """The RFC 8414 document: endpoints under ``base_url``, ``issuer`` as given (with
    ``identity_assertion``, the jwt-bearer grant and the ID-JAG grant profile)."""
    base = base_url.rstrip("/")
    doc: dict[str, Any] = {
        "issuer": issuer,
        "authorization_endpoint": base + "/authorize",
        "token_endpoint": base + "/token",
    }
    if registration.enabled:
        doc["registration_endpoint"] = base + "/register"
    doc["scopes_supported"] = registration.valid_scopes
    doc["response_types_supported"] = ["code"]
    doc["grant_types_supported"] = ["authorization_code", "refresh_token"]
    if identity_assertion:
        doc["grant_types_supported"].append(JWT_BEARER_GRANT_TYPE)
    doc["token_endpoint_auth_methods_supported"] = ["client_secret_post", "client_secret_basic"]
    doc["service_documentation"] = service_documentation_url
    if revocation.enabled:
        doc["revocation_endpoint"] = base + "/revoke"
        doc["revocation_endpoint_auth_methods_supported"] = [
            "client_secret_post",
            "client_secret_basic",
        ]
    doc["code_challenge_methods_supported"] = ["S256"]
    if identity_assertion:
        doc["authorization_grant_profiles_supported"] = [ID_JAG_GRANT_PROFILE]
    return {k: v for k, v in doc.items() if v is not None}


class _AuthorizationRequest(BaseModel):
    client_id: str
    redirect_uri: AnyUrl | None = None
    response_type: Literal["code"]
    code_challenge: str
    code_challenge_method: Literal["S256"] = "S256"
    state: str | None = None
    scope: str | None = None
    resource: str | None = None


class _CodeRequest(BaseModel):
    grant_type: Literal["authorization_code"]
    code: str
    redirect_uri: AnyUrl | None = None
    client_id: str
    client_secret: str | None = None
    code_verifier: str
    resource: str | None = None


class _RefreshRequest(BaseModel):
    grant_type: Literal["refresh_token"]
    refresh_token: str
    scope: str | None = None
    client_id: str
    client_secret: str | None = None
    resource: str | None = None


class _JwtBearerRequest(BaseModel):
    grant_type: Literal["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    assertion: str
    scope: str | None = None
    client_id: str
    client_secret: str | None = None
    resource: str | None = None


_TOKEN_REQUEST: TypeAdapter[_CodeRequest | _RefreshRequest | _JwtBearerRequest] = TypeAdapter(
    Annotated[_CodeRequest | _RefreshRequest | _JwtBearerRequest, Field(discriminator="grant_type")]
)


class _RevocationRequest(BaseModel):
    token: str
    token_type_hint: Literal["access_token", "refresh_token"] | None = None
    client_id: str
    client_secret: str | None


class ClientAuthError(Exception):
    """The client of a token or revocation request could not be authenticated."""


class Endpoints:
    """The endpoints of one provider (see the module docstring)."""

    def __init__(
        self,
        provider: Any,
        registration: ClientRegistrationOptions,
        invalid_grant_status: int = 401,
        v1: bool = False,
        identity_assertion: bool = False,
    ) -> None:
        self.provider = provider
        #: Whether the jwt-bearer grant (SEP-990's ID-JAG) reaches the provider.
        self.identity_assertion = identity_assertion
        self.registration = registration
        self.invalid_grant_status = invalid_grant_status
        #: The official SDK 1.x's answers: ``unauthorized_client`` for a token request's
        #: client refused, registrations without ``application_type`` and, without an
        #: expiry, without ``client_secret_expires_at``.
        self.v1 = v1

    # -- client authentication -------------------------------------------------------------------

    async def authenticate(
        self, request: Request, form: dict[str, str]
    ) -> OAuthClientInformationFull:
        """The client a token or revocation request comes from, its secret checked."""
        client_id = form.get("client_id")
        if not client_id:
            raise ClientAuthError("Missing client_id")
        client: OAuthClientInformationFull | None = await self.provider.get_client(client_id)
        if not client:
            raise ClientAuthError("Invalid client_id")
        method = client.token_endpoint_auth_method
        secret: str | None = None
        if method == "client_secret_basic":
            header = request.headers.get("Authorization", "")
            if not header.startswith("Basic "):
                raise ClientAuthError(
                    "Missing or invalid Basic authentication in Authorization header"
                )
            try:
                decoded = base64.b64decode(header[6:]).decode("utf-8")
            except (ValueError, UnicodeDecodeError, binascii.Error):
                raise ClientAuthError("Invalid Basic authentication header") from None
            if ":" not in decoded:
                raise ClientAuthError("Invalid Basic authentication header")
            basic_id, secret = (unquote(part) for part in decoded.split(":", 1))
            if basic_id != client_id:
                raise ClientAuthError("Client ID mismatch in Basic auth")
        elif method == "client_secret_post":
            secret = form.get("client_secret")
        elif method != "none":
            raise ClientAuthError(f"Unsupported auth method: {method}")
        if method != "none" and not client.client_secret:
            raise ClientAuthError(
                "Client is registered for secret-based authentication but has no stored secret"
            )
        if client.client_secret:
            if not secret:
                raise ClientAuthError("Client secret is required")
            if not hmac.compare_digest(client.client_secret.encode(), secret.encode()):
                raise ClientAuthError("Invalid client_secret")
            expires = client.client_secret_expires_at
            if expires and expires < int(time.time()):
                raise ClientAuthError("Client secret has expired")
        return client

    # -- /authorize ------------------------------------------------------------------------------

    async def authorize(self, request: Request) -> Response:
        """An authorization request: the provider's redirect, or the error."""
        from starlette.responses import RedirectResponse

        params = dict(request.query_params) if request.method == "GET" else await _form(request)
        state = params.get("state")
        client: OAuthClientInformationFull | None = None
        redirect: AnyUrl | None = None

        async def fail(error: str, description: str | None, load_client: bool = True) -> Response:
            nonlocal client, redirect
            if client is None and load_client and params.get("client_id"):
                client = await self.provider.get_client(params["client_id"])
            if redirect is None and client is not None:
                try:
                    raw = (
                        _URL.validate_python(params["redirect_uri"])
                        if "redirect_uri" in params
                        else None
                    )
                    redirect = client.validate_redirect_uri(raw)
                except (ValidationError, InvalidRedirectUriError):
                    pass
            body = {"error": error, "error_description": description, "state": state}
            if redirect is not None and client is not None:
                target = construct_redirect_uri(str(redirect), **body)
                return RedirectResponse(target, 302, headers={"Cache-Control": "no-store"})
            return _json(body, 400, {"Cache-Control": "no-store"})

        try:
            try:
                ask = _AuthorizationRequest.model_validate(params)
            except ValidationError as exc:
                error = "invalid_request"
                for e in exc.errors():
                    if e["loc"] == ("response_type",) and e["type"] == "literal_error":
                        error = "unsupported_response_type"
                        break
                return await fail(error, _describe(exc))
            state = ask.state
            client = await self.provider.get_client(ask.client_id)
            if client is None:
                return await fail(
                    "invalid_request", f"Client ID '{ask.client_id}' not found", False
                )
            try:
                redirect = client.validate_redirect_uri(ask.redirect_uri)
            except InvalidRedirectUriError as exc:
                return await fail("invalid_request", exc.message)
            try:
                scopes = client.validate_scope(ask.scope)
            except InvalidScopeError as exc:
                return await fail("invalid_scope", exc.message)
            granted = AuthorizationParams(
                state=state,
                scopes=scopes,
                code_challenge=ask.code_challenge,
                redirect_uri=redirect,
                redirect_uri_provided_explicitly=ask.redirect_uri is not None,
                resource=ask.resource,
            )
            try:
                target = await self.provider.authorize(client, granted)
            except AuthorizeError as exc:
                return await fail(exc.error, exc.error_description)
            return RedirectResponse(target, 302, headers={"Cache-Control": "no-store"})
        except Exception:
            logger.exception("authorization request failed")
            return await fail("server_error", "An unexpected error occurred")

    # -- /token ----------------------------------------------------------------------------------

    async def token(self, request: Request) -> Response:
        """A token request: the provider's tokens, or the error."""
        form = await _form(request)
        try:
            client = await self.authenticate(request, form)
        except ClientAuthError as exc:
            error = "unauthorized_client" if self.v1 else "invalid_client"
            return _json({"error": error, "error_description": str(exc)}, 401, _NO_STORE)
        try:
            ask = _TOKEN_REQUEST.validate_python(form)
        except ValidationError as exc:
            return self._token_error("invalid_request", _describe(exc))
        if ask.grant_type not in client.grant_types:
            return self._token_error(
                "unsupported_grant_type",
                f"Unsupported grant type (supported grant types are {client.grant_types})",
            )
        try:
            if isinstance(ask, _CodeRequest):
                tokens = await self._code_grant(client, ask)
            elif isinstance(ask, _RefreshRequest):
                tokens = await self._refresh_grant(client, ask)
            else:
                tokens = await self._identity_assertion_grant(client, ask)
        except TokenError as exc:
            return self._token_error(exc.error, exc.error_description)
        return _json(tokens.model_dump(mode="json"), 200, _NO_STORE)

    async def _code_grant(
        self, client: OAuthClientInformationFull, ask: _CodeRequest
    ) -> OAuthToken:
        code = await self.provider.load_authorization_code(client, ask.code)
        if code is None or code.client_id != ask.client_id:
            raise TokenError("invalid_grant", "authorization code does not exist")
        if code.expires_at < time.time():
            raise TokenError("invalid_grant", "authorization code has expired")
        expected = str(code.redirect_uri) if code.redirect_uri_provided_explicitly else None
        given = str(ask.redirect_uri) if ask.redirect_uri is not None else None
        if given != expected:
            raise TokenError(
                "invalid_request", "redirect_uri did not match the one used when creating auth code"
            )
        digest = hashlib.sha256(ask.code_verifier.encode()).digest()
        if base64.urlsafe_b64encode(digest).decode().rstrip("=") != code.code_challenge:
            raise TokenError("invalid_grant", "incorrect code_verifier")
        tokens: OAuthToken = await self.provider.exchange_authorization_code(client, code)
        return tokens

    async def _refresh_grant(
        self, client: OAuthClientInformationFull, ask: _RefreshRequest
    ) -> OAuthToken:
        refresh = await self.provider.load_refresh_token(client, ask.refresh_token)
        if refresh is None or refresh.client_id != ask.client_id:
            raise TokenError("invalid_grant", "refresh token does not exist")
        if refresh.expires_at and refresh.expires_at < time.time():
            raise TokenError("invalid_grant", "refresh token has expired")
        scopes = ask.scope.split(" ") if ask.scope else refresh.scopes
        for scope in scopes:
            if scope not in refresh.scopes:
                raise TokenError(
                    "invalid_scope", f"cannot request scope `{scope}` not provided by refresh token"
                )
        tokens: OAuthToken = await self.provider.exchange_refresh_token(client, refresh, scopes)
        return tokens

    async def _identity_assertion_grant(
        self, client: OAuthClientInformationFull, ask: _JwtBearerRequest
    ) -> OAuthToken:
        """SEP-990: a confidential client's ID-JAG, exchanged by the provider."""
        if not self.identity_assertion:
            raise TokenError(
                "unsupported_grant_type",
                "The JWT bearer grant is not supported by this authorization server",
            )
        if not client.client_secret:
            raise TokenError(
                "unauthorized_client", "The JWT bearer grant requires a confidential client"
            )
        params = IdentityAssertionParams(
            assertion=ask.assertion,
            scopes=ask.scope.split(" ") if ask.scope else None,
            resource=ask.resource,
        )
        exchange = getattr(self.provider, "exchange_identity_assertion", None)
        if exchange is None:  # a provider not derived from the protocol class
            raise TokenError(
                "unsupported_grant_type",
                "The JWT bearer grant is not supported by this authorization server",
            )
        tokens: OAuthToken = await exchange(client, params)
        return tokens

    def _token_error(self, error: str, description: str | None) -> Response:
        """A token error: 400, ``invalid_grant`` with :attr:`invalid_grant_status`."""
        status = self.invalid_grant_status if error == "invalid_grant" else 400
        return _json({"error": error, "error_description": description}, status, _NO_STORE)

    # -- /register -------------------------------------------------------------------------------

    async def register(self, request: Request) -> Response:
        """A dynamic client registration: the client's record (201), or the error."""
        try:
            metadata = OAuthClientMetadata.model_validate_json(await request.body())
        except ValidationError as exc:
            return _registration_error(_describe(exc))
        options = self.registration
        if metadata.token_endpoint_auth_method is None:
            metadata.token_endpoint_auth_method = "client_secret_post"
        if metadata.token_endpoint_auth_method == "private_key_jwt":
            return _registration_error(
                "token_endpoint_auth_method 'private_key_jwt' is not supported"
            )
        secret = None if metadata.token_endpoint_auth_method == "none" else secrets.token_hex(32)
        if metadata.scope is None and options.default_scopes is not None:
            metadata.scope = " ".join(options.default_scopes)
        elif metadata.scope is not None and options.valid_scopes is not None:
            invalid = set(metadata.scope.split()) - set(options.valid_scopes)
            if invalid:
                return _registration_error(f"Requested scopes are not valid: {', '.join(invalid)}")
        if "authorization_code" not in metadata.grant_types:
            return _registration_error("grant_types must include 'authorization_code'")
        if JWT_BEARER_GRANT_TYPE in metadata.grant_types:
            return _registration_error(
                f"grant_types must not include '{JWT_BEARER_GRANT_TYPE}'; "
                "the identity-assertion grant requires a pre-registered client"
            )
        if "code" not in metadata.response_types:
            return _registration_error(
                "response_types must include 'code' for authorization_code grant"
            )
        issued = int(time.time())
        expires = None
        if secret is not None:
            expiry = options.client_secret_expiry_seconds
            expires = issued + expiry if expiry is not None else (None if self.v1 else 0)
        record = metadata.model_dump()
        if self.v1:
            del record["application_type"]
        client = OAuthClientInformationFull.model_validate(
            {
                **record,
                "client_id": str(uuid.uuid4()),
                "client_id_issued_at": issued,
                "client_secret": secret,
                "client_secret_expires_at": expires,
            }
        )
        try:
            await self.provider.register_client(client)
        except RegistrationError as exc:
            return _json({"error": exc.error, "error_description": exc.error_description}, 400)
        return _json(client.model_dump(mode="json"), 201)

    # -- /revoke ---------------------------------------------------------------------------------

    async def revoke(self, request: Request) -> Response:
        """A revocation: 200 whether or not the token was known (RFC 7009 s2.2)."""
        from starlette.responses import Response

        form = await _form(request)
        try:
            client = await self.authenticate(request, form)
        except ClientAuthError as exc:
            body = {"error": "unauthorized_client", "error_description": str(exc)}
            return _json(body, 401)
        try:
            ask = _RevocationRequest.model_validate(form)
        except ValidationError as exc:
            return _json({"error": "invalid_request", "error_description": _describe(exc)}, 400)
        provider = self.provider

        async def refresh(value: str) -> Any:
            return await provider.load_refresh_token(client, value)

        loaders: list[Callable[[str], Awaitable[Any]]] = [provider.load_access_token, refresh]
        if ask.token_type_hint == "refresh_token":
            loaders.reverse()
        found = None
        for load in loaders:
            found = await load(ask.token)
            if found is not None:
                break
        if found is not None and found.client_id == client.client_id:
            await provider.revoke_token(found)
        return Response(status_code=200, headers=_NO_STORE)


def _registration_error(description: str) -> Response:
    return _json({"error": "invalid_client_metadata", "error_description": description}, 400)


#: The SDK's limit on the body of a request to its authorization server (4 MiB).
MAX_BODY_SIZE = 4 * 1024 * 1024


async def _body_within(receive: Receive, send: Send, h: list[tuple[bytes, bytes]]) -> Any:
    """A ``receive`` replaying the request's body once it is known to be within
    :data:`MAX_BODY_SIZE`; else None, the request answered 413 as the SDK answers it."""
    from mcpkit.transports.http.asgi import BodyTooLarge, read_body_within

    declared = next((v for k, v in h if k.lower() == b"content-length"), None)
    try:
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_SIZE:
            raise BodyTooLarge
        body = await read_body_within(receive, MAX_BODY_SIZE, None, 0.0, 0.0)
    except BodyTooLarge:
        text = b"Request body too large"
        head = [(b"content-length", b"%d" % len(text))]
        await send({"type": "http.response.start", "status": 413, "headers": head})
        await send({"type": "http.response.body", "body": text})
        return None
    if body is None:
        return receive  # the client went away: the handler sees its disconnect
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _asgi(
    handler: Callable[[Request], Awaitable[Response]],
    methods: tuple[str, ...],
    cors: bool,
    limited: bool = False,
) -> ASGIApp:
    """``handler`` as an ASGI app answering ``methods`` (others: 405), readable from any
    origin when ``cors``, a body over :data:`MAX_BODY_SIZE` answered 413 when ``limited``
    (inside the CORS layer, so a 413 carries its headers, as on the SDK)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse

        if scope["method"] not in methods:
            allow = ", ".join(methods)
            response: Any = PlainTextResponse("Method Not Allowed", 405, headers={"Allow": allow})
        else:
            if limited:
                receive = await _body_within(receive, send, scope["headers"])
                if receive is None:
                    return
            response = await handler(Request(scope, receive))
        await response(scope, receive, send)

    if not cors:
        return app
    from starlette.middleware.cors import CORSMiddleware

    wrapped: ASGIApp = CORSMiddleware(
        app,
        allow_origins=["*"],
        allow_methods=list(methods),
        allow_headers=["mcp-protocol-version"],
    )
    return wrapped


def authorization_server_apps(
    provider: Any,
    metadata: dict[str, Any],
    metadata_paths: list[str],
    registration: ClientRegistrationOptions,
    revocation: RevocationOptions,
    invalid_grant_status: int = 401,
    v1: bool = False,
    identity_assertion: bool = False,
    token_limited: bool = True,
) -> dict[str, ASGIApp]:
    """The provider's endpoints by path: the metadata at ``metadata_paths``, then
    ``/authorize``, ``/token``, and ``/register`` and ``/revoke`` when enabled
    (``invalid_grant`` answered with ``invalid_grant_status``; ``v1``: as the official
    SDK 1.x answers, see :class:`Endpoints`; ``identity_assertion``: the jwt-bearer grant
    served). The body of a request to ``/authorize``, ``/register``, ``/revoke`` and (with
    ``token_limited``, as the official SDK; fastmcp's own ``/token`` has no limit)
    ``/token`` is limited to 4 MiB as the SDK limits it."""
    endpoints = Endpoints(provider, registration, invalid_grant_status, v1, identity_assertion)

    async def serve_metadata(request: Request) -> Response:
        return _json(metadata, 200, {"Cache-Control": "public, max-age=3600"})

    apps: dict[str, ASGIApp] = {
        path: _asgi(serve_metadata, ("GET", "OPTIONS"), True) for path in metadata_paths
    }
    apps["/authorize"] = _asgi(endpoints.authorize, ("GET", "POST"), False, True)
    apps["/token"] = _asgi(endpoints.token, ("POST", "OPTIONS"), True, token_limited)
    if registration.enabled:
        apps["/register"] = _asgi(endpoints.register, ("POST", "OPTIONS"), True, True)
    if revocation.enabled:
        apps["/revoke"] = _asgi(endpoints.revoke, ("POST", "OPTIONS"), True, True)
    return apps
