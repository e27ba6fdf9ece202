"""Where an embedded authorization server keeps its clients, codes and refresh tokens.

:class:`AuthStore` is the interface (every method async, so a shared store fits it);
:class:`MemoryAuthStore` keeps them in this process, :class:`SQLiteAuthStore` in a file,
:class:`mcpkit.auth.as_store_redis.RedisAuthStore` in Redis (every replica shares it).
Codes and refresh tokens are stored by the SHA-256 of their value, never the value itself.
``take_code`` reads and deletes at once: a code is redeemed once whatever the concurrency.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = [
    "AuthCode",
    "AuthStore",
    "MemoryAuthStore",
    "RefreshGrant",
    "RegisteredClient",
    "SQLiteAuthStore",
    "digest",
]

T = TypeVar("T")


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
    #: Claims about the user its tokens carry (an upstream identity's email, name...).
    claims: dict[str, Any] = field(default_factory=dict)


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
    #: Claims about the user its access tokens carry (see :class:`AuthCode`).
    claims: dict[str, Any] = field(default_factory=dict)


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

    async def first_use(self, key: str, ttl: float) -> bool:
        """Record ``key`` (a client assertion's ``jti``) for ``ttl`` seconds: True the
        first time, False while it is remembered (a replay)."""
        ...


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
        self.seen: dict[str, float] = {}
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

    async def first_use(self, key: str, ttl: float) -> bool:
        now = time.time()
        if len(self.seen) >= 1000:
            for old in [k for k, until in self.seen.items() if until <= now]:
                del self.seen[old]
        if self.seen.get(key, 0.0) > now:
            return False
        self.seen[key] = now + ttl
        return True


def encode(value: RegisteredClient | AuthCode | RefreshGrant) -> bytes:
    """One record as JSON (for the stores that keep bytes)."""
    import dataclasses

    import orjson

    return orjson.dumps(dataclasses.asdict(value))


def decode_client(data: bytes) -> RegisteredClient:
    import orjson

    d = orjson.loads(data)
    return RegisteredClient(
        d["client_id"],
        tuple(d["redirect_uris"]),
        d["auth_method"],
        d["secret_hash"],
        tuple(d["grant_types"]),
        d["metadata"],
    )


def decode_code(data: bytes) -> AuthCode:
    import orjson

    d = orjson.loads(data)
    d["scopes"] = tuple(d["scopes"])
    return AuthCode(**d)


def decode_refresh(data: bytes) -> RefreshGrant:
    import orjson

    d = orjson.loads(data)
    d["scopes"] = tuple(d["scopes"])
    return RefreshGrant(**d)


def open_private_db(path: Path, *tables: str) -> sqlite3.Connection:
    """The SQLite file at ``path`` (created with mode 0600: it holds secrets), in WAL mode
    with a busy timeout, for calls from any one thread at a time, with ``tables`` (``"name
    (columns)"``) created when missing."""
    if not path.exists():
        path.touch(mode=0o600)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=5000")
    for table in tables:
        db.execute("CREATE TABLE IF NOT EXISTS " + table)
    return db


class SQLiteAuthStore:
    """:class:`AuthStore` in a SQLite file (created with mode 0600): the state survives a
    restart; processes on one machine may share the file. Calls run on a worker thread."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_private_db(
                self.path,
                "as_clients (id TEXT PRIMARY KEY, data BLOB)",
                "as_codes (hash TEXT PRIMARY KEY, data BLOB, expires REAL)",
                "as_redeemed (hash TEXT PRIMARY KEY, family TEXT)",
                "as_refresh (hash TEXT PRIMARY KEY, family TEXT, used INTEGER, data BLOB)",
                "as_revoked (family TEXT PRIMARY KEY)",
                "as_seen (key TEXT PRIMARY KEY, expires REAL)",
            )
        return self._db

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def call() -> T:
            with self._lock:
                return fn(self._conn())

        return await asyncio.to_thread(call)

    async def add_client(self, client: RegisteredClient) -> None:
        await self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO as_clients VALUES (?, ?)",
                (client.client_id, encode(client)),
            )
        )

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        row = await self._run(
            lambda db: db.execute(
                "SELECT data FROM as_clients WHERE id = ?", (client_id,)
            ).fetchone()
        )
        return None if row is None else decode_client(row[0])

    async def put_code(self, code_hash: str, code: AuthCode) -> None:
        def put(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM as_codes WHERE expires < ?", (code.expires_at - 3600,))
            db.execute(
                "INSERT OR REPLACE INTO as_codes VALUES (?, ?, ?)",
                (code_hash, encode(code), code.expires_at),
            )

        await self._run(put)

    async def take_code(self, code_hash: str) -> AuthCode | None:
        def take(db: sqlite3.Connection) -> bytes | None:
            row = db.execute(
                "DELETE FROM as_codes WHERE hash = ? RETURNING data", (code_hash,)
            ).fetchone()
            if row is None:
                return None
            family = decode_code(row[0]).family
            db.execute("INSERT OR REPLACE INTO as_redeemed VALUES (?, ?)", (code_hash, family))
            return bytes(row[0])

        data = await self._run(take)
        return None if data is None else decode_code(data)

    async def code_replayed(self, code_hash: str) -> str | None:
        row = await self._run(
            lambda db: db.execute(
                "SELECT family FROM as_redeemed WHERE hash = ?", (code_hash,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    async def put_refresh(self, token_hash: str, grant: RefreshGrant) -> None:
        await self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO as_refresh VALUES (?, ?, ?, ?)",
                (token_hash, grant.family, int(grant.used), encode(grant)),
            )
        )

    async def get_refresh(self, token_hash: str) -> RefreshGrant | None:
        row = await self._run(
            lambda db: db.execute(
                "SELECT data, used FROM as_refresh WHERE hash = ?", (token_hash,)
            ).fetchone()
        )
        if row is None:
            return None
        grant = decode_refresh(row[0])
        grant.used = bool(row[1])
        return grant

    async def mark_used(self, token_hash: str) -> bool:
        changed = await self._run(
            lambda db: (
                db.execute(
                    "UPDATE as_refresh SET used = 1 WHERE hash = ? AND used = 0", (token_hash,)
                ).rowcount
            )
        )
        return changed == 1

    async def revoke_family(self, family: str) -> None:
        def revoke(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR IGNORE INTO as_revoked VALUES (?)", (family,))
            db.execute("DELETE FROM as_refresh WHERE family = ?", (family,))

        await self._run(revoke)

    async def family_revoked(self, family: str) -> bool:
        row = await self._run(
            lambda db: db.execute("SELECT 1 FROM as_revoked WHERE family = ?", (family,)).fetchone()
        )
        return row is not None

    async def first_use(self, key: str, ttl: float) -> bool:
        def use(db: sqlite3.Connection) -> bool:
            now = time.time()
            db.execute("DELETE FROM as_seen WHERE expires <= ?", (now,))
            cursor = db.execute("INSERT OR IGNORE INTO as_seen VALUES (?, ?)", (key, now + ttl))
            return cursor.rowcount == 1

        return await self._run(use)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
