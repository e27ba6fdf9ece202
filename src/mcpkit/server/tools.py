"""Tools: the registry behind ``@app.tool()`` and its ``tools/list`` / ``tools/call`` handlers.

Registration does all the expensive work once: the input schema and its compiled validator,
the output schema, the wire definition. ``tools/call`` is then: look the tool up, validate
the arguments, call (sync functions in a bounded thread pool), turn the return value into a
result dict (downgraded for older revisions). A task-augmented call (2025-11-25) goes to the
server's :class:`~mcpkit.server.tasks.TaskManager`, which runs the same steps in the
background. ``tools/list`` pages are pre-encoded and kept until the registry changes.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import math
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mcpkit._lazy import lazy_module
from mcpkit._models import is_model, to_camel
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.server.argument_policy import STRICT, ArgumentPolicy
from mcpkit.server.content import (
    content_types,
    downgrade_result,
    to_content,
    to_json_text,
)
from mcpkit.server.dependencies import with_dependencies
from mcpkit.server.errors import ClientCapabilityError, ToolError
from mcpkit.server.invoke import PLAIN_TYPES, UserFunction, awaited
from mcpkit.server.mrtr import InputRequired
from mcpkit.server.pagination import Paginator
from mcpkit.server.schema import (
    ArgumentsError,
    OutputSpec,
    Signature,
    analyze,
    output_spec,
    type_hints,
)
from mcpkit.server.tool_options import TaskStart, TaskSupport, ToolOptions
from mcpkit.session import RequestContext

if TYPE_CHECKING:
    from mcpkit.http_headers import HeaderParam
    from mcpkit.server import tasks_extension
    from mcpkit.server.caching import CacheHints
    from mcpkit.server.limiter import ConcurrencyLimiter
    from mcpkit.server.session import ServerHandler, ServerRequestContext
    from mcpkit.versions import ProtocolVersion
else:  # the tasks extension loads when a tool that takes tasks is first called so
    tasks_extension = lazy_module("mcpkit.server.tasks_extension", globals(), "tasks_extension")

__all__ = [
    "TOOL_NAME",
    "TaskStart",
    "TaskSupport",
    "ToolEntry",
    "ToolRegistry",
    "error_result",
    "wire_dict",
]

logger = logging.getLogger("mcpkit.server")
TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
DEFAULT_OPTIONS = ToolOptions()


def _user_stacklevel() -> int:
    """The ``stacklevel`` of a warning raised by this function's caller that points at the
    first frame outside mcpkit (the user's registration, however many layers it went
    through)."""
    level, frame = 2, sys._getframe(2)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("mcpkit."):
        level, frame = level + 1, frame.f_back
    return level


def error_result(message: str) -> JSONObject:
    """A tool execution error result (``isError: true``)."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def check_timeout(timeout: float | None) -> float | None:
    """A tool timeout in seconds: None or ``math.inf`` for no limit, else a positive number
    (ValueError otherwise)."""
    if timeout is None or timeout == math.inf:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return float(timeout)


def scope_set(scopes: Iterable[str] | str | None) -> frozenset[str] | None:
    """The ``scopes=`` of a registration: None (or empty) for everyone, else the set."""
    if scopes is None:
        return None
    out = frozenset(scopes.split() if isinstance(scopes, str) else scopes)
    if not all(isinstance(s, str) and s and " " not in s for s in out):
        raise ValueError(f"scopes are non-empty strings without spaces: {sorted(map(str, out))}")
    return out or None


def wire_dict(value: Any, what: str) -> dict[str, Any]:
    """A protocol object given as a model or a dict (snake_case keys accepted) in wire form."""
    if is_model(value):
        dumped: dict[str, Any] = value.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    if isinstance(value, dict):
        return {k if k.startswith("_") else to_camel(k): v for k, v in value.items()}
    raise TypeError(f"{what} must be a dict or a protocol model, not {type(value).__name__}")


