"""The client's side of the stateless 2026-07-28 wire: the era choice at connect time and
the envelope every modern request carries.

:func:`probe` sends the first modern request (``server/discover``) and turns the answer
into an :class:`~mcpkit.client.era.EraDecision` (:func:`~mcpkit.client.era.decide_http` on
HTTP, where the status of a 4xx answer matters; :func:`~mcpkit.client.era.decide_stdio`
elsewhere). :class:`ModernWire` holds what a modern connection knows: the version, the
``server/discover`` result, the client's capabilities, identity and chosen log level, and
wraps params in the ``_meta`` envelope (:func:`mcpkit.envelope.build_request_meta`).

``ping`` does not exist on the modern wire: :meth:`Client.ping
<mcpkit.client.Client.ping>` sends ``server/discover`` instead (bypassing the response
cache), which any live modern server answers. ``logging/setLevel`` does not exist either:
the level becomes the ``logLevel`` of every later request's envelope.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from mcpkit.client.era import CLIENT_VERSIONS, EraDecision, decide_http, decide_stdio
from mcpkit.envelope import SERVER_INFO_KEY, build_request_meta
from mcpkit.errors import HTTP_ERROR, McpError, RequestTimeout

if TYPE_CHECKING:
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.session import ClientSession
    from mcpkit.transports.http.client import StreamableHTTPClientTransport

__all__ = [
    "MODERN_VERSION",
    "PROBE_TIMEOUT",
    "START_TIMEOUT",
    "ModernWire",
    "ServerNotStarted",
    "probe",
]

#: The stateless revision this client speaks.
MODERN_VERSION: Final = "2026-07-28"
#: Seconds the stdio probe waits, once the server has read it, before taking the silence
#: for a legacy server.
PROBE_TIMEOUT: Final = 10.0
#: Seconds a stdio server may take to start reading its stdin (importing, loading a model)
#: before the client gives up on it.
START_TIMEOUT: Final = 120.0
#: Seconds between two looks at whether a stdio server has read the probe yet.
_POLL: Final = 0.1


@dataclass
class ModernWire:
    """What a modern connection sends with every request and learnt from ``server/discover``."""

    version: str
    capabilities: JSONObject
    client_info: JSONObject
    discover: JSONObject = field(default_factory=dict)
    log_level: str | None = None

    def wrap(self, params: Mapping[str, Any] | None) -> JSONObject:
        """``params`` with the envelope in ``_meta`` (the caller's own ``_meta`` keys kept)."""
        out: JSONObject = dict(params or {})
        extra = out.get("_meta")
        out["_meta"] = build_request_meta(
            self.version,
            self.capabilities,
            self.client_info,
            log_level=self.log_level,
            extra=extra if isinstance(extra, Mapping) else None,
        )
        return out

    @property
    def server_capabilities(self) -> JSONObject:
        """``capabilities`` of the discover result."""
        caps = self.discover.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def server_info(self) -> JSONObject:
        """The server's identity (``_meta`` ``io.modelcontextprotocol/serverInfo``)."""
        meta = self.discover.get("_meta")
        info = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
        if not isinstance(info, dict):  # some servers put it beside the result fields
            info = self.discover.get("serverInfo")
        return info if isinstance(info, dict) else {}

    @property
    def instructions(self) -> str | None:
        """The discover result's ``instructions``."""
        value = self.discover.get("instructions")
        return value if isinstance(value, str) else None


async def probe(
    session: ClientSession,
    wire: ModernWire,
    *,
    http: StreamableHTTPClientTransport | None,
    retried: bool,
    timeout: float | None,
    unread: Callable[[], int | None] | None = None,
    start_timeout: float | None = START_TIMEOUT,
) -> tuple[EraDecision, Any, McpError | None]:
    """Send ``server/discover`` with ``wire``'s envelope; ``(decision, result, error)``.

    ``result`` is the discover result when the server answered one; ``error`` the
    :class:`~mcpkit.errors.McpError` it answered with (to raise when the decision is
    ``"incompatible"`` or ``"undetermined"``). ``timeout`` runs from when the server has
    read the probe, as ``unread`` (bytes sent but not read yet, see
    :meth:`~mcpkit.transports.stdio.StdioClientTransport.unread_input`) tells; a server
    that reads nothing for ``start_timeout`` seconds raises :class:`ServerNotStarted`."""
    requested = wire.version
    try:
        result = await _discover(session, wire.wrap({}), timeout, unread, start_timeout)
    except RequestTimeout:
        if http is not None:
            raise
        return decide_stdio(None, requested=requested, retried=retried), None, None
    except ServerNotStarted:
        raise
    except McpError as exc:
        response = {"error": {"code": exc.code, "message": exc.message, "data": exc.data}}
        if http is None:
            return decide_stdio(response, requested=requested, retried=retried), None, exc
        status = http.last_error_status
        http.last_error_status = None
        if exc.code == HTTP_ERROR and isinstance(exc.data, dict) and status is None:
            code = exc.data.get("status")
            decision = decide_http(
                code if isinstance(code, int) else 500,
                None,
                method="server/discover",
                requested=requested,
                retried=retried,
            )
            return decision, None, exc
        decision = decide_http(
            status or 400,
            response,
            method="server/discover",
            requested=requested,
            supported=CLIENT_VERSIONS,
            retried=retried,
        )
        return decision, None, exc
    answer = {"result": result}
    if http is None:
        return decide_stdio(answer, requested=requested, retried=retried), result, None
    decision = decide_http(
        200, answer, method="server/discover", requested=requested, retried=retried
    )
    return decision, result, None


class ServerNotStarted(McpError):
    """A stdio server read nothing of its stdin in time (it is still starting, or hung)."""

    def __init__(self, waited: float) -> None:
        super().__init__(
            -32001,
            f"The server has not started reading its input after {waited:g}s "
            "(still loading? give it longer with start_timeout=...)",
        )


async def _discover(
    session: ClientSession,
    params: JSONObject,
    timeout: float | None,
    unread: Callable[[], int | None] | None,
    start_timeout: float | None,
) -> Any:
    """The ``server/discover`` request, its ``timeout`` counted from when it was read."""
    if timeout is None or unread is None or unread() is None:
        return await session.request("server/discover", params, timeout=timeout)
    loop = asyncio.get_running_loop()
    started = read_at = loop.time()
    ask = asyncio.ensure_future(session.request("server/discover", params, timeout=None))
    try:
        while True:
            done, _ = await asyncio.wait((ask,), timeout=_POLL)
            if done:
                return ask.result()
            now = loop.time()
            if unread():  # not read yet: the server is still starting
                read_at = now
                if start_timeout is not None and now - started >= start_timeout:
                    raise ServerNotStarted(start_timeout)
            elif now - read_at >= timeout:
                raise RequestTimeout("server/discover", timeout)
    finally:
        if not ask.done():
            ask.cancel()  # sends notifications/cancelled
            await asyncio.gather(ask, return_exceptions=True)
