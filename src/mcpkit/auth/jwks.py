"""Verification keys for JWT access tokens: a JSON Web Key Set (RFC 7517) fetched from the
authorization server's ``jwks_uri`` and cached, or keys given up front.

:class:`RemoteJWKS` fetches on first use, keeps the set for ``cache_ttl`` seconds, and
fetches again when a token names a ``kid`` it does not know (key rotation), at most once per
``min_refresh_interval`` seconds whatever arrives, so a flood of made-up ``kid`` values cannot
hammer the endpoint. When a refresh fails it keeps serving the keys it has.
:class:`StaticKeys` holds a JWKS dict, a JWK, a PEM public key (or several) for tests and
simple deployments. Both answer :meth:`~KeySource.candidates`: the keys that may have signed
a token with a given ``kid`` and ``alg``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import orjson

from mcpkit.auth.registration import is_secure_url
from mcpkit.auth.verification import VerifierUnavailableError, key_type_for
from mcpkit.fetch import Fetcher, FetchPolicy
from mcpkit.fetch.pinning import pinned_transport

if TYPE_CHECKING:
    from joserfc.jwk import Key

__all__ = ["KeySource", "RemoteJWKS", "StaticKeys", "load_keys"]

logger = logging.getLogger("mcpkit.auth.jwks")

#: What :class:`StaticKeys` accepts: a JWKS (``{"keys": [...]}``), one JWK dict, a PEM
#: string or bytes, a joserfc key or key set, or a list of these.
KeysLike = Any


class KeySource(Protocol):
    """Where a verifier finds the keys for a token."""

    async def candidates(self, kid: str | None, alg: str) -> list[Key]:
        """The keys that may verify a token signed with ``alg`` under ``kid``."""
        ...


def _usable(key: Key, alg: str) -> bool:
    if key.key_type != key_type_for(alg):
        return False
    params = key.as_dict(private=False)
    return params.get("use") in (None, "sig") and params.get("alg") in (None, alg)


def _pick(keys: Sequence[Key], kid: str | None, alg: str) -> list[Key]:
    """The keys for ``alg`` named ``kid``; when none is, the keys without a ``kid`` (a
    ``kid`` is a hint, RFC 7515 section 4.1.4); every key for ``alg`` when ``kid`` is None."""
    usable = [k for k in keys if _usable(k, alg)]
    if kid is None:
        return usable
    named = [k for k in usable if k.kid == kid]
    return named or [k for k in usable if k.kid is None]


def load_keys(value: KeysLike) -> list[Key]:
    """joserfc keys of a JWKS dict, a JWK dict, PEM text, a joserfc key or key set, or a
    list of these (keys of unknown types in a JWKS are skipped, as RFC 7517 says)."""
    from joserfc.jwk import ECKey, JWKRegistry, KeySet, OctKey, OKPKey, RSAKey

    if isinstance(value, (list, tuple)):
        return [k for item in value for k in load_keys(item)]
    if isinstance(value, KeySet):
        return list(value.keys)
    if isinstance(value, (OctKey, RSAKey, ECKey, OKPKey)):
        return [value]
    if isinstance(value, dict):
        if "keys" in value:
            return _jwks_keys(value)
        return [JWKRegistry.import_key(value)]
    if isinstance(value, (str, bytes)):
        data = value.encode() if isinstance(value, str) else value
        if b"-----BEGIN" not in data:
            raise ValueError("a key given as text must be PEM")
        for cls in (RSAKey, ECKey, OKPKey):
            try:
                key: Key = cls.import_key(data)
            except Exception:
                continue
            return [key]
        raise ValueError("could not read the PEM key (RSA, EC or OKP expected)")
    raise TypeError(f"unsupported key material: {type(value).__name__}")


def _jwks_keys(doc: Any) -> list[Key]:
    from joserfc.jwk import JWKRegistry

    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list):
        raise ValueError("a JWKS is an object with a 'keys' array")
    keys: list[Key] = []
    for item in doc["keys"]:
        try:
            keys.append(JWKRegistry.import_key(item))
        except Exception as exc:  # unknown kty, bad parameters: skip that key only
            logger.debug("Skipped a JWKS entry: %s", exc)
    return keys


class StaticKeys:
    """Keys given up front (never refreshed)."""

    def __init__(self, keys: KeysLike) -> None:
        self.keys = load_keys(keys)
        if not self.keys:
            raise ValueError("no usable keys")

    async def candidates(self, kid: str | None, alg: str) -> list[Key]:
        """The keys for ``alg`` named ``kid`` (see :func:`_pick`)."""
        return _pick(self.keys, kid, alg)


class RemoteJWKS:
    """A JWKS fetched from ``url`` (HTTPS, or HTTP to a loopback host unless
    ``allow_insecure_http``) and cached; see the module docstring for the refresh rules.
    Without ``url``, the ``jwks_uri`` of ``issuer``'s metadata (RFC 8414 or OpenID Connect
    discovery, its ``issuer`` checked) is used, looked up on first use.

    ``fetches`` counts the requests made (for monitoring)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        issuer: str | None = None,
        cache_ttl: float = 3600.0,
        min_refresh_interval: float = 30.0,
        timeout: float = 10.0,
        max_bytes: int = 512 * 1024,
        http_client: httpx.AsyncClient | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        if url is None and issuer is None:
            raise ValueError("give the JWKS URL or the issuer to discover it from")
        where = url if url is not None else issuer
        if where is not None and not allow_insecure_http and not is_secure_url(where):
            raise ValueError(f"the JWKS URL must be HTTPS (or loopback HTTP): {where}")
        self.url = url
        self._configured = url
        self.issuer = issuer
        self.allow_insecure_http = allow_insecure_http
        self.cache_ttl = cache_ttl
        self.min_refresh_interval = min_refresh_interval
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.fetches = 0
        self._http = http_client
        self._keys: list[Key] = []
        self._fetched_at: float | None = None  # last successful fetch
        self._tried_at: float | None = None  # last attempt, successful or not
        self._lock = asyncio.Lock()
        self._background: asyncio.Future[None] | None = None

    async def candidates(self, kid: str | None, alg: str) -> list[Key]:
        """The keys for ``alg`` named ``kid``, fetching the set first when needed;
        :class:`VerifierUnavailableError` when it was never fetched."""
        now = time.monotonic()
        if self._fetched_at is None:
            await self._refresh()
        elif now - self._fetched_at >= self.cache_ttl and self._background is None:
            # stale: refreshed in the background, the keys at hand serve meanwhile (a slow
            # or unreachable endpoint never holds requests up)
            self._background = asyncio.ensure_future(self._refresh())
            self._background.add_done_callback(self._refreshed)
        found = _pick(self._keys, kid, alg)
        if kid is not None and not any(k.kid == kid for k in found):
            await self._refresh()  # rotated keys: one look, rate-limited
            found = _pick(self._keys, kid, alg)
        if not found and self._fetched_at is None:
            where = self.url or f"the metadata of {self.issuer}"
            raise VerifierUnavailableError(f"The key set at {where} could not be fetched")
        return found

    def _refreshed(self, task: asyncio.Future[None]) -> None:
        self._background = None

    async def _refresh(self) -> None:
        tried = self._tried_at
        async with self._lock:
            if self._tried_at != tried:
                return  # someone refreshed while we waited
            now = time.monotonic()
            if self._tried_at is not None and now - self._tried_at < self.min_refresh_interval:
                return
            self._tried_at = now
            self.fetches += 1
            try:
                self._keys = await self._fetch()
                self._fetched_at = time.monotonic()
            except Exception as exc:
                where = self.url or f"the metadata of {self.issuer}"
                logger.warning("Could not fetch the JWKS at %s: %s", where, exc)

    async def _fetch(self) -> list[Key]:
        # what the operator configured (the JWKS URL, else the issuer) is the reference
        # origin; the discovery and the key set share one deadline, bodies are capped
        reference = self._configured or self.issuer
        assert reference is not None
        policy = FetchPolicy(
            max_bytes=self.max_bytes, deadline=self.timeout, allow_http=self.allow_insecure_http
        )
        client = self._http or httpx.AsyncClient(
            timeout=self.timeout, transport=pinned_transport(policy, reference)
        )
        try:
            fetcher = Fetcher(client, policy, reference)
            if self.url is None:
                self.url = await self._discover(fetcher)
            response = await fetcher.request(
                "GET", self.url, what="JWKS", headers={"accept": "application/json"}
            )
            if response.status_code != 200:
                raise ValueError(f"HTTP {response.status_code}")
        finally:
            if self._http is None:
                await client.aclose()
        keys = _jwks_keys(orjson.loads(response.content))
        if not keys:
            raise ValueError("no usable keys")
        return keys

    async def _discover(self, client: Fetcher) -> str:
        from mcpkit.auth.discovery import discover_authorization_server

        assert self.issuer is not None
        meta = await discover_authorization_server(client, self.issuer)
        url = meta.get("jwks_uri")
        if not isinstance(url, str) or not url:
            raise ValueError(f"the metadata of {self.issuer} has no jwks_uri")
        if not self.allow_insecure_http and not is_secure_url(url):
            raise ValueError(f"the jwks_uri must be HTTPS: {url}")
        return url
