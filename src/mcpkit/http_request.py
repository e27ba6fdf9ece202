"""The HTTP request a message came in: what handlers read as ``ctx.request``.

The Streamable HTTP app (and its 2024-11-05 HTTP+SSE endpoints) marks each HTTP request it
serves (:func:`serving`); a handler's task inherits the mark, so ``ctx.request`` is the
request that carried the message being handled: a 2026-07-28 request is its own HTTP
request, a message of a 2025 session the POST that carried it (not the one that opened the
session). Over stdio and in memory there is none (None). :class:`HttpRequest` is a small,
immutable value: method, path, query, headers, the client's address, and the authenticated
principal (the validated access token or API key, its scopes and claims).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.auth.server import AccessToken

__all__ = [
    "Headers",
    "HttpRequest",
    "current_http_request",
    "scope_var",
    "serving",
    "stop_serving",
]

_scope: contextvars.ContextVar[MutableMapping[str, Any] | None] = contextvars.ContextVar(
    "mcpkit_http_scope", default=None
)
#: The ASGI scope of the HTTP request being served in this context (None: none). The
#: Streamable HTTP app sets and resets it itself (what :func:`serving` and
#: :func:`stop_serving` do, without their two calls on every request).
scope_var = _scope

#: Header values not shown by ``repr`` (credentials).
_SECRET = frozenset({"authorization", "cookie", "proxy-authorization", "x-api-key", "dpop"})


def serving(scope: MutableMapping[str, Any]) -> contextvars.Token[Any]:
    """Mark ``scope`` (an ASGI HTTP scope) as the request being served in this context;
    :func:`stop_serving` with the token undoes it."""
    return _scope.set(scope)


def stop_serving(token: contextvars.Token[Any]) -> None:
    """Undo :func:`serving`."""
    _scope.reset(token)


class Headers(Mapping[str, str]):
    """Request headers, case-insensitive and read-only: ``headers["user-agent"]`` is the
    first value of a header, :meth:`get_list` every value. ``repr`` hides credentials."""

    __slots__ = ("_raw",)

    def __init__(self, raw: list[tuple[bytes, bytes]] | list[tuple[str, str]]) -> None:
        self._raw: list[tuple[str, str]] = [
            (k.decode("latin-1").lower(), v.decode("latin-1"))
            if isinstance(k, bytes) and isinstance(v, bytes)
            else (str(k).lower(), str(v))
            for k, v in raw
        ]

    def __getitem__(self, name: str) -> str:
        key = name.lower()
        for k, v in self._raw:
            if k == key:
                return v
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(k == name.lower() for k, _ in self._raw)

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for k, _ in self._raw:
            if k not in seen:
                seen.add(k)
                yield k

    def __len__(self) -> int:
        return len({k for k, _ in self._raw})

    def get_list(self, name: str) -> list[str]:
        """Every value of header ``name``, in order."""
        key = name.lower()
        return [v for k, v in self._raw if k == key]

    def items_all(self) -> list[tuple[str, str]]:
        """Every (lower-case name, value) pair, repeated headers included."""
        return list(self._raw)

    def __repr__(self) -> str:
        shown = [(k, "<hidden>" if k in _SECRET else v) for k, v in self._raw]
        return f"Headers({shown!r})"


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request as a handler or middleware sees it.

    ``client`` is the peer's ``(host, port)`` as the ASGI server reports it (behind a
    reverse proxy, the proxy's unless the server is told to trust ``X-Forwarded-For``);
    ``auth`` the validated access token (or API key) when the server is protected, whose
    :attr:`principal`, :attr:`scopes` and :attr:`claims` are repeated here."""

    method: str
    path: str
    query_string: str = ""
    headers: Headers = field(default_factory=lambda: Headers([]))
    client: tuple[str, int] | None = None
    scheme: str = "http"
    auth: AccessToken | None = None

    @property
    def client_address(self) -> str | None:
        """The client's IP address (None when the server does not know it)."""
        return None if self.client is None else self.client[0]

    @property
    def principal(self) -> str | None:
        """Who is authenticated: the token's subject, else its client id; None without."""
        token = self.auth
        return None if token is None else (token.subject or token.client_id)

    @property
    def scopes(self) -> frozenset[str]:
        """The scopes granted to the request's token (empty without one)."""
        return frozenset() if self.auth is None else self.auth.scopes

    @property
    def claims(self) -> Mapping[str, Any]:
        """The token's claims (a JWT's, an introspection answer's, an API key's)."""
        return {} if self.auth is None else self.auth.claims

    @classmethod
    def from_scope(cls, scope: Mapping[str, Any], auth: AccessToken | None = None) -> HttpRequest:
        """The request of an ASGI HTTP ``scope``."""
        client = scope.get("client")
        query = scope.get("query_string", b"")
        return cls(
            method=str(scope.get("method", "")),
            path=str(scope.get("root_path", "")) + str(scope.get("path", "")),
            query_string=query.decode("latin-1") if isinstance(query, bytes) else str(query),
            headers=Headers(list(scope.get("headers", ()))),
            client=(str(client[0]), int(client[1])) if client else None,
            scheme=str(scope.get("scheme", "http")),
            auth=auth,
        )


def current_http_request() -> HttpRequest | None:
    """The HTTP request being served in this context, or None (not over HTTP)."""
    scope = _scope.get()
    if scope is None:
        return None
    from mcpkit.auth.server import get_access_token

    return HttpRequest.from_scope(scope, get_access_token())
