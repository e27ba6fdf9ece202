"""API keys and static bearer tokens: a server protected without an authorization server.

:class:`APIKeyVerifier` knows the keys this server accepts, each with who it stands for (a
subject and a client id: the principal sessions, tasks and per-user visibility follow) and
what it allows (its scopes), optionally until when. Keys come from a mapping, a JSON file or
a function::

    keys = APIKeyVerifier({
        "sha256:9f86d0...": APIKey(subject="ci", scopes={"mcp"}),   # stored as a hash
        os.environ["ADA_KEY"]: APIKey(subject="ada", scopes={"mcp", "admin"}),
    })
    app = Server("private", auth=keys)      # or http_app(auth=keys)

Only the SHA-256 of each key is kept (a key given in clear is hashed at once); a presented key
is hashed and looked up by its hash, then compared with :func:`hmac.compare_digest`, so
neither the lookup nor the comparison tells an attacker anything about a key's text. Clients
send ``Authorization: Bearer <key>``, or the header named by ``header=`` (``X-API-Key``).

A server protected by keys only is no OAuth resource: it serves no protected resource
metadata, and its 401 challenge is a plain ``Bearer`` one (no ``resource_metadata``), so an
OAuth client knows not to start a flow. Keys can also sit beside OAuth:
``ResourceServer(jwt_verifier, ..., api_keys=keys)``.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpkit.auth.server import AccessToken

__all__ = ["APIKey", "APIKeyVerifier", "hash_api_key"]

_PREFIX = "sha256:"


def hash_api_key(key: str) -> str:
    """The form a key is stored in: ``"sha256:<hex digest>"`` (what a key file and a
    mapping may hold instead of the key)."""
    return _PREFIX + hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class APIKey:
    """Who a key stands for and what it allows.

    ``subject`` and ``client_id`` make the principal (``ctx.auth.subject``; without a
    subject, a name derived from the key's hash, never the key); ``scopes`` are what it is
    granted; ``expires_at`` (Unix time) ends it; ``claims`` are extra facts handlers read
    from ``ctx.auth.claims``."""

    subject: str | None = None
    client_id: str | None = None
    scopes: frozenset[str] = frozenset()
    expires_at: float | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        scopes: Any = self.scopes
        if isinstance(scopes, str):
            scopes = scopes.split()
        object.__setattr__(self, "scopes", frozenset(scopes))


#: A function finding the principal of a presented key (sync or async).
KeyLookup = Callable[[str], "APIKey | AccessToken | Awaitable[APIKey | AccessToken | None] | None"]


class APIKeyVerifier:
    """The API keys (static bearer tokens) a server accepts: a token verifier (``async
    verify_token(key) -> AccessToken | None``) for ``Server(auth=...)``,
    ``http_app(auth=...)`` or ``ResourceServer(..., api_keys=...)``.

    ``keys``: a mapping from a key (or its :func:`hash_api_key` form) to an :class:`APIKey`,
    or to its scopes (a list or a space-separated string; the subject is then derived from
    the key's hash); or a function ``key -> APIKey | AccessToken | None`` (sync or async),
    for keys kept elsewhere (a database): it sees the presented key and does its own
    comparison. ``header``: another request header carrying a key (``"X-API-Key"``), read
    when there is no ``Authorization`` header. See :meth:`from_file` for a key file.
    """

    def __init__(
        self,
        keys: Mapping[str, APIKey | Iterable[str] | str] | KeyLookup,
        *,
        header: str | None = None,
    ) -> None:
        self._lookup: KeyLookup | None = None
        self._keys: dict[bytes, tuple[bytes, APIKey]] = {}
        if callable(keys):
            self._lookup = keys
        else:
            for key, entry in keys.items():
                self.add(key, entry)
        #: The extra header (lower case, as ASGI gives it) carrying a key, or None.
        self.header: bytes | None = header.lower().encode("latin-1") if header else None

    def add(self, key: str, entry: APIKey | Iterable[str] | str = ()) -> None:
        """Accept ``key`` (or a ``"sha256:<hex>"`` hash of one) from now on."""
        if self._lookup is not None:
            raise TypeError("keys are looked up by a function: add them there")
        if not isinstance(key, str) or not key:
            raise ValueError("an API key is a non-empty string")
        if key.startswith(_PREFIX):
            try:
                digest = bytes.fromhex(key[len(_PREFIX) :])
            except ValueError:
                raise ValueError(f"not a SHA-256 hex digest: {key[:20]}...") from None
            if len(digest) != 32:
                raise ValueError(f"not a SHA-256 hex digest: {key[:20]}...")
        else:
            digest = hashlib.sha256(key.encode()).digest()
        if not isinstance(entry, APIKey):
            entry = APIKey(scopes=frozenset(entry.split() if isinstance(entry, str) else entry))
        if entry.subject is None and entry.client_id is None:
            entry = APIKey(
                subject="key-" + digest.hex()[:16],
                scopes=entry.scopes,
                expires_at=entry.expires_at,
                claims=entry.claims,
            )
        self._keys[digest] = (digest, entry)

    def revoke(self, key: str) -> bool:
        """Stop accepting ``key`` (or its hash); False when it was not known."""
        if key.startswith(_PREFIX):
            digest = bytes.fromhex(key[len(_PREFIX) :])
        else:
            digest = hashlib.sha256(key.encode()).digest()
        return self._keys.pop(digest, None) is not None

    def __len__(self) -> int:
        return len(self._keys)

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], *, header: str | None = None
    ) -> APIKeyVerifier:
        """Keys from a JSON file: ``{"keys": [{"sha256": "<hex>" | "key": "<key>",
        "subject": ..., "client_id": ..., "scopes": [...] | "a b", "expires_at": ...,
        "claims": {...}}, ...]}``. Prefer ``sha256`` (:func:`hash_api_key` without its
        prefix, or ``sha256sum``'s output): whoever reads the file then holds no key."""
        with open(path, "rb") as f:
            try:
                doc = orjson.loads(f.read())
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"{os.fspath(path)}: not JSON ({exc})") from None
        entries = doc.get("keys") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            raise ValueError(f'{os.fspath(path)}: expected {{"keys": [...]}}')
        verifier = cls({}, header=header)
        for i, item in enumerate(entries):
            where = f"{os.fspath(path)}: keys[{i}]"
            if not isinstance(item, dict):
                raise ValueError(f"{where} is not an object")
            unknown = set(item) - {
                "sha256",
                "key",
                "subject",
                "client_id",
                "scopes",
                "expires_at",
                "claims",
            }
            if unknown:
                raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
            if ("sha256" in item) == ("key" in item):
                raise ValueError(f"{where}: give exactly one of 'sha256' and 'key'")
            key = _PREFIX + str(item["sha256"]).lower() if "sha256" in item else item["key"]
            scopes = item.get("scopes", [])
            expires = item.get("expires_at")
            claims = item.get("claims", {})
            if not isinstance(scopes, (str, list)) or not isinstance(claims, dict):
                raise ValueError(f"{where}: 'scopes' is a list or a string, 'claims' an object")
            if expires is not None and (
                isinstance(expires, bool) or not isinstance(expires, (int, float))
            ):
                raise ValueError(f"{where}: 'expires_at' is a Unix time")
            for name in ("subject", "client_id"):
                if item.get(name) is not None and not isinstance(item[name], str):
                    raise ValueError(f"{where}: '{name}' is a string")
            try:
                verifier.add(
                    key,
                    APIKey(
                        subject=item.get("subject"),
                        client_id=item.get("client_id"),
                        scopes=frozenset(scopes.split() if isinstance(scopes, str) else scopes),
                        expires_at=float(expires) if expires is not None else None,
                        claims=claims,
                    ),
                )
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
        return verifier

    def _token(self, key: str, entry: APIKey) -> AccessToken:
        return AccessToken(
            token=key,
            client_id=entry.client_id,
            scopes=entry.scopes,
            expires_at=entry.expires_at,
            subject=entry.subject,
            claims=dict(entry.claims),
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        """The principal ``token`` (a presented key) stands for, or None. An expired key is
        returned as such (its ``expires_at`` passed: the resource server refuses it)."""
        lookup = self._lookup
        if lookup is not None:
            found = lookup(token)
            if inspect.isawaitable(found):
                found = await found
            if isinstance(found, APIKey):
                return self._token(token, found)
            return found if isinstance(found, AccessToken) else None
        digest = hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()
        hit = self._keys.get(digest)
        if hit is None or not hmac.compare_digest(hit[0], digest):
            return None
        return self._token(token, hit[1])
