"""``fastmcp.client.transports`` on mcpkit: the transports fastmcp's ``Client`` takes, each
naming the :data:`mcpkit.client.Target` it connects to, and :func:`infer_transport`, which
picks one from the ``Client``'s argument as fastmcp does.

A Python server started over stdio runs under the compat layer (``python -m mcpkit.compat
script.py``), so a script written for fastmcp or ``mcp`` runs without those packages.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "ClientTransport",
    "FastMCPTransport",
    "MCPConfigTransport",
    "NodeStdioTransport",
    "PythonStdioTransport",
    "SSETransport",
    "StdioTransport",
    "StreamableHttpTransport",
    "infer_transport",
]


class ClientTransport:
    """How a ``Client`` reaches its server: :meth:`target` is what mcpkit's client opens."""

    def target(self) -> Any:
        """The :data:`mcpkit.client.Target` to connect to."""
        raise NotImplementedError

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments of :class:`mcpkit.Client` this transport sets."""
        return {}

    def get_session_id(self) -> str | None:
        """The HTTP session id (none is kept here)."""
        return None

    def _set_auth(self, auth: Any) -> None:
        """Authorization for the connection: HTTP transports only, as fastmcp's."""
        if auth is not None:
            raise ValueError("This transport does not support auth")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}({self.target()!r})>"


