"""The token stores: credentials keyed by the issuer of the authorization server that issued
them (tokens by resource and issuer), the last stored token per resource, and the migration
of a SQLite file written before tokens were keyed by issuer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from mcpkit.auth import MemoryTokenStore, OAuthToken, SQLiteTokenStore, TokenStore

AS1, AS2 = "https://as1.example.com", "https://as2.example.com"
R = "https://mcp.example.com/mcp"


def make(kind: str, path: Path) -> TokenStore:
    return MemoryTokenStore() if kind == "memory" else SQLiteTokenStore(path)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_tokens_keyed_by_resource_and_issuer(kind: str, tmp_path: Path) -> None:
    store = make(kind, tmp_path / "t.db")
    one = OAuthToken("at-1", refresh_token="rt-1", issuer=AS1, resource=R)
    two = OAuthToken("at-2", refresh_token="rt-2", issuer=AS2, resource=R)
    other = OAuthToken("at-3", issuer=AS1, resource="https://other.example.com")
    await store.set_token(R, one)
    await store.set_token(R, two)
    await store.set_token("https://other.example.com", other)
    assert await store.get_token(R, AS1) == one  # each authorization server keeps its own
    assert await store.get_token(R, AS2) == two
    assert await store.get_token(R) == two  # the last stored for the resource
    assert await store.get_token(R, "https://as3.example.com") is None
    await store.set_token(R, one)  # storing again makes it the latest
    assert await store.get_token(R) == one
    if isinstance(store, SQLiteTokenStore):
        store.close()
        store = SQLiteTokenStore(tmp_path / "t.db")
        assert await store.get_token(R) == one and await store.get_token(R, AS2) == two
    await store.set_token(R, None, issuer=AS1)  # forget one issuer's token only
    assert await store.get_token(R, AS1) is None
    assert await store.get_token(R) == two
    await store.set_token(R, None)  # forget all of the resource's
    assert await store.get_token(R) is None and await store.get_token(R, AS2) is None
    assert await store.get_token("https://other.example.com", AS1) == other
    if isinstance(store, SQLiteTokenStore):
        store.close()


async def test_sqlite_file_of_the_previous_schema_is_migrated(tmp_path: Path) -> None:
    """A file with the old one-token-per-resource table: every token moves under the issuer
    it records (or under no issuer), registrations stay where they are, nothing is lost."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE oauth_tokens (key TEXT PRIMARY KEY, data BLOB)")
    db.execute("CREATE TABLE oauth_clients (key TEXT PRIMARY KEY, data BLOB)")
    old = OAuthToken("at-old", refresh_token="rt", scope="s", issuer=AS1, resource=R)
    anon = {"access_token": "at-anon", "token_type": "Bearer", "extra_field": 1}
    db.execute("INSERT INTO oauth_tokens VALUES (?, ?)", (R, orjson.dumps(old.to_dict())))
    db.execute("INSERT INTO oauth_tokens VALUES (?, ?)", ("https://x/mcp", orjson.dumps(anon)))
    client = {"client_id": "cid", "issuer": AS1, "source": "dcr"}
    db.execute("INSERT INTO oauth_clients VALUES (?, ?)", (AS1, orjson.dumps(client)))
    db.commit()
    db.close()

    store = SQLiteTokenStore(path)
    assert await store.get_token(R) == old
    assert await store.get_token(R, AS1) == old
    assert await store.get_token(R, AS2) is None
    legacy = await store.get_token("https://x/mcp")
    assert legacy is not None and legacy.access_token == "at-anon" and legacy.issuer is None
    stored_client = await store.get_client(AS1)
    assert stored_client is not None and stored_client.client_id == "cid"
    store.close()

    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    (version,) = db.execute("PRAGMA user_version").fetchone()
    db.close()
    assert "oauth_tokens" not in tables and version == 2
    again = SQLiteTokenStore(path)  # opening a migrated file again changes nothing
    assert await again.get_token(R, AS1) == old
    again.close()
