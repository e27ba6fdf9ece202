"""Where an embedded authorization server keeps its clients, codes and refresh tokens.

:class:`AuthStore` is the interface (every method async, so a shared store fits it);
:class:`MemoryAuthStore` keeps them in this process. Codes and refresh tokens are stored by
the SHA-256 of their value, never the value itself. ``take_code`` reads and deletes at once:
a code is redeemed once whatever the concurrency.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "AuthCode",
    "AuthStore",
    "MemoryAuthStore",
    "RefreshGrant",
    "RegisteredClient",
    "digest",
]


def digest(value: str) -> str:
    """The key a secret value is stored under (hex SHA-256)."""
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class RegisteredClient:
    """A client registered dynamically (RFC 7591). ``secret_hash`` is the SHA-256 of its
    secret (None for a public client)."""

    client_id: str
    redirect_uris: tuple[str, ...]
    auth_method: str = "none"
    secret_hash: str | None = field(default=None, repr=False)
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")
    metadata: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class AuthCode:
    """An authorization code: what it was issued for, and until when."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    scopes: tuple[str, ...]
    resource: str
    subject: str
    expires_at: float
    #: The token family its redemption starts (revoked if the code is replayed).
    family: str


@dataclass(slots=True)
class RefreshGrant:
    """A refresh token (by hash). ``used``: already exchanged (rotated); presenting it again
    is a replay, which revokes its whole ``family``."""

    client_id: str
    scopes: tuple[str, ...]
    resource: str
    subject: str
    family: str
    expires_at: float | None
    used: bool = False


class AuthStore(Protocol):
    """The authorization server's state (see the module docstring)."""

    async def add_client(self, client: RegisteredClient) -> None: ...

    async def get_client(self, client_id: str) -> RegisteredClient | None: ...

    async def put_code(self, code_hash: str, code: AuthCode) -> None: ...

    async def take_code(self, code_hash: str) -> AuthCode | None:
        """The code, deleted in the same step (None when absent or already taken)."""
        ...

    async def code_replayed(self, code_hash: str) -> str | None:
        """The family of a code that was already redeemed, else None."""
        ...

    async def put_refresh(self, token_hash: str, grant: RefreshGrant) -> None: ...

    async def get_refresh(self, token_hash: str) -> RefreshGrant | None: ...

    async def mark_used(self, token_hash: str) -> bool:
        """Mark a refresh token used; False when it already was (a replay)."""
        ...

    async def revoke_family(self, family: str) -> None:
        """Revoke every refresh token of ``family`` (replay, revocation)."""
        ...

    async def family_revoked(self, family: str) -> bool: ...


class MemoryAuthStore:
    """:class:`AuthStore` in this process's memory (one replica). Bounded: codes expired
    for an hour are dropped, and the most recent ``max_remembered`` redeemed codes and
    revoked families are remembered (for replay detection)."""

    def __init__(self, *, max_remembered: int = 100_000) -> None:
        self.clients: dict[str, RegisteredClient] = {}
        self.codes: dict[str, AuthCode] = {}
        self.redeemed: OrderedDict[str, str] = OrderedDict()
        self.refresh: dict[str, RefreshGrant] = {}
        self.revoked: OrderedDict[str, None] = OrderedDict()
        self._max = max_remembered

    async def add_client(self, client: RegisteredClient) -> None:
        self.clients[client.client_id] = client

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        return self.clients.get(client_id)

    async def put_code(self, code_hash: str, code: AuthCode) -> None:
        if len(self.codes) >= 1000:  # drop the codes that expired long ago
            stale = code.expires_at - 3600
            for key in [k for k, c in self.codes.items() if c.expires_at < stale]:
                del self.codes[key]
        self.codes[code_hash] = code

    async def take_code(self, code_hash: str) -> AuthCode | None:
        code = self.codes.pop(code_hash, None)
        if code is not None:
            self.redeemed[code_hash] = code.family
            if len(self.redeemed) > self._max:
                self.redeemed.popitem(last=False)
        return code

    async def code_replayed(self, code_hash: str) -> str | None:
        return self.redeemed.get(code_hash)

    async def put_refresh(self, token_hash: str, grant: RefreshGrant) -> None:
        self.refresh[token_hash] = grant

    async def get_refresh(self, token_hash: str) -> RefreshGrant | None:
        return self.refresh.get(token_hash)

    async def mark_used(self, token_hash: str) -> bool:
        grant = self.refresh.get(token_hash)
        if grant is None or grant.used:
            return False
        grant.used = True
        return True

    async def revoke_family(self, family: str) -> None:
        self.revoked[family] = None
        if len(self.revoked) > self._max:
            self.revoked.popitem(last=False)
        for key in [k for k, g in self.refresh.items() if g.family == family]:
            del self.refresh[key]

    async def family_revoked(self, family: str) -> bool:
        return family in self.revoked
