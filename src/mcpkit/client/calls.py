"""The typed calls of a :class:`~mcpkit.Client`: from arguments to request params, and
from raw results to models.

:class:`Calls` builds each request's params (a tool's arguments in their wire form, a
prompt's arguments as strings, a completion's reference), sends it through the client's
request pipeline and turns the raw result into its :mod:`mcpkit.types` model (a result
that does not match fails that call with
:class:`~mcpkit.client.errors.InvalidServerResponse`). A tool's result is checked against
its ``outputSchema`` by the tool catalogue; a ``tools/call`` the server does not know is
explained when the tool runs only as a task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import orjson
import pydantic

from mcpkit.client.arguments import Arguments, CompletionRef, arguments_to_wire, ref_to_wire
from mcpkit.client.errors import InvalidServerResponse
from mcpkit.client.results import parse
from mcpkit.errors import McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject

if TYPE_CHECKING:
    from mcpkit.client.cache import CachePolicy
    from mcpkit.client.catalogue import ToolCatalogue
    from mcpkit.session import ProgressCallback
    from mcpkit.timeouts import Timeout
    from mcpkit.types import CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult

__all__ = ["Calls"]

M = TypeVar("M", bound=pydantic.BaseModel)
Request = Callable[..., Awaitable[Any]]
#: A per-call log hook (:data:`mcpkit.client.notifications.LogHook`).
LogHook = Callable[[Any], Any]


class TaskCalls(Protocol):
    """What the typed calls need of the task requestor."""

    def refuse_plain_call(self, name: str) -> None: ...

    async def explain_not_found(self, name: str, exc: McpError) -> None: ...


def _noop_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


class Calls:
    """The typed calls of one client; ``request`` is its :meth:`~mcpkit.Client.request`."""

    def __init__(self, request: Request, catalogue: ToolCatalogue, tasks: TaskCalls) -> None:
        self._request = request
        self._catalogue = catalogue
        self._tasks = tasks

    async def typed(
        self,
        model: type[M],
        method: str,
        params: JSONObject | None = None,
        *,
        cache: CachePolicy = "use",
        on_log: LogHook | None = None,
    ) -> M:
        """``method``'s result as ``model``."""
        return parse(model, await self._request(method, params, cache=cache, on_log=on_log), method)

    async def empty(self, method: str, params: JSONObject | None = None, **kw: Any) -> None:
        """Send ``method``, whose result is an empty object."""
        result = await self._request(method, params, **kw)
        if not isinstance(result, dict):
            raise InvalidServerResponse(method, "expected an object")

    async def call_tool(
        self,
        name: str,
        arguments: Arguments | None,
        *,
        timeout: Timeout,
        on_progress: ProgressCallback | None,
        meta: Mapping[str, Any] | None,
        raise_on_error: bool,
        on_log: LogHook | None,
        validate: bool,
    ) -> CallToolResult:
        """``tools/call`` of ``name`` (see :meth:`mcpkit.Client.call_tool`)."""
        if self._catalogue.requires_task(name):
            self._tasks.refuse_plain_call(name)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments_to_wire(arguments)
        if meta:
            params["_meta"] = dict(meta)
        progress = on_progress
        if progress is None and timeout.timeout is not None and timeout.reset_on_progress:
            progress = _noop_progress  # a progress token lets progress restart the timeout
        try:
            raw = await self._request(
                "tools/call", params, timeout=timeout, on_progress=progress, on_log=on_log
            )
        except McpError as exc:
            if exc.code == METHOD_NOT_FOUND and exc.from_peer:
                await self._tasks.explain_not_found(name, exc)
            raise
        return await self._catalogue.tool_result(
            name, raw, validate=validate, raise_on_error=raise_on_error
        )

    async def read_resource(
        self, uri: str, cache: CachePolicy, on_log: LogHook | None
    ) -> ReadResourceResult:
        from mcpkit.types import ReadResourceResult

        return await self.typed(
            ReadResourceResult, "resources/read", {"uri": str(uri)}, cache=cache, on_log=on_log
        )

    async def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None, on_log: LogHook | None
    ) -> GetPromptResult:
        from mcpkit.types import GetPromptResult

        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = {
                k: v if isinstance(v, str) else orjson.dumps(v).decode()
                for k, v in arguments.items()
            }
        return await self.typed(GetPromptResult, "prompts/get", params, on_log=on_log)

    async def complete(
        self,
        ref: CompletionRef,
        argument_name: str,
        value: str,
        context: Mapping[str, str] | None,
    ) -> CompleteResult:
        from mcpkit.types import CompleteResult

        params: JSONObject = {
            "ref": ref_to_wire(ref),
            "argument": {"name": argument_name, "value": value},
        }
        if context:
            params["context"] = {"arguments": dict(context)}
        return await self.typed(CompleteResult, "completion/complete", params)
