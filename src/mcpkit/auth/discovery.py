"""Discovery: ``WWW-Authenticate`` challenges (RFC 6750/9110), protected resource metadata
(RFC 9728) and authorization server metadata (RFC 8414 / OpenID Connect Discovery), each
tried at the URLs and in the order the MCP authorization spec gives.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from mcpkit.auth.errors import OAuthError, ResourceMismatchError
from mcpkit.auth.issuer import check_metadata_issuer
from mcpkit.fetch import Fetcher, FetchPolicy

__all__ = [
    "AuthorizationServerMetadata",
    "Challenge",
    "ProtectedResourceMetadata",
    "as_metadata_urls",
    "bearer_challenge",
    "canonical_resource",
    "check_resource",
    "discover_authorization_server",
    "discover_legacy_authorization_server",
    "discover_protected_resource",
    "origin_of",
    "parse_www_authenticate",
    "prm_urls",
    "resource_matches",
]

logger = logging.getLogger("mcpkit.auth")

# -- WWW-Authenticate -------------------------------------------------------------------------

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_TOKEN68 = r"[A-Za-z0-9\-._~+/]+=*"
_SCANNER = re.compile(
    rf"\s*(?:(?P<comma>,)|(?P<param>(?P<name>{_TOKEN})\s*=\s*(?P<value>{_QUOTED}|{_TOKEN68}))"
    rf"|(?P<token>{_TOKEN})(?:\s+(?P<token68>{_TOKEN68})(?=\s*(?:,|$)))?)"
)


@dataclass(frozen=True, slots=True)
class Challenge:
    """One authentication challenge: its scheme (lower case) and parameters (names lower
    case, values unquoted)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def scope(self) -> str | None:
        """The ``scope`` parameter (space-separated), None when absent or empty."""
        value = self.params.get("scope", "").strip()
        return value or None

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata") or None


def parse_www_authenticate(values: str | list[str]) -> list[Challenge]:
    """Parse ``WWW-Authenticate`` header value(s) into challenges; tolerant of junk."""
    challenges: list[Challenge] = []
    for value in [values] if isinstance(values, str) else values:
        current: Challenge | None = None
        pos = 0
        while pos < len(value):
            m = _SCANNER.match(value, pos)
            if m is None or m.end() == pos:
                pos += 1  # skip a character we cannot read
                continue
            pos = m.end()
            if m.group("comma"):
                continue
            if m.group("param") and current is not None:
                raw = m.group("value")
                if raw.startswith('"'):
                    raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
                current.params.setdefault(m.group("name").lower(), raw)
            elif m.group("token"):
                current = Challenge(m.group("token").lower())
                challenges.append(current)
    return challenges


def bearer_challenge(response: httpx.Response) -> Challenge | None:
    """The ``Bearer`` challenge of a response, if any."""
    values = response.headers.get_list("www-authenticate")
    for challenge in parse_www_authenticate(values):
        if challenge.scheme == "bearer":
            return challenge
    return None


# -- URLs -------------------------------------------------------------------------------------


def origin_of(url: str | httpx.URL) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port filled in, for same-origin checks."""
    u = url if isinstance(url, httpx.URL) else httpx.URL(url)
    port = u.port or {"http": 80, "https": 443}.get(u.scheme)
    return (u.scheme.lower(), u.host.lower(), port)


def canonical_resource(server_url: str) -> str:
    """The canonical URI of an MCP server (RFC 8707): no fragment, lower-case scheme and host,
    no trailing slash on an empty path. Used only when no PRM ``resource`` is known."""
    parts = urlsplit(server_url)
    path = parts.path if parts.path != "/" else ""
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def resource_matches(resource: str, server_url: str) -> bool:
    """Whether a PRM ``resource`` identifies ``server_url``: same origin, and the server's
    path equals the resource's path or lies under it (segment-wise)."""
    try:
        if origin_of(resource) != origin_of(server_url):
            return False
    except (httpx.InvalidURL, ValueError):
        return False
    if "#" in resource:
        return False
    rpath = urlsplit(resource).path.rstrip("/")
    spath = urlsplit(server_url).path
    return rpath == "" or spath.rstrip("/") == rpath or spath.startswith(rpath + "/")


def check_resource(resource: str, server_url: str) -> None:
    """Refuse protected resource metadata whose ``resource`` does not identify ``server_url``
    (see :func:`resource_matches`) with :class:`ResourceMismatchError`."""
    if not resource_matches(resource, server_url):
        raise ResourceMismatchError(
            f"The protected resource metadata is for {resource!r}, not {server_url}: "
            "refusing to use it",
            resource=resource,
            server_url=server_url,
        )