class StdioTransport(ClientTransport):
    """A server started as ``command args`` and spoken to over its stdin and stdout."""

    def __init__(
        self,
        command: str,
        args: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        keep_alive: bool | None = None,
        log_file: Any = None,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = env
        self.cwd = cwd
        self.keep_alive = keep_alive
        self.log_file = log_file

    def target(self) -> Any:
        return _under_compat([self.command, *self.args])

    def client_options(self) -> dict[str, Any]:
        if self.env is None and self.cwd is None:
            return {}
        from mcpkit.client.options import StdioOptions

        env = {**os.environ, **self.env} if self.env is not None else None
        return {"connection": StdioOptions(env=env, cwd=self.cwd)}


class PythonStdioTransport(StdioTransport):
    """A Python script run with ``python_cmd`` (this interpreter by default)."""

    def __init__(
        self,
        script_path: str | Path,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        python_cmd: str = sys.executable,
        keep_alive: bool | None = None,
        log_file: Any = None,
    ) -> None:
        script = Path(script_path)
        if not script.is_file():
            raise FileNotFoundError(f"Script not found: {script_path}")
        if script.suffix != ".py":
            raise ValueError(f"Not a Python script: {script_path}")
        super().__init__(python_cmd, [str(script), *(args or [])], env, cwd, keep_alive, log_file)
        self.script_path = script


class NodeStdioTransport(StdioTransport):
    """A JavaScript server run with ``node``."""

    def __init__(
        self,
        script_path: str | Path,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        node_cmd: str = "node",
        keep_alive: bool | None = None,
        log_file: Any = None,
    ) -> None:
        script = Path(script_path)
        if not script.is_file():
            raise FileNotFoundError(f"Script not found: {script_path}")
        super().__init__(node_cmd, [str(script), *(args or [])], env, cwd, keep_alive, log_file)
        self.script_path = script


class StreamableHttpTransport(ClientTransport):
    """A server at a Streamable HTTP URL."""

    def __init__(
        self, url: Any, headers: dict[str, str] | None = None, auth: Any = None, **_: Any
    ) -> None:
        self.url = str(url)
        self.headers = dict(headers or {})
        self.auth: Any = None

        self._set_auth(auth)

    def _set_auth(self, auth: Any) -> None:
        """A token (sent as ``Authorization: Bearer``), an ``httpx.Auth``, or fastmcp's
        browser flow (``"oauth"``, or an ``OAuth`` without a URL: bound to this one), or its
        client credentials providers (bound to this URL when not bound yet)."""
        from mcpkit.compat.fastmcp.client.auth.client_credentials import _BoundProvider
        from mcpkit.compat.fastmcp.client.auth.oauth import OAuth

        if auth == "oauth":
            auth = OAuth(self.url)
        elif isinstance(auth, OAuth | _BoundProvider):
            auth._bind(self.url)
        self.auth = auth

    def target(self) -> Any:
        return self.url

    def client_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if self.headers:
            options["headers"] = self.headers
        if isinstance(self.auth, str):
            options["headers"] = {**self.headers, "Authorization": f"Bearer {self.auth}"}
        elif self.auth is not None:
            options["auth"] = self.auth
        return options


class SSETransport(StreamableHttpTransport):
    """A server at an HTTP+SSE (2024-11-05) URL: mcpkit's HTTP client falls back to that
    transport when the server refuses a POST there."""


class FastMCPTransport(ClientTransport):
    """A server object in this process, connected in memory."""

    def __init__(self, mcp: Any, raise_exceptions: bool = False) -> None:
        self.server = mcp
        self.raise_exceptions = raise_exceptions

    def target(self) -> Any:
        return getattr(self.server, "native", self.server)


class MCPConfigTransport(ClientTransport):
    """The servers of an ``mcpServers`` configuration: one is connected to directly;
    several are served by one router (a ``FastMCP`` named ``MCPRouter``) on which a proxy
    of each is mounted under the server's name (``name_as_prefix``), as fastmcp does."""

    def __init__(self, config: Mapping[str, Any], name_as_prefix: bool = True) -> None:
        servers = dict(getattr(config, "mcpServers", None) or config.get("mcpServers", {}))
        if not servers:
            raise ValueError("No MCP servers defined in the config")
        self.name_as_prefix = name_as_prefix
        self.transports = {name: _entry_transport(dict(entry)) for name, entry in servers.items()}
        self.transport = next(iter(self.transports.values()))
        self._router: Any = None

    def target(self) -> Any:
        if len(self.transports) == 1:
            return self.transport.target()
        if self._router is None:
            from mcpkit.compat.fastmcp._proxy import create_proxy
            from mcpkit.compat.fastmcp._server import FastMCP

            router = FastMCP(name="MCPRouter")
            for name, transport in self.transports.items():
                namespace = name if self.name_as_prefix else None
                router.mount(create_proxy(transport, name=name), namespace=namespace)
            self._router = router
        return self._router.native

    def client_options(self) -> dict[str, Any]:
        return self.transport.client_options() if len(self.transports) == 1 else {}


def _entry_transport(entry: dict[str, Any]) -> ClientTransport:
    if "url" in entry or "serverUrl" in entry:
        url = entry.get("url") or entry["serverUrl"]
        kind = entry.get("transport") or entry.get("type")
        cls = SSETransport if kind == "sse" else StreamableHttpTransport
        return cls(url, headers=entry.get("headers"), auth=entry.get("auth"))
    if "command" not in entry:
        raise ValueError(f"A server entry needs 'command' or 'url': {entry!r}")
    return StdioTransport(
        entry["command"], list(entry.get("args", [])), entry.get("env"), entry.get("cwd")
    )


def _under_compat(argv: list[str]) -> list[str]:
    """``argv``, a Python script run by this interpreter (or a bare ``python``) under the
    compat layer, so its ``fastmcp`` / ``mcp`` imports are served by mcpkit."""
    if len(argv) >= 2 and argv[1].endswith(".py") and _is_this_python(argv[0]):
        return [sys.executable, "-m", "mcpkit.compat", *argv[1:]]
    return argv


def _is_this_python(command: str) -> bool:
    if command in ("python", "python3"):
        return True
    try:
        return Path(command).resolve() == Path(sys.executable).resolve()
    except OSError:
        return False


def _is_server(value: Any) -> bool:
    from mcpkit.compat.mcp.server.mcpserver.server import MCPServer
    from mcpkit.server.core import ServerCore

    return isinstance(value, MCPServer | ServerCore)


def infer_transport(transport: Any) -> ClientTransport:
    """The transport for a ``Client`` argument, as fastmcp infers it: a transport as it is,
    a server object in memory, a ``Path`` (``.py`` or ``.js``) or an existing file's name
    over stdio, an ``http(s)`` URL over Streamable HTTP (SSE when it ends in ``/sse``), an
    ``mcpServers`` configuration."""
    if isinstance(transport, ClientTransport):
        return transport
    if _is_server(transport):
        return FastMCPTransport(transport)
    if isinstance(transport, Path) or (
        isinstance(transport, str)
        and transport.endswith((".py", ".js"))
        and Path(transport).exists()
    ):
        path = Path(transport)
        if path.suffix == ".py":
            return PythonStdioTransport(path)
        if path.suffix == ".js":
            return NodeStdioTransport(path)
        raise ValueError(f"Unsupported script type: {transport}")
    if not isinstance(transport, Mapping) and str(transport).startswith("http"):
        url = str(transport)
        if url.rstrip("/").endswith("/sse"):
            return SSETransport(url)
        return StreamableHttpTransport(url)
    if isinstance(transport, Mapping):
        return MCPConfigTransport(transport)
    raise ValueError(f"Could not infer a valid transport from: {transport}")
