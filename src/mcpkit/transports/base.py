"""The one interface every transport implements.

A transport moves whole JSON-RPC messages between a :class:`~mcpkit.session.Session` and a
peer. Incoming bytes are framed by the transport and handed to the session with
``session.receive_bytes`` (or an already decoded value with ``session.receive``); outgoing
messages are given to :meth:`Transport.write`, which encodes and frames them. When the
connection ends the transport calls ``session.connection_lost``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcpkit.jsonrpc import RequestId

__all__ = ["MessageSink", "Transport"]


class MessageSink(Protocol):
    """What a transport delivers to (the session)."""

    def receive_bytes(self, data: bytes) -> None: ...

    def receive(self, message: Any) -> None: ...

    def connection_lost(self, exc: BaseException | None) -> None: ...


class Transport:
    """Base class: subclasses override :meth:`start`, :meth:`write` and :meth:`close`.

    ``write`` is synchronous and buffers; ``writing_paused`` turns true while the peer is slow
    and :meth:`drain` waits until it catches up (the session awaits it only then).
    ``pause_reading``/``resume_reading`` let the session apply backpressure when too many
    requests are in flight.
    """

    writing_paused: bool = False

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

    async def close(self) -> None:
        """Close the connection; the sink's ``connection_lost`` is called once."""
        raise NotImplementedError
