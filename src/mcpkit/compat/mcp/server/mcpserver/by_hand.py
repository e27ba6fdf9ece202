"""An ``InputRequiredResult`` returned by hand from an ``MCPServer`` tool, as 2.x serves it:
the return annotation's ``InputRequiredResult`` member left out of the output schema, the
result sent as an ``input_required`` round on 2026-07-28 (refused with -32603 before, as
2.x refuses it), and the retry's answers and state read as ``ctx.input_responses`` and
``ctx.request_state``.

The state a tool writes is kept in the round's own sealed ``requestState``
(:mod:`mcpkit.server.mrtr`), which the server's :class:`RequestStateBoundary` seals again
as 2.x does, so a tampered token is refused in 2.x's words."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from mcpkit.errors import McpError
from mcpkit.server.mrtr import InputRequired, current_round

__all__ = [
    "STATE_KEY",
    "input_response",
    "input_responses",
    "is_input_required",
    "request_state",
    "returned_by_hand",
    "without_input_required",
]

#: Where a round keeps the state a tool wrote.
STATE_KEY = "mcp.request_state"


def _is_input_required(hint: Any) -> bool:
    from mcpkit.types.modern import InputRequiredResult

    return isinstance(hint, type) and issubclass(hint, InputRequiredResult)


def is_input_required(hint: Any) -> bool:
    """Whether ``hint`` is ``InputRequiredResult`` itself (a subclass of it too)."""
    return _is_input_required(hint)


def without_input_required(hint: Any) -> Any:
    """``hint`` without an ``InputRequiredResult`` member (``str | InputRequiredResult`` is
    ``str``); ``hint`` itself otherwise."""
    if typing.get_origin(hint) not in (typing.Union, types.UnionType):
        return hint
    members = typing.get_args(hint)
    kept = [m for m in members if not _is_input_required(m)]
    if len(kept) == len(members) or not kept:
        return hint
    return kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007


def _as_round(value: Any) -> Any:
    """``value`` when it is not an ``InputRequiredResult``; else the signal that ends the
    attempt with it (refused before 2026-07-28)."""
    from mcpkit.types.modern import InputRequiredResult

    if not isinstance(value, InputRequiredResult):
        return value
    rnd = current_round()
    if rnd is None:
        raise McpError(-32603, "Handler returned an invalid result")
    asked = {
        key: (
            r.model_dump(by_alias=True, exclude_none=True) if hasattr(r, "model_dump") else dict(r)
        )
        for key, r in (value.input_requests or {}).items()
    }
    for request in asked.values():
        request.pop("jsonrpc", None)
        request.pop("id", None)
    if value.request_state is not None:
        rnd.data[STATE_KEY] = value.request_state
    else:
        rnd.data.pop(STATE_KEY, None)
    try:
        state = rnd.sealer.seal(rnd.binding, data=rnd.data, round=rnd.previous_rounds + 1)
    except ValueError as exc:
        raise McpError(-32603, f"Cannot keep the request's state: {exc}") from None
    raise InputRequired(asked or None, state)


def returned_by_hand(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (sync or async) with an ``InputRequiredResult`` it returns served as a round."""
    if inspect.iscoroutinefunction(fn):

        async def acall(*args: Any, **kwargs: Any) -> Any:
            return _as_round(await fn(*args, **kwargs))

        return acall

    def call(*args: Any, **kwargs: Any) -> Any:
        return _as_round(fn(*args, **kwargs))

    return call


def request_state() -> str | None:
    """The state the tool wrote in its previous round (None on a first call)."""
    rnd = current_round()
    if rnd is None:
        return None
    value = rnd.data.get(STATE_KEY)
    return value if isinstance(value, str) else None


def input_responses(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The retry's ``inputResponses``, each answer as its result model (None when absent)."""
    given = (params or {}).get("inputResponses")
    if not isinstance(given, Mapping):
        return None
    return {key: input_response(value) for key, value in given.items()}


def input_response(value: Any) -> Any:
    """One answer of ``inputResponses`` as its result model (by its shape)."""
    if not isinstance(value, dict):
        return value
    import mcpkit.types

    if "action" in value:
        model: Any = mcpkit.types.ElicitResult
    elif "roots" in value:
        model = mcpkit.types.ListRootsResult
    elif "role" in value:
        model = mcpkit.types.CreateMessageResult
    else:
        return value
    try:
        return model.model_validate(value)
    except ValueError:
        return value