class ToolEntry:
    """One registered tool."""

    __slots__ = (
        "_header_params",
        "_header_params_found",
        "cache",
        "context_param",
        "definition",
        "fn",
        "function",
        "limiter",
        "name",
        "output",
        "passthrough_type",
        "scopes",
        "signature",
        "task_poll_interval",
        "task_start",
        "task_support",
        "timeout",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        signature: Signature,
        output: OutputSpec | None,
        definition: JSONObject,
        task_support: TaskSupport | None,
        passthrough_type: type | None,
        cache: CacheHints | None = None,
    ) -> None:
        self.fn = fn
        #: Its own caching hints (2026-07-28), None for the server's.
        self.cache = cache
        self.name = name
        self.signature = signature
        self.context_param = signature.context_param
        self.output = output
        self.definition = definition
        self.function = UserFunction(fn)
        self.task_support = task_support
        #: ``"call"``: a task call is a task from the start; ``"explicit"``: the tool runs
        #: as an ordinary call (MRTR rounds on the modern wire) until ``ctx.start_task()``.
        self.task_start: TaskStart = "call"
        #: Its tasks' ``pollInterval`` (milliseconds), None for the task manager's.
        self.task_poll_interval: int | None = None
        self.passthrough_type = passthrough_type
        #: Bounds the calls running at once (``max_concurrency``), or None.
        self.limiter: ConcurrencyLimiter | None = None
        self._header_params: tuple[HeaderParam, ...] | None = None
        self._header_params_found = False
        #: Seconds a call may run before it is cancelled (None: no limit).
        self.timeout: float | None = None
        #: The scopes a principal needs to see and call it (None: everyone).
        self.scopes: frozenset[str] | None = None

    def header_params(self) -> tuple[HeaderParam, ...] | None:
        """The ``x-mcp-header`` parameters its ``inputSchema`` declares (2026-07-28), found
        on first use; None when an annotation breaks the rules (then none is mirrored)."""
        if not self._header_params_found:
            from mcpkit.http_headers import definition_header_params

            self._header_params = definition_header_params(self.definition)
            self._header_params_found = True
        return self._header_params

    @property
    def accepts_tasks(self) -> bool:
        """True when ``execution.taskSupport`` is ``optional`` or ``required``."""
        return self.task_support == "optional" or self.task_support == "required"

    def invalid_arguments(self, error: ArgumentsError, arguments: Any) -> str:
        """The text answering a call whose ``arguments`` the schema refused with ``error``
        (a compat layer words it as the SDK it serves does)."""
        return f"Invalid arguments for tool '{self.name}': {error}"

    def to_result(self, value: Any) -> JSONObject:
        """The ``CallToolResult`` dict for a return value."""
        output = self.output
        if output is None and type(value) is str:  # the usual text result, at once
            return {"content": [{"type": "text", "text": value}]}
        pt = self.passthrough_type
        if pt is None and is_model(value):
            # Registered before mcpkit.types was imported; a model value means it is now.
            types_module = sys.modules.get("mcpkit.types")
            pt = self.passthrough_type = getattr(types_module, "CallToolResult", None)
        if pt is not None and isinstance(value, pt):
            return wire_dict(value, "result")
        if output is None:
            return {"content": to_content(value)}
        structured = output.structured(value)
        if not output.validator.is_valid(structured):
            errors = "; ".join(output.validator.errors(structured, limit=3))
            return error_result(
                f"Tool '{self.name}' returned output that does not match its outputSchema: {errors}"
            )
        return {
            "content": [{"type": "text", "text": to_json_text(structured)}],
            "structuredContent": structured,
        }


