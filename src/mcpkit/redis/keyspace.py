"""The Redis key layout of mcpkit's shared state (one place, so operators can read it).

``P`` is the prefix: ``RedisBackend(prefix=...)``, else ``mcpkit:<server name>:<tag>``
where the tag comes from the deployment secret (:func:`mcpkit.redis.keys.default_prefix`).

Every key of one session, or of one task, carries the same hash tag (``{...}``), so the
Lua scripts that touch several of them run on one Redis Cluster slot. Nothing is found by
scanning (no ``KEYS``/``SCAN``): every key is named from an id the caller holds. Every key
has a TTL (sessions: the idle timeout, refreshed on use; tasks: their ``ttl``; heartbeats:
a few seconds) and every stream is trimmed (``XADD ... MAXLEN ~``).
Keys without a tag (heartbeats, owner lists, the counters, the sealing keys, the bus log)
are only ever used by single-key commands, so nothing crosses slots on a cluster.

========================================  =====================================================
key                                       what
========================================  =====================================================
``P:s:{sid}``                             hash: a 2025-era session (version, client caps/info,
                                          log level, subscriptions, standalone stream, id blocks,
                                          the bus log position it has heard up to, the request
                                          streams followed on another replica: ``f:<stream>``)
``P:s:{sid}:streams``                     hash: stream key -> JSON (producer replica, request ids)
``P:s:{sid}:ev:<stream>``                 stream: the SSE events of one stream (entry ``1-<seq>``)
``P:alive:<replica>``                     string: a replica's heartbeat (expires when it dies)
``P:t:{tid}``                             hash: one task (2025-11-25 and the 2026 extension)
``P:t:{tid}:out``                         string: the task's outcome (JSON)
``P:t:{tid}:lease``                       string: the replica running the task (heartbeat)
``P:o:<owner>``                           sorted set: an owner's task ids by listing order
``P:po:{tid}``                            string: the downstream owner of a task a proxy
                                          passed through (:mod:`mcpkit.redis.task_owners`)
``P:tseq``                                counter: task listing order
``P:request-state-keys``                  string: the shared MRTR sealing keys, wrapped with
                                          the deployment secret (AES-256-GCM)
``P:bus:log``                             stream: the last ``bus_log_maxlen`` bus events (what a
                                          2025 session with no GET stream open catches up on)
``P:st:{<owner digest>}:<key>``           string: one ``ctx.state`` value of one owner (a
                                          SHA-256 prefix of the owner), with its expiry
========================================  =====================================================

Pub/sub channels: ``P:s:{sid}`` (events of a session's streams, for the replicas holding its
connections), ``P:r:<replica>`` (answers to a replica's server-to-client requests),
``P:all`` (cancellations and session ends) and ``P:bus`` (list changes, resource updates).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Keyspace"]


@dataclass(frozen=True, slots=True)
class Keyspace:
    """Names every key and channel under ``prefix``."""

    prefix: str = "mcpkit"

    def session(self, sid: str) -> str:
        return f"{self.prefix}:s:{{{sid}}}"

    def streams(self, sid: str) -> str:
        return f"{self.prefix}:s:{{{sid}}}:streams"

    def events(self, sid: str, stream: str) -> str:
        return f"{self.prefix}:s:{{{sid}}}:ev:{stream}"

    def session_channel(self, sid: str) -> str:
        return f"{self.prefix}:s:{{{sid}}}"

    def replica_channel(self, replica: str) -> str:
        return f"{self.prefix}:r:{replica}"

    @property
    def broadcast_channel(self) -> str:
        return f"{self.prefix}:all"

    @property
    def bus_channel(self) -> str:
        return f"{self.prefix}:bus"

    @property
    def bus_log(self) -> str:
        return f"{self.prefix}:bus:log"

    def alive(self, replica: str) -> str:
        return f"{self.prefix}:alive:{replica}"

    def task(self, tid: str) -> str:
        return f"{self.prefix}:t:{{{tid}}}"

    def task_outcome(self, tid: str) -> str:
        return f"{self.prefix}:t:{{{tid}}}:out"

    def task_lease(self, tid: str) -> str:
        return f"{self.prefix}:t:{{{tid}}}:lease"

    def owner_tasks(self, owner: str) -> str:
        return f"{self.prefix}:o:{owner}"

    def proxy_task_owner(self, tid: str) -> str:
        return f"{self.prefix}:po:{{{tid}}}"

    @property
    def task_seq(self) -> str:
        return f"{self.prefix}:tseq"

    def state(self, owner_digest: str, key: str) -> str:
        return f"{self.prefix}:st:{{{owner_digest}}}:{key}"

    @property
    def request_state_keys(self) -> str:
        return f"{self.prefix}:request-state-keys"
