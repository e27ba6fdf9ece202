"""Era bridging: MRTR rounds turned into live requests, and live requests into MRTR rounds.

2026-07-28 client, handshake-era upstream: the upstream asks its questions as live requests
in the middle of a ``tools/call`` (``prompts/get``, ``resources/read``), which a stateless
client cannot receive. A :class:`ParkedCall` keeps the upstream request running on a
connection leased to it; each question it asks ends the current downstream round with an
``InputRequiredResult`` (the questions as ``inputRequests``, the call's id as
``requestState``); the client's retry brings ``inputResponses``, which answer the waiting
upstream requests, and the next round waits for the upstream's result or next questions.
The call lives in this process: the retry must reach it (one proxy process, or sticky
routing by ``requestState``). A call nobody retries is cancelled upstream after ``ttl``.

Handshake-era client, 2026-07-28 upstream: :func:`drive_rounds` sends the request with the
client's capabilities in the envelope, asks the downstream client each input request of an
``InputRequiredResult`` as a live request and retries with the answers.

:func:`strip_envelope` and :func:`legacy_result` convert params and results between the
wires.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit.client.mrtr import is_input_required, retry_params
from mcpkit.envelope import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
)
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.proxy.upstream import CAPABILITY_OF, send_log

if TYPE_CHECKING:
    from mcpkit.server.session import ServerRequestContext

__all__ = [
    "STATE_PREFIX",
    "ParkedCall",
    "ask_live",
    "drive_rounds",
    "legacy_result",
    "strip_envelope",
]

#: Every ``requestState`` of a parked call starts with it.
STATE_PREFIX: Final = "mcpkit-proxy."
_ENVELOPE_KEYS: Final = frozenset(
    {PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY}
)
_MODERN_RESULT_KEYS: Final = frozenset({"resultType", "ttlMs", "cacheScope"})


def strip_envelope(params: JSONObject | None) -> JSONObject | None:
    """``params`` of a 2026-07-28 request as a handshake-era request: no envelope keys in
    ``_meta`` (its other keys kept), no ``inputResponses``/``requestState``."""
    if params is None:
        return None
    out = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
    meta = out.get("_meta")
    if isinstance(meta, dict):
        rest = {k: v for k, v in meta.items() if k not in _ENVELOPE_KEYS}
        if rest:
            out["_meta"] = rest
        else:
            del out["_meta"]
    return out


def legacy_result(result: Any) -> Any:
    """A 2026-07-28 result as a handshake-era one: no ``resultType``, caching hints or
    ``_meta`` serverInfo."""
    if not isinstance(result, dict):
        return result
    out = {k: v for k, v in result.items() if k not in _MODERN_RESULT_KEYS}
    meta = out.get("_meta")
    if isinstance(meta, dict) and SERVER_INFO_KEY in meta:
        rest = {k: v for k, v in meta.items() if k != SERVER_INFO_KEY}
        if rest:
            out["_meta"] = rest
        else:
            del out["_meta"]
    return out


#: Sends the params of one round upstream and returns its result (not an ASGI ``Send``).
SendRound = Callable[[JSONObject], Awaitable[Any]]


async def drive_rounds(
    send: SendRound, params: JSONObject, rctx: ServerRequestContext, *, max_rounds: int
) -> Any:
    """Send ``params`` with ``send`` until the result is complete, asking the handshake-era
    client of ``rctx`` every input request as a live request (concurrently)."""
    current = params
    result = await send(current)
    rounds = 0
    while is_input_required(result):
        if rounds >= max_rounds:
            raise McpError(-32603, f"The server still asked for input after {rounds} rounds")
        requests = result.get("inputRequests")
        responses: dict[str, Any] | None = None
        if isinstance(requests, dict):
            keys = list(requests)
            answers = await asyncio.gather(*(ask_live(rctx, requests[k]) for k in keys))
            responses = dict(zip(keys, answers, strict=True))
        current = retry_params(current, result, responses)
        rounds += 1
        result = await send(current)
    return result


async def ask_live(
    rctx: ServerRequestContext, request: Any, *, meta: JSONObject | None = None
) -> Any:
    """Ask the handshake-era client of ``rctx`` one input request (``{method, params}``)
    as a live request; ``meta``: keys added to its params' ``_meta``."""
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        raise McpError(-32603, "The server sent a malformed input request")
    method, params = request["method"], request.get("params")
    if meta is not None:
        params = dict(params or {})
        params["_meta"] = {**dict(params.get("_meta") or {}), **meta}
    if (
        method == "elicitation/create"
        and isinstance(params, dict)
        and params.get("mode") == "url"
        and "elicitationId" not in params
    ):
        # MRTR may leave it out; a live URL elicitation needs one
        params = {**params, "elicitationId": secrets.token_urlsafe(12)}
    return await rctx.request(method, params, timeout=None)


