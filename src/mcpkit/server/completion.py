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

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mcpkit._models import is_model
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.invoke import UserFunction
from mcpkit.server.offload import WorkerPool
from mcpkit.server.schema import choices_of

if TYPE_CHECKING:
    from mcpkit.server.prompts import PromptRegistry
    from mcpkit.server.resources import ResourceRegistry
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["MAX_VALUES", "CompletionRegistry", "choices_of", "to_completion"]

MAX_VALUES = 100
CompletionHandler = Callable[..., Any]


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
    """Completion handlers keyed by reference and argument name; ``prompts`` and
    ``resources`` are the registries whose arguments it completes (``completion/complete``
    needs them: the reference must exist, and ``Literal``/``Enum`` arguments complete
    without a handler)."""

    def __init__(
        self,
        prompts: PromptRegistry | None = None,
        resources: ResourceRegistry | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        #: The registered functions, by (reference type, prompt or template, argument or None).
        self.functions: dict[tuple[str, str, str | None], UserFunction] = {}
        self.prompts = prompts
        self.resources = resources
        #: Called after each registration (the server finds its handler table again).
        self._on_change = on_change

    @property
    def any(self) -> bool:
        """True when some handler is registered."""
        return bool(self.functions)

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
            key = ("ref/prompt", prompt, argument)
        else:
            assert resource_template is not None
            key = ("ref/resource", resource_template, argument)
        self.functions[key] = UserFunction(fn)
        if self._on_change is not None:
            self._on_change()

    async def complete(
        self,
        kind: str,
        target: str,
        argument: str,
        value: str,
        arguments: dict[str, str],
        fallback: list[str] | None,
        workers: WorkerPool | None = None,
    ) -> JSONObject:
        """Run the handler for one completion request (a sync one in ``workers``, else in a
        pool of its own started for the call)."""
        functions = self.functions
        fn = functions.get((kind, target, argument)) or functions.get((kind, target, None))
        if fn is None:
            if fallback is None:
                return {"values": [], "total": 0, "hasMore": False}
            return to_completion([c for c in fallback if c.startswith(value)])
        params = inspect.signature(fn.fn).parameters
        if len(params) >= 3:
            args: tuple[Any, ...] = (argument, value, arguments)
        elif len(params) == 2:
            args = (value, arguments)
        else:
            args = (value,)
        if workers is not None:
            return to_completion(await fn.call(workers, *args))
        own = WorkerPool(1, "mcpkit-completion")
        try:
            return to_completion(await fn.call(own, *args))
        finally:
            own.shutdown()

    def handlers(self) -> dict[str, ServerHandler]:
        """``completion/complete``, by method."""
        return {"completion/complete": self.handle_complete}

    async def handle_complete(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``completion/complete``: -32602 for an unknown prompt or template."""
        kind, target, argument, value, arguments = parse_request(params)
        if kind == "ref/prompt":
            prompt = self.prompts.prompts.get(target) if self.prompts is not None else None
            if prompt is None:
                raise McpError(INVALID_PARAMS, f"Unknown prompt: {target}")
            fallback = prompt.signature.choices(argument)
        else:
            resources = self.resources
            entry = (
                resources.templates.get(target) or resources.resources.get(target)
                if resources is not None
                else None
            )
            if entry is None:
                raise McpError(INVALID_PARAMS, f"Unknown resource template: {target}")
            fallback = entry.signature.choices(argument)
        completion = await self.complete(
            kind, target, argument, value, arguments, fallback, rctx.workers
        )
        return {"completion": completion}


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
