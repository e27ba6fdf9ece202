"""``mcp.server.streamable_http`` on mcpkit: the event store interface of the official SDK
(``EventStore``, ``EventMessage``, ``EventCallback``, ``StreamId``, ``EventId``) and the
transport's header names, so a server written with its own store imports and starts.

A store of this interface handed to a server (``event_store=``) turns resumability on, as
on the SDK: a client whose SSE stream closed comes back with ``Last-Event-ID`` and gets
what it missed. mcpkit keeps those events in its own memory store
(:class:`mcpkit.transports.http.MemoryEventStore`) and does not call the given store's
methods; the event ids on the wire are mcpkit's (docs/migration.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LAST_EVENT_ID_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "MCP_SESSION_ID_HEADER",
    "EventCallback",
    "EventId",
    "EventMessage",
    "EventStore",
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


def native_event_store(store: Any) -> Any:
    """The ``event_store`` option mcpkit's HTTP app takes for ``store``: an SDK-interface
    store turns on mcpkit's own memory store (True); anything else is passed on."""
    return True if isinstance(store, EventStore) else store