class ParkedCall:
    """One upstream request of a 2026-07-28 client, kept running across its MRTR rounds
    (see the module docstring). ``start(coro)`` runs it; each :meth:`round` serves one
    downstream request of it."""

    def __init__(
        self, *, ttl: float, principal: str | None, on_end: Callable[[ParkedCall], None]
    ) -> None:
        self.state = STATE_PREFIX + secrets.token_urlsafe(24)
        self.principal = principal
        self.ttl = ttl
        self._on_end = on_end
        self._loop = asyncio.get_running_loop()
        #: The downstream request of the round in progress (None between rounds).
        self.rctx: ServerRequestContext | None = None
        self._questions: dict[str, tuple[str, JSONObject | None]] = {}
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._changed = asyncio.Event()
        self._count = 0
        self._task: asyncio.Task[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.ended = False

    def start(self, coro: Awaitable[Any]) -> None:
        """Run the upstream request ``coro``."""

        async def run() -> Any:
            return await coro

        self._task = self._loop.create_task(run())
        self._task.add_done_callback(lambda _: self._changed.set())

    async def ask(self, method: str, params: JSONObject | None) -> JSONObject:
        """The upstream asks ``method``: it becomes an input request of the next round."""
        rctx = self.rctx
        needed = CAPABILITY_OF.get(method)
        caps = rctx.envelope.client_capabilities if rctx and rctx.envelope else {}
        if needed is not None and not isinstance(caps.get(needed), dict) and rctx is not None:
            raise McpError(
                METHOD_NOT_FOUND,
                f"The client did not declare the {needed!r} capability {method!r} needs",
            )
        self._count += 1
        key = f"proxy-{self._count}"
        future: asyncio.Future[Any] = self._loop.create_future()
        self._questions[key] = (method, params)
        self._waiting[key] = future
        self._changed.set()
        try:
            answer = await future
        finally:
            self._waiting.pop(key, None)
            self._questions.pop(key, None)
        return answer if isinstance(answer, dict) else {}

    async def log(self, params: JSONObject | None) -> None:
        """An upstream log message: to the client of the current round."""
        if self.rctx is not None:
            await send_log(self.rctx, params)

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Upstream progress: to the current round's progress token, if it asked."""
        rctx = self.rctx
        if rctx is None or rctx.progress_token is None:
            return
        params: JSONObject = {"progressToken": rctx.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        with contextlib.suppress(ConnectionClosed, McpError):
            await rctx.notify("notifications/progress", params)

    async def round(self, rctx: ServerRequestContext, params: JSONObject | None) -> Any:
        """Serve one downstream request of this call: apply its ``inputResponses``, then
        answer the upstream's result or the next ``InputRequiredResult``."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        responses = (params or {}).get("inputResponses")
        if isinstance(responses, dict):
            for key, value in responses.items():
                future = self._waiting.get(key)
                if future is not None and not future.done():
                    future.set_result(value)
        self.rctx = rctx
        try:
            result = await self._next()
        except asyncio.CancelledError:
            self.cancel()  # the client gave the call up
            raise
        finally:
            self.rctx = None
        if is_input_required(result):
            self._timer = self._loop.call_later(self.ttl, self.cancel)
        return result

    async def _next(self) -> Any:
        task = self._task
        assert task is not None
        await asyncio.sleep(0)  # questions asked together go out together
        while True:
            unanswered = {
                key: self._questions[key]
                for key, future in self._waiting.items()
                if not future.done()
            }
            if unanswered:
                return {
                    "resultType": "input_required",
                    "inputRequests": {
                        key: {"method": m, "params": p} if p is not None else {"method": m}
                        for key, (m, p) in unanswered.items()
                    },
                    "requestState": self.state,
                }
            if task.done():
                self._end()
                return task.result()
            self._changed.clear()
            await self._changed.wait()

    def cancel(self) -> None:
        """Give the call up: the upstream request is cancelled."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._end()

    def _end(self) -> None:
        if self.ended:
            return
        self.ended = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for future in self._waiting.values():
            if not future.done():
                future.cancel()
        self._on_end(self)


def check_state(call: ParkedCall | None, principal: str | None) -> ParkedCall:
    """The parked call a retry's ``requestState`` names; -32602 when there is none (ended,
    expired, or another principal's)."""
    if call is None or call.ended or call.principal != principal:
        raise McpError(
            INVALID_PARAMS,
            "requestState is unknown or expired: send the request anew (the call it names "
            "runs in the proxy replica that answered it, for round_ttl seconds; route the "
            "retries of a call to that replica)",
        )
    return call
