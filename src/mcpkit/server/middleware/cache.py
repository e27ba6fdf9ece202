"""A short-lived result cache for read-only tools and resources.

:class:`ResultCache` answers a repeated ``tools/call`` of a tool annotated
``readOnlyHint: true`` (and not run as a task), or a repeated ``resources/read``, from
memory for ``ttl`` seconds. The key is the method, the tool name or URI, the arguments
(``_meta`` left out), the protocol revision (results are shaped per revision) and, unless
``shared=True``, the client (:attr:`~.base.MiddlewareContext.client_id`), so one user's
answer is never served to another. Error results, MRTR rounds (``input_required`` and
their retries) and task results are never cached. Entries are kept encoded (every hit
decodes a fresh copy), at most ``max_entries`` of them and each at most
``max_entry_bytes``; :meth:`ResultCache.invalidate` forgets a URI or tool, or everything.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson

from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext

__all__ = ["ResultCache"]

_Key = tuple[str, str, bytes, str, str]


class ResultCache(Middleware):
    """Cache read-only tool results and resource reads for ``ttl`` seconds (see the module
    docstring); ``tools``/``resources`` turn either off. :attr:`hits` and :attr:`misses`
    count lookups."""

    def __init__(
        self,
        ttl: float = 5.0,
        *,
        tools: bool = True,
        resources: bool = True,
        shared: bool = False,
        max_entries: int = 1024,
        max_entry_bytes: int = 1 << 20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive (seconds)")
        self.ttl = ttl
        self.tools = tools
        self.resources = resources
        self.shared = shared
        self.max_entries = max_entries
        self.max_entry_bytes = max_entry_bytes
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[_Key, tuple[float, bytes, Any]] = OrderedDict()

    def hooks_for(self, method: str, notification: bool) -> list[Any]:
        if method == "tools/call" and self.tools:
            return [self.on_call_tool]
        if method == "resources/read" and self.resources:
            return [self.on_read_resource]
        return []

    def invalidate(self, name: str | None = None) -> None:
        """Forget the entries of a tool or resource URI ``name``, or all of them."""
        if name is None:
            self._entries.clear()
            return
        for key in [k for k in self._entries if k[1] == name]:
            del self._entries[key]

    def _key(self, ctx: MiddlewareContext, name: str, arguments: Any) -> _Key | None:
        params = ctx.params
        assert params is not None
        if "inputResponses" in params or "requestState" in params or "task" in params:
            return None
        try:
            args = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return None
        request = ctx.request
        assert request is not None
        env = request.envelope
        version = env.version if env is not None else ctx.session.protocol_version
        who = "" if self.shared else ctx.client_id
        return (ctx.method, name, args, version.name if version is not None else "", who)

    async def _cached(self, ctx: MiddlewareContext, key: _Key, call_next: CallNext) -> Any:
        now = self.clock()
        entry = self._entries.get(key)
        if entry is not None:
            expires, data, hints = entry
            if expires > now:
                self.hits += 1
                if hints is not None and ctx.request is not None:
                    ctx.request.cache_hints = hints
                return orjson.loads(data)
            del self._entries[key]
        self.misses += 1
        result = await call_next(ctx)
        if type(result) is not dict or result.get("isError") is True:
            return result
        if "task" in result or result.get("resultType", "complete") != "complete":
            return result
        data = orjson.dumps(result)
        if len(data) > self.max_entry_bytes:
            return result
        hints = ctx.request.cache_hints if ctx.request is not None else None
        entries = self._entries
        entries[key] = (now + self.ttl, data, hints)
        while len(entries) > self.max_entries:
            entries.popitem(last=False)
        return result

    async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        name = ctx.name
        entry = ctx.server.tools.tools.get(name) if name is not None else None
        if entry is None or entry.accepts_tasks:
            return await call_next(ctx)
        annotations = entry.definition.get("annotations")
        if type(annotations) is not dict or annotations.get("readOnlyHint") is not True:
            return await call_next(ctx)
        assert ctx.params is not None
        key = self._key(ctx, entry.name, ctx.params.get("arguments"))
        if key is None:
            return await call_next(ctx)
        return await self._cached(ctx, key, call_next)

    async def on_read_resource(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        uri = ctx.name
        if uri is None:
            return await call_next(ctx)
        key = self._key(ctx, uri, None)
        if key is None:
            return await call_next(ctx)
        return await self._cached(ctx, key, call_next)
