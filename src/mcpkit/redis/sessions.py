"""2025-era sessions on Redis: any replica serves any request of any session.

What a session *is* lives in the hash ``P:s:{sid}`` (negotiated version, client
capabilities and info, log level, resource subscriptions, the standalone stream's key, the
task owner key, and the session's owner: the principal that opened it, checked by every
replica on every request, see :mod:`mcpkit.owner`), expiring after ``session_ttl`` seconds
idle (``initialize_timeout`` until a request follows the initialize); each replica keeps a *view*
of it (a :class:`~mcpkit.session.ServerSession` rebuilt from the hash on the first request it
serves for the session, refreshed from it on every later one). A request runs on the
replica its POST reached.

Events (resumability): every SSE event of a session's streams is appended to a Redis
stream ``P:s:{sid}:ev:<stream>`` (entry id ``1-<seq>``, trimmed to ``stream_maxlen``)
*before* it is sent, with one round trip per batch of writes (through the backend's
:class:`~mcpkit.redis.lane.Lane` on one server). The replica running a request sends its
stream's events itself; they are published on the session's channel only once another
replica follows the stream (a client resumed it there: that replica listens on the
channel, then marks the stream ``f:<stream>`` = ``<n> <replica>`` in the session hash,
then reads the log; the stream's end drops the mark, and a stream already ended is not
marked). As on one server, a stream is sent on one connection, its newest: the producer
stops sending it on its own connections once its events' replies name another follower
(and claims the mark back when the client resumes on it again), and the follow publishes
``T<stream> <n> <replica>`` so the connections of earlier follows end.
The standalone stream's events are always published. A connection is a *tail* of one
stream: it sends events in sequence order, dropping what it already sent and re-reading
the stream when it sees a gap, so a client that resumes with ``Last-Event-ID`` on any
replica gets every event it missed, in order, once. A request stream ends with an end
marker entry. The standalone (GET) stream has many producers: its sequence numbers come
from the session hash (``HINCRBY`` in the same Lua script as the ``XADD``).

Routing: the ids of server-to-client requests are drawn from blocks (``2**32`` ids) that
each view reserves in the hash (``b:<n>`` = the replica), so the answer POSTed to any
replica goes to the replica whose view is waiting for it (its replica channel).
``notifications/cancelled`` is broadcast: the replica running the request cancels it.
Messages for the GET stream reach whichever replica holds it through the session channel.
A bus notification (list changed, resource updated) is sent by the replica holding the
session's GET stream only, so each session hears it once. The same notification sent to
one session alone (a list its own ``ctx.enable``/``ctx.disable`` changed) is no broadcast
(:data:`mcpkit.bus.announcing` tells them apart): the replica that sends it writes it to
the GET stream's log like any other message, and the holder delivers it.

Subscriptions: a change of the session's log level or resource subscriptions is stored in
the hash (versioned: ``sv``) and published on the session's channel before the request
that made it is answered; the GET stream's holder takes it from there (and re-reads the
hash once it starts listening, for a change made while its view loaded). On a Redis
Cluster that message and the bus events travel from different nodes, unordered, so the
change also carries ``sp``, a bus log position no newer than the change: a holder that had
accounted for bus events after ``sp`` (heard them, or read them from the bus log while
catching up, below) re-reads them from the log and sends the updates of the URIs just
subscribed (those it hears live up to that point are not sent twice); a catch-up that has
still to read the log does this itself, with the new subscriptions.

Broadcasts missed with no GET stream open: the session hash keeps ``bp``, the newest entry
of the bus log (:mod:`mcpkit.redis.bus`) accounted for (set when the session is created,
advanced with each bus notification written to its GET stream). When a GET stream of the
session opens (fresh or resumed, on any replica), that replica reads the bus log after
``bp``, keeps the list changes and the updates of subscribed resources, coalesced to one
per kind and URI (the newest), and sends them first. Its pub/sub messages of the same
broadcasts may reach it at any time (late under load, or relayed by another node of a
Redis Cluster): each carries its log entry id, and one no newer than what the catch-up
read is not sent again; those heard while the catch-up reads are held and merged into it
(one published after the read is sent with it, not lost). The log holds
``bus_log_maxlen`` entries: a session that missed more (entries trimmed after its ``bp``)
is told that every list the server announces changes of, and every resource it
subscribed to, changed. A GET stream opened on the same replica while the last one's
catch-up reads supersedes it: only the newest stream's catch-up sends.

Failures: a replica resuming a stream whose producer stopped heart-beating ends each of the
stream's requests with a JSON-RPC error (:data:`PRODUCER_DIED_MESSAGE`) and the end marker,
so the client's call fails instead of hanging; when Redis is unreachable, requests of
shared sessions fail with HTTP 503 and a JSON-RPC error.

Three modules hold it: :mod:`mcpkit.redis.stream_tail` (the Lua scripts and the tail of one
stream), :mod:`mcpkit.redis.session_transport` (a replica's view of a session) and
:mod:`mcpkit.redis.session_table` (the shared session table); this module names them.
"""

from __future__ import annotations

from mcpkit.redis.session_table import (
    BLOCK,
    PRODUCER_DIED_MESSAGE,
    SharedSessions,
    shared_sessions,
)
from mcpkit.redis.session_transport import RedisSessionTransport

__all__ = [
    "BLOCK",
    "PRODUCER_DIED_MESSAGE",
    "RedisSessionTransport",
    "SharedSessions",
    "shared_sessions",
]