def prm_urls(server_url: str) -> list[str]:
    """RFC 9728 well-known URLs in the spec's order: path-based first, then the root."""
    parts = urlsplit(server_url)
    root = urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-protected-resource", "", ""))
    path = parts.path.rstrip("/")
    return [root + path, root] if path else [root]


def as_metadata_urls(issuer: str) -> list[str]:
    """Authorization server metadata URLs in the spec's order for ``issuer``."""
    parts = urlsplit(issuer)

    def at(path: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, path, "", ""))

    path = parts.path.rstrip("/")
    if not path:
        return [
            at("/.well-known/oauth-authorization-server"),
            at("/.well-known/openid-configuration"),
        ]
    return [
        at("/.well-known/oauth-authorization-server" + path),
        at("/.well-known/openid-configuration" + path),
        at(path + "/.well-known/openid-configuration"),
    ]


# -- metadata documents -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProtectedResourceMetadata:
    """An RFC 9728 document, validated for what the client relies on."""

    url: str
    resource: str
    authorization_servers: list[str]
    scopes_supported: list[str] | None
    raw: dict[str, Any]

    @classmethod
    def parse(cls, url: str, doc: Any) -> ProtectedResourceMetadata:
        if not isinstance(doc, dict):
            raise OAuthError(f"Protected resource metadata at {url} is not a JSON object")
        resource = doc.get("resource")
        servers = doc.get("authorization_servers")
        if not isinstance(resource, str) or not resource:
            raise OAuthError(f"Protected resource metadata at {url} has no resource")
        if not (isinstance(servers, list) and servers and all(isinstance(s, str) for s in servers)):
            raise OAuthError(f"Protected resource metadata at {url} names no authorization server")
        scopes = doc.get("scopes_supported")
        if not (isinstance(scopes, list) and all(isinstance(s, str) for s in scopes)):
            scopes = None
        return cls(url, resource, list(servers), scopes, doc)


@dataclass(frozen=True, slots=True)
class AuthorizationServerMetadata:
    """An RFC 8414 / OpenID provider metadata document whose ``issuer`` was checked."""

    url: str
    issuer: str
    raw: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.raw.get(name, default)

    def _str(self, name: str) -> str | None:
        value = self.raw.get(name)
        return value if isinstance(value, str) and value else None

    def _list(self, name: str) -> list[str] | None:
        value = self.raw.get(name)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        return None

    @property
    def authorization_endpoint(self) -> str | None:
        return self._str("authorization_endpoint")

    @property
    def token_endpoint(self) -> str | None:
        return self._str("token_endpoint")

    @property
    def registration_endpoint(self) -> str | None:
        return self._str("registration_endpoint")

    @property
    def scopes_supported(self) -> list[str] | None:
        return self._list("scopes_supported")

    @property
    def code_challenge_methods_supported(self) -> list[str] | None:
        return self._list("code_challenge_methods_supported")

    @property
    def token_endpoint_auth_methods_supported(self) -> list[str] | None:
        return self._list("token_endpoint_auth_methods_supported")

    @property
    def grant_types_supported(self) -> list[str] | None:
        return self._list("grant_types_supported")

    @property
    def client_id_metadata_document_supported(self) -> bool:
        return self.raw.get("client_id_metadata_document_supported") is True

    @property
    def iss_parameter_supported(self) -> bool:
        return self.raw.get("authorization_response_iss_parameter_supported") is True


def _fetcher(
    http: httpx.AsyncClient | Fetcher, server_url: str, policy: FetchPolicy | None
) -> Fetcher:
    """``http`` when it is a :class:`Fetcher` (its policy and deadline), else one made for
    it under ``policy`` (the default policy when None), its deadline starting now."""
    if isinstance(http, Fetcher):
        return http
    return Fetcher(http, policy or FetchPolicy(), server_url)


async def _get_json(
    fetcher: Fetcher, url: str, what: str, headers: Mapping[str, str] | None = None
) -> tuple[int, Any]:
    """GET ``url`` under the fetch policy (with ``headers`` besides ``Accept``); (status,
    parsed JSON or None). :class:`~mcpkit.errors.FetchRefused` when the policy refuses it."""
    try:
        response = await fetcher.request(
            "GET", url, what=what, headers={"accept": "application/json", **(headers or {})}
        )
    except httpx.HTTPError as exc:
        logger.info("Could not fetch %s: %s", url, exc)
        return 0, None
    if response.status_code != 200:
        return response.status_code, None
    try:
        return 200, response.json()
    except ValueError:
        return 200, None


