"""``mcp.server.runner`` on mcpkit: the two drivers a 2.x transport entry composes
(``stories/serve_one``), both serving a low-level ``Server`` with mcpkit's engine.

- :func:`serve_one`: one 2026-07-28 request (its ``_meta`` envelope, else the one the
  :class:`~mcp.server.connection.Connection` holds) in, its raw result dict out; an error
  answer is raised as ``MCPError`` (the entry maps it onto its wire). The handler's
  notifications go to the dispatch context's ``notify``, its requests to
  ``send_raw_request``.
- :func:`serve_connection`: the handshake loop over a ``JSONRPCDispatcher``'s streams
  (``stdio_server()``'s), as the SDK's own: the handshake era only (``server/discover`` is
  answered "Method not found").

Both take the value the entry's ``server.lifespan(server)`` yielded and never enter the
lifespan again. The SDK kernel's ``ServerRunner``, its middleware types and its other loop
drivers are private plumbing with no counterpart here (docs/migration.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

import anyio
import orjson

from mcpkit.compat.mcp.server.connection import Connection
from mcpkit.compat.mcp.shared.exceptions import McpError
from mcpkit.envelope import CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY
from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import INTERNAL_ERROR
from mcpkit.transports.memory import MemoryTransport

__all__ = ["serve_connection", "serve_one"]


@contextlib.contextmanager
def _lifespan_given(server: Any, state: Any) -> Iterator[None]:
    """``server``'s handlers see ``state`` as what its lifespan yielded."""
    before = server._given_lifespan
    server._given_lifespan = (state,)
    try:
        yield
    finally:
        server._given_lifespan = before


@contextlib.contextmanager
def _raising(server: Any) -> Iterator[dict[Any, BaseException]]:
    """What ``server``'s handlers raise meanwhile, by request id (the SDK's ``serve_one``
    raises a handler's exception itself, where the wire has an internal error)."""
    before = server._raised
    raised: dict[Any, BaseException] = {} if before is None else before
    server._raised = raised
    try:
        yield raised
    finally:
        server._raised = before


def _wire(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(by_alias=True, exclude_none=True, mode="json") if dump is not None else value


def _enveloped(params: Mapping[str, Any] | None, connection: Connection) -> dict[str, Any]:
    """``params`` with the connection's envelope where its ``_meta`` lacks one."""
    body = dict(params or {})
    meta = dict(body.get("_meta") or {})
    meta.setdefault(PROTOCOL_VERSION_KEY, connection.protocol_version)
    if connection.client_info is not None:
        meta.setdefault(CLIENT_INFO_KEY, _wire(connection.client_info))
    meta.setdefault(CLIENT_CAPABILITIES_KEY, _wire(connection.client_capabilities) or {})
    body["_meta"] = meta
    return body


class _Exchange:
    """The client end of one in-memory exchange: the reply, and what the server sends
    before it handed to the dispatch context (in order)."""

    def __init__(self, dctx: Any, transport: MemoryTransport) -> None:
        self.dctx = dctx
        self.transport = transport
        self.reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._chain: asyncio.Task[None] | None = None

    def _then(self, work: Any) -> None:
        previous = self._chain

        async def run() -> None:
            if previous is not None:
                await previous
            await work()

        self._chain = asyncio.get_running_loop().create_task(run())

    async def settled(self) -> None:
        """Wait for what the server sent to be handed on."""
        if self._chain is not None:
            await self._chain

    def receive_bytes(self, data: bytes) -> None:
        self.receive(orjson.loads(data))

    def receive_classified(self, message: Any, kind: Any, why: str | None = None) -> None:
        self.receive(message)

    def receive(self, message: Any) -> None:
        if type(message) is not dict:
            return
        method = message.get("method")
        if method is None:
            if not self.reply.done():
                self.reply.set_result(message)
            return
        params = message.get("params")
        if "id" not in message:
            notify = getattr(self.dctx, "notify", None)
            if notify is not None:
                self._then(lambda: notify(method, params))
            return
        rid = message["id"]

        async def answer() -> None:
            try:
                result = await self.dctx.send_raw_request(method, params)
                reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": result}
            except McpError as exc:
                error = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    error["data"] = exc.data
                reply = {"jsonrpc": "2.0", "id": rid, "error": error}
            except Exception as exc:
                reply = {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": INTERNAL_ERROR, "message": str(exc)},
                }
            with contextlib.suppress(ConnectionClosed):
                self.transport.write(reply)

        self._then(answer)

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self.reply.done():
            self.reply.set_exception(ConnectionClosed("the server ended the exchange"))


async def serve_one(
    server: Any,
    dctx: Any,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    connection: Connection,
    lifespan_state: Any,
) -> dict[str, Any]:
    """Serve one 2026-07-28 request ``(method, params)`` and return its result dict; an
    error answer is raised as ``MCPError``. ``connection.exit_stack`` is closed after."""
    native = server.native
    request_id = getattr(dctx, "request_id", None)
    rid = 1 if request_id is None else request_id
    client_end, server_end = MemoryTransport.pair()
    exchange = _Exchange(dctx, client_end)
    try:
        with _lifespan_given(server, lifespan_state), _raising(server) as raised:
            session = native.session(server_end, era="modern")
            await session.start()
            try:
                await client_end.start(exchange)
                client_end.write(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "method": method,
                        "params": _enveloped(params, connection),
                    }
                )
                reply = await exchange.reply
                await exchange.settled()
            finally:
                await client_end.close()
                await session.close()
    finally:
        with anyio.CancelScope(shield=True):
            await connection.exit_stack.aclose()
    error = reply.get("error")
    if error is not None:
        exc = raised.pop(rid, None)
        if exc is not None:
            raise exc
        raise McpError(
            error.get("code", INTERNAL_ERROR), error.get("message", ""), error.get("data")
        )
    result = reply.get("result")
    if type(result) is not dict:
        return {}
    if method == "tools/call" and "content" in result:
        result.setdefault("isError", False)  # the SDK's CallToolResult always has it
    return result


async def serve_connection(
    server: Any,
    dispatcher: Any,
    *,
    connection: Connection,
    lifespan_state: Any,
    init_options: Any = None,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``dispatcher``'s streams (``stdio_server()``'s) in the handshake era until the
    client goes; ``connection.exit_stack`` is closed after."""
    task_status.started()
    try:
        with _lifespan_given(server, lifespan_state):
            await server._serve_streams(
                dispatcher.read_stream, dispatcher.write_stream, init_options, era="legacy"
            )
    finally:
        with anyio.CancelScope(shield=True):
            await connection.exit_stack.aclose()
