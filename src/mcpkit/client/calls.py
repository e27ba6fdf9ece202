"""The typed calls of a :class:`~mcpkit.Client`: from arguments to request params, and
from raw results to models.

:class:`Calls` builds each request's params (a tool's arguments in their wire form, a
prompt's arguments as strings, a completion's reference), sends it through the client's
request pipeline and turns the raw result into its :mod:`mcpkit.types` model (a result
that does not match fails that call with
:class:`~mcpkit.client.errors.InvalidServerResponse`). A tool's result is checked against
its ``outputSchema`` by the tool catalogue; a ``tools/call`` the server does not know is
explained when the tool runs only as a task.

:class:`CallMethods` is the part of :class:`~mcpkit.Client` that offers them, with the
per-call time settings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

import orjson
import pydantic

from mcpkit._defaults import DEFAULT
from mcpkit.client.arguments import Arguments, CompletionRef, arguments_to_wire, ref_to_wire
from mcpkit.client.errors import InvalidServerResponse
from mcpkit.client.results import parse
from mcpkit.errors import McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject
from mcpkit.timeouts import Timeout, TimeoutTypes, resolve

if TYPE_CHECKING:
    from mcpkit.client.cache import CachePolicy
    from mcpkit.client.catalogue import ToolCatalogue
    from mcpkit.session import ProgressCallback
    from mcpkit.types import (
        CallToolResult,
        CompleteResult,
        GetPromptResult,
        LoggingMessageNotificationParams,
        ReadResourceResult,
    )

__all__ = ["CallMethods", "Calls"]

M = TypeVar("M", bound=pydantic.BaseModel)
Request = Callable[..., Awaitable[Any]]
#: A per-call log hook (as :data:`mcpkit.client.notifications.LogHook`).
LogHook: TypeAlias = "Callable[[LoggingMessageNotificationParams], object]"


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


class CallMethods:
    """The typed calls of :class:`~mcpkit.Client` (a base of the client), sent by its
    :class:`Calls`."""

    _calls: Calls
    #: The client's time settings, for calls that give none.
    timeout: Timeout
    _on_progress: ProgressCallback | None
    #: Check ``structuredContent`` against the tool's ``outputSchema``.
    validate_output: bool

    def _timeout(self, timeout: TimeoutTypes, max_total_timeout: float | None) -> Timeout:
        """A call's time settings: the client's, with what the call gave replacing them."""
        chosen = self.timeout if timeout is DEFAULT else resolve(timeout, self.timeout)
        if max_total_timeout is not DEFAULT:
            chosen = replace(chosen, max_total=max_total_timeout)
        return chosen

    async def call_tool(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        timeout: TimeoutTypes = DEFAULT,
        max_total_timeout: float | None = DEFAULT,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
        raise_on_error: bool = False,
        on_log: LogHook | None = None,
    ) -> CallToolResult:
        """Call tool ``name``; return its :class:`~mcpkit.types.CallToolResult`.

        ``arguments`` is a mapping of JSON values or a pydantic model; argument values that
        are models (protocol models included) are sent in their wire form.

        A tool that failed answers ``is_error=True`` (or raises :class:`ToolError` with
        ``raise_on_error``). When the tool declares an ``outputSchema``, ``structuredContent``
        is checked against it (:class:`OutputSchemaError` on a mismatch).

        A tool whose ``execution.taskSupport`` is ``"required"`` must be called with
        :meth:`~mcpkit.Client.call_tool_as_task` (:class:`TaskNotSupported` here).

        ``on_log``: this call's own log messages, where the transport tells which call
        they belong to (see :meth:`~mcpkit.Client.request`).
        """
        return await self._calls.call_tool(
            name,
            arguments,
            timeout=self._timeout(timeout, max_total_timeout),
            on_progress=on_progress or self._on_progress,
            meta=meta,
            raise_on_error=raise_on_error,
            on_log=on_log,
            validate=self.validate_output,
        )

    async def read_resource(
        self, uri: str, *, cache: CachePolicy = "use", on_log: LogHook | None = None
    ) -> ReadResourceResult:
        """Read the resource at ``uri`` (``on_log``: its own log messages, see
        :meth:`~mcpkit.Client.request`)."""
        return await self._calls.read_resource(uri, cache, on_log)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        on_log: LogHook | None = None,
    ) -> GetPromptResult:
        """Get prompt ``name`` filled with ``arguments`` (non-string values are sent as JSON;
        ``on_log``: its own log messages, see :meth:`~mcpkit.Client.request`)."""
        return await self._calls.get_prompt(name, arguments, on_log)

    async def complete(
        self,
        ref: CompletionRef,
        argument_name: str,
        value: str,
        *,
        context: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Completion options for argument ``argument_name`` of ``ref``.

        ``ref``: a :class:`~mcpkit.types.PromptReference` /
        :class:`~mcpkit.types.ResourceTemplateReference`, its wire dict, or a string (a URI
        template when it contains ``://`` or ``{``, else a prompt name). ``context``: values
        of arguments already chosen.
        """
        return await self._calls.complete(ref, argument_name, value, context)
