"""Event stores: where SSE events are written before they are sent, for resumability.

The Streamable HTTP server numbers the events of each stream (``seq`` 1, 2, ...; the priming
event is ``seq`` 0) and writes every event to the store *before* it is sent, so a client whose
connection dropped can come back with ``Last-Event-ID`` and get exactly what it missed, from
that stream only.

Stores are called synchronously on the event loop and must be quick; both shipped ones are.
:class:`MemoryEventStore` is the server's default (sessions themselves live in process
memory, so events cannot usefully outlive the process); :class:`SQLiteEventStore` is the
embedded durable store, for keeping retained events off the heap or outliving a restart.
Retention is bounded: each session keeps at most ``max_events_per_session`` events (oldest
dropped first); the memory store also bounds bytes per session and in total, and the SQLite
store purges events older than ``ttl`` seconds.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict, deque

__all__ = ["EventStore", "MemoryEventStore", "SQLiteEventStore"]


_Entry = tuple[str, int, bytes | None] | str


class EventStore(ABC):
    """Storage for the SSE events of every stream of every session."""

    @abstractmethod
    def store_event(self, session_id: str, stream: str, seq: int, data: bytes | None) -> None:
        """Record event ``seq`` of ``stream`` (``data`` None for a priming event)."""

    @abstractmethod
    def replay(self, session_id: str, stream: str, after: int) -> list[tuple[int, bytes]] | None:
        """Events of that stream with ``seq > after``, oldest first (priming events excluded).

        None when the store knows no such stream of that session (never existed, another
        session's, or expired).
        """

    @abstractmethod
    def delete_session(self, session_id: str) -> None:
        """Forget every event of a session (it ended)."""

    def count(self, session_id: str | None = None) -> int:
        """How many events are held (for one session, or in total): for tests and metrics."""
        raise NotImplementedError

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release resources."""

    #: True for a store that names its events itself (:meth:`store_named`,
    #: :meth:`replay_named`): the ids on the wire are the store's, not ``<stream>-<seq>``.
    names_events = False

    def store_named(self, session_id: str, stream: str, data: bytes | None) -> str:
        """Record an event of ``stream`` (``data`` None for a priming event); its id."""
        raise NotImplementedError

    def replay_named(
        self, session_id: str, last_event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        """The stream of ``last_event_id`` and its events after it, oldest first, each with
        its id (None: the id is unknown)."""
        raise NotImplementedError


class MemoryEventStore(EventStore):
    """Events in process memory, bounded per session (events and bytes), in the number of
    sessions and in total bytes.

    The default of 4,096 events covers what a reader dropped for being slow can still have
    missed (an SSE connection's buffer, what the sockets hold) for messages of 1 KB.
    Past a bound the oldest events go first; past ``max_bytes`` they go from the session
    written to least recently (a busy session never starves a quiet one of its last events
    for long, and a flood from one session cannot grow memory without bound).
    """

    def __init__(
        self,
        max_events_per_session: int = 4096,
        max_sessions: int = 10_000,
        *,
        max_bytes_per_session: int = 16 * 1024 * 1024,
        max_bytes: int = 256 * 1024 * 1024,
    ) -> None:
        self.max_events_per_session = max_events_per_session
        self.max_sessions = max_sessions
        self.max_bytes_per_session = max_bytes_per_session
        self.max_bytes = max_bytes
        # session -> its events, oldest first: (stream, seq, data), or for a priming event
        # just the stream key (saves a tuple on half the events of a POST-heavy session);
        # sessions least recently written first
        self._sessions: OrderedDict[str, deque[_Entry]] = OrderedDict()
        self._sizes: dict[str, int] = {}
        #: Bytes of event data held, over all sessions.
        self.size = 0

    def store_event(self, session_id: str, stream: str, seq: int, data: bytes | None) -> None:
        sessions = self._sessions
        events = sessions.get(session_id)
        if events is None:
            if len(sessions) >= self.max_sessions:
                self.delete_session(next(iter(sessions)))
            events = sessions[session_id] = deque()
            self._sizes[session_id] = 0
        else:
            sessions.move_to_end(session_id)
        if data is None:
            if len(events) >= self.max_events_per_session:
                self._drop_oldest(session_id, events)
            events.append(stream if seq == 0 else (stream, seq, None))
            return
        # orjson hands out bytes with a 4 KiB allocation behind even a short message:
        # keep a right-sized copy, or every retained event costs 4 KiB.
        data = bytes(memoryview(data))
        size = len(data)
        sizes = self._sizes
        held = sizes[session_id] + size
        if len(events) >= self.max_events_per_session:
            oldest = events.popleft()
            old = None if isinstance(oldest, str) else oldest[2]
            if old:
                held -= len(old)
                self.size -= len(old)
        events.append((stream, seq, data))
        sizes[session_id] = held
        self.size += size
        if held > self.max_bytes_per_session:
            while sizes[session_id] > self.max_bytes_per_session and len(events) > 1:
                self._drop_oldest(session_id, events)
        if self.size > self.max_bytes:
            self._shrink(session_id)

    def _drop_oldest(self, session_id: str, events: deque[_Entry]) -> None:
        oldest = events.popleft()
        data = None if isinstance(oldest, str) else oldest[2]
        if data:
            self._sizes[session_id] -= len(data)
            self.size -= len(data)

    def _shrink(self, current: str) -> None:
        """Over ``max_bytes``: drop the oldest events of the least recently written sessions
        (the newest event of the session being written stays); emptied sessions go."""
        emptied: list[str] = []
        for session_id, events in self._sessions.items():
            keep = 1 if session_id == current else 0
            while self.size > self.max_bytes and len(events) > keep:
                self._drop_oldest(session_id, events)
            if not events:
                emptied.append(session_id)
            if self.size <= self.max_bytes:
                break
        for session_id in emptied:
            self.delete_session(session_id)

    def replay(self, session_id: str, stream: str, after: int) -> list[tuple[int, bytes]] | None:
        events = self._sessions.get(session_id)
        if events is None:
            return None
        found = False
        out: list[tuple[int, bytes]] = []
        for entry in events:
            if isinstance(entry, str):
                if entry == stream:
                    found = True
                continue
            s, seq, data = entry
            if s == stream:
                found = True
                if seq > after and data is not None:
                    out.append((seq, data))
        return out if found else None

    def delete_session(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        self.size -= self._sizes.pop(session_id, 0)

    def count(self, session_id: str | None = None) -> int:
        if session_id is not None:
            return len(self._sessions.get(session_id, ()))
        return sum(len(e) for e in self._sessions.values())


class SQLiteEventStore(EventStore):
    """Events in an SQLite database (stdlib ``sqlite3``): durable, embedded, no server.

    ``path`` is a file (or ``":memory:"``). WAL journaling with ``synchronous=NORMAL`` keeps
    each insert to a few microseconds. Old events are pruned by count per session and by age.
    """

    def __init__(
        self,
        path: str = "mcpkit-events.sqlite3",
        *,
        max_events_per_session: int = 1024,
        ttl: float = 3600.0,
    ) -> None:
        self.max_events_per_session = max_events_per_session
        self.ttl = ttl
        self._lock = threading.Lock()
        import sqlite3  # only when used: it costs a few MB of RSS

        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS mcp_events ("
            " rowid INTEGER PRIMARY KEY, session TEXT NOT NULL, stream TEXT NOT NULL,"
            " seq INTEGER NOT NULL, data BLOB, created REAL NOT NULL)"
        )
        self._db.execute(
            "CREATE INDEX IF NOT EXISTS mcp_events_stream ON mcp_events (session, stream, seq)"
        )
        self._counts: dict[str, int] = {}
        self._inserts = 0

    def store_event(self, session_id: str, stream: str, seq: int, data: bytes | None) -> None:
        now = time.time()
        with self._lock:
            db = self._db
            db.execute(
                "INSERT INTO mcp_events (session, stream, seq, data, created) VALUES (?,?,?,?,?)",
                (session_id, stream, seq, data, now),
            )
            n = self._counts.get(session_id, 0) + 1
            if n > self.max_events_per_session + self.max_events_per_session // 4:
                db.execute(
                    "DELETE FROM mcp_events WHERE session = ? AND rowid <= (SELECT rowid FROM"
                    " mcp_events WHERE session = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                    (session_id, session_id, self.max_events_per_session),
                )
                n = self.max_events_per_session
            self._counts[session_id] = n
            self._inserts += 1
            if self._inserts % 1000 == 0:
                db.execute("DELETE FROM mcp_events WHERE created < ?", (now - self.ttl,))

    def replay(self, session_id: str, stream: str, after: int) -> list[tuple[int, bytes]] | None:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, data FROM mcp_events WHERE session = ? AND stream = ? ORDER BY seq",
                (session_id, stream),
            ).fetchall()
        if not rows:
            return None
        return [(seq, bytes(data)) for seq, data in rows if seq > after and data is not None]

    def delete_session(self, session_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM mcp_events WHERE session = ?", (session_id,))
            self._counts.pop(session_id, None)

    def count(self, session_id: str | None = None) -> int:
        with self._lock:
            if session_id is None:
                row = self._db.execute("SELECT COUNT(*) FROM mcp_events").fetchone()
            else:
                row = self._db.execute(
                    "SELECT COUNT(*) FROM mcp_events WHERE session = ?", (session_id,)
                ).fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
