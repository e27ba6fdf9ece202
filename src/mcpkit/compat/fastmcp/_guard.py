"""fastmcp_tasks' guard pattern on mcpkit: a tool that returns an ``InputRequiredResult``
asks the client its ``inputRequests`` (in a task of the tasks extension, the task's own
``input_required`` answered by ``tasks/update``; in a plain 2026-07-28 call, an MRTR round)
and runs again with the answers on ``ctx.input_responses``."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import operator
import secrets
import typing
from collections.abc import Callable
from types import UnionType
from typing import Any, Union

__all__ = ["guarded", "input_responses", "without_input_required"]

#: The answers the current leg of a guarded tool runs with (None: the first leg).
input_responses: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "fastmcp_input_responses", default=None
)

_KINDS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


def _asks(value: Any) -> dict[str, Any] | None:
    """The input requests of an ``InputRequiredResult`` value (None for any other)."""
    from mcpkit.types.modern import InputRequiredResult

    if isinstance(value, InputRequiredResult) and value.input_requests:
        return dict(value.input_requests)
    return None


def _answer_model(method: str, answer: Any) -> Any:
    import mcpkit.types as t

    model: Any = {
        "elicitation/create": t.ElicitResult,
        "sampling/createMessage": t.CreateMessageResult,
        "roots/list": t.ListRootsResult,
    }[method]
    return model.model_validate(answer)


async def _ask_all(requests: dict[str, Any]) -> dict[str, Any]:
    from mcpkit.server.logging import current_context
    from mcpkit.server.tasks_extension import ModernTaskContext

    native: Any = current_context.get()
    if native is None:
        raise RuntimeError("an InputRequiredResult needs a request to ask through")
    in_task = isinstance(getattr(native, "_rctx", None), ModernTaskContext)

    async def one(key: str, request: dict[str, Any]) -> Any:
        method = request.get("method")
        kind = _KINDS.get(str(method))
        if kind is None:
            raise ValueError(f"input request {key!r}: unknown method {method!r}")
        params = dict(request.get("params") or {})
        if kind == "elicitation" and "requestedSchema" in params:
            params.setdefault("mode", "form")
        # In a task its keys are minted as fastmcp_tasks mints them: "<task id>:<hex>".
        asked = f"{native.task_id}:{secrets.token_hex(8)}" if in_task else key
        answer = await native._ask(kind, params, asked)
        return _answer_model(str(method), answer)

    keys = list(requests)
    answers = await asyncio.gather(*(one(k, requests[k]) for k in keys))
    return dict(zip(keys, answers, strict=True))


def without_input_required(hint: Any) -> Any:
    """A return annotation without its ``InputRequiredResult`` member (fastmcp's output
    schema describes the final result only)."""
    from mcpkit.types.modern import InputRequiredResult

    members = typing.get_args(hint) if typing.get_origin(hint) in (Union, UnionType) else ()
    kept = [m for m in members if not (isinstance(m, type) and issubclass(m, InputRequiredResult))]
    if not members or len(kept) == len(members):
        return hint
    return functools.reduce(operator.or_, kept) if kept else Any


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (async) run again with the answers each time it returns an
    ``InputRequiredResult``."""
    from mcpkit.compat._adapt import resolved_hints

    hints = resolved_hints(fn)

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        token = input_responses.set(None)
        try:
            while True:
                value = await fn(*args, **kwargs)
                requests = _asks(value)
                if requests is None:
                    return value
                input_responses.set(await _ask_all(requests))
        finally:
            input_responses.reset(token)

    if "return" in hints:
        call.__annotations__ = {**hints, "return": without_input_required(hints["return"])}
    return call
