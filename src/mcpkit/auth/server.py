"""The resource server side of MCP authorization: a protected MCP server.

:class:`ResourceServer` wraps the Streamable HTTP endpoint (pass it as
``StreamableHTTPApp(..., auth=...)`` or ``Server(..., auth=...)``). It serves the protected
resource metadata (RFC 9728) at ``/.well-known/oauth-protected-resource[/path]``, answers a
request without a valid bearer token with 401 and ``WWW-Authenticate: Bearer
resource_metadata="..."`` (plus ``scope``), one whose token lacks a required scope with 403
``insufficient_scope``, checks the token's audience against the server's canonical URI and its
expiry, makes what a request creates belong to the identity that made it (sessions, tasks,
streams: :mod:`mcpkit.owner`), and makes the token reachable from handlers (``ctx.auth``,
:func:`get_access_token`). Token validation itself is a
:class:`TokenVerifier`: :class:`~mcpkit.auth.JWTVerifier` (JWT access tokens, keys from a
JWKS), :class:`~mcpkit.auth.IntrospectionVerifier` (RFC 7662), or the application's own.
With ``dpop=`` (a :class:`~mcpkit.auth.DPoPVerifier`) it also accepts DPoP-bound tokens
(RFC 9449: ``Authorization: DPoP`` with a proof); a DPoP-bound token presented as a plain
bearer token is always refused.
"""

from __future__ import annotations

import hmac
import inspect
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable
from urllib.parse import quote, urlsplit, urlunsplit

import orjson

from mcpkit.asgi_types import ASGIApp, Message, Receive, Scope, Send
from mcpkit.principal import PRINCIPAL_PREFIX, token_var

if TYPE_CHECKING:
    from mcpkit.auth.api_keys import APIKeyVerifier
    from mcpkit.auth.dpop_verifier import DPoPVerifier

__all__ = [
    "AccessToken",
    "ResourceServer",
    "TokenVerifier",
    "as_resource_server",
    "canonical_uri",
    "get_access_token",
]

logger = logging.getLogger("mcpkit.auth.server")


PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"


@dataclass(frozen=True, slots=True)
class AccessToken:
    """A validated access token: who presented it and what it allows.

    ``resource`` is the token's audience (one URI or several; RFC 8707 / RFC 9068 ``aud``):
    the resource server refuses a token not issued for it. ``expires_at`` is a Unix time.
    ``jkt`` is the thumbprint of the DPoP key the token is bound to (its ``cnf.jkt``, RFC
    9449): such a token is accepted only with a proof signed by that key.
    """

    token: str = field(repr=False)
    client_id: str | None = None
    scopes: frozenset[str] = frozenset()
    expires_at: float | None = None
    resource: str | Sequence[str] | None = None
    subject: str | None = None
    claims: dict[str, Any] = field(default_factory=dict, repr=False)
    jkt: str | None = None
    #: Who owns what requests with this token keep (:mod:`mcpkit.owner`): made once, so the
    #: owner check of each request is a comparison.
    owner_key: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "owner_key", PRINCIPAL_PREFIX + self.principal)

    def has_scopes(self, *scopes: str) -> bool:
        return all(s in self.scopes for s in scopes)

    @property
    def principal(self) -> str:
        """A stable key for whoever acts with this token (subject and client)."""
        return f"{self.subject or ''}\x1f{self.client_id or ''}"


@runtime_checkable
class TokenVerifier(Protocol):
    """Validates an access token; None (or an exception, best
    :class:`~mcpkit.auth.InvalidTokenError` with a reason) means invalid."""

    async def verify_token(self, token: str) -> AccessToken | None: ...


VerifierLike = (
    TokenVerifier
    | Callable[[str], Awaitable[AccessToken | None]]
    | Callable[[str], AccessToken | None]
)

_current = token_var


def get_access_token() -> AccessToken | None:
    """The access token of the request being handled (None without authorization)."""
    # Only the resource server sets the variable, always with an AccessToken.
    return cast("AccessToken | None", _current.get())


