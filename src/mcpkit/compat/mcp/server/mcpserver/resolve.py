"""2.x's resolver dependencies on mcpkit: a tool parameter annotated
``Annotated[T, Resolve(fn)]`` is filled by running ``fn`` before the tool (not from the
client's arguments, and left out of the input schema). A resolver takes tool arguments by
name, the ``Context``, and other ``Resolve`` dependencies (each run once per call); it
returns the value, or a request: ``Elicit(message, Model)`` (asks the user with
``ctx.elicit``), ``Sample(messages, max_tokens=...)`` (``sampling/createMessage``) or
``ListRoots()``. The consumer gets the accepted value (a decline or cancel fails the call
as the SDK does), or the whole outcome when it annotates ``ElicitationResult[T]``.

mcpkit's ``ctx.elicit``, ``ctx.sample`` and ``ctx.list_roots`` carry the requests: on the
handshake era as requests during the call, on 2026-07-28 as mcpkit's input rounds.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, Generic, Literal, TypeVar

from mcpkit.compat._adapt import resolved_hints

__all__ = [
    "AcceptedElicitation",
    "CancelledElicitation",
    "DeclinedElicitation",
    "Elicit",
    "ListRoots",
    "Resolve",
    "Sample",
    "with_resolvers",
]

T = TypeVar("T")

#: The parameter a resolving tool receives its context on, when it takes none itself.
_CONTEXT_PARAMETER = "mcp_resolver_context"


class Resolve:
    """Marker for ``Annotated[T, Resolve(fn)]``: fill the parameter by running ``fn``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn


class Elicit(Generic[T]):
    """A resolver's request to ask the user (``ctx.elicit(message, schema)``)."""

    def __init__(self, message: str, schema: type[T]) -> None:
        self.message = message
        self.schema = schema


class Sample:
    """A resolver's request to sample the client's LLM (``sampling/createMessage``)."""

    def __init__(self, messages: list[Any], *, max_tokens: int, **options: Any) -> None:
        self.messages = messages
        self.max_tokens = max_tokens
        self.options = options


class ListRoots:
    """A resolver's request for the client's roots (a ``ListRootsResult``)."""


@dataclasses.dataclass
class AcceptedElicitation(Generic[T]):
    """The user accepted: ``data`` is the answer."""

    data: T
    action: Literal["accept"] = "accept"


@dataclasses.dataclass
class DeclinedElicitation:
    """The user declined."""

    action: Literal["decline"] = "decline"


@dataclasses.dataclass
class CancelledElicitation:
    """The user cancelled."""

    action: Literal["cancel"] = "cancel"


_OUTCOMES = frozenset(
    {"ElicitationResult", "AcceptedElicitation", "DeclinedElicitation", "CancelledElicitation"}
)


def _marker(hint: Any) -> tuple[Resolve, bool] | None:
    """The ``Resolve`` of an ``Annotated`` hint and whether its consumer wants the outcome."""
    if typing.get_origin(hint) is not typing.Annotated:
        return None
    base, *extras = typing.get_args(hint)
    for extra in extras:
        if isinstance(extra, Resolve):
            return extra, _wants_outcome(base)
    return None


def _wants_outcome(base: Any) -> bool:
    args = typing.get_args(base)
    if type(base).__name__ in ("UnionType", "_UnionGenericAlias") or (
        typing.get_origin(base) is typing.Union
    ):
        return any(_wants_outcome(arg) for arg in args)
    origin = typing.get_origin(base) or base
    return getattr(origin, "__name__", "") in _OUTCOMES


def _tool_error(message: str) -> Exception:
    from mcpkit.compat.mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def _unwrap(outcome: Any, name: str) -> Any:
    if isinstance(outcome, AcceptedElicitation):
        return outcome.data
    raise _tool_error(
        f"Resolver for parameter {name!r} could not resolve: elicitation was {outcome.action}"
    )


def _key(fn: Callable[..., Any]) -> str:
    """How the SDK names a resolver in its errors: ``module:qualname``."""
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{module}:{qualname}"


