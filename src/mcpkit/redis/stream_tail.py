"""The event log of shared sessions: the Lua scripts of the session hash and event streams,
and :class:`Tail`, one SSE connection following one Redis stream in sequence order.

The design (keys, sequence numbers, the end marker, the bus position) is described in
:mod:`mcpkit.redis.sessions`; this module holds what both the session transport
(:mod:`mcpkit.redis.session_transport`) and the session table
(:mod:`mcpkit.redis.session_table`) run against Redis.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from mcpkit.redis.backend import StoreUnavailable
from mcpkit.transports.http import sse

if TYPE_CHECKING:
    from mcpkit.redis.session_transport import RedisSessionTransport
    from mcpkit.transports.http.session_transport import SSEConnection

__all__ = [
    "ADVANCE",
    "END",
    "EVENT",
    "FOLLOW",
    "LOAD",
    "OPEN",
    "SETTLE",
    "STANDALONE",
    "STATE",
    "TOUCH",
    "Tail",
    "as_text",
    "op_result",
]

logger = logging.getLogger("mcpkit.redis")

#: KEYS: session hash, streams hash. ARGV: replica, ttl ms, the asking owner ('' for none).
#: Reserves an id block; false (nothing touched) for an unknown or another owner's session.
LOAD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if (redis.call('HGET', KEYS[1], 'own') or '') ~= ARGV[3] then return false end
local b = redis.call('HINCRBY', KEYS[1], 'blk', 1)
redis.call('HSET', KEYS[1], 'b:' .. b, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {b, redis.call('HGETALL', KEYS[1])}
"""
#: KEYS: session hash, streams hash. ARGV: ttl ms. -> {lvl, subs, sv, sp} or false (gone).
TOUCH = """
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return redis.call('HMGET', KEYS[1], 'lvl', 'subs', 'sv', 'sp')
"""
#: Lua: whether stream id ``a`` is newer than ``b`` (false/nil: none yet).
_NEWER = """
local function newer(a, b)
  if not b then return true end
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if not bm then return true end
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
"""
#: KEYS: session hash. ARGV: log level, subscriptions (JSON), the session's channel, the bus
#: position the writer had heard ('' none). The new state is stored with a version and
#: published with it (``S<version>:<position> <level> <subscriptions>``) from the session's
#: own node, so a view applies only what is newer than what it has (messages relayed by other
#: cluster nodes may arrive out of order). The position (the newer of the writer's and the
#: session's ``bp``; every event after it may have been published after the change) lets a
#: view that heard an update of a URI newly subscribed before it heard the subscription
#: find it again (``sp``: see ``RedisSessionTransport.apply_state``). False when the session
#: is gone.
STATE = (
    _NEWER
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local v = redis.call('HINCRBY', KEYS[1], 'sv', 1)
local p = redis.call('HGET', KEYS[1], 'bp') or ''
if ARGV[4] ~= '' and newer(ARGV[4], p) then p = ARGV[4] end
redis.call('HSET', KEYS[1], 'lvl', ARGV[1], 'subs', ARGV[2], 'sp', p)
redis.call('PUBLISH', ARGV[3], 'S' .. v .. ':' .. p .. ' ' .. ARGV[1] .. ' ' .. ARGV[2])
return v
"""
)
#: KEYS: session hash, streams hash, events. ARGV: maxlen, ttl ms, data, channel, key,
#: bus position ('' none). False when the session is gone.
STANDALONE = (
    _NEWER
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[6] ~= '' and newer(ARGV[6], redis.call('HGET', KEYS[1], 'bp')) then
  redis.call('HSET', KEYS[1], 'bp', ARGV[6])
end
local seq = redis.call('HINCRBY', KEYS[1], 'sseq', 1)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '1-' .. seq, 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PUBLISH', ARGV[4], 'E' .. ARGV[5] .. ' ' .. seq .. ' ' .. ARGV[3])
return seq
"""
)
#: KEYS: session hash. ARGV: bus position. Advances ``bp`` (never back).
ADVANCE = (
    _NEWER
    + """
if redis.call('EXISTS', KEYS[1]) == 1 and newer(ARGV[1], redis.call('HGET', KEYS[1], 'bp')) then
  redis.call('HSET', KEYS[1], 'bp', ARGV[1])
end
return 1
"""
)
#: KEYS: streams hash. ARGV: stream key, registration, ttl ms. Registers a request stream.
OPEN = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])
"""
#: KEYS: events, session hash. ARGV: maxlen, ttl ms, seq, data, channel, stream key. Logs
#: one event of a request stream, and publishes it when a replica follows the stream
#: (``f:<stream key>`` in the session hash, see ``FOLLOW``); the reply is the mark
#: (``<n> <replica>``; '' for none: the producer delivers the event itself, as it does when
#: it is the follower), or the ``XADD``'s error reply when the log refused the event (which is
#: published all the same).
EVENT = """
local r = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '1-' .. ARGV[3], 'd', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local f = redis.call('HGET', KEYS[2], 'f:' .. ARGV[6])
if f then
  redis.call('PUBLISH', ARGV[5], 'E' .. ARGV[6] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4])
end
if type(r) == 'table' and r['err'] then return r end
return f or ''
"""
#: KEYS: events, streams hash, session hash. ARGV: maxlen, ttl ms, seq, stream key,
#: registration, channel. Logs a request stream's end marker, marks its registration ended
#: and publishes the end when another replica follows the stream (as ``EVENT``), then
#: drops the follow mark (nothing more of the stream is published).
END = """
local r = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '1-' .. ARGV[3], 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
if redis.call('HEXISTS', KEYS[3], 'f:' .. ARGV[4]) == 1 then
  redis.call('PUBLISH', ARGV[6], 'X' .. ARGV[4] .. ' ' .. ARGV[3])
  redis.call('HDEL', KEYS[3], 'f:' .. ARGV[4])