async def discover_protected_resource(
    http: httpx.AsyncClient | Fetcher,
    server_url: str,
    resource_metadata_url: str | None = None,
    *,
    policy: FetchPolicy | None = None,
    headers: Mapping[str, str] | None = None,
) -> ProtectedResourceMetadata:
    """Fetch the server's protected resource metadata: from the challenge's
    ``resource_metadata`` URL when given, else from the well-known URLs in order (each
    request with ``headers``, as an ``MCP-Protocol-Version``). Every URL is fetched under
    ``policy`` (or the :class:`Fetcher`'s): a refused one raises
    :class:`~mcpkit.errors.FetchRefused`."""
    fetcher = _fetcher(http, server_url, policy)
    candidates = [resource_metadata_url] if resource_metadata_url else []
    candidates += [u for u in prm_urls(server_url) if u not in candidates]
    problems: list[str] = []
    published = True  # unless every URL answered that there is no such document
    for url in candidates:
        status, doc = await _get_json(fetcher, url, "protected resource metadata", headers)
        if doc is None:
            problems.append(f"{url}: HTTP {status}" if status else f"{url}: unreachable")
            if not status or status >= 500 or status == 429:
                published = False  # a failure says nothing about whether one exists
            continue
        try:
            return ProtectedResourceMetadata.parse(url, doc)
        except OAuthError as exc:
            problems.append(str(exc))
    raise OAuthError(
        "No protected resource metadata found (" + "; ".join(problems) + ")",
        error="no_resource_metadata" if published else None,
    )


async def discover_legacy_authorization_server(
    http: httpx.AsyncClient | Fetcher,
    server_url: str,
    *,
    policy: FetchPolicy | None = None,
    headers: Mapping[str, str] | None = None,
) -> AuthorizationServerMetadata:
    """The 2025-03-26 revision's discovery, for a server that publishes no protected resource
    metadata: its origin is the authorization server, its metadata at the origin's
    ``/.well-known/oauth-authorization-server`` (the issuer the origin, with or without the
    root's ``/``), else the default endpoints ``/authorize``, ``/token`` and ``/register``
    there (PKCE S256 assumed)."""
    parts = urlsplit(server_url)
    origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    fetcher = _fetcher(http, origin, policy)
    url = origin + "/.well-known/oauth-authorization-server"
    status, doc = await _get_json(fetcher, url, "authorization server metadata", headers)
    if isinstance(doc, dict):
        issuer = doc.get("issuer")
        expected = origin + "/" if issuer == origin + "/" else origin
        check_metadata_issuer(issuer, issuer=expected, url=url)
        return AuthorizationServerMetadata(url, expected, doc)
    if status and (status >= 500 or status == 429):
        raise OAuthError(f"No authorization server metadata for {origin} ({url}: HTTP {status})")
    return AuthorizationServerMetadata(
        url,
        origin,
        {
            "issuer": origin,
            "authorization_endpoint": origin + "/authorize",
            "token_endpoint": origin + "/token",
            "registration_endpoint": origin + "/register",
            "code_challenge_methods_supported": ["S256"],
        },
    )


async def discover_authorization_server(
    http: httpx.AsyncClient | Fetcher,
    issuer: str,
    *,
    policy: FetchPolicy | None = None,
    headers: Mapping[str, str] | None = None,
) -> AuthorizationServerMetadata:
    """Fetch ``issuer``'s metadata (RFC 8414, then OpenID Connect discovery). The document's
    ``issuer`` must equal ``issuer`` exactly, or it is refused and nothing of it is used.
    The fetches follow ``policy`` (or the :class:`Fetcher`'s; a plain client's reference
    origin is then ``issuer`` itself)."""
    fetcher = _fetcher(http, issuer, policy)
    problems: list[str] = []
    for url in as_metadata_urls(issuer):
        status, doc = await _get_json(fetcher, url, "authorization server metadata", headers)
        if not isinstance(doc, dict):
            problems.append(f"{url}: HTTP {status}" if status else f"{url}: unreachable")
            continue
        check_metadata_issuer(doc.get("issuer"), issuer=issuer, url=url)
        return AuthorizationServerMetadata(url, issuer, doc)
    raise OAuthError(f"No authorization server metadata for {issuer} (" + "; ".join(problems) + ")")
