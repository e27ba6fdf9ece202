"""Completion: argument suggestions for prompts and resource templates.

``@app.completion(prompt="name", argument="arg")`` or
``@app.completion(resource_template="x://{var}", argument="var")`` registers a handler
``fn(value: str, arguments: dict[str, str]) -> list[str]`` (async or sync; ``arguments`` are
the already resolved ``context.arguments``, optional in the signature). Handlers may return
a list of strings or a dict with ``values``/``total``/``hasMore``. At most 100 values are
sent; ``total`` and ``hasMore`` say how many there were. Arguments typed ``Literal`` or an
``Enum`` complete by prefix without a handler.
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, get_args, get_origin

from mcpkit._models import is_model
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["MAX_VALUES", "CompletionRegistry", "choices_of", "to_completion"]

MAX_VALUES = 100
CompletionHandler = Callable[..., Any]


def choices_of(model: type[BaseModel] | None, field_alias: str) -> list[str] | None:
    """The fixed choices of a ``Literal`` / ``Enum`` field of ``model``, if it has them."""
    if model is None:
        return None
    for name, info in model.model_fields.items():
        if (info.alias or name) != field_alias:
            continue
        tp = info.annotation
        origin = get_origin(tp)
        if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
            args = [a for a in get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            origin = get_origin(tp)
        if origin is typing.Literal:
            return [str(a) for a in get_args(tp)]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return [str(m.value) for m in tp]
    return None


def to_completion(value: Any) -> JSONObject:
    """The ``completion`` object for a handler's return value (capped at 100 values)."""
    if is_model(value):
        value = value.model_dump(by_alias=True, exclude_none=True)
    if isinstance(value, dict):
        values = [str(v) for v in value.get("values", [])]
        total = value.get("total")
        has_more = value.get("hasMore", value.get("has_more"))
    else:
        values = [str(v) for v in (value or [])] if isinstance(value, Iterable) else []
        total = None
        has_more = None
    completion: JSONObject = {"values": values[:MAX_VALUES]}
    if total is None:
        total = len(values)
    completion["total"] = int(total)
    completion["hasMore"] = bool(has_more) if has_more is not None else len(values) > MAX_VALUES
    return completion


class CompletionRegistry:
    """Completion handlers keyed by reference and argument name."""

    def __init__(self) -> None:
        self.handlers: dict[tuple[str, str, str | None], CompletionHandler] = {}

    @property
    def any(self) -> bool:
        """True when some handler is registered."""
        return bool(self.handlers)

    def add(
        self,
        fn: CompletionHandler,
        *,
        prompt: str | None = None,
        resource_template: str | None = None,
        argument: str | None = None,
    ) -> None:
        """Register ``fn`` for one argument (or all arguments when ``argument`` is None)."""
        if (prompt is None) == (resource_template is None):
            raise ValueError("completion(): give exactly one of prompt= or resource_template=")
        if prompt is not None:
            self.handlers[("ref/prompt", prompt, argument)] = fn
        elif resource_template is not None:
            self.handlers[("ref/resource", resource_template, argument)] = fn

    async def complete(
        self,
        kind: str,
        target: str,
        argument: str,
        value: str,
        arguments: dict[str, str],
        fallback: list[str] | None,
    ) -> JSONObject:
        """Run the handler for one completion request."""
        fn = self.handlers.get((kind, target, argument)) or self.handlers.get((kind, target, None))
        if fn is None:
            if fallback is None:
                return {"values": [], "total": 0, "hasMore": False}
            return to_completion([c for c in fallback if c.startswith(value)])
        params = inspect.signature(fn).parameters
        if len(params) >= 3:
            outcome = fn(argument, value, arguments)
        elif len(params) == 2:
            outcome = fn(value, arguments)
        else:
            outcome = fn(value)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return to_completion(outcome)


def parse_request(params: JSONObject | None) -> tuple[str, str, str, str, dict[str, str]]:
    """(ref type, prompt name or template URI, argument name, value, context arguments)."""
    if type(params) is not dict:
        raise McpError(INVALID_PARAMS, "completion/complete: params must be an object")
    ref = params.get("ref")
    arg = params.get("argument")
    if type(ref) is not dict or ref.get("type") not in ("ref/prompt", "ref/resource"):
        raise McpError(
            INVALID_PARAMS, "completion/complete: 'ref' must be a prompt or resource reference"
        )
    kind = ref["type"]
    target = ref.get("name") if kind == "ref/prompt" else ref.get("uri")
    if type(target) is not str:
        raise McpError(
            INVALID_PARAMS,
            f"completion/complete: ref.{'name' if kind == 'ref/prompt' else 'uri'} "
            "must be a string",
        )
    if (
        type(arg) is not dict
        or type(arg.get("name")) is not str
        or type(arg.get("value")) is not str
    ):
        raise McpError(
            INVALID_PARAMS, "completion/complete: 'argument' needs string 'name' and 'value'"
        )
    context = params.get("context")
    arguments: dict[str, str] = {}
    if context is not None:
        if type(context) is not dict:
            raise McpError(INVALID_PARAMS, "completion/complete: 'context' must be an object")
        raw = context.get("arguments") or {}
        if type(raw) is not dict or not all(type(v) is str for v in raw.values()):
            raise McpError(INVALID_PARAMS, "completion/complete: context.arguments must be strings")
        arguments = raw
    return kind, target, arg["name"], arg["value"], arguments