async def _fulfil(request: Any, ctx: Any, fn: Callable[..., Any]) -> Any:
    """A resolver's request carried by the context: its outcome (an answer the schema
    refuses is the SDK's ``ToolError`` naming the resolver)."""
    if isinstance(request, Elicit):
        try:
            answer = await ctx.elicit(request.message, request.schema)
        except ValueError as exc:
            from pydantic import ValidationError

            detail = (
                "received an invalid elicitation response"
                if isinstance(exc, ValidationError)
                else str(exc)
            )
            raise _tool_error(f"Resolver {_key(fn)!r}: {detail}") from exc
        if answer.action == "accept":
            return AcceptedElicitation(answer.data)
        return DeclinedElicitation() if answer.action == "decline" else CancelledElicitation()
    if isinstance(request, Sample):
        return AcceptedElicitation(
            await ctx.session.create_message(
                request.messages, max_tokens=request.max_tokens, **request.options
            )
        )
    return AcceptedElicitation(await ctx.session.list_roots())


class _Call:
    """The resolvers of one tool call, each run once."""

    def __init__(self, arguments: dict[str, Any], ctx: Any) -> None:
        self.arguments = arguments
        self.ctx = ctx
        self.done: dict[Any, Any] = {}

    async def outcome(self, fn: Callable[..., Any], context_cls: type) -> Any:
        key = getattr(fn, "__func__", fn)
        if key in self.done:
            return self.done[key]
        hints = resolved_hints(fn)
        kwargs: dict[str, Any] = {}
        for name in inspect.signature(fn).parameters:
            hint = hints.get(name)
            marker = _marker(hint)
            if marker is not None:
                dependency = await self.outcome(marker[0].fn, context_cls)
                kwargs[name] = dependency if marker[1] else _unwrap(dependency, name)
            elif _is_context(hint, context_cls):
                kwargs[name] = self.ctx
            else:
                kwargs[name] = self.arguments[name]
        value = fn(**kwargs)
        if inspect.isawaitable(value):
            value = await value
        if isinstance(value, Elicit | Sample | ListRoots):
            value = await _fulfil(value, self.ctx, fn)
        else:
            value = AcceptedElicitation(value)
        self.done[key] = value
        return value


def _is_context(hint: Any, context_cls: type) -> bool:
    origin = typing.get_origin(hint) or hint
    return isinstance(origin, type) and issubclass(origin, context_cls)


def with_resolvers(fn: Callable[..., Any], context_cls: type) -> Callable[..., Any]:
    """``fn`` with its ``Resolve`` parameters filled before it runs and left out of its
    signature (``fn`` itself when it has none); the wrapper takes a ``context_cls``
    parameter for the resolvers."""
    hints = resolved_hints(fn)
    sig = inspect.signature(fn)
    resolved = {name: m for name in sig.parameters if (m := _marker(hints.get(name))) is not None}
    if not resolved:
        return fn
    context = next(
        (name for name in sig.parameters if _is_context(hints.get(name), context_cls)), None
    )
    kept = [
        p.replace(annotation=hints.get(n, p.annotation))
        for n, p in sig.parameters.items()
        if n not in resolved
    ]
    if context is None:
        kept.append(
            inspect.Parameter(
                _CONTEXT_PARAMETER, inspect.Parameter.KEYWORD_ONLY, annotation=context_cls
            )
        )

    async def wrapper(**kwargs: Any) -> Any:
        ctx = kwargs.pop(_CONTEXT_PARAMETER) if context is None else kwargs[context]
        call = _Call(kwargs, ctx)
        for name, (marker, wants_outcome) in resolved.items():
            outcome = await call.outcome(marker.fn, context_cls)
            kwargs[name] = outcome if wants_outcome else _unwrap(outcome, name)
        value = fn(**kwargs)
        return await value if inspect.isawaitable(value) else value

    functools.update_wrapper(wrapper, fn)
    del wrapper.__wrapped__  # type: ignore[attr-defined]  # the signature below is the one
    returns = hints.get("return", sig.return_annotation)
    wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=kept, return_annotation=returns
    )
    wrapper.__annotations__ = {
        p.name: p.annotation for p in kept if p.annotation is not inspect.Parameter.empty
    }
    if returns is not inspect.Parameter.empty:
        wrapper.__annotations__["return"] = returns
    return wrapper
