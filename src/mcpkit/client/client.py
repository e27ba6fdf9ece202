"""The :class:`Client`: a typed client for any MCP server.

```python
async with Client("python server.py") as c:
    tools = await c.list_tools()
    result = await c.call_tool("forecast", {"city": "Oslo"}, on_progress=print)
```

Results are the protocol models of :mod:`mcpkit.types` (validated; a result that does not
match fails that call with :class:`InvalidServerResponse` and the session goes on). Protocol
errors raise :class:`~mcpkit.errors.McpError`; transport failures raise
:class:`~mcpkit.errors.ConnectionClosed` / :class:`~mcpkit.errors.ProcessExited`; timeouts
raise :class:`~mcpkit.errors.RequestTimeout` (and the request is cancelled at the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

import orjson
import pydantic
import pydantic_core

from mcpkit import versions
from mcpkit.client._util import call_hook, describe, logger
from mcpkit.client.elicitation import (
    ElicitationHandler,
    elicitation_capability,
    serve_elicitation,
)
from mcpkit.client.elicitation import elicitation_modes as _elicitation_modes
from mcpkit.client.errors import (
    URL_ELICITATION_REQUIRED,
    InvalidServerResponse,
    OutputSchemaError,
    TaskNotSupported,
    ToolError,
    URLElicitationRequired,
)
from mcpkit.client.roots import check_roots, serve_roots
from mcpkit.client.sampling import SamplingHandler, sampling_capability, serve_sampling
from mcpkit.client.targets import Connection, config_entry, open_target
from mcpkit.client.tasks import make_receiver, serve_as_task, tasks_capability, tasks_only
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.json_schema import InvalidSchemaError, SchemaValidator, UnsupportedDialectError
from mcpkit.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.session import ClientSession, ProgressCallback
from mcpkit.tasks import TERMINAL, TaskReceiver, TaskStatusTracker, task_params, wait_for_task
from mcpkit.transports.base import Transport
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    from mcpkit.client.icons import FetchedIcon
    from mcpkit.types import (
        CallToolResult,
        CancelTaskResult,
        CompleteResult,
        GetPromptResult,
        GetTaskResult,
        Icon,
        Implementation,
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ListTasksResult,
        ListToolsResult,
        Prompt,
        ReadResourceResult,
        Resource,
        ResourceTemplate,
        ServerCapabilities,
        Task,
        Tool,
    )

__all__ = ["DEFAULT_TIMEOUT", "Client"]

#: Seconds a request may wait for its response unless told otherwise (progress restarts it).
DEFAULT_TIMEOUT: Final = 60.0

_UNSET: Final[Any] = object()
# completed URL elicitation ids remembered for a late wait_elicitation_complete
_COMPLETED_ELICITATIONS_KEPT: Final = 1000
_LOG_LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
_LIST_CHANGED: Final = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
_MAX_PAGES: Final = 10_000
#: How many task ids -> tool names the client remembers (to check task results' output).
_MAX_TASK_TOOLS: Final = 1000
server_log = logging.getLogger("mcpkit.client.server")

M = TypeVar("M", bound=pydantic.BaseModel)


def _noop_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


class Client:
    """A connection to one MCP server. Use as ``async with Client(target) as c:``.

    ``target``: a command line (``"python server.py"``), an argv list, an ``http(s)://`` URL,
    an mcpkit ``Server`` (in memory), a :class:`~mcpkit.transports.base.Transport`, or an
    entry of an ``mcpServers`` config (see :meth:`from_config`).

    Handlers (each optional; the client declares exactly the capabilities it has handlers
    for): ``sampling_handler(params, ctx)``, ``elicitation_handler(params, ctx)``, ``roots``
    (a list or a callable returning one).

    Hooks (sync or async): ``on_log(LoggingMessageNotificationParams)`` (default: the
    ``mcpkit.client.server`` logger), ``on_progress(progress, total, message)`` (default for
    calls without their own), ``on_list_changed(kind)`` with kind ``"tools"`` / ``"prompts"`` /
    ``"resources"`` (with ``auto_refresh=True`` the cached list is refreshed first),
    ``on_resource_updated(uri)``, ``on_elicitation_complete(elicitation_id)``,
    ``on_cancelled(CancelledNotificationParams)``, ``on_task_status(Task)`` (a task's
    ``notifications/tasks/status``), and ``on_notification(method, params)`` for every
    notification (including ones mcpkit does not know).

    Tasks (2025-11-25): :meth:`call_tool_as_task`, :meth:`get_task`, :meth:`wait_task`,
    :meth:`get_task_result`, :meth:`list_tasks`, :meth:`cancel_task` make this client a
    requestor. ``tasks=True`` (or a :class:`~mcpkit.tasks.TaskStore` /
    :class:`~mcpkit.tasks.TaskReceiver`) makes it a receiver: the server may then run
    sampling and elicitation requests as tasks (see :mod:`mcpkit.client.tasks`).

    Connection options: ``env``/``cwd``/``stderr``/``on_stderr`` for stdio servers;
    ``headers``/``auth`` (an ``httpx.Auth``) and ``http_options`` (more keyword arguments of
    :class:`~mcpkit.transports.http.StreamableHTTPClientTransport`) for HTTP servers;
    ``protocol_version`` to ask for a specific revision; ``tracer`` sees every message.

    Time: ``timeout`` (seconds, per request; ``None`` waits forever) restarts whenever the
    server reports progress, but never runs past ``max_total_timeout``; each call can
    override both.
    """

    def __init__(
        self,
        target: Any,
        *,
        sampling_handler: SamplingHandler | None = None,
        sampling_tools: bool | None = None,
        sampling_context: bool | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_modes: Collection[str] | None = None,
        roots: Any = None,
        on_log: Callable[[Any], Any] | None = None,
        on_notification: Callable[[str, Any], Any] | None = None,
        on_progress: ProgressCallback | None = None,
        on_list_changed: Callable[[str], Any] | None = None,
        on_resource_updated: Callable[[str], Any] | None = None,
        on_elicitation_complete: Callable[[str], Any] | None = None,
        on_cancelled: Callable[[Any], Any] | None = None,
        on_task_status: Callable[[Any], Any] | None = None,
        tasks: bool | TaskReceiver | Any = None,
        auto_refresh: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_total_timeout: float | None = None,
        reset_timeout_on_progress: bool = True,
        client_info: Implementation | Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: str = "capture",
        on_stderr: Callable[[str], None] | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        http_options: Mapping[str, Any] | None = None,
        protocol_version: str | None = None,
        supported_versions: Sequence[str] | None = None,
        validate_output: bool = True,
        tracer: Callable[[str, Any], None] | None = None,
        debug: bool = False,
    ) -> None:
        self.target = target
        self._sampling_handler = sampling_handler
        self._sampling_cap = (
            sampling_capability(sampling_handler, sampling_tools, sampling_context)
            if sampling_handler is not None
            else None
        )
        self._elicitation_handler = elicitation_handler
        self._elicitation_modes = (
            _elicitation_modes(elicitation_handler, elicitation_modes)
            if elicitation_handler is not None
            else ()
        )
        check_roots(roots)
        self._roots = roots
        self._on_log = on_log
        self._on_notification = on_notification
        self._on_progress = on_progress
        self._on_list_changed = on_list_changed
        self._on_resource_updated = on_resource_updated
        self._on_elicitation_complete = on_elicitation_complete
        self._on_cancelled = on_cancelled
        self._on_task_status = on_task_status
        self._task_receiver = make_receiver(tasks, debug)
        if (
            self._task_receiver is not None
            and sampling_handler is None
            and not (self._elicitation_modes)
        ):
            raise ValueError(
                "tasks=... lets the server run sampling and elicitation as tasks: "
                "pass a sampling_handler and/or an elicitation_handler too"
            )
        self._task_tracker = TaskStatusTracker()
        # tool name -> execution.taskSupport (None: absent), from the last tools/list pages
        self._task_support: dict[str, str | None] = {}
        # task id -> tool name, for tasks this client created (output checks of results)
        self._task_tools: dict[str, str] = {}
        # task id -> release of its progress listener (tasks created with on_progress)
        self._task_progress: dict[str, Callable[[], None]] = {}
        self._progress_tokens = itertools.count(1)
        self.auto_refresh = auto_refresh
        self.timeout = timeout
        self.max_total_timeout = max_total_timeout
        self.reset_timeout_on_progress = reset_timeout_on_progress
        self._client_info = _info_dict(client_info)
        self._env = env
        self._cwd = cwd
        self._stderr = stderr
        self._on_stderr = on_stderr
        self._headers = headers
        self._auth = auth
        self._http_options = http_options
        self._protocol_version = protocol_version
        self._supported = _versions(supported_versions)
        self.validate_output = validate_output
        self._tracer = tracer
        self._debug = debug

        self._conn: Connection | None = None
        self._session: ClientSession | None = None
        self._server_info: Implementation | None = None
        self._server_caps: ServerCapabilities | None = None
        # tool name -> raw outputSchema (None: no schema); None as a whole: not (freshly) listed
        self._output_schemas: dict[str, JSONObject | None] | None = None
        self._schemas_complete = False
        self._validators: dict[str, SchemaValidator | OutputSchemaError] = {}
        self._tools_refresh: asyncio.Task[list[Tool]] | None = None
        self._tools: list[Tool] | None = None
        self._prompts: list[Prompt] | None = None
        self._resources: list[Resource] | None = None
        self._resource_templates: list[ResourceTemplate] | None = None
        self._url_elicitations: dict[str, asyncio.Future[None]] = {}
        # ids of known URL elicitations already completed, oldest first (bounded)
        self._completed_elicitations: dict[str, None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stack = contextlib.AsyncExitStack()

    @classmethod
    def from_config(cls, config: Any, name: str, **kwargs: Any) -> Client:
        """A client for server ``name`` of an ``mcpServers`` config (dict, JSON text or path).

        Stdio entries use ``command``/``args``/``env``/``cwd``; HTTP entries ``url``/``headers``.
        """
        return cls(config_entry(config, name), **kwargs)

    # -- connection -----------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Start the transport (and the server, in memory) and run the handshake."""
        if self._session is not None:
            raise RuntimeError("Client is already connected")
        self._reset_caches()
        conn = open_target(
            self.target,
            env=self._env,
            cwd=self._cwd,
            headers=self._headers,
            auth=self._auth,
            stderr=self._stderr,
            on_stderr=self._on_stderr,
            http_options=self._http_options,
        )
        self._conn = conn
        kwargs: dict[str, Any] = {"default_timeout": self.timeout, "debug": self._debug}
        if self._tracer is not None:
            kwargs["tracer"] = self._tracer
        if self._supported is not None:
            kwargs["supported_versions"] = self._supported
        session = ClientSession(conn.transport, **kwargs)
        session.observe_notifications(self._any_notification)
        self._session = session
        self._install(session)
        try:
            running = getattr(conn.server, "running", None)
            if callable(running):  # an mcpkit Server: its lifespan spans the connection
                await self._stack.enter_async_context(running())
            server = conn.server_session
            if server is not None:
                if asyncio.iscoroutine(server):
                    server = conn.server_session = await server
                await server.start()
            try:
                await session.start()
            except OSError as exc:
                raise ConnectionClosed(f"Could not connect to the server: {exc}") from exc
            result = await session.initialize(
                self._client_info,
                self._capabilities(),
                protocol_version=self._protocol_version,
            )
        except BaseException:
            await self._teardown()
            raise
        self._server_info = _lenient(_types().Implementation, result.get("serverInfo"))
        self._server_caps = _lenient(_types().ServerCapabilities, result.get("capabilities"))

    async def close(self) -> None:
        """End the connection (a stdio server is shut down: stdin closed, then signals)."""
        await self._teardown()

    async def _teardown(self) -> None:
        if self._task_receiver is not None:
            await self._task_receiver.shutdown()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        session, self._session = self._session, None
        if session is not None:
            await session.close()
        conn = self._conn
        if conn is not None and conn.server_session is not None:
            server = conn.server_session
            if hasattr(server, "close"):
                await server.close()
        stack, self._stack = self._stack, contextlib.AsyncExitStack()
        await stack.aclose()
        for fut in self._url_elicitations.values():
            fut.cancel()
        self._url_elicitations.clear()
        self._completed_elicitations.clear()
        for release in self._task_progress.values():
            release()
        self._task_progress.clear()

    def _reset_caches(self) -> None:
        self._forget_schemas()
        self._tools = self._prompts = None
        self._resources = None
        self._resource_templates = None
        self._server_info = None
        self._server_caps = None

    def _capabilities(self) -> JSONObject:
        caps: JSONObject = {}
        if self._sampling_cap is not None:
            caps["sampling"] = self._sampling_cap
        if self._elicitation_modes:
            caps["elicitation"] = elicitation_capability(self._elicitation_modes)
        if self._roots is not None:
            caps["roots"] = {"listChanged": True}
        if self._task_receiver is not None:
            caps["tasks"] = tasks_capability(
                sampling=self._sampling_cap is not None, elicitation=bool(self._elicitation_modes)
            )
        return caps

    def _install(self, session: ClientSession) -> None:
        receiver = self._task_receiver
        if self._sampling_handler is not None and self._sampling_cap is not None:
            handler = serve_sampling(self._sampling_handler, self._sampling_cap)
            if receiver is not None:
                handler = serve_as_task(receiver, handler)
            session.set_request_handler("sampling/createMessage", handler)
        if self._elicitation_handler is not None:
            handler = serve_elicitation(
                self._elicitation_handler, self._elicitation_modes, self._track_elicitation
            )
            if receiver is not None:
                handler = serve_as_task(receiver, handler)
            session.set_request_handler("elicitation/create", handler)
        if receiver is not None:
            for method, serve in receiver.handlers().items():
                session.set_request_handler(method, tasks_only(serve))
        session.set_notification_handler("notifications/tasks/status", self._task_status)
        if self._roots is not None:
            session.set_request_handler("roots/list", serve_roots(lambda: self._roots))
        session.set_notification_handler("notifications/message", self._log)
        session.set_notification_handler("notifications/resources/updated", self._updated)
        session.set_notification_handler(
            "notifications/elicitation/complete", self._elicitation_complete
        )
        for method in _LIST_CHANGED:
            session.set_notification_handler(method, self._list_changed_handler(method))

    # -- state ----------------------------------------------------------------------------------

    @property
    def session(self) -> ClientSession:
        """The raw :class:`~mcpkit.session.ClientSession` (for requests mcpkit has no call for)."""
        if self._session is None:
            raise ConnectionClosed("Client is not connected (use 'async with Client(...)')")
        return self._session

    @property
    def connected(self) -> bool:
        """True while the connection is open."""
        return self._session is not None and not self._session.closed

    @property
    def server_info(self) -> Implementation:
        """The server's name, version and presentation details."""
        if self._server_info is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_info

    @property
    def server_capabilities(self) -> ServerCapabilities:
        """What the server declared it supports."""
        if self._server_caps is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_caps

    @property
    def negotiated_version(self) -> ProtocolVersion | None:
        """The negotiated revision with its feature flags."""
        return self._session.protocol_version if self._session is not None else None

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version, e.g. ``"2025-11-25"``."""
        v = self.negotiated_version
        return v.name if v is not None else None

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, if it gave any."""
        return self._session.instructions if self._session is not None else None

    @property
    def server_url(self) -> str | None:
        """The server's URL when it is remote (HTTP), else None."""
        return self._conn.server_url if self._conn is not None else None

    @property
    def transport(self) -> Transport:
        """The transport under the session."""
        if self._conn is None:
            raise ConnectionClosed("Client is not connected")
        return self._conn.transport

    @property
    def tools(self) -> list[Tool] | None:
        """The tools from the last full :meth:`list_tools` (None before the first)."""
        return self._tools

    @property
    def prompts(self) -> list[Prompt] | None:
        """The prompts from the last full :meth:`list_prompts`."""
        return self._prompts

    @property
    def resources(self) -> list[Resource] | None:
        """The resources from the last full :meth:`list_resources`."""
        return self._resources

    @property
    def resource_templates(self) -> list[ResourceTemplate] | None:
        """The templates from the last full :meth:`list_resource_templates`."""
        return self._resource_templates

    def supports(self, *path: str) -> bool:
        """True when the server declared the capability ``path`` (e.g. ``"resources",
        "subscribe"``)."""
        return has_capability(self.session.server_capabilities, path)

    # -- requests -------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = _UNSET,
        on_progress: ProgressCallback | None = None,
        max_total_timeout: float | None = _UNSET,
    ) -> Any:
        """Send any request and return the raw ``result`` (a dict), unvalidated."""
        session = self.session
        kwargs: dict[str, Any] = {
            "reset_timeout_on_progress": self.reset_timeout_on_progress,
        }
        if timeout is not _UNSET:
            kwargs["timeout"] = timeout
        total = self.max_total_timeout if max_total_timeout is _UNSET else max_total_timeout
        if total is not None:
            kwargs["max_total_timeout"] = total
        if on_progress is not None:
            kwargs["on_progress"] = on_progress
        try:
            return await session.request(method, params, **kwargs)
        except McpError as exc:
            if exc.code == URL_ELICITATION_REQUIRED and type(exc) is McpError:
                raise self._url_required(exc) from None
            raise

    async def _typed(self, model: type[M], method: str, params: JSONObject | None = None) -> M:
        return _parse(model, await self.request(method, params), method)

    async def ping(self, *, timeout: float | None = _UNSET) -> None:
        """Check the server is alive (raises on timeout or a closed connection)."""
        result = await self.request("ping", timeout=timeout)
        if not isinstance(result, dict):
            raise InvalidServerResponse("ping", "expected an empty object")

    # pages

    async def list_tools_page(self, cursor: str | None = None) -> ListToolsResult:
        """One page of tools (``next_cursor`` set when there are more)."""
        raw = await self.request("tools/list", _cursor(cursor))
        page: ListToolsResult = _parse(_types().ListToolsResult, raw, "tools/list")
        self._remember_schemas(raw["tools"], replace=False)
        return page

    async def list_resources_page(self, cursor: str | None = None) -> ListResourcesResult:
        """One page of resources."""
        return await self._typed(_types().ListResourcesResult, "resources/list", _cursor(cursor))

    async def list_resource_templates_page(
        self, cursor: str | None = None
    ) -> ListResourceTemplatesResult:
        """One page of resource templates."""
        return await self._typed(
            _types().ListResourceTemplatesResult, "resources/templates/list", _cursor(cursor)
        )

    async def list_prompts_page(self, cursor: str | None = None) -> ListPromptsResult:
        """One page of prompts."""
        return await self._typed(_types().ListPromptsResult, "prompts/list", _cursor(cursor))

    # every page

    async def _all_pages(
        self, method: str, model: type[Any], key: str, wire_key: str
    ) -> tuple[list[Any], list[Any]]:
        items: list[Any] = []
        raw_items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            raw = await self.request(method, _cursor(cursor))
            page = _parse(model, raw, method)
            items.extend(getattr(page, key))
            raw_items.extend(raw[wire_key])
            cursor = page.next_cursor
            if cursor is None:
                return items, raw_items
            if cursor in seen:
                raise InvalidServerResponse(method, f"pagination loop: cursor {cursor!r} repeated")
            seen.add(cursor)
        raise InvalidServerResponse(method, f"more than {_MAX_PAGES} pages")

    async def list_tools(self) -> list[Tool]:
        """Every tool (all pages followed); also refreshes the cached output schemas."""
        tools, raw = await self._all_pages("tools/list", _types().ListToolsResult, "tools", "tools")
        self._remember_schemas(raw, replace=True)
        self._tools = tools
        return tools

    async def list_resources(self) -> list[Resource]:
        """Every resource (all pages followed)."""
        items, _ = await self._all_pages(
            "resources/list", _types().ListResourcesResult, "resources", "resources"
        )
        self._resources = items
        return items

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Every resource template (all pages followed)."""
        items, _ = await self._all_pages(
            "resources/templates/list",
            _types().ListResourceTemplatesResult,
            "resource_templates",
            "resourceTemplates",
        )
        self._resource_templates = items
        return items

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt (all pages followed)."""
        items, _ = await self._all_pages(
            "prompts/list", _types().ListPromptsResult, "prompts", "prompts"
        )
        self._prompts = items
        return items

    # tools

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | pydantic.BaseModel | None = None,
        *,
        timeout: float | None = _UNSET,
        max_total_timeout: float | None = _UNSET,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """Call tool ``name``; return its :class:`~mcpkit.types.CallToolResult`.

        ``arguments`` is a mapping of JSON values or a pydantic model; argument values that
        are models (protocol models included) are sent in their wire form.

        A tool that failed answers ``is_error=True`` (or raises :class:`ToolError` with
        ``raise_on_error``). When the tool declares an ``outputSchema``, ``structuredContent``
        is checked against it (:class:`OutputSchemaError` on a mismatch).

        A tool whose ``execution.taskSupport`` is ``"required"`` must be called with
        :meth:`call_tool_as_task` (:class:`TaskNotSupported` here).
        """
        if self._task_support and self._task_support.get(name) == "required":
            self._refuse_required(name)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = _arguments_to_wire(arguments)
        if meta:
            params["_meta"] = dict(meta)
        progress = on_progress or self._on_progress
        eff_timeout = self.timeout if timeout is _UNSET else timeout
        if progress is None and eff_timeout is not None and self.reset_timeout_on_progress:
            progress = _noop_progress  # a progress token lets progress restart the timeout
        try:
            raw = await self.request(
                "tools/call",
                params,
                timeout=timeout,
                max_total_timeout=max_total_timeout,
                on_progress=progress,
            )
        except McpError as exc:
            if exc.code == METHOD_NOT_FOUND and type(exc) is McpError:
                await self._explain_required(name, exc)
            raise
        return await self._tool_result(name, raw, raise_on_error)

    async def _tool_result(
        self, name: str | None, raw: Any, raise_on_error: bool, method: str = "tools/call"
    ) -> CallToolResult:
        result: CallToolResult = _parse(_types().CallToolResult, raw, method)
        if name is None:
            name = "?"
        elif self.validate_output and not result.is_error:
            await self._check_output(name, raw)
        if raise_on_error and result.is_error:
            texts = [
                getattr(b, "text", "") for b in result.content if getattr(b, "type", "") == "text"
            ]
            raise ToolError(
                name, "; ".join(t for t in texts if t) or "the tool reported an error", result
            )
        return result

    async def _check_output(self, name: str, raw: JSONObject) -> None:
        validator = await self._output_validator(name)
        if validator is None:
            return
        structured = raw.get("structuredContent")
        if structured is None:
            raise OutputSchemaError(
                name, "the tool declares an outputSchema but the result has no structuredContent"
            )
        errors = validator.errors(structured)
        if errors:
            raise OutputSchemaError(
                name,
                "structuredContent does not match the outputSchema: " + "; ".join(errors),
                errors,
            )

    async def _output_validator(self, name: str) -> SchemaValidator | None:
        schemas = self._output_schemas
        if not self._schemas_complete and (schemas is None or name not in schemas):
            await self._refresh_tools()
            schemas = self._output_schemas
        schema = schemas.get(name) if schemas is not None else None
        if schema is None:
            return None
        cached = self._validators.get(name)
        if cached is None:
            try:
                cached = SchemaValidator(schema)
            except (UnsupportedDialectError, InvalidSchemaError) as exc:
                cached = OutputSchemaError(name, f"its outputSchema cannot be used: {exc}")
            self._validators[name] = cached
        if isinstance(cached, OutputSchemaError):
            raise cached
        return cached

    async def _refresh_tools(self) -> None:
        task = self._tools_refresh
        if task is None or task.done():
            task = self._tools_refresh = asyncio.ensure_future(self.list_tools())
        try:
            await asyncio.shield(task)
        except (McpError, ConnectionClosed) as exc:
            logger.warning(
                "Could not list tools to learn their output schemas (%s); "
                "structured results are not checked until the next list_tools()",
                exc,
            )
            if self._output_schemas is None:
                self._output_schemas = {}
            self._schemas_complete = True

    def _remember_schemas(self, raw_tools: list[Any], *, replace: bool) -> None:
        old = self._output_schemas
        schemas: dict[str, JSONObject | None] = {} if replace or old is None else old
        if replace:
            self._task_support = {}
        for tool in raw_tools:
            name = tool.get("name")
            execution = tool.get("execution")
            support = execution.get("taskSupport") if isinstance(execution, dict) else None
            self._task_support[name] = support if isinstance(support, str) else None
            schema = tool.get("outputSchema")
            if not isinstance(schema, dict):
                schema = None
            if old is not None and old.get(name) != schema:
                self._validators.pop(name, None)
            schemas[name] = schema
        if replace:
            self._validators = {k: v for k, v in self._validators.items() if k in schemas}
            self._schemas_complete = True
        self._output_schemas = schemas

    def _forget_schemas(self) -> None:
        self._task_support = {}
        self._output_schemas = None
        self._schemas_complete = False
        self._validators.clear()

    # tasks (2025-11-25): this client as the requestor

    def _need_tasks(self, path: tuple[str, ...], what: str) -> None:
        version = self.negotiated_version
        if version is not None and not version.tasks:
            raise TaskNotSupported(
                f"Tasks need protocol revision 2025-11-25 or later; this connection "
                f"negotiated {version.name} ({what})"
            )
        if not has_capability(self.session.server_capabilities, ("tasks", *path)):
            raise TaskNotSupported(
                f"The server did not declare the capability {'.'.join(('tasks', *path))!r} "
                f"needed for {what}"
            )

    def _tool_tasks_declared(self) -> bool:
        version = self.negotiated_version
        return (version is None or version.tasks) and has_capability(
            self.session.server_capabilities, ("tasks", "requests", "tools", "call")
        )

    def _refuse_required(self, name: str) -> None:
        if self._tool_tasks_declared():
            raise TaskNotSupported(
                f"Tool {name!r} must be run as a task (its execution.taskSupport is "
                "'required'): use call_tool_as_task()"
            )

    async def _explain_required(self, name: str, exc: McpError) -> None:
        """A plain call answered -32601: if the tool requires a task, say so clearly."""
        if not self._tool_tasks_declared():
            return
        if name not in self._task_support:
            await self._refresh_tools()
        if self._task_support.get(name) == "required":
            try:
                self._refuse_required(name)
            except TaskNotSupported as clearer:
                raise clearer from exc

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | pydantic.BaseModel | None = None,
        *,
        ttl: int | None = None,
        timeout: float | None = _UNSET,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Task:
        """Call tool ``name`` as a task; return the created :class:`~mcpkit.types.Task` at
        once (the tool runs on at the server).

        ``on_progress(progress, total, message)`` (default: the client's ``on_progress``)
        receives the tool's progress for the task's whole lifetime, not just until the task
        is created: until this client sees the task terminal (a status notification,
        :meth:`get_task`, :meth:`wait_task`, :meth:`get_task_result`, :meth:`cancel_task`,
        :meth:`list_tasks`), its ``ttl`` runs out, or the connection closes.

        ``ttl`` (milliseconds) asks how long the server keeps the task and its result (the
        server may cap it; the returned task says what it chose). Follow up with
        :meth:`wait_task`, :meth:`get_task_result` (blocks, returns the ``CallToolResult``)
        or :meth:`cancel_task`. Raises :class:`TaskNotSupported` before sending when the
        server did not declare ``tasks.requests.tools.call`` or the tool's
        ``execution.taskSupport`` is absent or ``"forbidden"`` (the tool list is fetched
        first when it is not known yet).
        """
        self._need_tasks(("requests", "tools", "call"), "task-augmented tools/call")
        if name not in self._task_support:
            await self._refresh_tools()
        if name in self._task_support and self._task_support[name] not in ("optional", "required"):
            raise TaskNotSupported(
                f"Tool {name!r} cannot run as a task (its execution.taskSupport is "
                f"{self._task_support[name] or 'absent, i.e. forbidden'!s}): use call_tool()"
            )
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = _arguments_to_wire(arguments)
        params["task"] = task_params(True if ttl is None else ttl)
        if meta:
            params["_meta"] = dict(meta)
        progress = on_progress or self._on_progress
        release: Callable[[], None] | None = None
        if progress is not None:
            # The token outlives the request, so the engine's per-request routing won't do:
            # a string token (request ids are ints) routed by a listener until the task ends.
            token = f"mcpkit-task-{next(self._progress_tokens)}"
            params["_meta"] = {**params.get("_meta", {}), "progressToken": token}
            release = self.session.listen_progress(token, progress)
        try:
            raw = await self.request("tools/call", params, timeout=timeout)
            created = _parse(_types().CreateTaskResult, raw, "tools/call")
        except BaseException:
            if release is not None:
                release()
            raise
        task: Task = created.task
        tools = self._task_tools
        tools[task.task_id] = name
        if len(tools) > _MAX_TASK_TOOLS:
            del tools[next(iter(tools))]
        if release is not None:
            self._keep_task_progress(task, release)
        return task

    def _keep_task_progress(self, task: Task, release: Callable[[], None]) -> None:
        """Keep routing ``task``'s progress until it is terminal (or its ttl runs out)."""
        task_id = task.task_id
        if task.status in TERMINAL:
            release()
            return
        kept = self._task_progress
        old = kept.pop(task_id, None)
        if old is not None:
            old()
        if task.ttl is not None:  # past its ttl the server may forget the task
            handle = asyncio.get_running_loop().call_later(
                task.ttl / 1000, self._task_ended, task_id
            )

            def release_and_stop_timer() -> None:
                handle.cancel()
                release()

            kept[task_id] = release_and_stop_timer
        else:
            kept[task_id] = release
        if len(kept) > _MAX_TASK_TOOLS:
            kept.pop(next(iter(kept)))()

    def _task_ended(self, task_id: str) -> None:
        release = self._task_progress.pop(task_id, None)
        if release is not None:
            release()

    def _task_seen(self, task: Any) -> None:
        """A task state arrived (wire dict or model): a terminal one ends its progress."""
        if not self._task_progress:
            return
        if isinstance(task, dict):
            task_id, status = task.get("taskId"), task.get("status")
        else:
            task_id, status = getattr(task, "task_id", None), getattr(task, "status", None)
        if status in TERMINAL and isinstance(task_id, str):
            self._task_ended(task_id)

    async def get_task(self, task_id: str) -> GetTaskResult:
        """The task's current state (``tasks/get``)."""
        self._need_tasks((), "tasks/get")
        got: GetTaskResult = await self._typed(
            _types().GetTaskResult, "tasks/get", {"taskId": task_id}
        )
        self._task_seen(got)
        return got

    async def _get_task_raw(self, task_id: str) -> JSONObject:
        raw = await self.request("tasks/get", {"taskId": task_id})
        _parse(_types().GetTaskResult, raw, "tasks/get")
        self._task_seen(raw)
        return dict(raw)

    async def get_task_result(
        self,
        task_id: str,
        *,
        timeout: float | None = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """The tool's result (``tasks/result``), blocking until the task ends (``timeout``
        seconds; None waits as long as it takes).

        As :meth:`call_tool`: ``structuredContent`` is checked against the tool's
        ``outputSchema`` (for tasks this client created) and ``raise_on_error`` raises
        :class:`ToolError`. A task that failed with a protocol error raises that
        :class:`~mcpkit.errors.McpError`; a cancelled one raises -32602.
        """
        self._need_tasks((), "tasks/result")
        try:
            raw = await self.request("tasks/result", {"taskId": task_id}, timeout=timeout)
        except McpError as exc:
            if not isinstance(exc, TimeoutError):  # the task failed, was cancelled or is gone
                self._task_ended(task_id)
            raise
        self._task_ended(task_id)  # tasks/result answers once the task is terminal
        return await self._tool_result(
            self._task_tools.get(task_id), raw, raise_on_error, "tasks/result"
        )

    async def wait_task(
        self, task_id: str, *, poll: bool = True, timeout: float | None = None
    ) -> GetTaskResult:
        """Wait until the task is ``completed``, ``failed`` or ``cancelled``; return its
        final state (``TimeoutError`` after ``timeout`` seconds).

        ``poll=True`` polls ``tasks/get`` at the server's ``pollInterval``, woken early by
        ``notifications/tasks/status``; on ``input_required`` it calls ``tasks/result`` so
        the server can deliver its requests (elicitation, sampling) for the task.
        ``poll=False`` blocks on ``tasks/result`` instead, then reads the final state.
        """
        self._need_tasks((), "tasks/get")

        async def drain() -> None:
            with contextlib.suppress(McpError):
                await self.request("tasks/result", {"taskId": task_id}, timeout=None)

        async with asyncio.timeout(timeout):
            if not poll:
                await drain()
                return await self.get_task(task_id)
            raw = await wait_for_task(
                lambda: self._get_task_raw(task_id),
                task_id,
                tracker=self._task_tracker,
                on_input_required=drain,
            )
        final: GetTaskResult = _parse(_types().GetTaskResult, raw, "tasks/get")
        return final

    async def list_tasks_page(self, cursor: str | None = None) -> ListTasksResult:
        """One page of the server's tasks for this client (``tasks/list``)."""
        self._need_tasks(("list",), "tasks/list")
        page: ListTasksResult = await self._typed(
            _types().ListTasksResult, "tasks/list", _cursor(cursor)
        )
        for task in page.tasks:
            self._task_seen(task)
        return page

    async def list_tasks(self) -> list[Task]:
        """Every task the server keeps for this client (all pages followed)."""
        self._need_tasks(("list",), "tasks/list")
        items, _ = await self._all_pages("tasks/list", _types().ListTasksResult, "tasks", "tasks")
        for task in items:
            self._task_seen(task)
        return items

    async def cancel_task(self, task_id: str) -> CancelTaskResult:
        """Cancel a task (``tasks/cancel``); returns its state, now ``cancelled``. A task
        already finished answers -32602."""
        self._need_tasks(("cancel",), "tasks/cancel")
        try:
            result: CancelTaskResult = await self._typed(
                _types().CancelTaskResult, "tasks/cancel", {"taskId": task_id}
            )
        except McpError as exc:
            if exc.code == INVALID_PARAMS:  # already terminal (or unknown)
                self._task_ended(task_id)
            raise
        self._task_seen(result)
        return result

    @property
    def task_receiver(self) -> TaskReceiver | None:
        """The receiver running the server's task-augmented requests (``tasks=...``)."""
        return self._task_receiver

    # resources, prompts, completion, logging

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Read the resource at ``uri``."""
        return await self._typed(_types().ReadResourceResult, "resources/read", {"uri": str(uri)})

    async def subscribe_resource(self, uri: str) -> None:
        """Ask for ``notifications/resources/updated`` when ``uri`` changes."""
        await self._empty("resources/subscribe", {"uri": str(uri)})

    async def unsubscribe_resource(self, uri: str) -> None:
        """Stop the updates for ``uri``."""
        await self._empty("resources/unsubscribe", {"uri": str(uri)})

    async def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> GetPromptResult:
        """Get prompt ``name`` filled with ``arguments`` (non-string values are sent as JSON)."""
        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = {
                k: v if isinstance(v, str) else orjson.dumps(v).decode()
                for k, v in arguments.items()
            }
        return await self._typed(_types().GetPromptResult, "prompts/get", params)

    async def complete(
        self,
        ref: Any,
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
        params: JSONObject = {
            "ref": _ref_to_wire(ref),
            "argument": {"name": argument_name, "value": value},
        }
        if context:
            params["context"] = {"arguments": dict(context)}
        return await self._typed(_types().CompleteResult, "completion/complete", params)

    async def set_logging_level(self, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above."""
        if level not in _LOG_LEVELS:
            raise ValueError(f"Unknown logging level {level!r}; one of {', '.join(_LOG_LEVELS)}")
        await self._empty("logging/setLevel", {"level": level})

    async def _empty(self, method: str, params: JSONObject) -> None:
        result = await self.request(method, params)
        if not isinstance(result, dict):
            raise InvalidServerResponse(method, "expected an object")

    # roots

    async def set_roots(self, roots: Any) -> None:
        """Replace the roots and send ``notifications/roots/list_changed``.

        ``roots`` as for ``Client(roots=...)``; a list with an invalid root (not a ``file://``
        URI, or with ``..`` segments) raises ValueError and changes nothing."""
        if self._roots is None:
            raise McpError(
                METHOD_NOT_FOUND,
                "This client did not declare the roots capability; pass roots=[...] "
                "(or a callable) to Client() to offer roots",
            )
        check_roots(roots)
        self._roots = roots
        if self._session is not None and not self._session.closed:
            await self._session.notify("notifications/roots/list_changed")

    # URL elicitation

    def _track_elicitation(self, elicitation_id: str) -> asyncio.Future[None]:
        """Note a URL elicitation the server announced (a new one: not yet completed)."""
        self._completed_elicitations.pop(elicitation_id, None)
        return self._elicitation_future(elicitation_id)

    def _elicitation_future(self, elicitation_id: str) -> asyncio.Future[None]:
        fut = self._url_elicitations.get(elicitation_id)
        if fut is None:
            fut = self._url_elicitations[elicitation_id] = (
                asyncio.get_running_loop().create_future()
            )
        return fut

    async def wait_elicitation_complete(
        self, elicitation_id: str, timeout: float | None = None
    ) -> None:
        """Wait for ``notifications/elicitation/complete`` for a URL elicitation this client
        has seen (from ``elicitation/create`` or a -32042 error); TimeoutError on timeout.

        Returns at once if that notification already arrived before the call (the client
        remembers the last 1,000 completed ids)."""
        if elicitation_id in self._completed_elicitations:
            return
        fut = self._elicitation_future(elicitation_id)
        await asyncio.wait_for(asyncio.shield(fut), timeout)

    def _url_required(self, exc: McpError) -> URLElicitationRequired:
        from mcpkit.types import ElicitRequestURLParams

        found: list[ElicitRequestURLParams] = []
        data = exc.data
        items = data.get("elicitations") if isinstance(data, dict) else None
        for item in items if isinstance(items, list) else []:
            try:
                found.append(ElicitRequestURLParams.model_validate(item))
            except pydantic.ValidationError as err:
                logger.warning("Malformed elicitation in a -32042 error: %s", describe(err))
        for e in found:
            self._track_elicitation(e.elicitation_id)
        return URLElicitationRequired(exc.message, exc.data, found)

    # icons

    async def fetch_icon(self, icon: Icon | str, **options: Any) -> FetchedIcon:
        """Fetch an icon safely (https/data only, same origin as a remote server, limits,
        content sniffed); see :class:`mcpkit.client.icons.IconFetcher`."""
        from mcpkit.client.icons import IconFetcher

        return await IconFetcher(**options).fetch(icon, server_url=self.server_url)

    # -- notifications --------------------------------------------------------------------------

    def _log(self, params: JSONObject | None) -> Any:
        from mcpkit.types import LoggingMessageNotificationParams

        typed = _notification_params(
            LoggingMessageNotificationParams, params, "notifications/message"
        )
        if typed is None:
            return None
        if self._on_log is not None:
            return call_hook(self._on_log, typed)
        name = f"mcpkit.client.server.{typed.logger}" if typed.logger else server_log.name
        logging.getLogger(name).log(_LOG_LEVELS.get(typed.level, logging.INFO), "%s", typed.data)
        return None

    def _updated(self, params: JSONObject | None) -> Any:
        from mcpkit.types import ResourceUpdatedNotificationParams

        typed = _notification_params(
            ResourceUpdatedNotificationParams, params, "notifications/resources/updated"
        )
        if typed is None or self._on_resource_updated is None:
            return None
        return call_hook(self._on_resource_updated, typed.uri)

    def _elicitation_complete(self, params: JSONObject | None) -> Any:
        from mcpkit.types import ElicitationCompleteNotificationParams

        typed = _notification_params(
            ElicitationCompleteNotificationParams, params, "notifications/elicitation/complete"
        )
        if typed is None:
            return None
        fut = self._url_elicitations.pop(typed.elicitation_id, None)
        if fut is None or fut.done():
            logger.debug("Ignoring completion of unknown elicitation %r", typed.elicitation_id)
            return None
        fut.set_result(None)
        done = self._completed_elicitations
        done[typed.elicitation_id] = None
        if len(done) > _COMPLETED_ELICITATIONS_KEPT:
            del done[next(iter(done))]
        if self._on_elicitation_complete is not None:
            return call_hook(self._on_elicitation_complete, typed.elicitation_id)
        return None

    def _task_status(self, params: JSONObject | None) -> Any:
        from mcpkit.types import TaskStatusNotificationParams

        typed = _notification_params(
            TaskStatusNotificationParams, params, "notifications/tasks/status"
        )
        if typed is None:
            return None
        self._task_tracker.observe(params)
        self._task_seen(typed)
        if self._on_task_status is not None:
            return call_hook(self._on_task_status, typed)
        return None

    def _list_changed_handler(self, method: str) -> Callable[[JSONObject | None], Any]:
        kind = _LIST_CHANGED[method]

        def handle(params: JSONObject | None) -> Any:
            if kind == "tools":
                self._forget_schemas()
            if self.auto_refresh and self._session is not None:
                self._spawn(self._refresh(kind))
                return None
            if self._on_list_changed is not None:
                return call_hook(self._on_list_changed, kind)
            return None

        return handle

    async def _refresh(self, kind: str) -> None:
        try:
            if kind == "tools":
                await self.list_tools()
            elif kind == "prompts":
                await self.list_prompts()
            else:
                await self.list_resources()
                if self.supports("resources"):
                    try:
                        await self.list_resource_templates()
                    except McpError as exc:
                        if exc.code != METHOD_NOT_FOUND:
                            raise
        except (McpError, ConnectionClosed) as exc:
            logger.warning("Could not refresh the %s list: %s", kind, exc)
            return
        if self._on_list_changed is not None:
            outcome = call_hook(self._on_list_changed, kind)
            if outcome is not None:
                await outcome

    def _any_notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled":
            self._cancelled(params)
        if self._on_notification is not None:
            outcome = call_hook(self._on_notification, method, params)
            if outcome is not None:
                self._spawn(outcome)

    def _cancelled(self, params: JSONObject | None) -> None:
        if self._on_cancelled is None:
            return
        from mcpkit.types import CancelledNotificationParams

        typed = _notification_params(CancelledNotificationParams, params, "notifications/cancelled")
        if typed is not None:
            outcome = call_hook(self._on_cancelled, typed)
            if outcome is not None:
                self._spawn(outcome)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def __repr__(self) -> str:
        state = "connected" if self.connected else "not connected"
        return f"<Client {self.target!r} {state}>"


# -- helpers ------------------------------------------------------------------------------------


def _types() -> Any:
    import mcpkit.types as t

    return t


def _parse(model: type[M], raw: Any, method: str) -> M:
    try:
        return model.model_validate(raw)
    except pydantic.ValidationError as exc:
        errors = describe(exc)
        raise InvalidServerResponse(method, "; ".join(errors), errors) from None


def _lenient(model: type[M], raw: Any) -> M:
    try:
        return model.model_validate(raw if raw is not None else {})
    except pydantic.ValidationError as exc:
        logger.warning("Server sent an invalid %s: %s", model.__name__, "; ".join(describe(exc)))
        return model.model_construct(**(raw if isinstance(raw, dict) else {}))


def _notification_params(model: type[M], params: Any, method: str) -> M | None:
    try:
        return model.model_validate(params if params is not None else {})
    except pydantic.ValidationError as exc:
        logger.warning("Dropped %s with invalid params: %s", method, "; ".join(describe(exc)))
        return None


def _cursor(cursor: str | None) -> JSONObject | None:
    return {"cursor": cursor} if cursor is not None else None


def _ref_to_wire(ref: Any) -> JSONObject:
    if isinstance(ref, pydantic.BaseModel):
        return ref.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(ref, dict):
        return dict(ref)
    if isinstance(ref, str):
        if "://" in ref or "{" in ref:
            return {"type": "ref/resource", "uri": ref}
        return {"type": "ref/prompt", "name": ref}
    raise McpError(INVALID_PARAMS, f"A completion ref must be a reference or a string, not {ref!r}")


_JSON_TYPES: Final = frozenset({str, int, float, bool, type(None), dict, list})


def _model_to_wire(value: pydantic.BaseModel) -> Any:
    to_wire = getattr(value, "to_wire", None)  # protocol models omit unset optionals
    if to_wire is not None:
        return to_wire()
    return value.model_dump(by_alias=True, mode="json")


def _arguments_to_wire(arguments: Mapping[str, Any] | pydantic.BaseModel) -> JSONObject:
    """Tool arguments as a JSON object: a model is dumped, and so is each argument value that
    is not plain JSON (models, dataclasses, ...); plain values are passed as they are."""
    if isinstance(arguments, pydantic.BaseModel):
        wire = _model_to_wire(arguments)
        if not isinstance(wire, dict):
            raise TypeError(f"Tool arguments must dump to an object, not {type(wire).__name__}")
        return wire
    out = dict(arguments)
    for key, value in out.items():
        if type(value) not in _JSON_TYPES:
            if isinstance(value, pydantic.BaseModel):
                out[key] = _model_to_wire(value)
            else:
                out[key] = pydantic_core.to_jsonable_python(value, by_alias=True)
    return out


def _info_dict(info: Any) -> JSONObject:
    if info is None:
        from mcpkit import __version__

        return {"name": "mcpkit", "version": __version__}
    if isinstance(info, pydantic.BaseModel):
        return info.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dict(info)


def _versions(names: Sequence[str] | None) -> tuple[ProtocolVersion, ...] | None:
    if names is None:
        return None
    out: list[ProtocolVersion] = []
    for name in names:
        v = versions.get(name)
        if v is None:
            raise ValueError(f"Unsupported protocol version {name!r}")
        out.append(v)
    return tuple(out)
