"""Shared MRTR sealing keys: one :class:`~mcpkit.server.request_state.KeyRing` for every
replica, so any replica opens the ``requestState`` another one sealed.

Given ``request_state_keys`` (or ``MCPKIT_REQUEST_STATE_KEYS``) the ring is that; otherwise
it lives in Redis under ``P:request-state-keys``: the first replica to start writes a fresh
random key there (``SET NX``), every later one reads it. Rotate by writing
``"new,old"`` there (or in the environment) and restarting the replicas.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mcpkit.server.request_state import KEYS_ENV, KeyRing, generate_key

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["shared_key_ring"]


def shared_key_ring(backend: RedisBackend) -> KeyRing:
    """The ring every replica of ``backend`` shares (reads Redis once, synchronously)."""
    configured = backend.request_state_keys or os.environ.get(KEYS_ENV, "").strip()
    if configured:
        return KeyRing.from_base64(configured)
    from mcpkit.redis.backend import unavailable

    key = backend.keys.request_state_keys
    try:
        client = backend.address.sync_client(
            connect_timeout=backend.connect_timeout, command_timeout=backend.command_timeout
        )
    except Exception as exc:  # a cluster client reads the topology as it is made
        raise unavailable(exc, backend.url) from None
    try:
        client.set(key, generate_key().encode(), nx=True)
        stored = client.get(key)
    except Exception as exc:
        raise unavailable(exc, backend.url) from None
    finally:
        client.close()
    if not isinstance(stored, bytes):
        raise RuntimeError("the shared request-state keys vanished from Redis")
    return KeyRing.from_base64(stored.decode("ascii"))
