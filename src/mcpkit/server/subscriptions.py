"""``subscriptions/listen`` (2026-07-28) and the server's side of the notification bus.

Every change a :class:`~mcpkit.server.app.Server` announces is one
:class:`~mcpkit.bus.BusEvent` on its bus (``Server(bus=...)``, a
:class:`~mcpkit.bus.MemoryBus` by default): a registration or removal (the tools, prompts
or resources list changed), :meth:`~mcpkit.server.app.Server.notify_list_changed` (a list
changed for a reason registration does not see), and
:meth:`~mcpkit.server.app.Server.notify_resource_updated`. The server's
:class:`~mcpkit.bus.BusRelay` subscribes to the bus once per process and fans each event
out to

- the handshake-era sessions, by :func:`deliver_to_sessions`: a list change to every
  operating session (dropped when the session cannot carry it), a resource update to the
  sessions that ``resources/subscribe``\\ d to that exact URI;
- the ``subscriptions/listen`` streams open in this process, served by :func:`listen`.

A listen stream sends ``notifications/subscriptions/acknowledged`` first (the subset of
the filter the server honours: the list changes of features declaring ``listChanged``,
resource updates when ``resources`` declares ``subscribe``), then one notification per
matching event (an event for one caller only, such as the list change of its own
``ctx.enable``/``ctx.disable``, goes to the streams of that caller: :func:`audience_of`),
each tagged with ``io.modelcontextprotocol/subscriptionId`` (the listen request's id) and
related to the listen request: on stdio they share the one channel (the
client demultiplexes by the id), on Streamable HTTP they are the listen POST's SSE
response. The request stays open until the client cancels it (``notifications/cancelled``
on stdio, closing the stream on HTTP: no response) or the server ends it (shutdown, or a
listener that fell too far behind): then it answers the closing result
(``resultType: "complete"`` and the subscription id in ``_meta``).

A change reaches most listen streams without waking anything: when the stream's transport
takes encoded frames (:meth:`~mcpkit.transports.http.modern_server.ModernRequestTransport.
push_frame`, a 2026-07-28 POST) and nothing of the stream waits, the relay's turn writes
the notification there and then (:class:`DirectFrames`). The notification is encoded once
per change (:func:`frame_parts`), each stream adding only its subscription id. A stream
that is busy (an event of its own still being written) or held back by a slow reader has
the event queued instead: the listen handler writes it, in order, through its session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.bus import LISTEN_METHOD, BusEvent, event_notification
from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.server.session import Caller, ServerHandler, ServerRequestContext, SessionHolder

__all__ = [
    "LIST_KINDS",
    "DirectFrames",
    "audience",
    "audience_of",
    "deliver_to_sessions",
    "frame_parts",
    "handlers",
    "listen",
]

UPDATED: Final = "notifications/resources/updated"
#: The lists whose changes are announced (``notifications/<kind>/list_changed``).
LIST_KINDS: Final = ("tools", "prompts", "resources")


def handlers() -> dict[str, ServerHandler]:
    """``subscriptions/listen``, by method."""
    return {LISTEN_METHOD: listen}


def audience_of(ctx: Caller) -> str | None:
    """The bus audience of ``ctx``'s caller: a hash of the owner of its state (the
    principal, or the connection over stdio and memory; see
    :func:`mcpkit.server.state.state_owner`), so the owner itself (a session id is a
    credential) never travels on a shared bus. None when the request has no owner."""
    from mcpkit.server.state import StateOwnerMissing, state_owner

    try:
        owner = state_owner(ctx)
    except StateOwnerMissing:
        return None
    return audience(owner)


def audience(owner: str) -> str:
    """The bus audience of the state owner ``owner`` (see :func:`audience_of`)."""
    import hashlib  # not on the import path of a server that never needs it

    return hashlib.blake2b(owner.encode(), digest_size=16).hexdigest()


def deliver_to_sessions(server: SessionHolder, event: BusEvent) -> None:
    """Announce ``event`` to ``server``'s handshake-era sessions (the relay's sink for
    them); modern sessions hear of changes only through their listen streams. An event
    for one caller (``audience``) is for listen streams only: a 2025 session is told of
    its own changes directly."""
    if event.audience is not None:
        return
    for session in list(server.sessions):
        if session.era == "modern":
            continue
        if event.uri is not None:
            if event.uri in session.subscriptions:
                params: JSONObject = {"uri": event.uri}
                session.call_soon(
                    lambda s=session, p=params: s.send_quietly(event.method, p)  # type: ignore[misc]
                )
        elif session.operating:
            session.call_soon(lambda s=session: s.send_quietly(event.method))  # type: ignore[misc]


#: Stands for the subscription id while a notification is encoded (:func:`frame_parts`).
_ID_MARK: Final = "\x00subscription-id\x00"
_ID_MARK_JSON: Final = orjson.dumps(_ID_MARK)
#: The last event encoded and its parts: a change is fanned out to every stream in turn.
_last: tuple[BusEvent | None, tuple[bytes, bytes]] = (None, (b"", b""))


def frame_parts(event: BusEvent) -> tuple[bytes, bytes]:
    """The encoded notification of ``event`` on a listen stream, split where the
    subscription id goes: ``before + orjson.dumps(id) + after`` equals
    ``orjson.dumps(event_notification(id, event))``. Encoded once per change."""
    global _last
    last, parts = _last
    if last is event:
        return parts
    # The id comes first in params (before any uri), so the first mark is the id's.
    before, after = orjson.dumps(event_notification(_ID_MARK, event)).split(_ID_MARK_JSON, 1)
    _last = (event, (before, after))
    return before, after


class DirectFrames:
    """A listen stream's events written straight to its transport's ``push`` (see the
    module docstring): the :attr:`~mcpkit.bus.Subscription.direct` hook of its
    subscription. The updates of resources ``hidden(uri)`` says the client may not see are
    dropped here as on the handler's path."""

    __slots__ = ("_hidden", "_id", "_push")

    def __init__(
        self,
        push: Callable[[bytes], bool],
        subscription_id: str | int,
        hidden: Callable[[str], bool] | None = None,
    ) -> None:
        self._push = push
        self._id = orjson.dumps(subscription_id)
        self._hidden = hidden

    def __call__(self, event: BusEvent) -> bool:
        try:
            uri = event.uri
            if uri is not None and self._hidden is not None and self._hidden(uri):
                return True  # not for this client
            before, after = frame_parts(event)
            return self._push(before + self._id + after)
        except Exception:
            return False  # queued: the handler's path meets (and reports) the same error


