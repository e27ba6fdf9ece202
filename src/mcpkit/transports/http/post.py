"""The POST of the Streamable HTTP endpoint: one JSON-RPC message (or a batch) per request.

:func:`serve_post` checks what the request says of itself (Accept, Content-Type, length),
reads the body within its limits, decides the era (a 2026-07-28 request goes to
:func:`~mcpkit.transports.http.modern_server.serve_modern_post`), and delivers a 2025-era
message to its session: a new one for ``initialize``
(:func:`~mcpkit.transports.http.session_open.open_session`), a fresh one in the stateless
mode, else the session named by ``Mcp-Session-Id``. :func:`serve_requests` answers the
requests of one POST with JSON or an SSE stream of related messages.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.envelope import PROTOCOL_VERSION_KEY
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    MessageKind,
    RequestId,
    batch_refusal,
    cancelled_request_id,
    classify,
    initialize_in_batch,
)
from mcpkit.transports.http.asgi import (
    NO_BODY,
    SSE_HEADERS,
    BodyTooLarge,
    Receive,
    RequestHeaders,
    Scope,
    Send,
    accept_flags,
    body_within,
    flags_cache,
    respond,
    respond_body_timeout,
    respond_error,
    respond_json,
)
from mcpkit.transports.http.modern_headers import (
    MCP_PROTOCOL_VERSION,
    is_modern_request,
    legacy_names,
)
from mcpkit.transports.http.modern_server import error_status, quick_answer, serve_modern_post
from mcpkit.transports.http.session_open import open_session
from mcpkit.transports.http.session_transport import (
    HttpSessionTransport,
    SSEConnection,
    answer_alone,
)
from mcpkit.transports.http.stateless import (
    DEFAULT_VERSION,
    fresh_session,
    serve_stateless,
    serve_stateless_json,
)

if TYPE_CHECKING:
    from mcpkit.transports.base import MessageSink
    from mcpkit.transports.http.app_view import HttpApp
    from mcpkit.transports.http.served import ServedApp
    from mcpkit.versions import ProtocolVersion

__all__ = ["not_acceptable", "serve_post", "serve_requests"]

_JSON_TYPE: Final = (b"content-type", b"application/json")
#: What accept_flags found for each Accept value (read first, without its call).
_FLAGS: Final = flags_cache()
#: The names of the handshake-era revisions (a POST naming one is not modern).
_LEGACY_NAMES: Final = legacy_names()
# Enum members as module names (a lookup on their class costs more).
_REQUEST, _INVALID = MessageKind.REQUEST, MessageKind.INVALID
#: How long a POST's SSE response waits for the first message before sending its headers.
_FIRST_MESSAGE_HOLD: Final = 0.05


async def not_acceptable(send: Send, *, modern: bool = False) -> None:
    """406: the Accept header admits no answer this endpoint gives."""
    await respond_error(
        send,
        406,
        INVALID_REQUEST,
        "Not Acceptable: accept application/json or text/event-stream"
        if modern
        else "Not Acceptable: the client must accept both application/json and text/event-stream",
    )


async def serve_post(
    app: HttpApp, scope: Scope, h: RequestHeaders, receive: Receive, send: Send
) -> None:
    """Answer one POST to the endpoint (see the module docstring)."""
    options = app.options
    accept = h.accept
    flags = (accept is not None and _FLAGS.get(accept)) or accept_flags(accept)
    acceptable = flags[0] and (app.json_response or flags[1])
    # A POST without a session id or a legacy version header may be modern: its era
    # (and with it the Accept rule) is known once the body is read.
    # (is_modern_stream_request of the headers, inline: the version is already stripped)
    pv_name = h.protocol_version
    maybe_modern = h.session_id is None and (pv_name is None or pv_name not in _LEGACY_NAMES)
    if not acceptable and not maybe_modern:
        await not_acceptable(send)
        return
    ctype = h.content_type
    if ctype != "application/json" and (
        ctype is None or ctype.split(";", 1)[0].strip().lower() != "application/json"
    ):
        await respond_error(
            send, 415, INVALID_REQUEST, "Unsupported Media Type: use application/json"
        )
        return
    limit = options.max_body_size
    if h.content_length is not None:
        try:
            declared = int(h.content_length)
        except ValueError:
            declared = -1
        if declared > limit:
            await respond_error(send, 413, INVALID_REQUEST, "Request body too large")
            return
    try:
        body = body_within(
            receive, limit, options.body_timeout, options.min_body_rate, options.body_rate_grace
        )
        if body is not None and not isinstance(body, bytes):
            body = await body  # the rest of a body not all there yet
    except BodyTooLarge:
        await respond_error(send, 413, INVALID_REQUEST, "Request body too large")
        return
    except TimeoutError as exc:
        # The rest of the body is never read: the connection cannot carry another request,
        # and a client that keeps trickling bytes must not hold it open.
        await respond_body_timeout(send, exc)
        return
    if body is None:
        return  # the client went away before sending the whole body
    try:
        msg = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        await respond_error(send, 400, PARSE_ERROR, f"Parse error: {exc}")
        return
    if maybe_modern:
        params = msg.get("params") if type(msg) is dict else None
        meta = params.get("_meta") if type(params) is dict else None
        modern: tuple[ProtocolVersion, ...] = ()
        usual = type(meta) is dict and PROTOCOL_VERSION_KEY in meta
        if usual:
            # The usual modern request: no probe to build (modern_versions, its memo first).
            modern = app._modern_versions or app.modern_versions
        else:
            pv_probe = (
                {} if h.protocol_version is None else {MCP_PROTOCOL_VERSION: h.protocol_version}
            )
            if is_modern_request(pv_probe, params):
                modern = app.modern_versions
        if modern:
            if not (flags[0] or flags[1]):
                await not_acceptable(send, modern=True)
                return
            answer = quick_answer(app, msg, params, meta, h, flags) if usual else None
            if answer:
                # Its JSON-RPC response, in a JSON body with its status (_respond_alone of
                # modern_server, inline).
                alone = await answer
                error = alone.get("error")
                status = 200 if error is None else error_status(error)
                body = orjson.dumps(alone)
                headers = [_JSON_TYPE, (b"content-length", b"%d" % len(body))]
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await serve_modern_post(app, msg, h, flags, receive, send, answer is None)
            return
        if not acceptable:
            await not_acceptable(send)
            return
    version: ProtocolVersion | None = None
    if pv_name is not None:
        version = app.supported_names.get(pv_name)
        if version is None:
            await respond_error(
                send,
                400,
                INVALID_REQUEST,
                f"Unsupported MCP-Protocol-Version: {pv_name!r} (supported: "
                f"{', '.join(app.supported_names)})",
            )
            return
    if type(msg) is list:
        await _post_batch(app, msg, h, version, receive, send)
        return
    rid = msg.get("id") if type(msg) is dict else None
    if (
        (type(rid) is str or type(rid) is int)
        and (  # the usual request: what classify says of it, inline
            (params := msg.get("params")) is None or type(params) is dict
        )
        and (msg.get("jsonrpc") == "2.0" and type(msg.get("method")) is str)
    ):
        kind = _REQUEST
    else:
        kind, why = classify(msg)
        if kind is _INVALID:
            if type(rid) is not str and type(rid) is not int:
                rid = None
            await respond_error(send, 400, INVALID_REQUEST, f"Invalid request: {why}", rid)
            return
    is_request = kind is _REQUEST
    if app.stateless:
        if is_request and app.json_response:  # what serve_stateless does, inline
            served = app.served
            # serve_stateless_json's quick answer, inline (a request needing no session)
            answer = (
                None
                if served is None
                else served.sessionless_response(
                    msg["id"], msg["method"], msg.get("params"), version or DEFAULT_VERSION
                )
            )
            if answer is None:
                await serve_stateless_json(app, msg, version, send)
                return
            body = orjson.dumps(await answer)
            headers = [_JSON_TYPE, (b"content-length", b"%d" % len(body))]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        else:
            await serve_stateless(app, msg, is_request, version, receive, send)
        return
    sid = h.session_id
    if sid is None:
        if is_request and msg["method"] == "initialize":
            await open_session(app, msg, send, scope)
            return
        await respond_error(
            send,
            400,
            INVALID_REQUEST,
            "Bad Request: missing Mcp-Session-Id header (initialize first)",
            msg.get("id") if is_request else None,
        )
        return
    if app.shared is None:
        transport = app.session_here(sid, True)
        if transport is None:
            await app.not_found(send, msg.get("id") if is_request else None)
            return
    else:
        transport = await app.session_of(sid, send, msg.get("id") if is_request else None, True)
        if transport is None:
            return
    if not is_request:
        transport.touch()
        if app.shared is not None:
            routed = await _shared_message(app, transport, msg, kind, send)
            if routed is not False:
                return  # answered here (routed elsewhere, or the store is down)
        transport.sink.receive_classified(msg, kind)  # type: ignore[union-attr]
        if kind is MessageKind.NOTIFICATION and msg["method"] == "notifications/cancelled":
            cancelled = cancelled_request_id(msg.get("params"))
            if cancelled is not None:
                transport.cancel_request(cancelled)
        await respond(send, 202, b"", NO_BODY)
        return
    rid = msg["id"]
    if transport.has_request(rid):
        await respond_error(
            send, 400, INVALID_REQUEST, f"Request id {rid!r} is already in use", rid
        )
        return
    served = app.served
    if (
        served is not None
        and app.shared is None
        and await _answered_at_once(app, served, transport, msg, send)
    ):
        return
    await serve_requests(app, transport, msg, [rid], receive, send)


async def _answered_at_once(
    app: HttpApp, served: ServedApp, transport: HttpSessionTransport, msg: Any, send: Send
) -> bool:
    """Answer a session's request that needs nothing of its session, whose answer is ready
    as soon as it runs (the usual ``tools/call`` of an ``async def`` tool that cannot
    suspend: it sends nothing else and nothing can cancel it), as its session would: one
    JSON body, or one SSE body holding the events its own stream would carry (stored for
    resumption). False: not such a request (nothing was run or sent)."""
    method = msg["method"]
    version = transport.protocol_version
    lifecycle = getattr(transport.sink, "lifecycle", None)
    if (
        version is None
        or transport.closed
        or lifecycle is None
        or lifecycle.check_incoming_request(method) is not None
    ):
        return False
    answer = served.sessionless_response(msg["id"], method, msg.get("params"), version, False, True)
    if answer is None:
        return False
    data = orjson.dumps(await answer)
    transport.touch()
    sid = transport.session_id
    headers = [(b"mcp-session-id", sid.encode())] if sid is not None else []
    if app.json_response:
        await respond_json(send, 200, data, headers)
        return True
    body = answer_alone(transport, data)
    headers = [*SSE_HEADERS, *headers, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    return True


async def _shared_message(
    app: HttpApp, transport: Any, msg: Any, kind: MessageKind, send: Send
) -> bool | None:
    """A client's answer or cancellation for a shared session: an answer to a request
    another replica sent goes there (True: answered 202); a cancellation also goes to
    every replica. None: the store is unreachable (answered 503); False: deliver here."""
    shared = app.shared
    try:
        if kind is MessageKind.RESULT or kind is MessageKind.ERROR:
            if await shared.route_response(transport, msg):
                await respond(send, 202, b"", NO_BODY)
                return True
        elif kind is MessageKind.NOTIFICATION and msg["method"] == "notifications/cancelled":
            await shared.broadcast_cancel(transport.session_id, msg)
    except shared.unavailable as exc:
        await respond_error(send, 503, INTERNAL_ERROR, str(exc), None, [(b"retry-after", b"1")])
        return None
    return False


async def _post_batch(
    app: HttpApp,
    items: list[Any],
    h: RequestHeaders,
    version: ProtocolVersion | None,
    receive: Receive,
    send: Send,
) -> None:
    transport: HttpSessionTransport | None = None
    if not app.stateless:
        sid = h.session_id
        if sid is None:
            await respond_error(send, 400, INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id")
            return
        transport = await app.session_of(sid, send, None, True)
        if transport is None:
            return
        version = transport.protocol_version
    elif version is None:
        version = DEFAULT_VERSION
    refusal = batch_refusal(
        items,
        version is not None and version.batching,
        version.name if version is not None else None,
    )
    if refusal is not None:
        await respond_error(send, 400, INVALID_REQUEST, refusal)
        return
    ids: list[RequestId] = []
    for item in items:
        kind, _ = classify(item)
        if kind is MessageKind.REQUEST:
            if initialize_in_batch(item):
                await respond_error(
                    send, 400, INVALID_REQUEST, "initialize cannot be part of a batch"
                )
                return
            ids.append(item["id"])
    if len(set(ids)) != len(ids) or (
        transport is not None and any(transport.has_request(i) for i in ids)
    ):
        await respond_error(send, 400, INVALID_REQUEST, "Duplicate request id in batch")
        return
    if transport is None:
        transport = await fresh_session(app, version)
        if not ids:
            await transport.close()
            await respond(send, 202, b"", NO_BODY)
            return
        try:
            await serve_requests(app, transport, items, ids, receive, send)
        finally:
            await transport.close()
        return
    if not ids:
        transport.touch()
        transport.sink.receive(items)  # type: ignore[union-attr]
        await respond(send, 202, b"", NO_BODY)
        return
    await serve_requests(app, transport, items, ids, receive, send)


async def serve_requests(
    app: HttpApp,
    transport: HttpSessionTransport,
    msg: Any,
    ids: list[RequestId],
    receive: Receive,
    send: Send,
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """Deliver request(s) to ``transport``'s session and answer with JSON or an SSE
    stream of related messages; the session counts as used when the answer ends."""
    sink = transport.sink
    assert sink is not None
    sid = transport.session_id
    if app.json_response:
        future = transport.expect_json(ids)
        _deliver(sink, msg)
        try:
            data = await future
        except asyncio.CancelledError:
            transport.forget_json(ids[0])
            if not future.cancelled():
                raise
            if transport.closed and sid is not None:
                await app.not_found(send, ids[0])
            else:
                # Cancelled by the client: no response.
                await respond(send, 202, b"", NO_BODY)
            return
        transport.touch()
        extra = [(b"mcp-session-id", sid.encode())] if sid is not None else []
        if extra_headers:
            extra += extra_headers
        await respond_json(send, 200, data, extra)
        return
    conn = SSEConnection(app.options.max_stream_buffer)
    transport.open_request_stream(ids, conn)
    conn.event.clear()  # the priming event alone does not need to leave at once
    # A tasks/result stream carries its task's messages; then _deliver, inline (the usual
    # POST is one request, not a tasks/result: no call for either).
    if type(msg) is list:
        transport.bind_task_results(msg)
        sink.receive(msg)
    else:
        if msg.get("method") == "tasks/result":
            transport.bind_task_results(msg)
        sink.receive_classified(msg, MessageKind.REQUEST)
    headers = list(SSE_HEADERS)
    if sid is not None:
        headers.append((b"mcp-session-id", sid.encode()))
    if extra_headers:
        headers += extra_headers
    await app.stream_sse(transport, conn, headers, receive, send, hold=_FIRST_MESSAGE_HOLD)


def _deliver(sink: MessageSink, msg: Any) -> None:
    """Hand a POST's request(s) to the session: a batch as it is, a single request as the
    request the edge already classified it as."""
    if type(msg) is list:
        sink.receive(msg)
    else:
        sink.receive_classified(msg, MessageKind.REQUEST)
