"""What a :class:`~mcpkit.Client` answers the server, and the capabilities that declares.

A client declares exactly the capabilities it has handlers for: ``sampling`` (a sampling
handler, with its ``tools``/``context`` settings), ``elicitation`` (an elicitation handler
and its modes), ``roots`` (a list or a callable), ``tasks`` (a receiver running sampling
and elicitation as tasks) and the ``extensions`` it was given. :class:`ClientHandlers`
holds them, installs them on each session (handshake era: as request handlers) and hands
them to the MRTR rounds of the 2026-07-28 wire (:meth:`ClientHandlers.input_handlers`).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.client.elicitation import (
    Elicitation,
    ElicitationHandler,
    elicitation_capability,
    elicitation_modes,
    serve_elicitation,
)
from mcpkit.client.roots import RootsSource, check_roots, serve_roots
from mcpkit.client.sampling import Sampling, SamplingHandler, sampling_capability, serve_sampling
from mcpkit.client.tasks import make_receiver, serve_as_task, tasks_capability, tasks_only
from mcpkit.errors import McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject
from mcpkit.session import ClientSession, RequestContext

if TYPE_CHECKING:
    from mcpkit.client.mrtr import InputHandler
    from mcpkit.client.url_elicitation import UrlElicitations
    from mcpkit.tasks import TaskReceiver, TaskStore

__all__ = ["ClientHandlers"]

Serve = Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]


class ClientHandlers:
    """The client's sampling, elicitation and roots handlers, its task receiver, its raw
    request handlers and extensions (see the module docstring)."""

    def __init__(
        self,
        *,
        sampling: SamplingHandler | Sampling | None,
        elicitation: ElicitationHandler | Elicitation | None,
        roots: RootsSource | None,
        tasks: bool | TaskStore | TaskReceiver | None,
        url_elicitations: UrlElicitations,
        request_handlers: Mapping[str, Any] | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        debug: bool = False,
    ) -> None:
        tools = context = None
        if isinstance(sampling, Sampling):
            tools, context = sampling.tools, sampling.context
            sampling = sampling.handler
        self.sampling = sampling
        #: The ``sampling`` capability (None: no sampling handler).
        self.sampling_cap = (
            sampling_capability(sampling, tools, context) if sampling is not None else None
        )
        modes = None
        if isinstance(elicitation, Elicitation):
            modes, elicitation = elicitation.modes, elicitation.handler
        self.elicitation = elicitation
        #: The elicitation modes declared (empty: no elicitation handler).
        self.elicitation_modes = (
            elicitation_modes(elicitation, modes) if elicitation is not None else ()
        )
        check_roots(roots)
        self.roots = roots
        #: The receiver running the server's task-augmented requests (``tasks=...``).
        self.task_receiver = make_receiver(tasks, debug)
        if self.task_receiver is not None and sampling is None and not self.elicitation_modes:
            raise ValueError(
                "tasks=... lets the server run sampling and elicitation as tasks: "
                "pass a sampling_handler and/or an elicitation_handler too"
            )
        self.request_handlers = dict(request_handlers or {})
        self.extensions = {k: dict(v) for k, v in (extensions or {}).items()}
        self._url_elicitations = url_elicitations

    def capabilities(self) -> JSONObject:
        """The client capabilities these handlers declare."""
        caps: JSONObject = {}
        if self.sampling_cap is not None:
            caps["sampling"] = self.sampling_cap
        if self.elicitation_modes:
            caps["elicitation"] = elicitation_capability(self.elicitation_modes)
        if self.roots is not None:
            caps["roots"] = {"listChanged": True}
        if self.task_receiver is not None:
            caps["tasks"] = tasks_capability(
                sampling=self.sampling_cap is not None, elicitation=bool(self.elicitation_modes)
            )
        if self.extensions:
            caps["extensions"] = {k: dict(v) for k, v in self.extensions.items()}
        return caps

    def _serves(self) -> dict[str, Serve]:
        serves: dict[str, Serve] = {}
        if self.sampling is not None and self.sampling_cap is not None:
            serves["sampling/createMessage"] = serve_sampling(self.sampling, self.sampling_cap)
        if self.elicitation is not None:
            serves["elicitation/create"] = serve_elicitation(
                self.elicitation, self.elicitation_modes, self._url_elicitations.track
            )
        return serves

    def install(self, session: ClientSession) -> None:
        """Answer the server's requests on ``session`` (the task receiver runs sampling and
        elicitation as tasks when there is one)."""
        receiver = self.task_receiver
        for method, serve in self._serves().items():
            session.set_request_handler(
                method, serve if receiver is None else serve_as_task(receiver, serve)
            )
        if receiver is not None:
            for method, handler in receiver.handlers().items():
                session.set_request_handler(method, tasks_only(handler))
        if self.roots is not None:
            session.set_request_handler("roots/list", serve_roots(lambda: self.roots))

    def install_raw(self, session: ClientSession) -> None:
        """The raw request handlers, over the typed ones."""
        for method, raw in self.request_handlers.items():
            session.set_request_handler(method, raw)

    def input_handlers(self, session: ClientSession) -> dict[str, InputHandler]:
        """The MRTR input handlers: the sampling, elicitation and roots handlers."""
        serves = self._serves()
        if "elicitation/create" in serves:
            serves["elicitation/create"] = _with_elicitation_id(serves["elicitation/create"])
        if self.roots is not None:
            serves["roots/list"] = serve_roots(lambda: self.roots)
        return {name: _bound(serve, session, name) for name, serve in serves.items()}

    def set_roots(self, roots: RootsSource) -> None:
        """Replace the roots (McpError when the client declared none; ValueError for an
        invalid root, changing nothing)."""
        if self.roots is None:
            raise McpError(
                METHOD_NOT_FOUND,
                "This client did not declare the roots capability; pass roots=[...] "
                "(or a callable) to Client() to offer roots",
            )
        check_roots(roots)
        self.roots = roots


def _with_elicitation_id(serve: Serve) -> Serve:
    """A URL elicitation of an ``InputRequiredResult`` may come without ``elicitationId``
    (2026-07-28): the handler gets a fresh one, as on the handshake wire."""

    async def handle(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        if (
            isinstance(params, dict)
            and params.get("mode") == "url"
            and not isinstance(params.get("elicitationId"), str)
        ):
            params = {**params, "elicitationId": f"input-{secrets.token_hex(8)}"}
        return await serve(params, ctx)

    return handle


def _bound(serve: Serve, session: ClientSession, method: str) -> InputHandler:
    """An MRTR input handler running a session request handler with a context of its own."""
    counter = 0

    async def handle(params: JSONObject | None) -> JSONObject:
        nonlocal counter
        counter += 1
        return await serve(params, RequestContext(session, f"input-{counter}", method, params))

    return handle