def _direct_frames(
    session: Any, subscription_id: str | int, hidden: Callable[[str], bool] | None
) -> DirectFrames | None:
    """The direct path of a listen stream served by ``session``, when its transport takes
    encoded frames and no tracer watches what the session sends; else None."""
    push = getattr(session.transport, "push_frame", None)
    if push is None or getattr(session, "_tracer", None) is not None:
        return None
    return DirectFrames(push, subscription_id, hidden)


async def listen(
    params: JSONObject | None,
    rctx: ServerRequestContext,
    hidden: Callable[[str], bool] | None = None,
) -> JSONObject:
    """``subscriptions/listen``: stream the acknowledgment, then the matching changes,
    until the client cancels (no response) or the server ends the stream (the closing
    result). -32602 when the ``notifications`` filter is missing or malformed. The
    updates of resources ``hidden(uri)`` says this client may not see are left out."""
    server = rctx.server
    envelope = rctx.envelope
    version = envelope.version if envelope is not None else None
    # A server may honour listen filters by other rules than its capabilities (the compat
    # layer's official-SDK servers honour every kind asked for, as the SDK does).
    honours = getattr(server, "listen_capabilities", None) or server.capabilities
    capabilities = honours(version or server.modern_versions[0])
    rid = rctx.request_id
    audience = audience_of(rctx)
    stream = server.relay.open_listen(rid, params, capabilities, audience=audience)
    session = rctx.session
    subscription = stream.subscription
    direct = _direct_frames(session, rid, hidden)
    try:
        async for frame in stream:
            # Busy until the frame is written: events meanwhile queue behind it.
            subscription.direct = None
            if not (
                hidden is not None
                and frame["method"] == UPDATED
                and isinstance(uri := frame["params"].get("uri"), str)
                and hidden(uri)
            ):
                await session.notify(frame["method"], frame["params"], related_request_id=rid)
            subscription.direct = direct
    except ConnectionClosed:
        pass  # the client is gone: nothing to answer
    finally:
        subscription.direct = None
        stream.close()
    return stream.closed_result()
