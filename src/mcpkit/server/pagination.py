"""Cursor-based pagination for every ``*/list`` method, with pre-encoded pages.

A :class:`Paginator` serves the items of one registry (tools, resources, templates, prompts)
in pages of ``page_size``. Cursors are opaque to clients (URL-safe base64 of a small JSON
object); a cursor that does not decode is answered with -32602. Each page is built once and
kept, pre-encoded as ``orjson.Fragment``, until the registry changes (:meth:`invalidate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import orjson

from mcpkit._cursor import decode_cursor, encode_cursor
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

__all__ = ["DEFAULT_PAGE_SIZE", "Paginator", "decode_cursor", "encode_cursor"]

#: Items per page. Large enough that most servers answer in one page (clients follow every
#: cursor anyway, and each page is a round trip); ``Server(page_size=...)`` lowers it.
DEFAULT_PAGE_SIZE = 1000


class Paginator:
    """Pages over ``items()`` (wire dicts) under the result key ``key``."""

    __slots__ = ("_cache", "_items", "key", "page_size")

    def __init__(self, key: str, items: Callable[[], Sequence[JSONObject]], page_size: int) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.key = key
        self.page_size = page_size
        self._items = items
        self._cache: dict[int, JSONObject] = {}

    def invalidate(self) -> None:
        """Forget cached pages (the registry changed)."""
        self._cache.clear()

    def page(self, params: JSONObject | None) -> JSONObject:
        """The result for a list request with ``params`` (may carry ``cursor``)."""
        cursor = params.get("cursor") if params else None
        offset = 0 if cursor is None else decode_cursor(cursor)
        cached = self._cache.get(offset)
        if cached is not None:
            return cached
        items = self._items()
        if offset > len(items) or (offset and offset == len(items)):
            raise McpError(INVALID_PARAMS, "Invalid cursor")
        end = offset + self.page_size
        result: JSONObject = {self.key: orjson.Fragment(orjson.dumps(items[offset:end]))}
        if end < len(items):
            result["nextCursor"] = encode_cursor(end)
        self._cache[offset] = result
        return result
