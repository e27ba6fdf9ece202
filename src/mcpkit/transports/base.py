"""The one interface every transport implements.

A transport moves whole JSON-RPC messages between a :class:`~mcpkit.session.Session` and a
peer. Incoming bytes are framed by the transport and handed to the session with
``session.receive_bytes`` (or an already decoded value with ``session.receive``); outgoing
messages are given to :meth:`Transport.write`, which encodes and frames them. When the
connection ends the transport calls ``session.connection_lost``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from mcpkit.jsonrpc import MessageKind, RequestId

__all__ = ["DrainingSink", "MessageSink", "Transport", "TransportInfo", "TransportKind"]

TransportKind = Literal["stdio", "memory", "http", "legacy-sse", "custom"]


@dataclass(frozen=True, slots=True)
class TransportInfo:
    """What a session may know about the transport under it, instead of probing attributes.

    ``kind`` names the transport; ``session_id`` is the transport-level session id
    (Streamable HTTP's ``Mcp-Session-Id``; None on stdio, in memory and stateless HTTP);
    ``closable_streams`` is true when :meth:`Transport.close_response_stream` can end a
    request's response stream early for SSE polling.
    """

    kind: TransportKind = "custom"
    session_id: str | None = None
    closable_streams: bool = False


class MessageSink(Protocol):
    """What a transport delivers to (the session)."""

    def receive_bytes(self, data: bytes) -> None: ...

    def receive(self, message: Any) -> None: ...

    def receive_classified(self, message: Any, kind: MessageKind, why: str | None = None) -> None:
        """A message the transport already classified (see :func:`mcpkit.jsonrpc.classify`)."""
        ...

    def connection_lost(self, exc: BaseException | None) -> None: ...


@runtime_checkable
class DrainingSink(MessageSink, Protocol):
    """A sink that can answer what it was asked after the peer's sending half closed (a
    :class:`~mcpkit.session.Session`); a transport whose input ends while its output stays
    open calls :meth:`end_of_input` instead of ``connection_lost``."""

    def end_of_input(self, drain_timeout: float) -> None: ...


class Transport:
    """Base class: subclasses override :meth:`start`, :meth:`write` and :meth:`close`.

    ``write`` is synchronous and buffers; ``writing_paused`` turns true while the peer is slow
    and :meth:`drain` waits until it catches up (the session awaits it only then).
    ``pause_reading``/``resume_reading`` let the session apply backpressure when too many
    requests are in flight.
    """

    writing_paused: bool = False
    #: What this transport is (subclasses set their own; see :class:`TransportInfo`).
    info: TransportInfo = TransportInfo()

    async def start(self, sink: MessageSink) -> None:
        """Begin delivering incoming messages to ``sink``; returns once connected."""
        raise NotImplementedError

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        """Send one message (a dict, or a list for a batch).

        ``related_request_id`` names the incoming request this message belongs to (its
        response, or a progress/log notification or nested request sent while handling it);
        transports with several streams (Streamable HTTP) route by it, others ignore it.
        """
        raise NotImplementedError

    async def drain(self) -> None:
        """Wait until buffered writes are below the high-water mark."""

    def pause_reading(self) -> None:
        """Stop delivering incoming messages until :meth:`resume_reading`."""

    def resume_reading(self) -> None:
        """Deliver incoming messages again."""

    def close_response_stream(self, request_id: RequestId) -> bool:
        """End the stream carrying ``request_id``'s response without ending the request
        (SSE polling: the client reconnects with ``Last-Event-ID``). False when there is
        nothing this transport can close."""
        return False

    async def close(self) -> None:
        """Close the connection; the sink's ``connection_lost`` is called once."""
        raise NotImplementedError
