"""The deployment secret of a Redis store, and the MRTR sealing keys it protects.

Every replica of one deployment is given the same secret (``RedisBackend(secret=...)`` or
the ``MCPKIT_STORE_SECRET`` environment variable, at least 16 characters; make one with
``python -c "import secrets; print(secrets.token_urlsafe(32))"``). From it come:

- the default key prefix, ``mcpkit:<server name>:<12 hex of HMAC(secret, name)>``, so two
  deployments on one Redis never share keys unless they share both name and secret;
- the key wrapping the shared MRTR sealing keys. Given ``request_state_keys`` (or
  ``MCPKIT_REQUEST_STATE_KEYS``) the ring is that and nothing is stored; otherwise it lives in
  Redis under ``P:request-state-keys``, sealed with AES-256-GCM under a key derived from the
  secret (HKDF-SHA256) and bound to that Redis key's name: what Redis holds opens nothing
  without the secret. The first replica to start writes a fresh ring there (``SET NX``),
  every later one reads and unwraps it; :func:`rotate_shared_keys` puts a new key first.

A replica whose secret does not open the stored ring refuses to start (another deployment
uses this prefix, or the replicas were given different secrets), as does one with no secret
that would have to keep the ring in Redis.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from typing import TYPE_CHECKING, Any, Final

from mcpkit.errors import McpkitError
from mcpkit.server.request_state import KEYS_ENV, KeyRing, generate_key

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = [
    "MIN_SECRET_BYTES",
    "SECRET_ENV",
    "StoreSecretMissing",
    "default_prefix",
    "rotate_shared_keys",
    "shared_key_ring",
    "store_secret",
    "unwrap_ring",
    "wrap_ring",
]

#: The environment variable holding the deployment secret of a Redis store.
SECRET_ENV: Final = "MCPKIT_STORE_SECRET"
#: Shortest secret accepted.
MIN_SECRET_BYTES: Final = 16
_WRAPPED: Final = "mcpkit-wrapped-1:"
_NONCE: Final = 12
_HOW: Final = (
    f"set {SECRET_ENV} to the same random value on every replica (make one with "
    'python -c "import secrets; print(secrets.token_urlsafe(32))") or pass '
    "RedisBackend(..., secret=...)"
)


class StoreSecretMissing(McpkitError, ValueError):
    """A Redis store was asked for something only its deployment secret can give."""


def store_secret(value: str | bytes | None) -> bytes | None:
    """The secret ``value`` (else ``MCPKIT_STORE_SECRET``) as bytes; None when neither is
    set. StoreSecretMissing (a ValueError) when it is shorter than :data:`MIN_SECRET_BYTES`:
    a secret too short to guess is no secret."""
    if value is None:
        value = os.environ.get(SECRET_ENV, "")
    raw = value.strip().encode() if isinstance(value, str) else bytes(value)
    if not raw:
        return None
    if len(raw) < MIN_SECRET_BYTES:
        raise StoreSecretMissing(
            f"the store secret must be at least {MIN_SECRET_BYTES} bytes (random): {_HOW}"
        )
    return raw


def _tag(secret: bytes, label: bytes) -> str:
    return hmac.new(secret, b"mcpkit store prefix\0" + label, hashlib.sha256).hexdigest()[:12]


def default_prefix(secret: bytes | None, name: str | None = None) -> str:
    """The key prefix of a deployment named ``name`` (the server's name) with ``secret``:
    ``mcpkit:<name>:<tag>``, or ``mcpkit:<tag>`` without a name. StoreSecretMissing without
    a secret."""
    if secret is None:
        raise StoreSecretMissing(
            "a Redis store needs a deployment secret, so that two deployments on one Redis "
            f"never share keys and the sealing keys kept there are wrapped: {_HOW}; "
            "or give both prefix= and request_state_keys= explicitly"
        )
    if not name:
        return f"mcpkit:{_tag(secret, b'')}"
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:48]
    return f"mcpkit:{safe}:{_tag(secret, name.encode())}"


def _aead(secret: bytes) -> Any:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    kek = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"mcpkit request-state key wrap"
    ).derive(secret)
    return AESGCM(kek)


def wrap_ring(secret: bytes, where: str, ring: str) -> str:
    """``ring`` (comma-separated base64 keys) sealed for the Redis key ``where``."""
    nonce = os.urandom(_NONCE)
    sealed = _aead(secret).encrypt(nonce, ring.encode("ascii"), where.encode())
    return _WRAPPED + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def unwrap_ring(secret: bytes, where: str, stored: str) -> str:
    """The ring :func:`wrap_ring` sealed in ``stored``; ValueError when ``secret`` does not
    open it (another secret, another key name, tampered, or kept in clear)."""
    from cryptography.exceptions import InvalidTag

    if not stored.startswith(_WRAPPED):
        raise ValueError("it is not wrapped (kept in clear by an older mcpkit?)")
    try:
        raw = base64.urlsafe_b64decode(stored[len(_WRAPPED) :])
        plain: bytes = _aead(secret).decrypt(raw[:_NONCE], raw[_NONCE:], where.encode())
    except (binascii.Error, ValueError, InvalidTag):
        raise ValueError("this deployment's secret does not open it") from None
    return plain.decode("ascii")


def _sync_client(backend: RedisBackend) -> Any:
    from mcpkit.redis.backend import unavailable

    try:
        return backend.address.sync_client(
            connect_timeout=backend.connect_timeout, command_timeout=backend.command_timeout
        )
    except Exception as exc:  # a cluster client reads the topology as it is made
        raise unavailable(exc, backend.url) from None


def _secret_of(backend: RedisBackend) -> bytes:
    if backend.secret is None:
        raise StoreSecretMissing(
            "a Redis store keeps the MRTR sealing keys wrapped with the deployment secret, "
            f"and none is given: {_HOW}; or give request_state_keys= "
            f"(or {KEYS_ENV}) to every replica"
        )
    return backend.secret


def _opened(backend: RedisBackend, secret: bytes, stored: object) -> KeyRing:
    where = backend.keys.request_state_keys
    if not isinstance(stored, bytes):
        raise RuntimeError("the shared request-state keys vanished from Redis")
    try:
        return KeyRing.from_base64(unwrap_ring(secret, where, stored.decode("ascii", "replace")))
    except ValueError as exc:
        raise StoreSecretMissing(
            f"the sealing keys at {where} in Redis do not open: {exc}. Another deployment "
            "uses this prefix, or the replicas were given different secrets; give each "
            "deployment its own prefix (or secret), or delete that key to start a new ring "
            "(requestState issued until now is then refused)"
        ) from None


def shared_key_ring(backend: RedisBackend) -> KeyRing:
    """The ring every replica of ``backend`` shares (reads Redis once, synchronously)."""
    configured = backend.request_state_keys or os.environ.get(KEYS_ENV, "").strip()
    if configured:
        return KeyRing.from_base64(configured)
    from mcpkit.redis.backend import unavailable

    secret = _secret_of(backend)
    where = backend.keys.request_state_keys
    client = _sync_client(backend)
    try:
        client.set(where, wrap_ring(secret, where, generate_key()).encode(), nx=True)
        stored = client.get(where)
    except Exception as exc:
        raise unavailable(exc, backend.url) from None
    finally:
        client.close()
    return _opened(backend, secret, stored)


def rotate_shared_keys(backend: RedisBackend, *, keep: int = 2) -> KeyRing:
    """Put a fresh key first in the ring kept in Redis, keeping the ``keep - 1`` newest
    others (replicas seal with it once restarted; every one keeps opening the old ones)."""
    from mcpkit.redis.backend import unavailable

    secret = _secret_of(backend)
    where = backend.keys.request_state_keys
    client = _sync_client(backend)
    try:
        ring = _opened(backend, secret, client.get(where))
        rotated = ring.rotated(base64.b64decode(generate_key()), keep=keep)
        text = ",".join(base64.b64encode(k).decode("ascii") for k in rotated._raw)
        client.set(where, wrap_ring(secret, where, text).encode())
    except (StoreSecretMissing, RuntimeError):
        raise
    except Exception as exc:
        raise unavailable(exc, backend.url) from None
    finally:
        client.close()
    return rotated
