"""Client ID metadata documents at the embedded authorization server.

A client whose ``client_id`` is an HTTPS URL with a path is not registered: the URL serves
its metadata (``client_id``, ``client_name``, ``redirect_uris``...; the MCP authorization
spec, draft-ietf-oauth-client-id-metadata-document). :class:`ClientMetadataDocuments`
fetches and checks such a document:

- the URL: ``https``, a path, no fragment, no user-info, no ``.``/``..`` segments;
  ``allowed_hosts`` may restrict the hosts trusted (a trust policy);
- the fetch: every address the host resolves to must be public (no loopback, private,
  link-local or cloud metadata address; connections go only to the addresses checked, so
  DNS rebinding cannot reach another), the body at most ``max_bytes`` and never compressed,
  ``timeout`` seconds for all of it, redirects followed only on the same origin (at most
  three); ``allow_loopback=True`` (tests, development) also accepts loopback hosts, over
  plain ``http`` too;
- the document: a JSON object whose ``client_id`` is exactly the URL, ``redirect_uris`` a
  non-empty list of HTTPS, loopback HTTP or app-scheme URIs without fragment, a public
  client (``token_endpoint_auth_method`` ``none``) or one proving a key of its inline
  ``jwks`` (``private_key_jwt``); a document cannot hold a shared secret;
  ``grant_types`` among the authorization code and refresh token;
- the cache: a valid document is kept as its ``Cache-Control`` says (``max-age``, at most
  ``max_ttl``; ``no-store``/``no-cache``: not kept; without one ``default_ttl``), a refusal
  for ``failure_ttl`` seconds, at most ``max_entries`` documents.

A refusal is a :class:`ClientMetadataError` saying why.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from mcpkit.auth.as_store import RegisteredClient
from mcpkit.auth.registration import is_secure_url
from mcpkit.errors import AuthError, FetchRefused

__all__ = ["ClientMetadataDocuments", "ClientMetadataError", "valid_redirect_uri"]

#: The grants a client may use at the embedded authorization server.
GRANTS = ("authorization_code", "refresh_token")
_LOOPBACK_HOSTS = ("127.0.0.1", "::1", "[::1]", "localhost")
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d+)\"?\s*(?:,|$)", re.I)


class ClientMetadataError(AuthError):
    """A client ID metadata document was refused (the URL, the fetch or the document)."""


def valid_redirect_uri(uri: str) -> bool:
    """An HTTPS, loopback HTTP or app-scheme (``com.example.app:/cb``) URI without fragment."""
    parts = urlsplit(uri)
    custom = bool(parts.scheme) and parts.scheme.lower() not in ("http", "https")
    return not parts.fragment and "#" not in uri and (custom or is_secure_url(uri))


class ClientMetadataDocuments:
    """Fetches, checks and caches client ID metadata documents (see the module docstring).

    ``max_bytes`` (5 KiB), ``timeout`` (5 s), ``allow_loopback`` (False: only for tests
    and development), ``allowed_hosts`` (None: any public host; else host names, or
    ``*.example.com`` for its subdomains), ``default_ttl`` / ``max_ttl`` / ``failure_ttl``
    (seconds), ``max_entries``. ``verify``: TLS verification as httpx takes it (True, a CA
    bundle path or an ``ssl.SSLContext``: documents served with a private CA)."""

    def __init__(
        self,
        *,
        max_bytes: int = 5 * 1024,
        timeout: float = 5.0,
        allow_loopback: bool = False,
        allowed_hosts: Iterable[str] | None = None,
        default_ttl: float = 300.0,
        max_ttl: float = 24 * 3600.0,
        failure_ttl: float = 10.0,
        max_entries: int = 1000,
        verify: Any = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from mcpkit.fetch import FetchPolicy

        self.allow_loopback = allow_loopback
        self.allowed_hosts = (
            None if allowed_hosts is None else tuple(h.lower() for h in allowed_hosts)
        )
        self.default_ttl = default_ttl
        self.max_ttl = max_ttl
        self.failure_ttl = failure_ttl
        self.max_entries = max_entries
        self._verify = verify
        self._now = clock
        #: The fetch rules: public addresses only (loopback too with ``allow_loopback``).
        self.policy = FetchPolicy(
            max_bytes=max_bytes,
            deadline=timeout,
            allowed_networks=("127.0.0.0/8", "::1/128") if allow_loopback else (),
            allow_http=allow_loopback,
        )
        self._cache: OrderedDict[str, tuple[float, RegisteredClient | str]] = OrderedDict()

    def is_document_url(self, client_id: str) -> bool:
        """Whether ``client_id`` names a metadata document (rather than a registration)."""
        lowered = client_id[:8].lower()
        return lowered.startswith("https://") or (
            self.allow_loopback and lowered.startswith("http://")
        )

    async def client(self, client_id: str) -> RegisteredClient:
        """The client the document at ``client_id`` describes (cached);
        :class:`ClientMetadataError` when the URL, the fetch or the document is refused."""
        now = self._now()
        cached = self._cache.get(client_id)
        if cached is not None and cached[0] > now:
            self._cache.move_to_end(client_id)
            if isinstance(cached[1], str):
                raise ClientMetadataError(cached[1])
            return cached[1]
        try:
            client, ttl = await self._load(client_id)
        except ClientMetadataError as exc:
            self._remember(client_id, now + self.failure_ttl, str(exc))
            raise
        if ttl > 0:
            self._remember(client_id, now + ttl, client)
        else:
            self._cache.pop(client_id, None)
        return client

    def _remember(self, key: str, until: float, value: RegisteredClient | str) -> None:
        self._cache[key] = (until, value)
        self._cache.move_to_end(key)
        while len(self._cache) > self.max_entries:
            self._cache.popitem(last=False)

    def check_url(self, url: str) -> None:
        """Refuse a ``client_id`` URL that may not name a document (the fetch aside)."""
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        loopback = host in _LOOPBACK_HOSTS or host.startswith("127.")
        if scheme != "https" and not (scheme == "http" and self.allow_loopback and loopback):
            raise ClientMetadataError(f"The client_id {url} is not an https URL")
        if not host:
            raise ClientMetadataError(f"The client_id {url} has no host")
        if parts.username is not None or parts.password is not None:
            raise ClientMetadataError(f"The client_id {url} carries credentials")
        if parts.fragment or "#" in url:
            raise ClientMetadataError(f"The client_id {url} has a fragment")
        segments = [unquote(segment) for segment in parts.path.split("/")]
        if parts.path in ("", "/") or any(s in (".", "..") for s in segments):
            raise ClientMetadataError(f"The client_id {url} needs a path without . or .. segments")
        if self.allowed_hosts is not None and not any(
            host == h or (h.startswith("*.") and host.endswith(h[1:])) for h in self.allowed_hosts
        ):
            raise ClientMetadataError(f"Client ID metadata documents from {host} are not trusted")

    async def _load(self, url: str) -> tuple[RegisteredClient, float]:
        import httpx

        from mcpkit.fetch import Fetcher
        from mcpkit.fetch.pinning import pinned_transport

        self.check_url(url)
        # No MCP server URL here: the "same network as the server" allowance never applies.
        transport = pinned_transport(self.policy, "", verify=self._verify)
        try:
            async with httpx.AsyncClient(transport=transport) as http:
                fetcher = Fetcher(http, self.policy, "")
                target = url
                for _ in range(4):
                    response = await fetcher.request(
                        "GET",
                        target,
                        what="client ID metadata document",
                        headers={"accept": "application/json"},
                    )
                    if not response.is_redirect:
                        break
                    following = urljoin(target, response.headers.get("location", ""))
                    if _origin(following) != _origin(url):
                        raise ClientMetadataError(
                            f"The client ID metadata document {url} redirects to another host"
                        )
                    target = following
                else:
                    raise ClientMetadataError(f"The client ID metadata document {url} loops")
        except FetchRefused as exc:
            if exc.rule == "address":  # not the client's FetchPolicy advice: the AS's own
                raise ClientMetadataError(
                    f"The client ID metadata document {url} is not on a public address "
                    "(loopback, private, link-local and cloud metadata addresses are refused)"
                ) from None
            raise ClientMetadataError(f"The metadata document was refused: {exc}") from None
        except httpx.HTTPError as exc:
            raise ClientMetadataError(
                f"The client ID metadata document {url} could not be fetched ({exc!r})"
            ) from None
        if response.status_code != 200:
            raise ClientMetadataError(
                f"The client ID metadata document {url} answered HTTP {response.status_code}"
            )
        return self.parse(url, response.content), self._ttl(response.headers)

    def _ttl(self, headers: Any) -> float:
        control = ",".join(headers.get_list("cache-control")).lower()
        if "no-store" in control or "no-cache" in control:
            return 0.0
        found = _MAX_AGE.search(control)
        if found is not None:
            return min(float(found.group(1)), self.max_ttl)
        return min(self.default_ttl, self.max_ttl)

    @staticmethod
    def parse(url: str, body: bytes) -> RegisteredClient:
        """The client a document fetched from ``url`` describes, once checked."""
        import orjson

        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise ClientMetadataError(f"The document at {url} is not JSON") from None
        if not isinstance(doc, dict):
            raise ClientMetadataError(f"The client ID metadata document {url} is not an object")
        if doc.get("client_id") != url:
            raise ClientMetadataError(
                f"The client ID metadata document's client_id is not its URL {url}"
            )
        uris = doc.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise ClientMetadataError("The client ID metadata document needs redirect_uris")
        for uri in uris:
            if not valid_redirect_uri(uri):
                raise ClientMetadataError(
                    f"Not an https, loopback or app redirect URI in the document: {uri}"
                )
        if "client_secret" in doc or "client_secret_expires_at" in doc:
            raise ClientMetadataError("A client ID metadata document cannot hold a client secret")
        method = doc.get("token_endpoint_auth_method", "none")
        if method not in ("none", "private_key_jwt"):
            raise ClientMetadataError(
                "Clients with a metadata document authenticate with none or private_key_jwt "
                f"here, not {method!r}"
            )
        if method == "private_key_jwt":
            _check_jwks(doc.get("jwks"))
        grants = doc.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or not grants or not set(grants) <= set(GRANTS):
            raise ClientMetadataError(f"Unsupported grant types in the document: {grants!r}")
        responses = doc.get("response_types", ["code"])
        if not isinstance(responses, list) or "code" not in responses:
            raise ClientMetadataError("The document's response_types lack code")
        name = doc.get("client_name")
        if name is not None and not isinstance(name, str):
            raise ClientMetadataError("The document's client_name is not a string")
        return RegisteredClient(url, tuple(uris), method, None, tuple(grants), doc)


def _check_jwks(jwks: Any) -> None:
    """The public keys of a ``private_key_jwt`` client, given inline."""
    from joserfc.errors import JoseError
    from joserfc.jwk import KeySet

    keys = jwks.get("keys") if isinstance(jwks, dict) else None
    if not isinstance(keys, list) or not keys or not all(isinstance(k, dict) for k in keys):
        raise ClientMetadataError("A private_key_jwt client's document needs its keys as jwks")
    if any("d" in k or "k" in k for k in keys):
        raise ClientMetadataError("The document's jwks may hold public keys only")
    try:
        KeySet.import_key_set(jwks)
    except (JoseError, ValueError, TypeError) as exc:
        raise ClientMetadataError(f"The document's jwks are not usable: {exc}") from None


def _origin(url: str) -> tuple[str, str, int | None]:
    from mcpkit.fetch.policy import origin_of

    return origin_of(url)
