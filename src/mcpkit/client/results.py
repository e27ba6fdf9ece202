"""Turning the server's raw results into protocol models, for every client module.

A result that does not match its model fails that call with :class:`InvalidServerResponse`
(the session goes on); notifications with bad params are dropped with a warning. This is
the one place where results come back into the client's typed world.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pydantic

from mcpkit.client._util import describe, logger
from mcpkit.client.errors import InvalidServerResponse
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.types import PaginatedResult

__all__ = ["MAX_PAGES", "all_pages", "cursor_params", "lenient", "notification_params", "parse"]

#: The most pages one ``list_*`` call follows before it gives up on the server.
MAX_PAGES: Final = 10_000

M = TypeVar("M", bound=pydantic.BaseModel)
P = TypeVar("P", bound="PaginatedResult")
T = TypeVar("T")


def parse(model: type[M], raw: Any, method: str) -> M:
    """``raw`` as ``model``; :class:`InvalidServerResponse` for ``method`` when it is not."""
    try:
        return model.model_validate(raw)
    except pydantic.ValidationError as exc:
        errors = describe(exc)
        raise InvalidServerResponse(method, "; ".join(errors), errors) from None


def lenient(model: type[M], raw: Any) -> M:
    """``raw`` as ``model``, or built unvalidated (with a warning) when it does not match."""
    try:
        return model.model_validate(raw if raw is not None else {})
    except pydantic.ValidationError as exc:
        logger.warning("Server sent an invalid %s: %s", model.__name__, "; ".join(describe(exc)))
        return model.model_construct(**(raw if isinstance(raw, dict) else {}))


def notification_params(model: type[M], params: Any, method: str) -> M | None:
    """A notification's params as ``model``; None (and a warning) when they do not match."""
    try:
        return model.model_validate(params if params is not None else {})
    except pydantic.ValidationError as exc:
        logger.warning("Dropped %s with invalid params: %s", method, "; ".join(describe(exc)))
        return None


def cursor_params(cursor: str | None) -> JSONObject | None:
    """The params of a ``*/list`` request for the page at ``cursor``."""
    return {"cursor": cursor} if cursor is not None else None


async def all_pages(
    request: Callable[[str, JSONObject | None], Awaitable[Any]],
    method: str,
    model: type[P],
    items_of: Callable[[P], Sequence[T]],
    wire_key: str,
) -> tuple[list[T], list[Any]]:
    """Every page of ``method``: the items (``items_of`` each parsed page) and their wire
    form (``wire_key`` of each raw page). A repeated cursor or too many pages fail the call."""
    items: list[T] = []
    raw_items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        raw = await request(method, cursor_params(cursor))
        page = parse(model, raw, method)
        items.extend(items_of(page))
        raw_items.extend(raw[wire_key])
        cursor = page.next_cursor
        if cursor is None:
            return items, raw_items
        if cursor in seen:
            raise InvalidServerResponse(method, f"pagination loop: cursor {cursor!r} repeated")
        seen.add(cursor)
    raise InvalidServerResponse(method, f"more than {MAX_PAGES} pages")