class ToolRegistry:
    """The tools of one server."""

    #: The server this registry belongs to (its workers and dependency overrides), if any.
    owner: Any = None

    def _owner(self) -> Any:
        return self.owner

    def __init__(
        self,
        page_size: int,
        context_type: type,
        on_change: Callable[[], None],
    ) -> None:
        self.tools: dict[str, ToolEntry] = {}
        self.context_type = context_type
        self.paginator = Paginator("tools", self._definitions, page_size)
        self._on_change = on_change
        self._definitions_cache: list[JSONObject] | None = None
        #: How many tools accept task-augmented calls (``optional`` or ``required``).
        self.task_tools = 0
        #: Generated input schemas have local ``$ref``/``$defs`` inlined (unless a tool says).
        self.inline_refs = True
        #: ``(max_concurrency, max_queued)`` of a tool registered without its own.
        self.default_concurrency: tuple[int | None, int | None] = (None, None)
        #: The ``timeout`` of a tool registered without its own (None: no limit).
        self.default_timeout: float | None = None
        #: How many tools have a timeout (none: ``tools/call`` is served without the timer).
        self.timed_tools = 0
        #: The rules tools registered from now on check their arguments by (mcpkit's own
        #: strict ones; a compat layer sets its SDK's).
        self.argument_policy: ArgumentPolicy = STRICT

    def _definitions(self) -> list[JSONObject]:
        cache = self._definitions_cache
        if cache is None:
            cache = self._definitions_cache = [t.definition for t in self.tools.values()]
        return cache

    def _changed(self) -> None:
        self._definitions_cache = None
        self.paginator.invalidate()
        self._on_change()

    def add(self, fn: Callable[..., Any], options: ToolOptions = DEFAULT_OPTIONS, /) -> ToolEntry:
        """Register ``fn`` as a tool with ``options`` (see :meth:`mcpkit.Server.tool`; the
        registry reads every option but ``tags``, ``ui`` and ``visibility``, the server's)."""
        fn = with_dependencies(fn, self.context_type, self._owner)
        o = options
        tool_name = o.name or getattr(fn, "__name__", None)
        if not tool_name:
            raise ValueError("A tool needs a name (pass name=...)")
        if not TOOL_NAME.fullmatch(tool_name):
            warnings.warn(
                f"Tool name {tool_name!r} does not follow the MCP naming rules "
                "(1-128 characters of A-Z a-z 0-9 _ - .); clients may reject it",
                stacklevel=_user_stacklevel(),
            )
        if tool_name in self.tools:
            raise ValueError(f"A tool named {tool_name!r} is already registered")
        limit_s = check_timeout(o.timeout if o.timeout is not None else self.default_timeout)
        policy = self.argument_policy
        named = getattr(fn, "__name__", tool_name) if policy.model_name == "function" else tool_name
        signature = analyze(
            fn,
            self.context_type,
            input_schema=o.input_schema,
            model_name=f"{named}Arguments",
            strict=True,
            inline_refs=self.inline_refs if o.inline_refs is None else o.inline_refs,
            policy=policy,
        )
        hints = type_hints(fn)
        return_type = hints.get("return", inspect.Parameter.empty)
        # The protocol models are only needed when the application uses them: a function can
        # only be annotated with (or return) a model once mcpkit.types is imported, so a server
        # that never imports it does not pay its import time and memory (~40 ms, ~7 MB).
        types_module = sys.modules.get("mcpkit.types")
        passthrough: type | None = None
        if types_module is not None:
            passthrough = types_module.CallToolResult
        if passthrough is not None and return_type is passthrough:
            output = None
        else:
            content = content_types() if types_module is not None else content_types(False)
            output = output_spec(
                return_type, o.structured_output, content, o.output_schema, f"tool {tool_name!r}"
            )
        definition: JSONObject = {"name": tool_name}
        if o.title:
            definition["title"] = o.title
        doc = o.description if o.description is not None else inspect.getdoc(fn)
        if doc:
            definition["description"] = doc
        definition["inputSchema"] = signature.input_schema
        if output is not None:
            definition["outputSchema"] = output.schema
        if o.annotations is not None:
            definition["annotations"] = wire_dict(o.annotations, "annotations")
        if o.icons:
            definition["icons"] = [wire_dict(i, "icon") for i in o.icons]
        if o.task_support is not None:
            definition["execution"] = {"taskSupport": o.task_support}
        if o.meta:
            definition["_meta"] = dict(o.meta)
        entry = ToolEntry(
            fn, tool_name, signature, output, definition, o.task_support, passthrough, o.cache
        )
        entry.task_start = o.task_start
        entry.scopes = scope_set(o.scopes)
        default_limit, default_queued = self.default_concurrency
        limit = o.max_concurrency if o.max_concurrency is not None else default_limit
        if limit is not None:
            from mcpkit.server.limiter import ConcurrencyLimiter

            queued = o.max_queued if o.max_queued is not None else default_queued
            entry.limiter = ConcurrencyLimiter(limit, queued, what=f"tool '{tool_name}'")
        elif o.max_queued is not None:
            raise ValueError("max_queued needs max_concurrency (or the server's default)")
        entry.timeout = limit_s
        if limit_s is not None:  # its timer belongs to a task of its own: never served inline
            entry.function.never_suspends = False
        self.tools[tool_name] = entry
        if entry.accepts_tasks:
            self.task_tools += 1
        if limit_s is not None:
            self.timed_tools += 1
        self._changed()
        return entry

    def remove(self, name: str) -> None:
        """Unregister a tool (KeyError when there is none of that name)."""
        entry = self.tools.pop(name)
        if entry.accepts_tasks:
            self.task_tools -= 1
        if entry.timeout is not None:
            self.timed_tools -= 1
        self._changed()

    def lookup(self, params: JSONObject | None) -> ToolEntry:
        """The tool a ``tools/call`` names; -32602 when params or the name are wrong."""
        if type(params) is not dict:
            raise McpError(INVALID_PARAMS, "tools/call: params must be an object")
        name = params.get("name")
        if type(name) is not str:
            raise McpError(INVALID_PARAMS, "tools/call: 'name' must be a string")
        entry = self.tools.get(name)
        if entry is None:
            from mcpkit.server._revealed import find

            entry = find("tools", name)  # hidden, but shown to this caller
            if entry is None:
                raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")
        return entry

    def handlers(self) -> dict[str, ServerHandler]:
        """``tools/list`` and ``tools/call``, by method."""
        call = self.call_tool_timed if self.timed_tools else self.call_tool
        return {"tools/list": self.list_tools, "tools/call": call}

    async def list_tools(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``tools/list``: one page of definitions."""
        return self.paginator.page(params)

    async def call_tool(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``tools/call``: run the tool now, or as a task when the call asks for one."""
        entry = self.lookup(params)
        arguments = params.get("arguments")  # type: ignore[union-attr]
        if self.task_tools and rctx.envelope is not None:
            if entry.accepts_tasks:  # the tasks extension (a legacy 'task' field is ignored)
                return await tasks_extension.call_tool(
                    rctx,
                    entry.task_support,
                    entry.task_start,
                    functools.partial(self.run, entry, arguments, rctx),
                    entry.task_poll_interval,
                )
        elif self.task_tools:
            version = rctx.session.protocol_version
            if version is not None and version.tasks:
                task = params.get("task")  # type: ignore[union-attr]
                if task is not None:
                    if not entry.accepts_tasks:
                        raise McpError(
                            METHOD_NOT_FOUND,
                            f"Tool '{entry.name}' does not support task-augmented calls "
                            "(execution.taskSupport is 'forbidden')",
                        )
                    return await rctx.server.task_manager.start(
                        rctx, task, functools.partial(self.run, entry, arguments, rctx)
                    )
                if entry.task_support == "required":
                    raise McpError(
                        METHOD_NOT_FOUND,
                        f"Tool '{entry.name}' must be called as a task "
                        "(execution.taskSupport is 'required': add 'task' to the params)",
                    )
        return await self.run(entry, arguments, rctx)

    async def call_tool_timed(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``tools/call`` of a server with timed tools: a call still running after its
        tool's ``timeout`` is cancelled and answers an error result. A task-augmented call
        answers at once (its task lives by its own TTL)."""
        entry = self.lookup(params)
        timeout = entry.timeout
        if timeout is None:
            return await self.call_tool(params, rctx)
        try:
            async with asyncio.timeout(timeout):
                return await self.call_tool(params, rctx)
        except TimeoutError:
            if rctx.cancelled:
                raise
            logger.warning("tool %r timed out after %gs: cancelled", entry.name, timeout)
            return error_result(f"Tool '{entry.name}' timed out after {timeout:g}s")

    async def run(
        self,
        entry: ToolEntry,
        arguments: Any,
        request: ServerRequestContext,
        rctx: RequestContext | None = None,
    ) -> JSONObject:
        """Validate, call and convert: the whole of ``tools/call`` for one tool. ``rctx`` is
        the context the tool talks back through when not ``request`` (a task's)."""
        try:
            kwargs = entry.signature.validate(arguments)
        except ArgumentsError as exc:
            return self.refused(entry, exc, arguments, request.session.protocol_version)
        takes_context = entry.context_param is not None
        if takes_context:
            kwargs[entry.context_param] = request.context(rctx)  # type: ignore[index]
        elif request.session.server.log_bridge:  # only when a logging bridge listens
            request.bind_logging(rctx)
        limiter = entry.limiter
        try:
            if limiter is not None:
                await limiter.acquire()  # Overloaded (an McpError) when the queue is full
            try:
                function = entry.function
                if not takes_context:
                    if function.is_async:
                        value = await function.fn(**kwargs)  # UserFunction.call, one frame less
                    else:  # the same for a sync one, in a copy of the current context
                        start = request.session.workers.start_call
                        value = await start(contextvars.copy_context().run, function.fn, kwargs)
                        if type(value) not in PLAIN_TYPES and inspect.isawaitable(value):
                            value = await awaited(value)
                elif request.envelope is None:  # no round to consider
                    value = await function.call(request.workers, **kwargs)
                else:
                    value = await request.call_user(entry.function, kwargs, rounds=takes_context)
            finally:
                if limiter is not None:
                    limiter.release()
        except Exception as exc:
            return self.failed(entry, exc, request.server)
        return self.finished(entry, value, request.server, request.session.lifecycle.version)

    @staticmethod
    def refused(
        entry: ToolEntry, exc: ArgumentsError, arguments: Any, version: ProtocolVersion | None
    ) -> JSONObject:
        """The answer to arguments the tool's schema refused: a tool error result, or
        (where the revision and the tool's policy say so) an INVALID_PARAMS error."""
        message = entry.invalid_arguments(exc, arguments)
        if (
            version is None
            or version.input_errors_as_tool_results
            or entry.signature.policy.errors_as_results
        ):
            return error_result(message)
        raise McpError(INVALID_PARAMS, message) from None

    @staticmethod
    def failed(entry: ToolEntry, exc: Exception, server: Any) -> JSONObject:
        """The answer to a call whose tool raised ``exc`` (called while it is handled): an
        error result, the input-required result it asks for, or (an McpError) raised."""
        if isinstance(exc, InputRequired):
            return exc.result
        if isinstance(exc, ClientCapabilityError):
            return error_result(f"Error executing tool '{entry.name}': {exc.message}")
        if isinstance(exc, McpError):
            raise exc
        if isinstance(exc, ToolError):
            return error_result(f"Error executing tool '{entry.name}': {exc}")
        if server.mask_errors:
            from mcpkit.server.masking import report

            eid = report(f"Tool '{entry.name}'", exc)
            return error_result(f"Error executing tool '{entry.name}' (error id {eid})")
        text = str(exc) or type(exc).__name__
        message = f"Error executing tool '{entry.name}': {text}"
        if server.debug:
            message += "\n" + traceback.format_exc()
        return error_result(message)

    @staticmethod
    def finished(
        entry: ToolEntry, value: Any, server: Any, version: ProtocolVersion | None
    ) -> JSONObject:
        """The result of a call whose tool returned ``value``, as ``version`` carries it."""
        try:
            result = entry.to_result(value)
        except Exception as exc:
            if server.mask_errors:
                from mcpkit.server.masking import report

                eid = report(f"Converting the value of tool '{entry.name}'", exc)
                return error_result(
                    f"Tool '{entry.name}' returned a value that cannot be sent (error id {eid})"
                )
            return error_result(f"Tool '{entry.name}' returned a value that cannot be sent: {exc}")
        # needs_downgrade(version), inline
        if version is not None and not (version.audio_content and version.resource_links):
            result = downgrade_result(result, version)
        return result
