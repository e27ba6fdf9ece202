"""``mcp.shared.jsonrpc_dispatcher`` on mcpkit: ``JSONRPCDispatcher`` as a transport entry
builds it (2.x), around the streams of ``stdio_server()`` (or ``connect_sse()``), for
:func:`mcp.server.runner.serve_connection`, which serves them with mcpkit's engine.

The dispatcher's own loop (``run(on_request, on_notify)``, the kernel's callbacks) is the
SDK's private plumbing: mcpkit's session engine takes its place, and ``run`` says so."""

from __future__ import annotations

from typing import Any, Generic

from typing_extensions import TypeVar

__all__ = ["JSONRPCDispatcher"]

TransportT = TypeVar("TransportT", default=Any)


class JSONRPCDispatcher(Generic[TransportT]):
    """The JSON-RPC exchange over ``read_stream`` / ``write_stream``, served by
    :func:`mcp.server.runner.serve_connection` (the other options are accepted: mcpkit's
    session engine answers pipelined ``initialize`` requests, cancellations and handler
    failures as the SDK's loop does)."""

    def __init__(
        self,
        read_stream: Any,
        write_stream: Any,
        *,
        transport_builder: Any = None,
        peer_cancel_mode: str = "interrupt",
        raise_handler_exceptions: bool = False,
        inline_methods: frozenset[str] = frozenset(),
        on_stream_exception: Any = None,
    ) -> None:
        self.read_stream = read_stream
        self.write_stream = write_stream
        self.transport_builder = transport_builder
        self.peer_cancel_mode = peer_cancel_mode
        self.raise_handler_exceptions = raise_handler_exceptions
        self.inline_methods = inline_methods
        self.on_stream_exception = on_stream_exception

    async def run(self, on_request: Any, on_notify: Any, **_: Any) -> None:
        """Not provided: the SDK kernel's callbacks have no counterpart on mcpkit; hand the
        dispatcher to ``serve_connection`` instead."""
        raise NotImplementedError(
            "JSONRPCDispatcher.run() (the SDK kernel's loop) is not provided by mcpkit: "
            "serve the dispatcher with mcp.server.runner.serve_connection()"
        )
