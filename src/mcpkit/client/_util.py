"""Small helpers shared by the client modules."""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

if TYPE_CHECKING:
    from mcpkit.transports.http.client import StreamableHTTPClientTransport

logger = logging.getLogger("mcpkit.client")

T = TypeVar("T", bound=pydantic.BaseModel)


def http_transport(transport: object) -> StreamableHTTPClientTransport | None:
    """``transport`` when it is the HTTP client transport, else None.

    Never imports the HTTP transport (and httpx): an instance exists only once its module
    is loaded, so an install without the HTTP extra still runs stdio and in-memory clients.
    """
    module = sys.modules.get("mcpkit.transports.http.client")
    if module is None:
        return None
    cls: type[StreamableHTTPClientTransport] = module.StreamableHTTPClientTransport
    return transport if isinstance(transport, cls) else None


async def maybe_await(value: Any) -> Any:
    """``await value`` when it is awaitable (handlers may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


def describe(exc: pydantic.ValidationError, limit: int = 5) -> list[str]:
    """Short readable lines for a pydantic validation error."""
    out: list[str] = []
    for err in exc.errors(include_url=False)[:limit]:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        out.append(f"{err.get('msg')} (at '{loc}')" if loc else str(err.get("msg")))
    return out


def parse_params(model: type[T], params: Any, method: str) -> T:
    """Validate incoming request params; bad params answer -32602."""
    try:
        return model.model_validate(params if params is not None else {})
    except pydantic.ValidationError as exc:
        raise McpError(
            INVALID_PARAMS, f"Invalid params for {method}: {'; '.join(describe(exc))}"
        ) from None


def to_result_dict(model: type[T], value: Any, what: str) -> dict[str, Any]:
    """Turn a handler's return value (model or dict) into a wire dict, checked by ``model``."""
    if isinstance(value, model):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, dict):
        try:
            checked = model.model_validate(value)
        except pydantic.ValidationError as exc:
            logger.error("%s returned an invalid result: %s", what, "; ".join(describe(exc)))
            raise McpError(
                INTERNAL_ERROR, f"The client's {what} returned an invalid result"
            ) from None
        return checked.model_dump(by_alias=True, exclude_none=True, mode="json")
    logger.error("%s returned %r, expected a %s or a dict", what, type(value), model.__name__)
    raise McpError(INTERNAL_ERROR, f"The client's {what} returned an invalid result")


def call_hook(hook: Any, *args: Any) -> Awaitable[None] | None:
    """Call a sync-or-async user hook; failures are logged, never raised into the session."""
    try:
        outcome = hook(*args)
    except Exception:
        logger.exception("Client hook %r failed", getattr(hook, "__name__", hook))
        return None
    if inspect.isawaitable(outcome):
        return _guard(outcome, hook)
    return None


async def _guard(awaitable: Awaitable[Any], hook: Any) -> None:
    try:
        await awaitable
    except Exception:
        logger.exception("Client hook %r failed", getattr(hook, "__name__", hook))


__all__ = ["call_hook", "describe", "logger", "maybe_await", "parse_params", "to_result_dict"]
