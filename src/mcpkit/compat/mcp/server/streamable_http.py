"""``mcp.server.streamable_http`` on mcpkit: the event store interface of the official SDK
(``EventStore``, ``EventMessage``, ``EventCallback``, ``StreamId``, ``EventId``) and the
transport's header names, so a server written with its own store imports and starts.

A store of this interface handed to a server (``event_store=``) turns resumability on, as
on the SDK: every SSE event is written through the store's ``store_event`` before it is
sent, under the id the store gives it, and a client whose SSE stream closed comes back with
``Last-Event-ID`` and gets what it missed from ``replay_events_after``
(:class:`SdkEventStore` adapts it to mcpkit's HTTP transport). The store's coroutines run
on one event loop of their own, in a thread, while the server waits for each (docs/migration.md).
"""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import TypeAdapter

from mcpkit.transports.http.event_store import EventStore as NativeEventStore
from mcpkit.types import JSONRPCMessage

_T = TypeVar("_T")

__all__ = [
    "LAST_EVENT_ID_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "MCP_SESSION_ID_HEADER",
    "EventCallback",
    "EventId",
    "EventMessage",
    "EventStore",
    "SdkEventStore",
    "StreamId",
    "native_event_store",
]

MCP_SESSION_ID_HEADER = "mcp-session-id"
MCP_PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
LAST_EVENT_ID_HEADER = "last-event-id"

StreamId = str
EventId = str


@dataclass
class EventMessage:
    """A JSON-RPC message with the id of the event that carried it."""

    message: Any
    event_id: str | None = None


EventCallback = Callable[[EventMessage], Awaitable[None]]


class EventStore(ABC):
    """The official SDK's interface of a store of SSE events, for resumability."""

    @abstractmethod
    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        """Store an event of ``stream_id`` (``message`` None for a priming event); its id."""

    @abstractmethod
    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events after ``last_event_id`` of its stream; that stream's id."""


_MESSAGE: TypeAdapter[Any] = TypeAdapter(JSONRPCMessage)


class SdkEventStore(NativeEventStore):
    """mcpkit's event store interface over a store of the official SDK's: events stored and
    replayed through it, under the ids it gives (the stream ids are mcpkit's stream keys,
    unique to their session)."""

    names_events = True

    #: Seconds the server waits for one of the store's calls (TimeoutError past them).
    timeout = 30.0

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run one of the store's coroutines to its end on the store's own loop."""
        with self._lock:
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="mcp-event-store", daemon=True
                ).start()
        return asyncio.run_coroutine_threadsafe(coro, loop).result(self.timeout)

    def store_named(self, session_id: str, stream: str, data: bytes | None) -> str:
        message = None if data is None else _MESSAGE.validate_json(data)
        return str(self._run(self.store.store_event(stream, message)))

    def replay_named(
        self, session_id: str, last_event_id: str
    ) -> tuple[str, list[tuple[str, bytes]]] | None:
        events: list[tuple[str, bytes]] = []

        async def collect(event: EventMessage) -> None:
            message = event.message
            if message is None:
                return
            if isinstance(message, bytes | str):
                data = message.encode() if isinstance(message, str) else message
            else:
                data = _MESSAGE.dump_json(message, by_alias=True, exclude_none=True)
            events.append((str(event.event_id), data))

        stream = self._run(self.store.replay_events_after(last_event_id, collect))
        return None if stream is None else (str(stream), events)

    def store_event(self, session_id: str, stream: str, seq: int, data: bytes | None) -> None:
        self.store_named(session_id, stream, data)

    def replay(self, session_id: str, stream: str, after: int) -> list[tuple[int, bytes]] | None:
        return None  # the store names its events: replay_named

    def delete_session(self, session_id: str) -> None:
        """The SDK's interface has no way to forget a session's events: its store's own."""

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)


def native_event_store(store: Any) -> Any:
    """The ``event_store`` option mcpkit's HTTP app takes for ``store``: an SDK-interface
    store adapted (:class:`SdkEventStore`); anything else is passed on."""
    return SdkEventStore(store) if isinstance(store, EventStore) else store
