"""The proxy's upstream connections: a :class:`~mcpkit.client.Client` per connection, each
with a :class:`Link` saying whom it serves.

An upstream server talks back while it serves: server-to-client requests (sampling,
elicitation, roots) and notifications (logs, list changes, resource updates, task status).
What becomes of them depends on who the connection serves, which its :class:`Link` knows:

- a handshake-era downstream session of its own (:attr:`Link.session`): everything goes to
  that session, as if the upstream server were its own (logs related to the request being
  forwarded, when there is one);
- one 2026-07-28 request that waits on the upstream's questions (:attr:`Link.call`, a
  :class:`~mcpkit.proxy.rounds.ParkedCall`): requests become that call's MRTR input
  requests, logs follow the call's current round;
- everyone (the shared connection): list changes and resource updates go to the proxy's
  notification bus (hence to every session and ``subscriptions/listen`` stream that asked),
  logs to the forwarded request in flight.

:func:`upstream_client` makes the client: it declares to the upstream the client
capabilities the downstream side has (all of them when it serves many clients) and answers
with handlers that forward through the link.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.client.client import Era
    from mcpkit.proxy.rounds import ParkedCall
    from mcpkit.server.session import AppSession, ServerRequestContext
    from mcpkit.session import RequestContext

__all__ = ["CAPABILITY_OF", "Link", "upstream_client"]

#: The client capability each server-to-client request needs.
CAPABILITY_OF: Mapping[str, str] = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}
_LIST_KINDS: Mapping[str, str] = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
#: Notifications the session engine already handled (progress goes to the forwarded
#: request's callback, cancellation cancels the handler answering the upstream).
_ENGINE_NOTIFICATIONS = frozenset({"notifications/progress", "notifications/cancelled"})


class Link:
    """Whom one upstream connection serves (see the module docstring)."""

    def __init__(
        self,
        *,
        publish_list_changed: Callable[[str], None],
        publish_resource_updated: Callable[[str], None],
        session: AppSession | None = None,
        shared: bool = False,
    ) -> None:
        #: The shared connection: its list changes and resource updates go to the bus.
        self.shared = shared
        self._publish_list_changed = publish_list_changed
        self._publish_resource_updated = publish_resource_updated
        #: The downstream session this connection belongs to (a handshake-era one).
        self.session = session
        #: The 2026-07-28 call leasing this connection, while one does.
        self.call: ParkedCall | None = None
        #: Downstream requests being forwarded on this connection, oldest first.
        self.in_flight: list[ServerRequestContext] = []

    def current(self) -> ServerRequestContext | None:
        """The latest downstream request in flight here (what logs are related to)."""
        return self.in_flight[-1] if self.in_flight else None

    async def ask(self, method: str, params: JSONObject | None) -> JSONObject:
        """Answer the upstream's ``method`` request by asking the downstream client."""
        call = self.call
        if call is not None:
            return await call.ask(method, params)
        rctx = self.current()
        if rctx is not None and rctx.envelope is None:
            answer = await rctx.request(method, params, timeout=None)
        elif self.session is not None and not self.session.closed:
            answer = await self.session.request(method, params, timeout=None)
        elif method == "roots/list":
            return {"roots": []}  # nobody to ask: no roots
        else:
            raise McpError(
                METHOD_NOT_FOUND,
                f"No client is waiting on this server now: {method!r} cannot be answered",
            )
        return answer if isinstance(answer, dict) else {}

    async def notification(self, method: str, params: JSONObject | None) -> None:
        """Route one notification of the upstream server (the client's ``on_notification``)."""
        if method in _ENGINE_NOTIFICATIONS:
            return
        if self.session is not None:
            await self._to_session(self.session, method, params)
        elif method in _LIST_KINDS:
            if self.shared:
                self._publish_list_changed(_LIST_KINDS[method])
        elif method == "notifications/resources/updated":
            uri = params.get("uri") if isinstance(params, dict) else None
            if self.shared and isinstance(uri, str):
                self._publish_resource_updated(uri)
        elif method == "notifications/message":
            if self.call is not None:
                await self.call.log(params)
                return
            rctx = self.current()
            if rctx is not None:
                await send_log(rctx, params)

    async def _to_session(
        self, session: AppSession, method: str, params: JSONObject | None
    ) -> None:
        if session.closed:
            return
        rctx = self.current()
        related = (
            rctx.request_id if rctx is not None and method == "notifications/message" else None
        )
        with contextlib.suppress(ConnectionClosed, McpError):
            await session.notify(method, params, related_request_id=related)


