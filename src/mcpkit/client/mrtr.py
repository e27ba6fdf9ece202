"""The client side of multi round-trip requests (MRTR, 2026-07-28 basic/patterns/mrtr).

On the stateless wire a server never sends the client a request; when it needs input (an
elicitation, a sampling, the roots) it answers ``tools/call``, ``prompts/get`` or
``resources/read`` with an ``InputRequiredResult``::

    {"resultType": "input_required",
     "inputRequests": {"<key>": {"method": "elicitation/create", "params": {...}}, ...},
     "requestState": "<opaque>"}

The client fulfils every input request (here concurrently), then sends the same method
again as a new request (a new JSON-RPC id) with ``inputResponses`` keyed like
``inputRequests`` and ``requestState`` echoed byte for byte, omitted when the server sent
none. A result without ``resultType`` (or with any other value) is complete.

:func:`drive` runs that loop around any request sender, independent of
:class:`~mcpkit.client.Client`; :func:`bind_context` adapts the client's session handlers
for elicitation, sampling and roots (:func:`~mcpkit.client.elicitation.serve_elicitation`,
:func:`~mcpkit.client.sampling.serve_sampling`, :func:`~mcpkit.client.roots.serve_roots`,
which take ``(params, ctx)``) into the one-argument :data:`InputHandler` the loop calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mcpkit.client.errors import InvalidServerResponse
from mcpkit.errors import McpkitError

if TYPE_CHECKING:
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.session import RequestContext

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "INPUT_METHODS",
    "InputHandler",
    "InputRoundsExceeded",
    "MrtrError",
    "RequestSender",
    "UnsupportedInputRequest",
    "bind_context",
    "drive",
    "fulfil",
    "is_input_required",
    "retry_params",
]

#: Input-required rounds :func:`drive` answers before giving up.
DEFAULT_MAX_ROUNDS: Final = 8
#: The requests a server may put in ``inputRequests``.
INPUT_METHODS: Final = ("elicitation/create", "sampling/createMessage", "roots/list")

#: Sends one request (``method``, ``params``) as a new JSON-RPC request — a fresh id on every
#: call — and returns its result object; a JSON-RPC error raises (e.g. ``McpError``).
RequestSender = Callable[[str, "JSONObject"], Awaitable[Any]]
#: Answers one input request: its ``params`` in, the result object out.
InputHandler = Callable[["JSONObject | None"], Awaitable["JSONObject"]]


class MrtrError(McpkitError):
    """The client could not complete a multi round-trip request."""


class InputRoundsExceeded(MrtrError):
    """The server asked for input more often than ``max_rounds`` allows; ``result`` is its
    last ``InputRequiredResult``."""

    def __init__(self, method: str, rounds: int, result: JSONObject) -> None:
        super().__init__(
            f"{method!r} still required input after {rounds} rounds of input responses "
            "(raise max_rounds if the server legitimately needs more)"
        )
        self.method = method
        self.rounds = rounds
        self.result = result


class UnsupportedInputRequest(MrtrError):
    """The server asked for input this client has no handler for."""

    def __init__(self, key: str, method: str) -> None:
        super().__init__(
            f"the server asked for {method!r} (input request {key!r}), which this client "
            "does not handle: give it a handler, or do not declare the capability"
        )
        self.key = key
        self.method = method


def is_input_required(result: Any) -> bool:
    """Whether a result is an ``InputRequiredResult`` (absent ``resultType`` is complete)."""
    return isinstance(result, Mapping) and result.get("resultType") == "input_required"


def retry_params(
    params: Mapping[str, Any], result: Mapping[str, Any], responses: Mapping[str, Any] | None
) -> JSONObject:
    """The params of the retry after ``result`` (an ``InputRequiredResult``): the original
    ``params`` with ``inputResponses`` (when there were input requests) and the result's
    ``requestState`` exactly as sent, or neither key when the server sent none."""
    out = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
    if responses is not None:
        out["inputResponses"] = dict(responses)
    if "requestState" in result:
        out["requestState"] = result["requestState"]
    return out


def _input_requests(method: str, result: Mapping[str, Any]) -> dict[str, tuple[str, Any]] | None:
    """``key -> (method, params)`` of a result's ``inputRequests``; None when absent."""
    raw = result.get("inputRequests")
    if raw is None:
        if "requestState" not in result:
            raise InvalidServerResponse(
                method, "an InputRequiredResult needs inputRequests or requestState"
            )
        return None
    if not isinstance(raw, Mapping):
        raise InvalidServerResponse(method, "inputRequests is not an object")
    state = result.get("requestState")
    if state is not None and not isinstance(state, str):
        raise InvalidServerResponse(method, "requestState is not a string")
    out: dict[str, tuple[str, Any]] = {}
    for key, request in raw.items():
        inner = request.get("method") if isinstance(request, Mapping) else None
        if not isinstance(inner, str):
            raise InvalidServerResponse(method, f"input request {key!r} has no method")
        params = request.get("params")
        if params is not None and not isinstance(params, Mapping):
            raise InvalidServerResponse(method, f"input request {key!r} has non-object params")
        out[str(key)] = (inner, params)
    return out


