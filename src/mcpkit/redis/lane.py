"""The hot path's connection to one Redis server: one multiplexed connection, replies
parsed by hiredis, matched to their commands in order.

A 2025 session on Redis makes a round trip or two per request (its TOUCH; its stream's
registration, events and end). Through ``redis.asyncio``'s pool and pipeline a round trip
costs about five times the CPU of the round trip itself (taking and returning a pooled
connection, retries, timeouts, per-command callbacks); a :class:`Lane` writes the packed
commands of a :class:`~mcpkit.redis.batch.Batch` on one connection shared by every
caller and resolves each caller's future when its replies are in (Redis answers in
order), so concurrent callers are pipelined on the wire for free.

Only for one server reached by ``redis://`` or ``unix://`` without TLS or URL options
(:meth:`Lane.for_url` is None otherwise, and the backend runs batches through the
``redis.asyncio`` pipeline instead: a Redis Cluster, ``rediss://``). Failures: a connect
longer than ``connect_timeout`` fails the batch with ``redis.exceptions.ConnectionError``;
a batch still unanswered ``command_timeout`` after it was sent (noticed within half of it
more) with ``redis.exceptions.TimeoutError``. Either drops the connection (every batch
waiting on it fails alike); the next batch connects again.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Final

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["Lane"]

#: What parse_url may return for a URL the lane serves (anything else: TLS or options).
_PLAIN: Final = frozenset({"host", "port", "db", "username", "password", "path"})


class _Wire(asyncio.Protocol):
    """One connection: replies go, in order, to the batches waiting for them. A batch
    unanswered ``timeout`` seconds after it was sent fails the connection (checked every
    half of it: one timer per connection, none per batch)."""

    def __init__(self, timeout: float) -> None:
        self.reader = hiredis.Reader(replyError=ResponseError)
        #: (future, replies expected, replies so far, when sent) per batch, oldest first.
        self.waiting: collections.deque[tuple[asyncio.Future[list[Any]], int, list[Any], float]] = (
            collections.deque()
        )
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        waiting = self.waiting
        while True:
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as exc:
                self._fail(RedisConnectionError(f"Redis protocol error: {exc}"))
                return
            if reply is False:
                return
            if not waiting:  # nothing asked for it: the stream is out of step
                self._fail(RedisConnectionError("Unexpected reply from Redis"))
                return
            future, count, replies, _ = waiting[0]
            replies.append(reply)
            if len(replies) == count:
                waiting.popleft()
                if not future.done():
                    future.set_result(replies)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"Connection to Redis lost{f': {exc}' if exc else ''}"))

    def _fail(self, exc: Exception) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiting, self.waiting = self.waiting, collections.deque()
        for future, _, _, _ in waiting:
            if not future.done():
                future.set_exception(exc)
        if self.transport is not None:
            self.transport.abort()

    def _check(self) -> None:
        self._timer = None
        if not self.waiting or self.closed:
            return
        if self.waiting[0][3] + self.timeout <= self._loop.time():
            self._fail(RedisTimeoutError(f"Redis did not answer within {self.timeout} s"))
            return
        self._timer = self._loop.call_later(self.timeout / 2, self._check)

    def send(self, commands: list[tuple[Any, ...]]) -> asyncio.Future[list[Any]]:
        loop = self._loop
        future: asyncio.Future[list[Any]] = loop.create_future()
        if self.closed or self.transport is None or self.transport.is_closing():
            # Lost after the caller got it (between connect and send): nothing would
            # ever answer, and no timer runs on a closed connection.
            future.set_exception(RedisConnectionError("Connection to Redis lost"))
            return future
        pack = hiredis.pack_command
        self.transport.write(b"".join([pack(command) for command in commands]))
        self.waiting.append((future, len(commands), [], loop.time()))
        if self._timer is None:
            self._timer = loop.call_later(self.timeout / 2, self._check)
        return future


class Lane:
    """One multiplexed connection to one Redis server (see the module docstring)."""

    def __init__(
        self, options: dict[str, Any], *, connect_timeout: float, command_timeout: float
    ) -> None:
        self.options = options
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self._wire: _Wire | None = None
        self._connecting: asyncio.Task[_Wire] | None = None

    @classmethod
    def for_url(cls, url: str, *, connect_timeout: float, command_timeout: float) -> Lane | None:
        """A lane to the server of ``url``; None when it needs what the lane does not do
        (TLS, URL options)."""
        try:
            options: dict[str, Any] = dict(parse_url(url))
        except ValueError:
            return None
        if not set(options) <= _PLAIN:
            if set(options) - _PLAIN != {"connection_class"} or "path" not in options:
                return None  # TLS, or options in the URL
            options = {k: v for k, v in options.items() if k != "connection_class"}
        return cls(options, connect_timeout=connect_timeout, command_timeout=command_timeout)

    async def run(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """The replies to ``commands`` (error replies as ``ResponseError`` values, in
        place); raises ``redis.exceptions.ConnectionError``/``TimeoutError`` when Redis
        cannot be reached or does not answer (see the module docstring)."""
        if not commands:  # nothing to match replies to: an entry would swallow the next
            return []
        wire = self._wire
        if wire is None or wire.closed:
            wire = await self._connect()
        return await wire.send(commands)

    async def _connect(self) -> _Wire:
        """The connection being made, shared by every caller that needs one meanwhile; made
        by a task of its own, so a caller cancelled while waiting cancels only itself."""
        connecting = self._connecting
        if connecting is None:
            connecting = self._connecting = asyncio.get_running_loop().create_task(
                self._open_checked(), name="mcpkit-redis-lane-connect"
            )
            connecting.add_done_callback(self._opened)
        try:
            return await asyncio.shield(connecting)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if connecting.cancelled() and (task is None or not task.cancelling()):
                # The connect was given up (the lane closed), not this caller.
                raise RedisConnectionError("Redis connection closed while connecting") from None
            raise

    def _opened(self, connecting: asyncio.Task[_Wire]) -> None:
        if self._connecting is connecting:
            self._connecting = None
        if not connecting.cancelled() and connecting.exception() is None:
            self._wire = connecting.result()

    async def _open_checked(self) -> _Wire:
        try:
            return await self._open()
        except (RedisConnectionError, asyncio.CancelledError):
            raise
        except Exception as exc:
            raise RedisConnectionError(f"Cannot connect to Redis: {exc!r}") from None

    async def _open(self) -> _Wire:
        loop = asyncio.get_running_loop()
        options = self.options

        def made() -> _Wire:
            return _Wire(self.command_timeout)

        try:
            async with asyncio.timeout(self.connect_timeout):
                if "path" in options:
                    _, wire = await loop.create_unix_connection(made, options["path"])
                else:
                    host = options.get("host", "localhost")
                    _, wire = await loop.create_connection(
                        made, host, int(options.get("port", 6379))
                    )
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"Cannot connect to Redis: {exc!r}") from None
        hello: list[tuple[Any, ...]] = []
        password = options.get("password")
        if password is not None:
            username = options.get("username")
            hello.append(("AUTH", username, password) if username else ("AUTH", password))
        if options.get("db"):
            hello.append(("SELECT", int(options["db"])))
        if hello:
            try:
                async with asyncio.timeout(self.connect_timeout):
                    replies = await wire.send(hello)
            except TimeoutError:
                wire._fail(RedisTimeoutError("Redis did not answer AUTH/SELECT"))
                raise RedisConnectionError("Redis did not answer AUTH/SELECT in time") from None
            except BaseException:  # cancelled (the loop is ending) or lost: no socket left open
                wire._fail(RedisConnectionError("Connection to Redis not completed"))
                raise
            for reply in replies:
                if isinstance(reply, Exception):
                    wire._fail(RedisConnectionError(str(reply)))
                    raise RedisConnectionError(f"Redis refused the connection: {reply}")
        return wire

    def close(self) -> None:
        """Drop the connection (a later batch connects again)."""
        connecting, self._connecting = self._connecting, None
        if connecting is not None:
            connecting.cancel()
        wire, self._wire = self._wire, None
        if wire is not None and not wire.closed:
            wire.closed = True
            if wire.transport is not None:
                wire.transport.close()