async def send_log(rctx: ServerRequestContext, params: JSONObject | None) -> None:
    """An upstream ``notifications/message`` to the client of ``rctx``, filtered by what
    that client asked (its session's level, or its request's ``logLevel``)."""
    if not isinstance(params, dict) or not isinstance(params.get("level"), str):
        return
    logger = params.get("logger")
    meta = params.get("_meta")
    with contextlib.suppress(ConnectionClosed, McpError, KeyError):
        await rctx.session.send_log(
            params["level"],
            params.get("data"),
            logger if isinstance(logger, str) else None,
            related_request_id=rctx.request_id,
            meta=meta if isinstance(meta, dict) else None,
            envelope=rctx.envelope,
        )


def _noop(*_: Any) -> None:
    return None


def upstream_client(
    target: Any,
    link: Link,
    *,
    capabilities: Mapping[str, Any] | None = None,
    era: Era = "auto",
    client_info: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Client:
    """A client of ``target`` whose server-to-client requests and notifications go through
    ``link``. ``capabilities``: the downstream client's (declared to the upstream as they
    are: sampling with its tools/context, elicitation with its modes, roots); None declares
    them all (a connection serving many clients, each request checked on its own).
    ``options`` go to :class:`~mcpkit.client.Client` as they are."""
    from mcpkit.client import Client

    caps = dict(capabilities) if capabilities is not None else None
    kwargs: dict[str, Any] = {}
    sampling = caps.get("sampling") if caps is not None else {"tools": {}, "context": {}}
    if isinstance(sampling, dict):

        async def sample(_: Any, ctx: Any) -> Any:
            return await link.ask("sampling/createMessage", ctx.params)

        kwargs["sampling_handler"] = sample
        kwargs["sampling_tools"] = "tools" in sampling
        kwargs["sampling_context"] = "context" in sampling
    elicitation = caps.get("elicitation") if caps is not None else {"form": {}, "url": {}}
    if isinstance(elicitation, dict):

        async def elicit(_: Any, ctx: Any) -> Any:
            return await link.ask("elicitation/create", ctx.params)

        modes = [m for m in ("form", "url") if m in elicitation] or ["form"]
        kwargs["elicitation_handler"] = elicit
        kwargs["elicitation_modes"] = tuple(modes)
    if caps is None or isinstance(caps.get("roots"), dict):

        async def roots() -> Any:
            answer = await link.ask("roots/list", {})
            listed = answer.get("roots")
            return listed if isinstance(listed, list) else []

        kwargs["roots"] = roots
    # What the upstream asks goes to the link as it is (the typed handlers above only
    # declare the capabilities): the downstream client validates, not the proxy.
    kwargs["request_handlers"] = {
        method: _forwarder(link, method) for method in CAPABILITY_OF if method in _declared(kwargs)
    }
    kwargs.update(
        on_notification=link.notification,
        on_log=_noop,
        on_list_changed=_noop,  # a modern upstream's list changes come on a listen stream
        era=era,
        cache=False,
        timeout=None,
    )
    if client_info is not None:
        kwargs["client_info"] = dict(client_info)
    kwargs.update(options or {})
    return Client(target, **kwargs)


def _declared(kwargs: Mapping[str, Any]) -> set[str]:
    out = set()
    if "sampling_handler" in kwargs:
        out.add("sampling/createMessage")
    if "elicitation_handler" in kwargs:
        out.add("elicitation/create")
    if "roots" in kwargs:
        out.add("roots/list")
    return out


def _forwarder(
    link: Link, method: str
) -> Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]:
    async def forward(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        return await link.ask(method, params)

    return forward