async def fulfil(
    requests: Mapping[str, tuple[str, Any]], handlers: Mapping[str, InputHandler]
) -> JSONObject:
    """Answer every input request concurrently: ``key -> result``. Raises
    :class:`UnsupportedInputRequest` for a method without handler (before running any), and
    the first handler error (the other handlers are cancelled)."""
    for key, (method, _) in requests.items():
        if method not in handlers:
            raise UnsupportedInputRequest(key, method)
    if not requests:
        return {}
    tasks = {
        key: asyncio.ensure_future(handlers[method](params))
        for key, (method, params) in requests.items()
    }
    try:
        await asyncio.wait(tasks.values(), return_when=asyncio.FIRST_EXCEPTION)
    finally:
        pending = [task for task in tasks.values() if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    for task in tasks.values():
        error = None if task.cancelled() else task.exception()
        if error is not None:
            raise error
    return {key: task.result() for key, task in tasks.items()}


async def drive(
    send: RequestSender,
    method: str,
    params: Mapping[str, Any],
    handlers: Mapping[str, InputHandler],
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    return_input_required: bool = False,
) -> Any:
    """Send ``method`` and answer ``InputRequiredResult`` rounds until a complete result.

    ``handlers`` maps input methods (``elicitation/create``, ``sampling/createMessage``,
    ``roots/list``) to their :data:`InputHandler`. Each retry is a new call of ``send``
    (hence a new request id) with :func:`retry_params`. After ``max_rounds`` answered rounds
    a further ``InputRequiredResult`` raises :class:`InputRoundsExceeded`. With
    ``return_input_required`` the first ``InputRequiredResult`` is returned as it is,
    for callers that run the rounds themselves.
    """
    if max_rounds < 0:
        raise ValueError("max_rounds must be >= 0")
    current: JSONObject = dict(params)
    result = await send(method, current)
    rounds = 0
    while is_input_required(result):
        if return_input_required:
            return result
        if rounds >= max_rounds:
            raise InputRoundsExceeded(method, rounds, result)
        requests = _input_requests(method, result)
        responses = None if requests is None else await fulfil(requests, handlers)
        current = retry_params(current, result, responses)
        rounds += 1
        result = await send(method, current)
    return result


def bind_context(
    serve: Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]],
    ctx: RequestContext,
) -> InputHandler:
    """A session request handler (``(params, ctx)``, as the ``serve_*`` functions of
    :mod:`mcpkit.client.elicitation`, :mod:`~mcpkit.client.sampling` and
    :mod:`~mcpkit.client.roots` return) as an :data:`InputHandler` that runs with ``ctx``:
    the context of the client request the input belongs to."""

    async def handle(params: JSONObject | None) -> JSONObject:
        return await serve(params, ctx)

    return handle