def as_resource_server(auth: Any) -> Any:
    """What ``auth=`` of a Server or an HTTP app protects with: a :class:`ResourceServer`
    as it is, an :class:`~mcpkit.auth.APIKeyVerifier` as a key-only ResourceServer."""
    from mcpkit.auth.api_keys import APIKeyVerifier

    if isinstance(auth, APIKeyVerifier):
        return ResourceServer(auth)
    if not callable(getattr(auth, "handle", None)):
        raise TypeError(
            "auth must be a ResourceServer or an APIKeyVerifier, not " + type(auth).__name__
        )
    return auth


#: The scope that asks the authorization server for a refresh token.
OFFLINE = "offline_access"


def canonical_uri(uri: str) -> str:
    """``uri`` as compared for audiences: scheme and host in lower case, no trailing slash,
    no fragment."""
    parts = urlsplit(uri)
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


_canonical = canonical_uri


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


_NOT_DESCRIPTION = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def _description(text: str) -> str:
    """An ``error_description`` as RFC 6750 section 3 allows it (printable ASCII without
    quote and backslash), at most 200 characters: it may quote what a client sent."""
    return _NOT_DESCRIPTION.sub("?", text)[:200]


class ResourceServer:
    """OAuth 2.1 resource server settings and checks for one MCP endpoint.

    ``verifier`` is a :class:`TokenVerifier` or a (sync or async) function ``token ->
    AccessToken | None``. ``resource`` is the server's canonical URI (``https://host/mcp``),
    ``authorization_servers`` the issuers listed in the metadata. ``required_scopes`` are
    needed for every request; ``scopes_for(method, params)`` may add scopes per JSON-RPC
    request (the body is then read before dispatch), so a ``tools/call`` can demand more
    (403 ``insufficient_scope`` makes clients step up). ``validate_audience`` (default on)
    refuses tokens whose ``resource`` does not name this server. ``dpop`` (a
    :class:`~mcpkit.auth.DPoPVerifier`, or True for one with the defaults) accepts
    DPoP-bound tokens with their proofs and advertises them (``DPoP`` challenges,
    ``dpop_signing_alg_values_supported`` in the metadata).

    API keys (:class:`~mcpkit.auth.APIKeyVerifier`): as ``api_keys=`` beside OAuth (a key
    is this server's own credential: no audience to check), or as the ``verifier`` alone,
    without ``authorization_servers`` (``resource`` is then optional): the server is no
    OAuth resource, serves no protected resource metadata and challenges with a plain
    ``Bearer realm="..."``. A key may also come in the verifier's ``header`` (``X-API-Key``).
    """

    def __init__(
        self,
        verifier: VerifierLike | APIKeyVerifier,
        *,
        resource: str | None = None,
        authorization_servers: Sequence[str] = (),
        scopes_supported: Sequence[str] | None = None,
        required_scopes: Iterable[str] = (),
        scopes_for: Callable[[str, Any], Iterable[str]] | None = None,
        resource_name: str | None = None,
        resource_documentation: str | None = None,
        validate_audience: bool = True,
        metadata: dict[str, Any] | None = None,
        max_body_size: int = 4 * 1024 * 1024,
        dpop: DPoPVerifier | bool = False,
        api_keys: APIKeyVerifier | None = None,
    ) -> None:
        from mcpkit.auth.api_keys import APIKeyVerifier

        #: The API keys accepted (beside OAuth tokens, or alone), or None.
        self.api_keys: APIKeyVerifier | None = api_keys
        #: False when only API keys are accepted (no authorization server, no metadata).
        self.oauth = True
        if isinstance(verifier, APIKeyVerifier) and not authorization_servers:
            if api_keys is not None:
                raise ValueError("api_keys= is for keys beside OAuth: give one APIKeyVerifier")
            if dpop:
                raise ValueError("DPoP binds OAuth access tokens: not API keys")
            self.api_keys, self.oauth = verifier, False
        elif not authorization_servers:
            raise ValueError(
                "a protected resource needs at least one authorization server (or an "
                "APIKeyVerifier as the verifier, for API keys without OAuth)"
            )
        elif resource is None:
            raise ValueError("an OAuth protected resource needs its resource URI")
        #: The request header carrying an API key besides Authorization (lower case), or None.
        self.key_header: bytes | None = None if self.api_keys is None else self.api_keys.header
        if resource is None:
            resource = "http://localhost/"
        parts = urlsplit(resource)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
            raise ValueError(
                f"resource must be an absolute http(s) URI without fragment: {resource}"
            )
        self.resource = resource
        self._canonical = _canonical(resource)
        self.authorization_servers = list(authorization_servers)
        self.scopes_supported = list(scopes_supported) if scopes_supported is not None else None
        self.required_scopes = tuple(required_scopes)
        if OFFLINE in self.required_scopes or OFFLINE in (self.scopes_supported or []):
            logger.warning(
                "offline_access is a client's request for a refresh token, not a resource "
                "requirement: a protected resource should not list it in scopes_supported or "
                "challenge for it"
            )
        self.scopes_for = scopes_for
        self.validate_audience = validate_audience
        self.max_body_size = max_body_size
        self._verify: Callable[[str], Awaitable[AccessToken | None]] | None = (
            self._adapt(verifier) if self.oauth else None
        )
        if dpop is True:
            from mcpkit.auth.dpop_verifier import DPoPVerifier

            dpop = DPoPVerifier()
        #: The DPoP proof checks (None: DPoP-bound tokens are refused).
        self.dpop: DPoPVerifier | None = dpop or None
        path = parts.path.rstrip("/")
        origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        self._origin = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "", "", ""))
        #: Where the metadata is served (path-based for a resource with a path, RFC 9728
        #: s3.1); None for API keys alone (no metadata: the path is protected like others).
        self.metadata_path: str | None = PRM_WELL_KNOWN + path if self.oauth else None
        #: The metadata's URL (None for API keys alone).
        self.metadata_url: str | None = (
            origin + self.metadata_path if self.metadata_path is not None else None
        )
        self._realm = resource_name or "mcp"
        doc: dict[str, Any] = {
            "resource": resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        }
        if self.scopes_supported is not None:
            doc["scopes_supported"] = self.scopes_supported
        if resource_name:
            doc["resource_name"] = resource_name
        if resource_documentation:
            doc["resource_documentation"] = resource_documentation
        if self.dpop is not None:
            doc["dpop_signing_alg_values_supported"] = list(self.dpop.algorithms)
            if self.dpop.required:
                doc["dpop_bound_access_tokens_required"] = True
        doc.update(metadata or {})
        #: The protected resource metadata document (None for API keys alone).
        self.metadata: dict[str, Any] | None = doc if self.oauth else None
        self._metadata_body = orjson.dumps(doc)

    @staticmethod
    def _adapt(verifier: VerifierLike) -> Callable[[str], Awaitable[AccessToken | None]]:
        if isinstance(verifier, TokenVerifier):
            return verifier.verify_token
        fn: Callable[[str], Any] = verifier

        async def call(token: str) -> AccessToken | None:
            result = fn(token)
            if inspect.isawaitable(result):
                result = await result
            return result if isinstance(result, AccessToken) else None

        return call

    # -- checks ---------------------------------------------------------------------------------

    def audience_ok(self, token: AccessToken) -> bool:
        """Whether ``token`` was issued for this server (its ``resource`` names it)."""
        if not self.validate_audience:
            return True
        aud = token.resource
        if aud is None:
            return False
        values = [aud] if isinstance(aud, str) else list(aud)
        return any(isinstance(v, str) and _canonical(v) == self._canonical for v in values)

    async def authenticate(self, header: str | None) -> AccessToken | None:
        """The valid bearer token in an ``Authorization`` header value, or None (DPoP-bound
        tokens need their proof: see :meth:`handle`)."""
        if not header:
            return None
        scheme, _, value = header.strip().partition(" ")
        value = value.strip()
        if scheme.lower() != "bearer" or not value:
            return None
        try:
            token = await self._checked(value, "bearer")
        except _Refusal:
            return None
        return None if token.jkt is not None else token

    async def _checked(self, value: str, scheme: str) -> AccessToken:
        """The verified, unexpired token for this audience (or API key), else a refusal."""
        from mcpkit.auth.verification import InvalidTokenError, VerifierUnavailableError

        keys = self.api_keys
        verify = self._verify
        if keys is not None:
            try:
                found = await keys.verify_token(value)
            except Exception:
                logger.exception("The API key lookup failed")
                found = None
            if found is not None:  # this server's own credential: no audience to check
                if found.expires_at is not None and time.time() >= found.expires_at:
                    raise _Refusal(401, "invalid_token", "The API key has expired", scheme)
                return found
            if verify is None:
                raise _Refusal(401, "invalid_token", "The API key is invalid", scheme)
        assert verify is not None
        try:
            token = await verify(value)
        except InvalidTokenError as exc:
            logger.info("Refused an access token: %s", exc)
            raise _Refusal(401, "invalid_token", str(exc), scheme) from None
        except VerifierUnavailableError as exc:
            logger.warning("Could not verify an access token: %s", exc)
            raise _Refusal(503, "temporarily_unavailable", str(exc), scheme) from None
        except Exception:
            logger.exception("The token verifier failed")
            raise _Refusal(401, "invalid_token", "The access token is invalid", scheme) from None
        if token is None:
            raise _Refusal(401, "invalid_token", "The access token is invalid", scheme)
        if token.expires_at is not None and time.time() >= token.expires_at:
            raise _Refusal(401, "invalid_token", "The access token has expired", scheme)
        if not self.audience_ok(token):
            logger.info("Refused a token issued for another resource (%r)", token.resource)
            raise _Refusal(
                401, "invalid_token", "The access token was issued for another resource", scheme
            )
        return token

    def request_url(self, scope: Scope) -> str:
        """The URL of a request as a DPoP proof's ``htu`` names it: this resource's origin
        and the request's path (as sent, under the ASGI ``root_path`` when a proxy strips
        a prefix)."""
        raw = scope.get("raw_path")
        root = str(scope.get("root_path", ""))
        if isinstance(raw, bytes) and raw:
            path = raw.decode("latin-1").partition("?")[0]
        else:
            path = quote(str(scope["path"]), safe="/:@!$&'()*+,;=~%")
        if root and not path.startswith(root):
            path = root + path
        return self._origin + path

    async def _authenticate_scope(
        self, scope: Scope, header: str | None, proofs: list[str]
    ) -> tuple[AccessToken, str]:
        """The request's token and the scheme it came with, else a refusal."""
        if not header:
            raise _Refusal(401, None, "Authorization required", None)
        scheme, _, value = header.strip().partition(" ")
        value = value.strip()
        kind = scheme.lower()
        dpop = self.dpop
        if kind == "bearer" and value:
            token = await self._checked(value, "bearer")
            if token.jkt is not None:
                raise _Refusal(
                    401,
                    "invalid_token",
                    "A DPoP-bound token must be presented with the DPoP scheme",
                    "bearer",
                )
            if dpop is not None and dpop.required:
                raise _Refusal(401, "invalid_token", "Only DPoP-bound tokens are accepted", "dpop")
            return token, "bearer"
        if kind == "dpop" and value and dpop is not None:
            from mcpkit.auth.verification import (
                InvalidDPoPProofError,
                UseDPoPNonceError,
                VerifierUnavailableError,
            )

            if len(proofs) != 1:
                raise _Refusal(
                    401, "invalid_dpop_proof", "Exactly one DPoP proof is needed", "dpop"
                )
            # The token first, then the proof; its jti is recorded only once both passed, so
            # a request that is refused consumes nothing in the replay cache.
            token = await self._checked(value, "dpop")
            if token.jkt is None:
                raise _Refusal(401, "invalid_token", "The access token is not DPoP-bound", "dpop")
            try:
                checked = await dpop.check(
                    proofs[0],
                    method=scope["method"],
                    url=self.request_url(scope),
                    access_token=value,
                )
                if not hmac.compare_digest(token.jkt.encode(), checked.thumbprint.encode()):
                    raise _Refusal(
                        401, "invalid_token", "The access token is bound to another key", "dpop"
                    )
                await dpop.record(checked)
            except InvalidDPoPProofError as exc:
                logger.info("Refused a DPoP proof: %s", exc)
                raise _Refusal(401, "invalid_dpop_proof", str(exc), "dpop") from None
            except UseDPoPNonceError as exc:
                raise _Refusal(401, "use_dpop_nonce", str(exc), "dpop", exc.nonce) from None
            except VerifierUnavailableError as exc:
                logger.warning("Could not check a DPoP proof: %s", exc)
                raise _Refusal(503, "temporarily_unavailable", str(exc), "dpop") from None
            return token, "dpop"
        raise _Refusal(401, "invalid_token", "The access token is invalid", None)

    def challenge(
        self,
        error: str | None = None,
        description: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:
        """A ``WWW-Authenticate`` value (``Bearer`` with ``resource_metadata``)."""
        parts = []
        if error:
            parts.append(f"error={_quote(error)}")
        if description:
            parts.append(f"error_description={_quote(_description(description))}")
        if scopes:
            parts.append(f"scope={_quote(' '.join(scopes))}")
        if self.metadata_url is not None:
            parts.append(f"resource_metadata={_quote(self.metadata_url)}")
        else:  # API keys alone: no OAuth to point at
            parts.insert(0, f"realm={_quote(self._realm)}")
        return "Bearer " + ", ".join(parts)

    def dpop_challenge(
        self,
        error: str | None = None,
        description: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:
        """A ``WWW-Authenticate`` value for the ``DPoP`` scheme (with ``algs``)."""
        assert self.dpop is not None
        parts = []
        if error:
            parts.append(f"error={_quote(error)}")
        if description:
            parts.append(f"error_description={_quote(_description(description))}")
        if scopes:
            parts.append(f"scope={_quote(' '.join(scopes))}")
        parts.append(f"algs={_quote(self.dpop.algs)}")
        if self.metadata_url is not None:
            parts.append(f"resource_metadata={_quote(self.metadata_url)}")
        return "DPoP " + ", ".join(parts)

    # -- ASGI -----------------------------------------------------------------------------------

    async def handle(self, scope: Scope, receive: Receive, send: Send, app: ASGIApp) -> None:
        """Serve one HTTP request: the metadata document, or ``app`` behind the token checks
        (every other path: the MCP endpoint, legacy SSE endpoints, and unknown paths alike)."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if len(path) > 1:
            path = path.rstrip("/")
        if path == self.metadata_path:
            await self._serve_metadata(scope, send)
            return
        header = None
        proofs: list[str] = []
        key_header = self.key_header
        for k, v in scope["headers"]:
            if k == b"authorization":
                header = v.decode("latin-1")
            elif k == b"dpop":
                proofs.append(v.decode("latin-1"))
            elif k == key_header and header is None:
                header = "Bearer " + v.decode("latin-1").strip()
        try:
            token, used = await self._authenticate_scope(scope, header, proofs)
        except _Refusal as refusal:
            await self._deny(
                send,
                refusal.status,
                refusal.error,
                refusal.description,
                scheme=refusal.scheme,
                nonce=refusal.nonce,
            )
            return
        needed = list(self.required_scopes)
        if self.scopes_for is not None and scope["method"] == "POST":
            try:
                body = await self._read_body(receive)
            except _TooLarge:
                await _json(send, 413, _rpc_error(-32600, "Request body too large"))
                return
            if body is None:
                return
            receive = _replay(body, receive)
            needed += [s for s in self._scopes_for_body(body) if s not in needed]
        missing = [s for s in needed if s not in token.scopes]
        if missing:
            # offline_access is no resource requirement: never in a challenge
            granted = [s for s in sorted(token.scopes) if s not in needed and s != OFFLINE]
            if self.scopes_supported is not None:
                granted = [s for s in granted if s in self.scopes_supported]
            await self._deny(
                send,
                403,
                "insufficient_scope",
                f"Missing scope(s): {' '.join(missing)}",
                needed + granted,
                scheme=used,
            )
            return
        # Whatever the app keeps for this request (a session, a task, a stream) belongs to
        # this principal, and only this principal reaches it (see mcpkit.owner).
        reset = _current.set(token)
        try:
            await app(scope, receive, send)
        finally:
            _current.reset(reset)

    def _scopes_for_body(self, body: bytes) -> list[str]:
        assert self.scopes_for is not None
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError:
            return []  # the transport answers the parse error
        out: list[str] = []
        for item in msg if type(msg) is list else [msg]:
            if type(item) is dict and isinstance(item.get("method"), str):
                for s in self.scopes_for(item["method"], item.get("params")):
                    if s not in out:
                        out.append(s)
        return out

    async def _read_body(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_size:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _serve_metadata(self, scope: Scope, send: Send) -> None:
        method = scope["method"]
        cors = [
            (b"access-control-allow-origin", b"*"),
            (b"access-control-allow-methods", b"GET, OPTIONS"),
        ]
        if method == "OPTIONS":
            await _respond(send, 204, b"", cors)
        elif method in ("GET", "HEAD"):
            headers = [(b"content-type", b"application/json"), *cors]
            await _respond(send, 200, b"" if method == "HEAD" else self._metadata_body, headers)
        else:
            await _respond(send, 405, b"", [(b"allow", b"GET, OPTIONS")])

    async def _deny(
        self,
        send: Send,
        status: int,
        error: str | None,
        description: str,
        scopes: Sequence[str] | None = None,
        *,
        scheme: str | None = None,
        nonce: str | None = None,
    ) -> None:
        body = orjson.dumps({"error": error or "unauthorized", "error_description": description})
        headers = [(b"content-type", b"application/json")]
        if status == 503:
            headers.append((b"retry-after", b"5"))
            await _respond(send, status, body, headers)
            return
        if scopes is None and status == 401 and self.required_scopes:
            scopes = list(self.required_scopes)
        for value in self._challenges(error, description, scopes, scheme):
            headers.append((b"www-authenticate", value.encode()))
        if nonce is not None:
            headers.append((b"dpop-nonce", nonce.encode()))
        await _respond(send, status, body, headers)

    def _challenges(
        self,
        error: str | None,
        description: str,
        scopes: Sequence[str] | None,
        scheme: str | None,
    ) -> list[str]:
        """The challenges of a refusal: the error goes with the scheme the request used; a
        request with the DPoP scheme hears only the DPoP one (so a client reads its error)."""
        dpop = self.dpop
        if dpop is None:
            return [self.challenge(error, description, scopes)]
        if scheme == "dpop":
            return [self.dpop_challenge(error, description, scopes)]
        out = []
        if not dpop.required:
            out.append(self.challenge(error, description, scopes))
            out.append(self.dpop_challenge(scopes=scopes))
        else:
            out.append(self.dpop_challenge(error, description, scopes))
        return out


class _Refusal(Exception):
    """Why a request is refused (the scheme whose challenge carries the error)."""

    def __init__(
        self,
        status: int,
        error: str | None,
        description: str,
        scheme: str | None,
        nonce: str | None = None,
    ) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.scheme = scheme
        self.nonce = nonce


class _TooLarge(Exception):
    pass


def _rpc_error(code: int, message: str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


async def _respond(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, body: bytes) -> None:
    await _respond(send, status, body, [(b"content-type", b"application/json")])


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
