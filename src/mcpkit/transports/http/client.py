"""The Streamable HTTP client transport, over httpx.

Every outgoing message is one POST; the answer is read as JSON or as an SSE stream (which may
carry related requests and notifications before the response). After the handshake the
transport opens the standalone GET stream for server-initiated messages, and every request
carries ``Mcp-Session-Id`` and ``MCP-Protocol-Version``.

It resumes a broken or server-closed SSE stream with GET + ``Last-Event-ID`` after the
server's ``retry`` delay (never earlier), re-initializes once transparently when the server
answers 404 for the session (and retries the request that failed), and falls back to the
2024-11-05 HTTP+SSE transport when POST ``initialize`` is refused with 400/404/405. HTTP
failures reach the affected call as a JSON-RPC error (:data:`HTTP_ERROR`), never a hang.

A *modern* message (2026-07-28: a request whose ``params._meta`` carries the protocol
version) gets the routing headers of :func:`mcpkit.http_headers.request_headers`
(``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, and for ``tools/call`` the
``Mcp-Param-*`` of :attr:`StreamableHTTPClientTransport.header_params`), no session id; a 4xx
answer whose body is a JSON-RPC error reaches the call as that error (its HTTP status in
:attr:`StreamableHTTPClientTransport.last_error_status`), and ``notifications/cancelled`` for a
modern request in flight closes that request's stream instead of being posted (how a
``subscriptions/listen`` ends).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import email.utils
import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import httpx
import orjson

from mcpkit.errors import HTTP_ERROR, ConnectionClosed, TransportError
from mcpkit.http_headers import MCP_NAME, HeaderParam, encode_value, request_headers
from mcpkit.jsonrpc import INVALID_REQUEST, RequestId
from mcpkit.logs import session_tag
from mcpkit.transports.base import MessageSink, Transport, TransportInfo
from mcpkit.transports.http.header_guard import guard_client, guarded
from mcpkit.transports.http.sse import ServerSentEvent, SSEDecoder, SSELineTooLong

__all__ = ["HTTP_ERROR", "HttpStatusError", "StreamableHTTPClientTransport"]

logger = logging.getLogger("mcpkit.http.client")

#: Seconds an idle kept-alive connection is reused: below the 5 s after which uvicorn and
#: Node's HTTP server close idle connections, so a request never goes out on a connection
#: the server is closing at that moment (httpx's own default is those same 5 s: a race that
#: ends the request with a ReadError).
KEEPALIVE_EXPIRY = 2.0

#: JSON-RPC error code given to a call whose HTTP exchange failed (status in ``data``).
_ACCEPT: Final = "application/json, text/event-stream"


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header's wait in seconds (delay-seconds or an HTTP date), or None
    when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
        when = email.utils.parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        return max(0.0, (when - datetime.datetime.now(datetime.UTC)).total_seconds())
    return None


class HttpStatusError(TransportError):
    """The server answered with an HTTP error status; ``retry_after``: the seconds its
    ``Retry-After`` header asked to wait (None without one)."""

    def __init__(
        self, status: int, reason: str, body: bytes, retry_after: float | None = None
    ) -> None:
        self.status = status
        self.reason = reason
        self.body = body
        self.retry_after = retry_after
        detail = ""
        self.rpc_error: dict[str, Any] | None = None
        with contextlib.suppress(Exception):
            parsed = orjson.loads(body)
            err = parsed.get("error") if isinstance(parsed, dict) else None
            if isinstance(err, dict) and isinstance(err.get("message"), str):
                self.rpc_error = err
                detail = err["message"]
        if not detail:
            detail = body[:200].decode("utf-8", "replace").strip()
        super().__init__(f"HTTP {status} {reason}" + (f": {detail}" if detail else ""))


_PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"


def _is_modern(message: Any) -> bool:
    """A single request carrying the modern ``_meta`` envelope."""
    if type(message) is not dict or "method" not in message:
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and isinstance(meta.get(_PROTOCOL_VERSION_KEY), str)


def _request_ids(message: Any) -> list[RequestId]:
    items = message if type(message) is list else [message]
    return [m["id"] for m in items if type(m) is dict and "method" in m and "id" in m]


class StreamableHTTPClientTransport(Transport):
    """Talk to an MCP server at ``url`` over Streamable HTTP.

    ``headers`` are sent with every request to ``url``'s origin and dropped from any request
    to another (a redirect); ``auth`` is an ``httpx.Auth`` (the OAuth flow
    plugs in there); ``timeout`` bounds connecting and sending, ``sse_read_timeout`` the wait
    between two chunks of a response; ``max_message_size`` bounds one SSE event (bytes). Pass
    ``httpx_client`` to reuse a configured client (it is
    then not closed here).
    """

    _session_id: str | None

    @property
    def session_id(self) -> str | None:
        """The session id the server issued (None before initialization or if it issued
        none); :attr:`info` says the same."""
        return self._session_id

    @session_id.setter
    def session_id(self, sid: str | None) -> None:
        self._session_id = sid
        self.info = TransportInfo("http", sid)

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth: httpx.Auth | None = None,
        timeout: float = 30.0,
        sse_read_timeout: float = 300.0,
        httpx_client: httpx.AsyncClient | None = None,
        standalone_stream: bool = True,
        reinitialize_on_404: bool = True,
        legacy_fallback: bool = True,
        terminate_on_close: bool = True,
        max_reconnects: int = 5,
        default_retry_ms: int = 1000,
        max_message_size: int = 64 * 1024 * 1024,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.auth = auth
        self.timeout = timeout
        self.sse_read_timeout = sse_read_timeout
        self.standalone_stream = standalone_stream
        self.reinitialize_on_404 = reinitialize_on_404
        self.legacy_fallback = legacy_fallback
        self.terminate_on_close = terminate_on_close
        self.max_reconnects = max_reconnects
        self.default_retry_ms = default_retry_ms
        self.max_message_size = max_message_size
        self._client = httpx_client
        self._owns_client = httpx_client is None
        #: Marks requests carrying ``headers`` with the server's origin: they are dropped
        #: from any request to another origin (a redirect), see ``header_guard``.
        self._mark = guarded(url, [*self.headers, *(("dpop",) if auth is not None else ())])
        if httpx_client is not None:
            guard_client(httpx_client)
        self._sink: MessageSink | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._init_message: dict[str, Any] | None = None
        self._ready: asyncio.Event | None = None
        self._get_task: asyncio.Task[None] | None = None
        self._reinit_lock = asyncio.Lock()
        self._reinit_ids = itertools.count(1)
        self._legacy: Any = None
        self._session_id = None
        self.info = TransportInfo("http")
        #: The negotiated protocol version (sent as ``MCP-Protocol-Version``).
        self.protocol_version: str | None = None
        #: The ``x-mcp-header`` parameters of a tool, by name (modern ``tools/call``).
        self.header_params: Callable[[str], Sequence[HeaderParam]] | None = None
        #: Methods of the caller's own (an extension's) whose ``Mcp-Name`` header mirrors
        #: that ``params`` key, on either era (the protocol's methods carry theirs anyway).
        self.name_params: dict[str, str] = {}
        #: The HTTP status of the last 4xx that answered a modern request with a JSON-RPC
        #: error (the era probe reads it: a 404 tells more than a 400).
        self.last_error_status: int | None = None
        self._modern_posts: dict[RequestId, asyncio.Task[Any]] = {}
        #: Requests whose SSE stream is being read: the ids that stream still waits for, and
        #: the task reading it (a cancelled request is no longer waited for).
        self._waiting: dict[RequestId, tuple[set[RequestId], asyncio.Task[Any] | None]] = {}

    # -- Transport interface -------------------------------------------------------------------

    async def start(self, sink: MessageSink) -> None:
        self._sink = sink
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout, read=self.sse_read_timeout),
                limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY),
                follow_redirects=True,
            )
            guard_client(self._client)

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if self._closed:
            raise ConnectionClosed()
        if type(message) is dict and message.get("method") == "initialize":
            self._init_message = message
        if self._close_modern_stream(message):
            return
        self._stop_waiting_for_cancelled(message)
        task = self._spawn(self._send(message))
        if _is_modern(message) and "id" in message:
            rid: RequestId = message["id"]
            self._modern_posts[rid] = task
            task.add_done_callback(lambda _t: self._modern_posts.pop(rid, None))

    def _close_modern_stream(self, message: Any) -> bool:
        """``notifications/cancelled`` for a modern request in flight: close its stream."""
        if type(message) is not dict or message.get("method") != "notifications/cancelled":
            return False
        params = message.get("params")
        rid = params.get("requestId") if isinstance(params, dict) else None
        task = self._modern_posts.pop(rid, None) if rid is not None else None
        if task is None:
            return False
        task.cancel()
        return True

    def _pending_of(self, ids: list[RequestId]) -> set[RequestId]:
        """The set of ``ids`` still waited for, as :meth:`_send` registered it (cancelled ones
        leave it; when all have, the task sending them is cancelled)."""
        for rid in ids:
            entry = self._waiting.get(rid)
            if entry is not None:
                return entry[0]
        return set(ids)

    def _stop_waiting_for_cancelled(self, message: Any) -> None:
        """``notifications/cancelled`` for a request whose stream is read: the server sends
        no response for it, so its stream stops waiting (and is no longer resumed for it);
        a stream left waiting for nothing stops being read."""
        if type(message) is not dict or message.get("method") != "notifications/cancelled":
            return
        params = message.get("params")
        rid = params.get("requestId") if isinstance(params, dict) else None
        entry = self._waiting.pop(rid, None) if rid is not None else None
        if entry is None:
            return
        pending, task = entry
        pending.discard(rid)
        if not pending and task is not None and not task.done():
            task.cancel()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current]
        for task in tasks:
            task.cancel()
        if self._get_task is not None:
            self._get_task.cancel()
            tasks.append(self._get_task)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._legacy is not None:
            await self._legacy.aclose()
        elif self.session_id is not None and self.terminate_on_close and self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.delete(
                    self.url,
                    headers=self._headers(),
                    auth=self._auth(),
                    timeout=5.0,
                    extensions=self._mark,
                )
        if self._owns_client and self._client is not None:
            await self._client.aclose()
        if self._sink is not None:
            self._sink.connection_lost(None)

    # -- sending -------------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _auth(self) -> Any:
        return self.auth if self.auth is not None else httpx.USE_CLIENT_DEFAULT

    def _headers(self, **extra: str) -> dict[str, str]:
        headers = dict(self.headers)
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.protocol_version is not None:
            headers["mcp-protocol-version"] = self.protocol_version
        headers.update(extra)
        return headers

    async def _send(self, message: Any) -> None:
        ids = _request_ids(message)
        is_init = type(message) is dict and message.get("method") == "initialize"
        is_initialized = type(message) is dict and message.get("method") == (
            "notifications/initialized"
        )
        pending = set(ids)
        task = asyncio.current_task()
        for rid in ids:
            self._waiting[rid] = (pending, task)
        try:
            ready = self._ready
            if ready is not None and not is_initialized and not ready.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.timeout):
                        await ready.wait()
            if is_initialized:
                self._ready = asyncio.Event()
            if self._legacy is not None:
                await self._legacy.post(message)
            else:
                await self._post(message, ids, is_init=is_init, allow_reinit=not is_init)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._fail([rid for rid in ids if rid in pending], exc)
        finally:
            for rid in ids:
                if self._waiting.get(rid, (None, None))[0] is pending:
                    del self._waiting[rid]
            if is_initialized and self._ready is not None:
                if self.standalone_stream and self._legacy is None and not self._closed:
                    await self._open_standalone()
                self._ready.set()

    def _fail(self, ids: list[RequestId], exc: Exception) -> None:
        if not ids:
            logger.warning("Could not send a message to %s: %s", self.url, _describe(exc))
            return
        if isinstance(exc, HttpStatusError):
            data: dict[str, Any] = {"status": exc.status}
            if exc.retry_after is not None:
                data["retryAfterMs"] = round(exc.retry_after * 1000)
            message = str(exc)
        else:
            data = {"exception": type(exc).__name__}
            message = f"HTTP request to {self.url} failed: {_describe(exc)}"
        for rid in ids:
            self._deliver(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": HTTP_ERROR, "message": message, "data": data},
                }
            )

    def _oversize(self, ids: list[RequestId]) -> None:
        """Fail ``ids``: their response is over ``max_message_size`` (-32600, as stdio)."""
        limit = self.max_message_size
        logger.warning("A response from %s exceeds the %d-byte limit", self.url, limit)
        for rid in ids:
            self._deliver(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {
                        "code": INVALID_REQUEST,
                        "message": f"The response exceeds the message size limit of {limit} "
                        "bytes (max_message_size)",
                        "data": {"maxMessageSize": limit},
                    },
                }
            )

    def _deliver(self, message: Any) -> None:
        sink = self._sink
        if sink is None or self._closed:
            return
        init = self._init_message
        if init is not None and type(message) is dict and message.get("id") == init.get("id"):
            result = message.get("result")
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
                self.protocol_version = result["protocolVersion"]
        sink.receive(message)

    def _name_header(self, message: Any, headers: dict[str, str]) -> None:
        """``Mcp-Name`` of a request whose method :attr:`name_params` names."""
        method = message.get("method") if type(message) is dict else None
        key = self.name_params.get(method) if isinstance(method, str) else None
        if key is None or MCP_NAME in headers:
            return
        params = message.get("params")
        value = params.get(key) if isinstance(params, dict) else None
        if isinstance(value, str):
            headers[MCP_NAME] = encode_value(value)

    async def _post(
        self, message: Any, ids: list[RequestId], *, is_init: bool, allow_reinit: bool
    ) -> None:
        client = self._client
        if client is None:
            raise ConnectionClosed()
        sent_sid = self.session_id
        modern = _is_modern(message)
        headers = self._headers(**{"content-type": "application/json", "accept": _ACCEPT})
        if modern:
            headers.pop("mcp-session-id", None)
            headers.pop("mcp-protocol-version", None)
            tool = message.get("params", {}).get("name")
            params: Sequence[HeaderParam] = ()
            if message["method"] == "tools/call" and isinstance(tool, str) and self.header_params:
                params = self.header_params(tool)
            headers.update(request_headers(message, params))
        if self.name_params:
            self._name_header(message, headers)
        request = client.build_request(
            "POST", self.url, content=orjson.dumps(message), headers=headers, extensions=self._mark
        )
        response = await client.send(request, stream=True, auth=self._auth())
        try:
            status = response.status_code
            if status == 404 and sent_sid is not None and allow_reinit and self.reinitialize_on_404:
                await response.aclose()
                await self._reinitialize(sent_sid)
                await self._post(message, ids, is_init=False, allow_reinit=False)
                return
            if is_init and status in (400, 404, 405) and self.legacy_fallback:
                body = await response.aread()
                await response.aclose()
                if await self._try_legacy():
                    await self._legacy.post(message)
                    return
                raise HttpStatusError(status, response.reason_phrase, body)
            if status >= 400:
                body = await _read_limited(response)
                wait = retry_after_seconds(response.headers.get("retry-after"))
                error = HttpStatusError(status, response.reason_phrase, body, wait)
                if modern and error.rpc_error is not None and 400 <= status < 500:
                    self.last_error_status = status
                    rpc_error = error.rpc_error
                    data = rpc_error.get("data")
                    if (
                        wait is not None
                        and (data is None or isinstance(data, dict))
                        and not (data or {}).get("retryAfterMs")
                    ):
                        data = {**(data or {}), "retryAfterMs": round(wait * 1000)}
                        rpc_error = {**rpc_error, "data": data}
                    for rid in ids:
                        self._deliver({"jsonrpc": "2.0", "id": rid, "error": rpc_error})
                    return
                raise error
            if is_init:
                sid = response.headers.get("mcp-session-id")
                if sid:
                    self.session_id = sid
            if not ids or status == 202 or status == 204:
                return
            ctype = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if ctype == "application/json":
                received = bytearray()
                async for chunk in response.aiter_bytes():
                    received += chunk
                    if len(received) > self.max_message_size:
                        self._oversize(ids)
                        return
                self._deliver(orjson.loads(received))
            elif ctype == "text/event-stream":
                await self._read_stream(response, self._pending_of(ids))
            else:
                raise TransportError(f"Unexpected content type {ctype!r} from {self.url}")
        finally:
            await response.aclose()

    # -- SSE -----------------------------------------------------------------------------------

    async def _consume(
        self, response: httpx.Response, decoder: SSEDecoder, pending: set[RequestId] | None
    ) -> bool:
        """Deliver a stream's messages; True when it ended cleanly (False: cut off)."""
        try:
            async for chunk in response.aiter_bytes():
                try:
                    events = decoder.feed(chunk)
                except SSELineTooLong as exc:
                    # What the chunk completed before the long line is counted as received
                    # (a resumption starts after it): delivered first.
                    _take(self, exc.events, pending)
                    if not pending:
                        raise
                    # An event over max_message_size: resuming would replay it, so the
                    # requests still waiting on this stream fail now, as over stdio.
                    self._oversize(list(pending))
                    pending.clear()
                    return True
                _take(self, events, pending)
        except (httpx.TransportError, ValueError) as exc:
            logger.info("SSE stream from %s interrupted: %s", self.url, exc)
            return False
        return True

    async def _read_stream(self, response: httpx.Response, pending: set[RequestId]) -> None:
        """Read a POST's SSE stream until the response(s) came, resuming it as needed."""
        decoder = SSEDecoder(self.max_message_size)
        await self._consume(response, decoder, pending)
        failures = 0
        while pending and not self._closed:
            if decoder.last_event_id is None:
                raise TransportError("SSE stream ended before the response arrived")
            failures += 1
            if failures > self.max_reconnects:
                raise TransportError(
                    f"SSE stream could not be resumed after {self.max_reconnects} attempts"
                )
            retry = decoder.retry if decoder.retry is not None else self.default_retry_ms
            await asyncio.sleep(retry / 1000)
            before = decoder.last_event_id
            try:
                await self._resume(decoder, pending)
            except HttpStatusError as exc:
                if exc.status in (400, 404, 405):
                    raise
            if decoder.last_event_id != before:
                failures = 0

    async def _resume(self, decoder: SSEDecoder, pending: set[RequestId] | None) -> None:
        client = self._client
        assert client is not None and decoder.last_event_id is not None
        decoder.reconnected()
        headers = self._headers(
            accept="text/event-stream", **{"last-event-id": decoder.last_event_id}
        )
        async with client.stream(
            "GET", self.url, headers=headers, auth=self._auth(), extensions=self._mark
        ) as response:
            if response.status_code >= 400:
                raise HttpStatusError(
                    response.status_code, response.reason_phrase, await _read_limited(response)
                )
            await self._consume(response, decoder, pending)

    async def _open_standalone(self) -> None:
        """Open the GET stream and return once it is established (or refused)."""
        established = asyncio.Event()
        self._get_task = asyncio.get_running_loop().create_task(self._standalone(established))
        waiter = asyncio.ensure_future(established.wait())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.timeout):
                await asyncio.wait({waiter, self._get_task}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()

    async def _standalone(self, established: asyncio.Event) -> None:
        decoder = SSEDecoder(self.max_message_size)
        failures = 0
        client = self._client
        assert client is not None
        while not self._closed:
            headers = self._headers(accept="text/event-stream")
            decoder.reconnected()
            if decoder.last_event_id is not None:
                headers["last-event-id"] = decoder.last_event_id
            try:
                async with client.stream(
                    "GET", self.url, headers=headers, auth=self._auth(), extensions=self._mark
                ) as r:
                    ctype = r.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                    if r.status_code >= 400 or ctype != "text/event-stream":
                        if r.status_code == 400 and decoder.last_event_id is not None:
                            decoder = SSEDecoder(
                                self.max_message_size
                            )  # could not resume: open a fresh stream
                            continue
                        logger.debug("No standalone SSE stream (HTTP %d)", r.status_code)
                        return
                    established.set()
                    before = decoder.last_event_id
                    await self._consume(r, decoder, None)
                    if decoder.last_event_id != before:
                        failures = 0
            except httpx.TransportError as exc:
                logger.info("Standalone SSE stream failed: %s", exc)
            finally:
                established.set()
            failures += 1
            if failures > self.max_reconnects:
                logger.warning("Giving up on the standalone SSE stream of %s", self.url)
                return
            if decoder.retry is not None:
                delay = decoder.retry / 1000
            else:
                delay = min(self.default_retry_ms / 1000 * 2 ** (failures - 1), 30.0)
            await asyncio.sleep(delay)

    # -- session recovery and fallback ---------------------------------------------------------

    async def _reinitialize(self, stale_session_id: str) -> None:
        """The server forgot our session: run the handshake again (once for all callers)."""
        async with self._reinit_lock:
            if self.session_id != stale_session_id:
                return  # another task already did it
            init = self._init_message
            if init is None:
                raise TransportError("Session expired and no initialize request to repeat")
            logger.info(
                "Session %s expired on the server: re-initializing", session_tag(stale_session_id)
            )
            self.session_id = None
            if self._get_task is not None:
                self._get_task.cancel()
                self._get_task = None
            try:
                await self._handshake_again(init)
            except BaseException:
                # The next request carries the stale id again, gets its 404 and tries the
                # handshake anew (rather than going out with no session at all: a 400).
                if self.session_id is None:
                    self.session_id = stale_session_id
                raise

    async def _handshake_again(self, init: Any) -> None:
        """The initialize of :meth:`_reinitialize`, its initialized notification and the GET
        stream (under the re-initialization lock)."""
        rid = f"mcpkit-reinit-{next(self._reinit_ids)}"
        message = {**init, "id": rid}
        client = self._client
        assert client is not None
        headers = self._headers(**{"content-type": "application/json", "accept": _ACCEPT})
        headers.pop("mcp-protocol-version", None)
        result: Any = None
        async with client.stream(
            "POST",
            self.url,
            content=orjson.dumps(message),
            headers=headers,
            auth=self._auth(),
            extensions=self._mark,
        ) as response:
            if response.status_code >= 400:
                raise HttpStatusError(
                    response.status_code, response.reason_phrase, await _read_limited(response)
                )
            sid = response.headers.get("mcp-session-id")
            ctype = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if ctype == "text/event-stream":
                decoder = SSEDecoder(self.max_message_size)
                async for chunk in response.aiter_bytes():
                    for event in decoder.feed(chunk):
                        if event.data:
                            msg = orjson.loads(event.data)
                            if type(msg) is dict and msg.get("id") == rid:
                                result = msg
                    if result is not None:
                        break
            else:
                result = orjson.loads(await response.aread())
        if not isinstance(result, dict) or "result" not in result:
            raise TransportError(f"Re-initialization failed: {result!r:.200}")
        self.session_id = sid
        version = result["result"].get("protocolVersion")
        if isinstance(version, str):
            self.protocol_version = version
        await self._post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            [],
            is_init=False,
            allow_reinit=False,
        )
        if self.standalone_stream and not self._closed:
            await self._open_standalone()

    def _legacy_lost(self) -> None:
        if not self._closed and self._sink is not None:
            self._closed = True
            self._sink.connection_lost(ConnectionClosed("The HTTP+SSE stream closed"))

    async def _try_legacy(self) -> bool:
        from mcpkit.transports.http.sse_2024_client import HttpSseClient

        assert self._client is not None and self._sink is not None
        legacy = HttpSseClient(
            self.url,
            self._client,
            self._headers,
            self._auth,
            self._deliver,
            self._legacy_lost,
            extensions=self._mark,
        )
        if await legacy.connect(self.timeout):
            self._legacy = legacy
            logger.info("%s speaks the 2024-11-05 HTTP+SSE transport: falling back", self.url)
            return True
        return False


async def _read_limited(response: httpx.Response, limit: int = 64 * 1024) -> bytes:
    out = bytearray()
    with contextlib.suppress(httpx.HTTPError):
        async for chunk in response.aiter_bytes():
            out += chunk
            if len(out) >= limit:
                break
    return bytes(out[:limit])


def _describe(exc: BaseException) -> str:
    """An exception for a message: its text, or its type when it has none (httpx's timeouts
    and protocol errors often have an empty text)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _take(
    transport: StreamableHTTPClientTransport,
    events: list[ServerSentEvent],
    pending: set[RequestId] | None,
) -> None:
    """Deliver the messages of ``events`` through ``transport``; responses leave ``pending``."""
    for event in events:
        if not event.data or event.event != "message":
            continue  # priming events, or events for someone else
        try:
            msg = orjson.loads(event.data)
        except orjson.JSONDecodeError:
            logger.warning("Ignoring a non-JSON SSE event from %s", transport.url)
            continue
        if pending:
            for item in msg if type(msg) is list else [msg]:
                if type(item) is dict and "method" not in item:
                    pending.discard(item.get("id"))
        transport._deliver(msg)
