"""``prompts/get`` of an ``MCPServer`` answered as the SDK answers it: a required argument
missing is code 0 ``Missing required arguments: {...}`` (1.x and 2.x); an unknown prompt code
0 ``Unknown prompt: <name>``; an argument the function refuses is code 0 ``Error rendering
prompt <name>`` (2.x), or that text followed by pydantic's validation error of the
function's arguments (1.x, whose prompts are wrapped in ``pydantic.validate_call``: an
unexpected argument is refused too). On 2026-07-28 2.x answers each of these code 0 failures
-32603 ``Internal server error`` (its modern entry's catch-all), an ``MCPError`` as it is."""

from __future__ import annotations

import inspect
import types
import weakref
from collections.abc import Callable
from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.server.prompts import PromptRegistry

__all__ = ["OfficialPrompts"]


class OfficialPrompts(PromptRegistry):
    """A prompt registry answering as ``MCPServer`` does (set on the native server's
    registry by swapping its class)."""

    #: Whether a refused argument is answered ``Error rendering prompt <name>`` (2.x).
    render_failure: bool = False
    #: Whether arguments are checked as 1.x checks them (``pydantic.validate_call``), a
    #: refusal answered with pydantic's text.
    validate_call_text: bool = False

    async def get(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """The ``prompts/get`` result, its failures as the SDK answers them on the
        request's era."""
        try:
            return await self._get(params, rctx)
        except McpError as exc:
            if exc.code == 0 and self.render_failure and rctx.envelope is not None:
                # 2.x on 2026-07-28: what its handshake-era dispatcher answers with code 0
                # (any exception but an MCPError) is its modern entry's internal error.
                raise McpError(INTERNAL_ERROR, "Internal server error") from exc
            raise

    async def _get(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        name = params.get("name") if type(params) is dict else None
        entry = self.prompts.get(name) if type(name) is str else None
        if entry is None or params is None:
            try:
                return await super().get(params, rctx)
            except McpError as exc:
                if exc.code == INVALID_PARAMS and exc.message == f"Unknown prompt: {name}":
                    raise McpError(0, exc.message) from None  # the SDK's ValueError
                raise
        given = params.get("arguments")
        required = {a["name"] for a in entry.definition.get("arguments") or () if a.get("required")}
        missing = required - set(given if type(given) is dict else ())
        if missing:
            raise McpError(0, f"Missing required arguments: {missing}")
        if self.validate_call_text:
            _check_as_v1(entry.function.fn, entry.signature.context_param, str(name), given)
        try:
            return await super().get(params, rctx)
        except McpError as exc:
            refused = exc.__cause__ is None and exc.message.startswith(
                f"Invalid arguments for prompt '{name}'"
            )
            if refused and self.render_failure:
                raise McpError(0, f"Error rendering prompt {name}") from None
            raise


#: Each prompt function's 1.x argument check, by function (see :func:`_checker`).
_checkers: weakref.WeakKeyDictionary[Callable[..., Any], Callable[..., Any] | None] = (
    weakref.WeakKeyDictionary()
)


def _check_as_v1(fn: Callable[..., Any], context: str | None, name: str, given: Any) -> None:
    """Code 0 ``Error rendering prompt <name>: <pydantic's text>`` when ``validate_call``
    of ``fn`` refuses the arguments ``given`` (the function itself is not called)."""
    from pydantic import ValidationError

    try:
        check = _checkers[fn]
    except KeyError:
        check = _checkers[fn] = _checker(fn, context)
    if check is None or (given is not None and type(given) is not dict):
        return
    try:
        check(**(given or {}))
    except ValidationError as exc:
        raise McpError(0, f"Error rendering prompt {name}: {exc}") from None


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def _checker(fn: Callable[..., Any], context: str | None) -> Callable[..., Any] | None:
    """``pydantic.validate_call`` of a stand-in with ``fn``'s name, signature (its context
    parameter left out: the SDK fills it in) and annotations, which does nothing when the
    arguments validate; None for a callable that is not a plain function or method."""
    from pydantic import validate_call

    target = getattr(fn, "__func__", fn)
    if not isinstance(target, types.FunctionType):
        return None
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    stand_in = types.FunctionType(_noop.__code__, target.__globals__, target.__name__)
    stand_in.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for p in signature.parameters.values() if p.name != context]
    )
    stand_in.__qualname__ = target.__qualname__
    stand_in.__module__ = target.__module__
    stand_in.__annotations__ = {
        k: v for k, v in target.__annotations__.items() if k not in (context, "self")
    }
    try:
        return validate_call(stand_in)
    except Exception:  # an annotation pydantic cannot check: mcpkit's own check stands
        return None