end
return r
"""
#: KEYS: session hash, streams hash. ARGV: stream key, replica id, the session's channel,
#: '1' to claim only a mark another replica holds. Marks a request stream followed by
#: replica ``ARGV[2]`` (``<n> <replica>``, n counting the stream's follows: its producer then
#: publishes its events, and stops sending them on its own connections unless it is that
#: replica) and publishes ``T<key> <n> <replica>``: the stream moved to that replica's
#: newest connection, and the connections of earlier follows end. Called once the replica
#: listens on the session's channel and before it reads the log, so no event falls between
#: the two. False (nothing written) when the session is gone; 0 (no mark: its end is in the
#: log, or nobody else held one to claim) or n.
FOLLOW = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local reg = redis.call('HGET', KEYS[2], ARGV[1])
if reg and cjson.decode(reg)['end'] then return 0 end
local f = redis.call('HGET', KEYS[1], 'f:' .. ARGV[1])
local n, holder = 0, nil
if f then
  local count
  count, holder = string.match(f, '^(%d+) (.*)$')
  n = tonumber(count) or 0
end
if ARGV[4] == '1' and (not f or holder == ARGV[2]) then return 0 end
n = n + 1
redis.call('HSET', KEYS[1], 'f:' .. ARGV[1], n .. ' ' .. ARGV[2])
redis.call('PUBLISH', ARGV[3], 'T' .. ARGV[1] .. ' ' .. n .. ' ' .. ARGV[2])
return n
"""
#: KEYS: streams hash, events, session hash. ARGV: key, maxlen, ttl ms, channel, error
#: responses... Ends a stream whose producer died (its follow mark dropped, as ``END``).
SETTLE = """
local reg = redis.call('HGET', KEYS[1], ARGV[1])
if not reg then return 0 end
local info = cjson.decode(reg)
if info['end'] then return 0 end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local seq = 0
if #last > 0 then seq = tonumber(string.match(last[1][1], '-(%d+)$')) end
for i = 5, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '1-' .. seq, 'd', ARGV[i])
  redis.call('PUBLISH', ARGV[4], 'E' .. ARGV[1] .. ' ' .. seq .. ' ' .. ARGV[i])
end
seq = seq + 1
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '1-' .. seq, 'e', '1')
redis.call('PUBLISH', ARGV[4], 'X' .. ARGV[1] .. ' ' .. seq)
info['end'] = 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(info))
redis.call('HDEL', KEYS[3], 'f:' .. ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""


def as_text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def op_result(replies: list[Any]) -> Any:
    """An op's result: its first command's reply, or the first failure among them."""
    for reply in replies:
        if isinstance(reply, BaseException):
            return reply
    return replies[0] if replies else None


class Tail:
    """One SSE connection following one stream from ``last`` on, in sequence order."""

    __slots__ = (
        "conn",
        "end_seen",
        "epoch",
        "filling",
        "follow",
        "key",
        "last",
        "refill",
        "transport",
        "watch",
    )

    def __init__(
        self, transport: RedisSessionTransport, key: str, conn: SSEConnection, last: int
    ) -> None:
        self.transport = transport
        self.key = key
        self.conn = conn
        self.last = last
        self.filling = False
        self.refill = False
        self.end_seen = False
        self.watch: asyncio.Task[None] | None = None
        #: The view's resumption count when this connection started (see
        #: ``RedisSessionTransport._taken_over``).
        self.epoch = 0
        #: The number of the follow that made this connection the stream's (0: none yet).
        self.follow = 0

    @property
    def live(self) -> bool:
        return not (self.conn.aborted or self.conn.finished)

    def offer(self, seq: int, data: bytes | None) -> None:
        """Event ``seq`` (``data`` None: the end marker) of this stream."""
        if seq <= self.last or not self.live:
            return
        if seq == self.last + 1 and not self.filling:
            self.last = seq
            if data is None:
                self.end_seen = True
                self.conn.finish()
            else:
                # A live event: a reader too slow for it is dropped (it resumes from the
                # log), so a slow client never grows this process's memory.
                if self.conn.push(sse.encode_event(data, f"{self.key}-{seq}")):
                    self.transport.delivered(self.key, seq)
            return
        self.fill()

    def fill(self) -> None:
        """Re-read the stream after :attr:`last` (a gap, a start, a reconnect)."""
        if self.filling:
            self.refill = True
            return
        self.filling = True
        self.transport.spawn(self._fill())

    async def _fill(self) -> None:
        t = self.transport
        try:
            while True:
                self.refill = False
                entries = await t.shared.read_events(t.session_id or "", self.key, self.last)
                for entry_id, fields in entries:
                    seq = int(as_text(entry_id).rsplit("-", 1)[1])
                    if seq <= self.last or not self.live:
                        continue
                    self.last = seq
                    if b"e" in fields:
                        self.end_seen = True
                        self.conn.finish()
                        return
                    self.conn.push(sse.encode_event(fields[b"d"], f"{self.key}-{seq}"), replay=True)
                    t.delivered(self.key, seq)
                if not self.refill:
                    return
        except StoreUnavailable as exc:
            logger.warning("Cannot read the event log (%s): ending the stream (it may resume)", exc)
            self.conn.abort()
        finally:
            self.filling = False
