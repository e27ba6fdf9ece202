"""Token introspection (RFC 7662): the resource server asks the authorization server whether a
token is active.

:class:`IntrospectionVerifier` posts the token to the introspection endpoint with the resource
server's own client credentials (``client_secret_basic``, ``client_secret_post`` or
``private_key_jwt``), requires ``active: true``, checks ``exp``/``nbf``, ``iss`` and ``aud``
when configured, and keeps answers in a bounded cache keyed by the token's SHA-256 (never
the token itself), for at most ``cache_ttl`` seconds and never past the token's ``exp``.
Refusals are cached for ``negative_cache_ttl`` seconds, so a flood of one bad token costs
one call; concurrent checks of one token share one call.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import httpx

from mcpkit.auth.errors import OAuthError
from mcpkit.auth.registration import PrivateKey, apply_client_auth, is_secure_url
from mcpkit.auth.server import AccessToken
from mcpkit.auth.tokens import ClientInfo
from mcpkit.auth.verification import (
    InvalidTokenError,
    VerifierUnavailableError,
    access_token_from_claims,
    audience_matches,
    expected_audiences,
    is_number,
)

__all__ = ["IntrospectionVerifier"]

logger = logging.getLogger("mcpkit.auth.introspection")

_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")

#: A cached answer: the token (None: refused, with the reason) and until when it holds.
_Entry = tuple[AccessToken | None, str, float]


class IntrospectionVerifier:
    """Verifies tokens at an RFC 7662 ``endpoint`` (a :class:`TokenVerifier`); without one,
    the ``introspection_endpoint`` of ``issuer``'s metadata, discovered on first use.

    ``client_id`` with ``client_secret`` (``auth_method`` ``"client_secret_basic"``, the
    default, or ``"client_secret_post"``) or ``private_key`` (``"private_key_jwt"``, the
    assertion's audience is ``issuer`` or else the endpoint). ``issuer`` and ``audience``,
    when given, must match the response's ``iss`` and ``aud`` (a response without ``aud``
    leaves the audience check to the resource server, which refuses tokens without one unless
    ``validate_audience=False``). ``leeway`` forgives clock skew on ``exp``/``nbf``.

    ``calls`` counts the requests made to the endpoint.
    """

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        auth_method: str = "client_secret_basic",
        private_key: PrivateKey | None = None,
        issuer: str | None = None,
        audience: str | Sequence[str] | None = None,
        leeway: float = 0.0,
        cache_ttl: float = 60.0,
        negative_cache_ttl: float = 5.0,
        max_cache_size: int = 10_000,
        timeout: float = 10.0,
        http_client: httpx.AsyncClient | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        if endpoint is None and issuer is None:
            raise ValueError("give the introspection endpoint or the issuer to discover it from")
        where = endpoint if endpoint is not None else issuer
        if where is not None and not allow_insecure_http and not is_secure_url(where):
            raise ValueError(f"the introspection endpoint must be HTTPS: {where}")
        if auth_method not in _AUTH_METHODS:
            raise ValueError(f"unsupported client authentication {auth_method!r}")
        if auth_method != "none" and client_id is None:
            raise ValueError(f"{auth_method} needs a client_id")
        if auth_method.startswith("client_secret") and not client_secret:
            raise ValueError(f"{auth_method} needs a client_secret")
        if auth_method == "private_key_jwt" and private_key is None:
            raise ValueError("private_key_jwt needs a private_key")
        self.endpoint = endpoint
        self.allow_insecure_http = allow_insecure_http
        self.auth_method = auth_method
        self._identity = ClientInfo(client_id or "", client_secret, auth_method)
        self._private_key = private_key
        self.issuer = issuer
        self.audience = expected_audiences(audience)
        self.leeway = leeway
        self.cache_ttl = cache_ttl
        self.negative_cache_ttl = negative_cache_ttl
        self.max_cache_size = max_cache_size
        self.timeout = timeout
        self.calls = 0
        self._http = http_client
        self._own: httpx.AsyncClient | None = None
        self._own_loop: asyncio.AbstractEventLoop | None = None
        self._cache: OrderedDict[bytes, _Entry] = OrderedDict()
        self._pending: dict[bytes, asyncio.Future[_Entry]] = {}

    async def verify_token(self, token: str) -> AccessToken:
        """The :class:`AccessToken` of an active ``token``; :class:`InvalidTokenError` else."""
        key = hashlib.sha256(token.encode()).digest()
        now = time.time()
        entry = self._cache.get(key)
        if entry is not None and now >= entry[2]:
            del self._cache[key]
            entry = None
        if entry is None:
            task = self._pending.get(key)
            if task is None:
                # one call per token however many requests wait; a caller's cancellation
                # does not cancel it for the others
                task = asyncio.ensure_future(self._introspect(token))
                self._pending[key] = task
                task.add_done_callback(lambda t: self._settled(key, t))
            entry = await asyncio.shield(task)
        result, reason, _until = entry
        if result is None:
            raise InvalidTokenError(reason)
        if result.expires_at is not None and time.time() >= result.expires_at:
            raise InvalidTokenError("The token has expired")
        return result

    def _client(self) -> httpx.AsyncClient:
        """The given client, else one of our own (per event loop: connections are reused)."""
        if self._http is not None:
            return self._http
        loop = asyncio.get_running_loop()
        if self._own is None or self._own_loop is not loop:
            self._own = httpx.AsyncClient(timeout=self.timeout)
            self._own_loop = loop
        return self._own

    async def aclose(self) -> None:
        """Close the HTTP client the verifier made itself (not one it was given)."""
        if self._own is not None:
            own, self._own = self._own, None
            await own.aclose()

    def clear_cache(self) -> None:
        """Forget every cached answer (after a revocation, say)."""
        self._cache.clear()

    def _settled(self, key: bytes, task: asyncio.Future[_Entry]) -> None:
        del self._pending[key]
        if not task.cancelled() and task.exception() is None:
            self._store(key, task.result())

    def _store(self, key: bytes, entry: _Entry) -> None:
        if entry[2] <= time.time():
            return
        self._cache[key] = entry
        self._cache.move_to_end(key)
        while len(self._cache) > self.max_cache_size:
            self._cache.popitem(last=False)

    async def _endpoint(self, client: httpx.AsyncClient) -> str:
        if self.endpoint is not None:
            return self.endpoint
        from mcpkit.auth.discovery import discover_authorization_server
        from mcpkit.errors import FetchRefused

        assert self.issuer is not None
        try:
            meta = await discover_authorization_server(client, self.issuer)
        except (OAuthError, FetchRefused, httpx.HTTPError) as exc:
            raise VerifierUnavailableError(f"Introspection endpoint discovery: {exc}") from exc
        url = meta.get("introspection_endpoint")
        if not isinstance(url, str) or not url:
            raise VerifierUnavailableError(f"{self.issuer} has no introspection_endpoint")
        if not self.allow_insecure_http and not is_secure_url(url):
            raise VerifierUnavailableError(f"The introspection endpoint is not HTTPS: {url}")
        self.endpoint = url
        return url

    async def _introspect(self, token: str) -> _Entry:
        form = {"token": token, "token_type_hint": "access_token"}
        headers = {"accept": "application/json"}
        client = self._client()
        endpoint = await self._endpoint(client)
        try:
            apply_client_auth(
                form,
                headers,
                self._identity,
                self.auth_method,
                audience=self.issuer or endpoint,
                private_key=self._private_key,
            )
        except OAuthError as exc:
            raise VerifierUnavailableError(f"Introspection client authentication: {exc}") from exc
        self.calls += 1
        try:
            response = await client.post(
                endpoint, data=form, headers=headers, follow_redirects=False
            )
        except httpx.HTTPError as exc:
            raise VerifierUnavailableError(f"Introspection failed: {exc!r}") from exc
        if response.status_code != 200:
            logger.warning("Introspection at %s: HTTP %s", self.endpoint, response.status_code)
            raise VerifierUnavailableError(f"Introspection failed: HTTP {response.status_code}")
        try:
            doc: Any = response.json()
        except ValueError as exc:
            raise VerifierUnavailableError("The introspection response is not JSON") from exc
        if not isinstance(doc, dict):
            raise VerifierUnavailableError("The introspection response is not a JSON object")
        return self._judge(token, doc)

    def _judge(self, token: str, doc: dict[str, Any]) -> _Entry:
        now = time.time()
        refused_until = now + self.negative_cache_ttl
        if doc.get("active") is not True:
            return None, "The token is not active", refused_until
        exp = doc.get("exp")
        if exp is not None and not is_number(exp):
            return None, "The introspection response's exp is not a number", refused_until
        if exp is not None and now >= exp + self.leeway:
            return None, "The token has expired", refused_until
        nbf = doc.get("nbf")
        if isinstance(nbf, (int, float)) and now + self.leeway < nbf:
            return None, "The token is not valid yet", now + min(self.negative_cache_ttl, 1.0)
        if self.issuer is not None and doc.get("iss", self.issuer) != self.issuer:
            return None, "The token was issued by another issuer", refused_until
        if (
            self.audience is not None
            and "aud" in doc
            and not audience_matches(doc["aud"], self.audience)
        ):
            return None, "The token was issued for another audience", refused_until
        try:
            result = access_token_from_claims(
                token, doc, expires_at=None if exp is None else float(exp) + self.leeway
            )
        except InvalidTokenError as exc:
            return None, str(exc), refused_until
        until = now + self.cache_ttl
        if result.expires_at is not None:
            until = min(until, result.expires_at)
        return result, "", until
