"""Scale-out on Redis (the ``redis`` extra): N identical replicas behind an
ordinary load balancer, no sticky sessions.

``Server(..., store="redis://127.0.0.1:6379/0")`` (or ``store=RedisBackend(...)``) shares,
through one :class:`RedisBackend`: 2025-era sessions and their event log
(:mod:`mcpkit.redis.sessions`), routing between replicas, the notification bus
(:mod:`mcpkit.redis.bus`), tasks with leases (:mod:`mcpkit.redis.tasks`) and the MRTR
sealing keys (:mod:`mcpkit.redis.keys`), wrapped with the deployment's secret
(``MCPKIT_STORE_SECRET``), which also names the key prefix. The key layout is in
:mod:`mcpkit.redis.keyspace`; deployment and failure semantics in docs/deploy.md.
"""

from mcpkit.redis.backend import RedisBackend, StoreUnavailable, backend_from
from mcpkit.redis.bus import RedisBus
from mcpkit.redis.keys import StoreSecretMissing
from mcpkit.redis.keyspace import Keyspace
from mcpkit.redis.sessions import RedisSessionTransport, SharedSessions, shared_sessions
from mcpkit.redis.tasks import RedisTaskStore

__all__ = [
    "Keyspace",
    "RedisBackend",
    "RedisBus",
    "RedisSessionTransport",
    "RedisTaskStore",
    "SharedSessions",
    "StoreSecretMissing",
    "StoreUnavailable",
    "backend_from",
    "shared_sessions",
]
