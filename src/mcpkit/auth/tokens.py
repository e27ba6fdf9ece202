"""Tokens and client registrations, and where they are kept.

:class:`TokenStore` is the small storage interface (tokens keyed by the protected resource,
client registrations keyed by the authorization server's issuer, so credentials never cross
authorization servers). :class:`MemoryTokenStore` and :class:`SQLiteTokenStore` are the
embedded implementations.
"""

from __future__ import annotations

import abc
import asyncio
import sqlite3
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["ClientInfo", "MemoryTokenStore", "OAuthToken", "SQLiteTokenStore", "TokenStore"]

#: Refresh this many seconds before the advertised expiry.
EXPIRY_MARGIN = 30.0


@dataclass(slots=True)
class OAuthToken:
    """An access token (and refresh token) for one protected resource from one issuer."""

    access_token: str
    token_type: str = "Bearer"
    expires_at: float | None = None
    refresh_token: str | None = None
    scope: str | None = None
    issuer: str | None = None
    resource: str | None = None

    @property
    def scopes(self) -> set[str]:
        return set((self.scope or "").split())

    def expired(self, now: float | None = None) -> bool:
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) >= self.expires_at - EXPIRY_MARGIN

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OAuthToken:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(slots=True)
class ClientInfo:
    """A client identity at one authorization server: registered (DCR), pre-registered or a
    client ID metadata document URL."""

    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    issuer: str | None = None
    client_secret_expires_at: float | None = None
    #: How the identity was obtained: ``"dcr"``, ``"preregistered"`` or ``"cimd"``.
    source: str = "dcr"
    metadata: dict[str, Any] = field(default_factory=dict)

    def usable(self, now: float | None = None) -> bool:
        """False once a registered secret has expired (0 means it never does)."""
        exp = self.client_secret_expires_at
        return not exp or (time.time() if now is None else now) < exp

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClientInfo:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


class TokenStore(abc.ABC):
    """Where an OAuth client keeps its tokens and registrations (shared between clients)."""

    @abc.abstractmethod
    async def get_token(self, resource: str) -> OAuthToken | None:
        """The token stored for ``resource`` (the MCP server's canonical URI)."""

    @abc.abstractmethod
    async def set_token(self, resource: str, token: OAuthToken | None) -> None:
        """Store (or with None, forget) the token for ``resource``."""

    @abc.abstractmethod
    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The client registration at the authorization server ``issuer``."""

    @abc.abstractmethod
    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Store (or with None, forget) the registration at ``issuer``."""


class MemoryTokenStore(TokenStore):
    """Tokens and registrations in this process only (the default)."""

    def __init__(self) -> None:
        self._tokens: dict[str, OAuthToken] = {}
        self._clients: dict[str, ClientInfo] = {}

    async def get_token(self, resource: str) -> OAuthToken | None:
        return self._tokens.get(resource)

    async def set_token(self, resource: str, token: OAuthToken | None) -> None:
        if token is None:
            self._tokens.pop(resource, None)
        else:
            self._tokens[resource] = token

    async def get_client(self, issuer: str) -> ClientInfo | None:
        return self._clients.get(issuer)

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        if client is None:
            self._clients.pop(issuer, None)
        else:
            self._clients[issuer] = client


class SQLiteTokenStore(TokenStore):
    """Tokens and registrations in a SQLite file (created with mode 0600), so they survive
    restarts. Calls run on a worker thread; they are rare (only around authorization)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            if not self.path.exists():
                self.path.touch(mode=0o600)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("CREATE TABLE IF NOT EXISTS oauth_tokens (key TEXT PRIMARY KEY, data BLOB)")
            db.execute("CREATE TABLE IF NOT EXISTS oauth_clients (key TEXT PRIMARY KEY, data BLOB)")
            self._db = db
        return self._db

    def _get(self, table: str, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn().execute(f"SELECT data FROM {table} WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data = orjson.loads(row[0])
        return data if isinstance(data, dict) else None

    def _set(self, table: str, key: str, data: dict[str, Any] | None) -> None:
        with self._lock:
            db = self._conn()
            if data is None:
                db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))
            else:
                db.execute(
                    f"INSERT OR REPLACE INTO {table} (key, data) VALUES (?, ?)",
                    (key, orjson.dumps(data)),
                )

    async def get_token(self, resource: str) -> OAuthToken | None:
        data = await asyncio.to_thread(self._get, "oauth_tokens", resource)
        return OAuthToken.from_dict(data) if data else None

    async def set_token(self, resource: str, token: OAuthToken | None) -> None:
        data = token.to_dict() if token is not None else None
        await asyncio.to_thread(self._set, "oauth_tokens", resource, data)

    async def get_client(self, issuer: str) -> ClientInfo | None:
        data = await asyncio.to_thread(self._get, "oauth_clients", issuer)
        return ClientInfo.from_dict(data) if data else None

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        data = client.to_dict() if client is not None else None
        await asyncio.to_thread(self._set, "oauth_clients", issuer, data)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
