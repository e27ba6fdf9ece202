"""``mcp.client.session_group`` on mcpkit: ``ClientSessionGroup``, several servers behind one
object, as the official SDK (1.x and 2.x) has it.

Each server is connected with the compat :class:`~mcpkit.compat.mcp.client.client.Client`
(over mcpkit's client, the ``initialize`` handshake as the SDK's ``ClientSession`` speaks
it); the group lists every server's prompts, resources and tools once, keeps them under
their names (``component_name_hook(name, server_info)`` to rename them; a name two servers
share is refused with the SDK's ``MCPError``) and routes ``call_tool`` to the server that
listed the tool. What ``connect_to_server`` returns (and ``sessions`` lists) is that
client: ``list_tools``, ``call_tool``, ``read_resource``, ``get_prompt``, ... on one server.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType
from typing import Any, TypeAlias

import anyio
from pydantic import BaseModel, Field

from mcpkit.compat.mcp.client.client import Client
from mcpkit.compat.mcp.client.stdio import StdioServerParameters
from mcpkit.compat.mcp.shared.exceptions import McpError
from mcpkit.errors import McpError as NativeMcpError
from mcpkit.jsonrpc import INVALID_PARAMS

__all__ = [
    "ClientSessionGroup",
    "ClientSessionParameters",
    "ServerParameters",
    "SseServerParameters",
    "StreamableHttpParameters",
]


class SseServerParameters(BaseModel):
    """An HTTP+SSE server: its ``url``, ``headers`` and timeouts (seconds)."""

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 5.0
    sse_read_timeout: float = 300.0


class StreamableHttpParameters(BaseModel):
    """A Streamable HTTP server: its ``url``, ``headers``, timeouts (seconds, or 1.x's
    ``timedelta``) and ``terminate_on_close``."""

    url: str
    headers: dict[str, Any] | None = None
    timeout: float | timedelta = 30.0
    sse_read_timeout: float | timedelta = 300.0
    terminate_on_close: bool = True
    max_sse_event_size: int | None = Field(default=None, gt=0)


ServerParameters: TypeAlias = StdioServerParameters | SseServerParameters | StreamableHttpParameters


@dataclass
class ClientSessionParameters:
    """How each session of the group talks to its server (the client's callbacks)."""

    read_timeout_seconds: float | timedelta | None = None
    sampling_callback: Any = None
    elicitation_callback: Any = None
    list_roots_callback: Any = None
    logging_callback: Any = None
    message_handler: Any = None
    client_info: Any = None


class MCPError(McpError):
    """The SDK's error for a name the group already holds, or a session it does not manage
    (2.x's ``MCPError``; 1.x's ``McpError`` catches it too)."""


def _seconds(value: float | timedelta | None) -> float | None:
    return value.total_seconds() if isinstance(value, timedelta) else value


def _target(server: ServerParameters) -> Any:
    """What mcpkit's client connects to for ``server``: a command (with its environment
    and folder) or a URL with its headers."""
    if isinstance(server, StdioServerParameters):
        entry: dict[str, Any] = {"command": server.command, "args": list(server.args)}
        if server.env:
            entry["env"] = dict(server.env)
        if server.cwd:
            entry["cwd"] = str(server.cwd)
        return entry
    return {"url": server.url, "headers": {k: str(v) for k, v in (server.headers or {}).items()}}


class _ComponentNames:
    """The names one session's components are kept under in the group."""

    def __init__(self) -> None:
        self.prompts: set[str] = set()
        self.resources: set[str] = set()
        self.tools: set[str] = set()


#: ``(component_name, server_info) -> name in the group``.
ComponentNameHook: TypeAlias = Callable[[str, Any], str]


class ClientSessionGroup:
    """Several MCP servers as one: their ``tools``, ``resources`` and ``prompts`` gathered
    by name, ``call_tool`` sent to the server that has the tool.

    ``async with ClientSessionGroup(component_name_hook=...) as group:`` then
    ``await group.connect_to_server(params)`` for each server.
    """

    def __init__(
        self,
        exit_stack: contextlib.AsyncExitStack | None = None,
        component_name_hook: ComponentNameHook | None = None,
    ) -> None:
        self._tools: dict[str, Any] = {}
        self._resources: dict[str, Any] = {}
        self._prompts: dict[str, Any] = {}
        self._sessions: dict[Client, _ComponentNames] = {}
        self._tool_to_session: dict[str, Client] = {}
        self._owns_exit_stack = exit_stack is None
        self._exit_stack = exit_stack or contextlib.AsyncExitStack()
        self._session_exit_stacks: dict[Client, contextlib.AsyncExitStack] = {}
        self._component_name_hook = component_name_hook

    async def __aenter__(self) -> ClientSessionGroup:
        if self._owns_exit_stack:
            await self._exit_stack.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        if self._owns_exit_stack:
            await self._exit_stack.aclose()
        async with anyio.create_task_group() as tg:
            for stack in self._session_exit_stacks.values():
                tg.start_soon(stack.aclose)
        return None

    @property
    def sessions(self) -> list[Client]:
        """The sessions of the group, one per connected server."""
        return list(self._sessions)

    @property
    def prompts(self) -> dict[str, Any]:
        """Every server's prompts, by their name in the group."""
        return self._prompts

    @property
    def resources(self) -> dict[str, Any]:
        """Every server's resources, by their name in the group."""
        return self._resources

    @property
    def tools(self) -> dict[str, Any]:
        """Every server's tools, by their name in the group."""
        return self._tools

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | timedelta | None = None,
        progress_callback: Any = None,
        *,
        meta: Any = None,
        args: dict[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """Call the tool the group knows as ``name`` on its server: its
        ``CallToolResult`` (``args=`` is 1.x's older spelling of ``arguments``)."""
        session = self._tool_to_session[name]
        return await session.call_tool(
            self._tools[name].name,
            arguments if args is None else args,
            _seconds(read_timeout_seconds),
            progress_callback,
            meta=meta,
            **options,
        )

    async def disconnect_from_server(self, session: Client) -> None:
        """Forget ``session``'s components and close its connection."""
        known = session in self._sessions
        stacked = session in self._session_exit_stacks
        if not known and not stacked:
            raise MCPError(
                code=INVALID_PARAMS,
                message="Provided session is not managed or already disconnected.",
            )
        if known:
            names = self._sessions.pop(session)
            for name in names.prompts:
                self._prompts.pop(name, None)
            for name in names.resources:
                self._resources.pop(name, None)
            for name in names.tools:
                self._tools.pop(name, None)
                self._tool_to_session.pop(name, None)
        if stacked:
            await self._session_exit_stacks.pop(session).aclose()

    async def connect_with_session(self, server_info: Any, session: Client) -> Client:
        """Add the components of an already connected ``session``."""
        await self._aggregate_components(server_info, session)
        return session

    async def connect_to_server(
        self,
        server_params: ServerParameters,
        session_params: ClientSessionParameters | None = None,
    ) -> Client:
        """Connect to one more server and add its components; its session."""
        server_info, session = await self._establish_session(
            server_params, session_params or ClientSessionParameters()
        )
        return await self.connect_with_session(server_info, session)

    async def _establish_session(
        self, server_params: ServerParameters, session_params: ClientSessionParameters
    ) -> tuple[Any, Client]:
        stack = contextlib.AsyncExitStack()
        try:
            timeout = _seconds(session_params.read_timeout_seconds)
            if isinstance(server_params, StreamableHttpParameters) and timeout is None:
                timeout = _seconds(server_params.sse_read_timeout)
            session = Client(
                _target(server_params),
                mode="legacy",
                read_timeout_seconds=timeout,
                sampling_callback=session_params.sampling_callback,
                elicitation_callback=session_params.elicitation_callback,
                list_roots_callback=session_params.list_roots_callback,
            )
            await stack.enter_async_context(session)
            self._session_exit_stacks[session] = stack
            await self._exit_stack.enter_async_context(stack)
            return session.server_info, session
        except Exception:
            await stack.aclose()
            raise

    async def _aggregate_components(self, server_info: Any, session: Client) -> None:
        names = _ComponentNames()
        prompts: dict[str, Any] = {}
        resources: dict[str, Any] = {}
        tools: dict[str, Any] = {}
        try:
            for prompt in (await session.list_prompts()).prompts:
                name = self._component_name(prompt.name, server_info)
                prompts[name] = prompt
                names.prompts.add(name)
        except NativeMcpError as err:
            logging.warning(f"Could not fetch prompts: {err}")
        try:
            for resource in (await session.list_resources()).resources:
                name = self._component_name(resource.name, server_info)
                resources[name] = resource
                names.resources.add(name)
        except NativeMcpError as err:
            logging.warning(f"Could not fetch resources: {err}")
        try:
            for tool in (await session.list_tools()).tools:
                name = self._component_name(tool.name, server_info)
                tools[name] = tool
                names.tools.add(name)
        except NativeMcpError as err:
            logging.warning(f"Could not fetch tools: {err}")
        if not (prompts or resources or tools):
            self._session_exit_stacks.pop(session, None)
        for kind, found, held in (
            ("prompts", prompts, self._prompts),
            ("resources", resources, self._resources),
            ("tools", tools, self._tools),
        ):
            taken = found.keys() & held.keys()
            if taken:
                raise MCPError(
                    code=INVALID_PARAMS, message=f"{taken} already exist in group {kind}."
                )
        self._sessions[session] = names
        self._prompts.update(prompts)
        self._resources.update(resources)
        self._tools.update(tools)
        self._tool_to_session.update(dict.fromkeys(tools, session))

    def _component_name(self, name: str, server_info: Any) -> str:
        if self._component_name_hook:
            return self._component_name_hook(name, server_info)
        return name
