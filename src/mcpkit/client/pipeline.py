"""The client's request pipeline: every request of a :class:`~mcpkit.client.Client` passes
these stages, outermost first.

1. **cache** (modern wire): a fresh cached result is returned without a request; a fetched
   cacheable one is stored (:func:`~mcpkit.client.cache.cached_request`). Continuation
   pages skip it; a list a notification made stale is refetched.
2. **rounds** (modern wire): an ``InputRequiredResult`` is answered with the client's
   handlers and the request sent again (:func:`~mcpkit.client.mrtr.drive`); a result that
   needed rounds is never cached.
3. **scope**: a call's own ``on_log`` hears the log messages of its response stream
   (:func:`~mcpkit.client.request_scope.request_scope`).
4. **envelope** (modern wire): the ``_meta`` envelope, with the log level the call asks
   for and any extra client capabilities (the tasks extension of a task request).
5. **retry**: a failure the :class:`~mcpkit.client.retry.Retry` policy allows is sent
   again after its wait; a URL elicitation error becomes
   :class:`~mcpkit.client.errors.URLElicitationRequired`.
6. **telemetry**: the OpenTelemetry span of the request, when tracing is on.
7. **session**: :meth:`~mcpkit.session.ClientSession.request`.

One :class:`_Call` object carries a request's settings through the stages (no closure is
made per request).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.client.cache import CachePolicy, cached_request
from mcpkit.client.errors import URL_ELICITATION_REQUIRED
from mcpkit.client.mrtr import drive
from mcpkit.client.request_scope import request_scope
from mcpkit.client.retry import RetryEvent
from mcpkit.envelope import CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY
from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.client.client import Client
    from mcpkit.client.modern import ModernWire
    from mcpkit.client.notifications import LogHook
    from mcpkit.session import ClientSession, ProgressCallback
    from mcpkit.timeouts import Timeout

__all__ = ["RequestPipeline"]

logger = logging.getLogger("mcpkit.client")


class RequestPipeline:
    """The stages a request of ``client`` passes (see the module docstring)."""

    __slots__ = ("_client",)

    def __init__(self, client: Client) -> None:
        self._client = client

    async def send(
        self,
        method: str,
        params: JSONObject | None,
        timeout: Timeout,
        *,
        on_progress: ProgressCallback | None = None,
        cache: CachePolicy = "use",
        mrtr: bool = True,
        on_log: LogHook | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> Any:
        """Send ``method`` through every stage and return the raw result.

        ``extensions`` are added to the client capabilities of this request's envelope
        (modern wire only)."""
        client = self._client
        call = _Call(client, timeout, on_progress, on_log, mrtr, extensions)
        wire = call.wire
        if wire is None:
            return await call.scoped(method, params)
        store = client._cache
        if store is None or (params is not None and "cursor" in params):
            return await call.rounds(method, params or {})
        stale_marks = client._stale
        if stale_marks:
            uri = (params or {}).get("uri") if method == "resources/read" else None
            for stale in ((method, None), (method, uri)):
                if stale in stale_marks:
                    stale_marks.discard(stale)
                    if cache == "use":
                        cache = "refresh"
        return await cached_request(
            store,
            call.rounds,
            method,
            params,
            era=wire.version,
            target=client._cache_target(),
            principal=client._principal,
            policy=cache,
        )


class _Call:
    """One request's way through the stages."""

    __slots__ = (
        "client",
        "extensions",
        "mrtr",
        "on_log",
        "on_progress",
        "sends",
        "session",
        "timeout",
        "wire",
    )

    def __init__(
        self,
        client: Client,
        timeout: Timeout,
        on_progress: ProgressCallback | None,
        on_log: LogHook | None,
        mrtr: bool,
        extensions: Mapping[str, Any] | None,
    ) -> None:
        self.client = client
        self.session: ClientSession = client.session
        self.wire: ModernWire | None = client._wire
        self.timeout = timeout
        self.on_progress = on_progress
        self.on_log = on_log
        self.mrtr = mrtr
        self.extensions = extensions
        self.sends = 0

    # 2. rounds
    async def rounds(self, name: str, body: Mapping[str, Any]) -> Any:
        client = self.client
        result = await drive(
            self.scoped,
            name,
            body,
            client._handlers.input_handlers(self.session),
            max_rounds=client.max_input_rounds,
            return_input_required=not self.mrtr,
        )
        if self.sends > 1 and isinstance(result, dict) and "ttlMs" in result:
            result = {k: v for k, v in result.items() if k != "ttlMs"}  # never cached
        return result

    # 3. scope
    async def scoped(self, name: str, body: JSONObject | None) -> Any:
        self.sends += 1
        if self.on_log is not None:
            with request_scope(self.session, on_log=self.on_log):
                return await self.retried(name, self.enveloped(body))
        return await self.retried(name, self.enveloped(body))

    # 4. envelope
    def enveloped(self, body: JSONObject | None) -> JSONObject | None:
        wire = self.wire
        if wire is None:
            return body
        sent = wire.wrap(body)
        if (self.on_log is not None and wire.log_level is None) or self.extensions:
            meta = dict(sent["_meta"])
            if self.on_log is not None and wire.log_level is None:  # this call hears all
                meta[LOG_LEVEL_KEY] = "debug"
            if self.extensions:
                caps = dict(meta.get(CLIENT_CAPABILITIES_KEY) or {})
                caps["extensions"] = {**dict(caps.get("extensions") or {}), **self.extensions}
                meta[CLIENT_CAPABILITIES_KEY] = caps
            sent["_meta"] = meta
        return sent

    # 5. retry
    async def retried(self, name: str, sent: JSONObject | None) -> Any:
        client = self.client
        retry = client.retry
        attempt = 0
        waited = 0.0
        while True:
            attempt += 1
            try:
                return await self.traced(name, sent)
            except McpError as exc:
                if exc.code == URL_ELICITATION_REQUIRED and exc.from_peer:
                    raise client._url_elicitations.required_error(exc) from None
                if retry is None:
                    raise
                tool = sent.get("name") if name == "tools/call" and sent else None
                decided = retry.delay(
                    exc,
                    name,
                    attempt=attempt,
                    waited=waited,
                    repeatable=isinstance(tool, str) and client._catalogue.repeatable(tool),
                )
                if decided is None:
                    raise
                kind, wait = decided
                event = RetryEvent(name, attempt, kind, wait, exc)
                logger.info(
                    "Retrying %s in %.2fs (attempt %d failed, %s): %s",
                    name,
                    wait,
                    attempt,
                    kind,
                    exc.message,
                )
                if client._telemetry is not None:
                    client._telemetry.retrying(event)
                if retry.on_retry is not None:
                    retry.on_retry(event)
                await asyncio.sleep(wait)
                waited += wait

    # 6. telemetry, 7. session
    async def traced(self, name: str, sent: JSONObject | None) -> Any:
        telemetry = self.client._telemetry
        if telemetry is not None:
            return await telemetry.request(self.client, name, sent, self._bind(name))
        return await self.session.request(
            name, sent, timeout=self.timeout, on_progress=self.on_progress
        )

    def _bind(self, name: str) -> Any:
        session, timeout, on_progress = self.session, self.timeout, self.on_progress

        def request(traced: JSONObject | None) -> Any:
            return session.request(name, traced, timeout=timeout, on_progress=on_progress)

        return request
