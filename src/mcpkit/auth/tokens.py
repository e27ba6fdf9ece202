"""Tokens and client registrations, and where they are kept.

:class:`TokenStore` is the small storage interface. Every credential is keyed by the issuer
of the authorization server that issued it: client registrations by the issuer, tokens by the
protected resource *and* the issuer, so nothing obtained from one authorization server is
ever offered to another (a resource that moves keeps one token per authorization server).
:class:`MemoryTokenStore` and :class:`SQLiteTokenStore` are the embedded implementations.
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
    """Where an OAuth client keeps its tokens and registrations (shared between clients).

    Tokens are keyed by (resource, issuer); ``token.issuer`` is the issuer part of the key
    (None for a token of unknown origin). ``get_token(resource)`` without an issuer returns
    the token stored last for the resource, whichever authorization server issued it: what a
    client sends before it has discovered the server's current authorization server.
    """

    @abc.abstractmethod
    async def get_token(self, resource: str, issuer: str | None = None) -> OAuthToken | None:
        """The token for ``resource`` (the MCP server's canonical URI) issued by ``issuer``;
        with no issuer, the one stored last for ``resource``."""

    @abc.abstractmethod
    async def set_token(
        self, resource: str, token: OAuthToken | None, *, issuer: str | None = None
    ) -> None:
        """Store ``token`` for ``resource`` under its own ``issuer``; with None, forget the
        token of ``issuer`` (every token of ``resource`` when no issuer is given)."""

    @abc.abstractmethod
    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The client registration at the authorization server ``issuer``."""

    @abc.abstractmethod
    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Store (or with None, forget) the registration at ``issuer``."""


class MemoryTokenStore(TokenStore):
    """Tokens and registrations in this process only (the default)."""

    def __init__(self) -> None:
        # insertion order is recency: a stored token moves to the end
        self._tokens: dict[tuple[str, str], OAuthToken] = {}
        self._clients: dict[str, ClientInfo] = {}

    async def get_token(self, resource: str, issuer: str | None = None) -> OAuthToken | None:
        if issuer is not None:
            return self._tokens.get((resource, issuer))
        latest = [t for (r, _), t in self._tokens.items() if r == resource]
        return latest[-1] if latest else None

    async def set_token(
        self, resource: str, token: OAuthToken | None, *, issuer: str | None = None
    ) -> None:
        if token is None:
            for key in [k for k in self._tokens if k[0] == resource]:
                if issuer is None or key[1] == issuer:
                    del self._tokens[key]
            return
        key = (resource, token.issuer or "")
        self._tokens.pop(key, None)
        self._tokens[key] = token

    async def get_client(self, issuer: str) -> ClientInfo | None:
        return self._clients.get(issuer)

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        if client is None:
            self._clients.pop(issuer, None)
        else:
            self._clients[issuer] = client


#: The SQLite schema version (``PRAGMA user_version``): 2 keys tokens by resource and issuer.
_SCHEMA_VERSION = 2


class SQLiteTokenStore(TokenStore):
    """Tokens and registrations in a SQLite file (created with mode 0600), so they survive
    restarts. Calls run on a worker thread; they are rare (only around authorization).

    A file written by an older mcpkit (tokens keyed by resource only) is migrated when it is
    opened: each token moves under the issuer recorded in it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            if not self.path.exists():
                self.path.touch(mode=0o600)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            try:
                self._migrate(db)
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS oauth_clients (key TEXT PRIMARY KEY, data BLOB)")
            db.execute(
                "CREATE TABLE IF NOT EXISTS oauth_resource_tokens (resource TEXT NOT NULL, "
                "issuer TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB, "
                "PRIMARY KEY (resource, issuer))"
            )
            old = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'oauth_tokens'"
            ).fetchone()
            if old is not None:  # version 1: one token per resource, its issuer inside it
                rows = db.execute("SELECT key, data FROM oauth_tokens ORDER BY rowid").fetchall()
                for seq, (resource, blob) in enumerate(rows, 1):
                    data = orjson.loads(blob)
                    issuer = data.get("issuer") if isinstance(data, dict) else None
                    db.execute(
                        "INSERT OR REPLACE INTO oauth_resource_tokens VALUES (?, ?, ?, ?)",
                        (resource, issuer if isinstance(issuer, str) else "", seq, blob),
                    )
                db.execute("DROP TABLE oauth_tokens")
            db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _query(self, sql: str, args: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn().execute(sql, args).fetchone()
        if row is None:
            return None
        data = orjson.loads(row[0])
        return data if isinstance(data, dict) else None

    def _run(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._lock:
            self._conn().execute(sql, args)

    async def get_token(self, resource: str, issuer: str | None = None) -> OAuthToken | None:
        if issuer is None:
            sql = "SELECT data FROM oauth_resource_tokens WHERE resource = ? ORDER BY seq DESC"
            args: tuple[Any, ...] = (resource,)
        else:
            sql = "SELECT data FROM oauth_resource_tokens WHERE resource = ? AND issuer = ?"
            args = (resource, issuer)
        data = await asyncio.to_thread(self._query, sql, args)
        return OAuthToken.from_dict(data) if data else None

    async def set_token(
        self, resource: str, token: OAuthToken | None, *, issuer: str | None = None
    ) -> None:
        if token is not None:
            sql = (
                "INSERT OR REPLACE INTO oauth_resource_tokens VALUES (?, ?, "
                "(SELECT COALESCE(MAX(seq), 0) + 1 FROM oauth_resource_tokens), ?)"
            )
            args: tuple[Any, ...] = (resource, token.issuer or "", orjson.dumps(token.to_dict()))
        elif issuer is None:
            sql, args = "DELETE FROM oauth_resource_tokens WHERE resource = ?", (resource,)
        else:
            sql = "DELETE FROM oauth_resource_tokens WHERE resource = ? AND issuer = ?"
            args = (resource, issuer)
        await asyncio.to_thread(self._run, sql, args)

    async def get_client(self, issuer: str) -> ClientInfo | None:
        sql = "SELECT data FROM oauth_clients WHERE key = ?"
        data = await asyncio.to_thread(self._query, sql, (issuer,))
        return ClientInfo.from_dict(data) if data else None

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        args: tuple[Any, ...]
        if client is None:
            sql, args = "DELETE FROM oauth_clients WHERE key = ?", (issuer,)
        else:
            sql = "INSERT OR REPLACE INTO oauth_clients (key, data) VALUES (?, ?)"
            args = (issuer, orjson.dumps(client.to_dict()))
        await asyncio.to_thread(self._run, sql, args)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
