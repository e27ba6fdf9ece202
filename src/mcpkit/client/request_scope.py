"""Which request a notification belongs to, where the transport tells.

On Streamable HTTP every request has a response stream of its own (always on the
2026-07-28 wire; on the handshake era the POST's SSE stream), and what the server sends on
it before the response (``notifications/message``, progress) relates to that request. The
HTTP client transport reads each request's stream in a task started as the request is
sent, so a notification read there is handled in the context the request was sent from.

:func:`request_scope` marks the sending of one request on a client session (with what its
notifications go to: a per-call ``on_log``, or whatever the caller relates to it, such as
the downstream request a proxy forwards); while a notification is handled,
:func:`related_scope` is the scope of the request whose stream it came on. Over stdio and
in memory every message shares one channel: there is no related scope, and a log message
goes to the client's ``on_log`` (a proxy: to the latest request in flight).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpkit.client._util import http_transport

if TYPE_CHECKING:
    from mcpkit.client.notifications import LogHook
    from mcpkit.session import ClientSession

__all__ = ["RequestScope", "related_scope", "request_scope"]


@dataclass(eq=False, slots=True)
class RequestScope:
    """One request sent on ``session``: ``on_log`` gets the log messages of its stream,
    ``related`` is the caller's own (a proxy: the downstream request it forwards); ``open``
    turns false once the request is answered. A context manager: see
    :func:`request_scope`."""

    session: ClientSession
    on_log: LogHook | None = None
    related: Any = None
    open: bool = True
    _token: contextvars.Token[RequestScope | None] | None = None

    def __enter__(self) -> RequestScope:
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.open = False
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None


_CURRENT: contextvars.ContextVar[RequestScope | None] = contextvars.ContextVar(
    "mcpkit_request_scope", default=None
)


def request_scope(
    session: ClientSession, *, on_log: LogHook | None = None, related: Any = None
) -> RequestScope:
    """``with request_scope(session, ...):`` send one request on ``session`` inside the
    block; what arrives on its response stream is related to the scope (see the module
    docstring)."""
    return RequestScope(session, on_log, related)


def related_scope(session: ClientSession) -> RequestScope | None:
    """The scope of the request of ``session`` whose response stream the notification
    being handled came on; None when the transport has no per-request streams (stdio, in
    memory) or the notification came on no request's stream. The scope may be closed: the
    notification came on the stream of a request answered since."""
    scope = _CURRENT.get()
    if scope is None or scope.session is not session:
        return None
    if http_transport(session.transport) is None:
        return None
    return scope
