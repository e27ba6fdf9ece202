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
  logs to the forwarded request they belong to.

Log messages relate to the forwarded request on whose response stream they came (an
upstream over Streamable HTTP: each request has its own, see
:mod:`mcpkit.client.request_scope`), so overlapping requests on one connection each get
their own; over stdio, one channel for all, they go to the latest request in flight.

:func:`upstream_client` makes the client: it declares to the upstream the client
capabilities the downstream side has (all of them when it serves many clients) and answers
with handlers that forward through the link.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.client.request_scope import RequestScope, related_scope, request_scope
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.client.client import Era
    from mcpkit.proxy.rounds import ParkedCall
    from mcpkit.proxy.tasks import TaskQuestions
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
        traits: set[str] | None = None,
        task_questions: TaskQuestions | None = None,
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
        #: The connection's client (set by :func:`upstream_client`).
        self.client: Client | None = None
        #: The roots the 2026-07-28 client served last answered here (``roots/list``
        #: asked while no call leases the connection gets them).
        self.roots: JSONObject | None = None
        #: What the upstream server was seen doing, shared by its connections:
        #: ``"keeps_roots"`` once it asked ``roots/list`` with no call to ask (a server that
        #: fetches the roots on its own, after initialize, and keeps them).
        self.traits: set[str] = traits if traits is not None else set()
        self._roots_answered: asyncio.Event | None = None
        #: The questions of handshake-era tasks created for 2026-07-28 clients.
        self.task_questions = task_questions

    def current(self) -> ServerRequestContext | None:
        """The latest downstream request in flight here."""
        return self.in_flight[-1] if self.in_flight else None

    def scope_for(self, rctx: ServerRequestContext) -> RequestScope | None:
        """The scope to forward one request of ``rctx`` in (``with scope: ...``): what the
        upstream sends on that request's own response stream is related to ``rctx``."""
        client = self.client
        if client is None or not client.connected:
            return None
        return request_scope(client.session, related=rctx)

    def related(self) -> tuple[bool, ServerRequestContext | None]:
        """Whom the upstream notification being handled relates to: the forwarded request
        on whose response stream it came (Streamable HTTP), else, where the transport
        cannot tell (stdio, in memory), the latest request in flight. ``(False, None)``:
        it came on the stream of a request answered since (nobody to give it to)."""
        client = self.client
        scope = related_scope(client.session) if client is not None and client.connected else None
        if scope is None:
            return True, self.current()
        if not scope.open or scope.related not in self.in_flight:
            return False, None
        return True, scope.related

    async def ask(self, method: str, params: JSONObject | None) -> JSONObject:
        """Answer the upstream's ``method`` request by asking the downstream client."""
        questions = self.task_questions
        if questions is not None and self.session is None:
            from mcpkit.proxy.tasks import related_task

            task_id = related_task(params)
            if task_id is not None and questions.knows(task_id):
                return await questions.ask(task_id, method, params)
        call = self.call
        if call is not None:
            answer = await call.ask(method, params)
            if method == "roots/list":
                self.roots = answer
                if self._roots_answered is not None:
                    self._roots_answered.set()
            return answer
        rctx = self.current()
        if rctx is not None and rctx.envelope is None:
            answer = await rctx.request(method, params, timeout=None)
        elif self.session is not None and not self.session.closed:
            await _operating(self.session)  # asked during the client's initialize
            answer = await self.session.request(method, params, timeout=None)
        elif method == "roots/list":
            # Nobody to ask: the roots of the client served last (none before any).
            self.traits.add("keeps_roots")
            return self.roots if self.roots is not None else {"roots": []}
        else:
            raise McpError(
                METHOD_NOT_FOUND,
                f"No client is waiting on this server now: {method!r} cannot be answered",
            )
        return answer if isinstance(answer, dict) else {}

    async def refresh_roots(self, wait: float) -> None:
        """Tell the upstream the roots changed (a call of another client leases the
        connection now) and wait, at most ``wait`` seconds, for it to ask them again: its
        ``roots/list`` is then an input request of that call, answered before the call
        goes upstream."""
        client = self.client
        if client is None or not client.connected:
            return
        self._roots_answered = answered = asyncio.Event()
        try:
            with contextlib.suppress(McpError, ConnectionClosed):
                await client.session.notify("notifications/roots/list_changed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await answered.wait()
        finally:
            self._roots_answered = None

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
            _, rctx = self.related()
            if rctx is not None:
                await send_log(rctx, params)

    async def _to_session(
        self, session: AppSession, method: str, params: JSONObject | None
    ) -> None:
        if session.closed:
            return
        related = None
        if method == "notifications/message":
            alive, rctx = self.related()
            if not alive:
                return
            related = rctx.request_id if rctx is not None else None
        with contextlib.suppress(ConnectionClosed, McpError):
            await session.notify(method, params, related_request_id=related)


async def _operating(session: AppSession, wait: float = 10.0) -> None:
    """Until ``session`` is initialized (it may not be asked anything before), at most
    ``wait`` seconds; the request then goes as it is (refused if it is still not)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    # The session sets no event when its client's notifications/initialized arrives.
    while not session.operating and not session.closed and loop.time() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.01)


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
    from mcpkit.client.elicitation import Elicitation
    from mcpkit.client.notifications import ClientHooks
    from mcpkit.client.options import ProtocolOptions
    from mcpkit.client.sampling import Sampling

    caps = dict(capabilities) if capabilities is not None else None
    kwargs: dict[str, Any] = {}
    sampling = caps.get("sampling") if caps is not None else {"tools": {}, "context": {}}
    if isinstance(sampling, dict):

        async def sample(_: Any, ctx: Any) -> Any:
            return await link.ask("sampling/createMessage", ctx.params)

        kwargs["sampling_handler"] = Sampling(
            sample, tools="tools" in sampling, context="context" in sampling
        )
    elicitation = caps.get("elicitation") if caps is not None else {"form": {}, "url": {}}
    if isinstance(elicitation, dict):

        async def elicit(_: Any, ctx: Any) -> Any:
            return await link.ask("elicitation/create", ctx.params)

        modes = [m for m in ("form", "url") if m in elicitation] or ["form"]
        kwargs["elicitation_handler"] = Elicitation(elicit, modes=tuple(modes))
    if caps is None or isinstance(caps.get("roots"), dict):

        async def roots() -> Any:
            answer = await link.ask("roots/list", {})
            listed = answer.get("roots")
            return listed if isinstance(listed, list) else []

        kwargs["roots"] = roots
    # What the upstream asks goes to the link as it is (the typed handlers above only
    # declare the capabilities): the downstream client validates, not the proxy.
    handlers = {
        method: _forwarder(link, method) for method in CAPABILITY_OF if method in _declared(kwargs)
    }
    kwargs.update(
        on_notification=link.notification,
        on_log=_noop,
        # a modern upstream's list changes come on a listen stream
        hooks=ClientHooks(on_list_changed=_noop),
        protocol=ProtocolOptions(request_handlers=handlers),
        era=era,
        cache=False,
        timeout=None,
    )
    if client_info is not None:
        kwargs["client_info"] = dict(client_info)
    kwargs.update(options or {})
    client = Client(target, **kwargs)
    link.client = client
    return client


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
