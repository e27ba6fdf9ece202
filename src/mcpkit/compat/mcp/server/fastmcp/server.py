"""The official SDK's 1.x ``FastMCP`` on mcpkit: :class:`~mcpkit.compat.mcp.server.mcpserver.
MCPServer` with 1.x's constructor (transport settings given to it, kept in
:attr:`FastMCP.settings`), ``run(transport, mount_path)`` and error texts (a failing tool's
message is always shown: ``Error executing tool <name>: <message>``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.compat._native import SESSION_NOT_FOUND_V1, method_not_found_v1
from mcpkit.compat.mcp.server.lowlevel.server import _sdk1_version
from mcpkit.compat.mcp.server.mcpserver.context import Context
from mcpkit.compat.mcp.server.mcpserver.server import MCPServer

__all__ = ["Context", "FastMCP", "Settings"]


class Settings:
    """``FastMCP.settings``: what the constructor was given (``host``, ``port``,
    ``streamable_http_path``, ``stateless_http``, ``json_response``, ...), changeable
    before :meth:`FastMCP.run`."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


_DEFAULTS: dict[str, Any] = {
    "debug": False,
    "log_level": "INFO",
    "host": "127.0.0.1",
    "port": 8000,
    "mount_path": "/",
    "sse_path": "/sse",
    "message_path": "/messages/",
    "streamable_http_path": "/mcp",
    "json_response": False,
    "stateless_http": False,
    "warn_on_duplicate_resources": True,
    "warn_on_duplicate_tools": True,
    "warn_on_duplicate_prompts": True,
    "dependencies": [],
    "lifespan": None,
    "auth": None,
    "transport_security": None,
}


class FastMCP(MCPServer[Any]):
    """The 1.x high-level server, served by mcpkit."""

    #: 1.x shows every failing tool's message.
    _show_failure_text = True
    #: 1.x declares an (empty) experimental capability object.
    _declare_experimental = True
    #: 1.x rebuilds a TypedDict as a model, without its docstring.
    _typeddict_docstring_dropped = True
    #: 1.x advertises a content block return's model schema as the output schema.
    _content_output_schema = True
    _meta_as_model = True
    #: 1.x writes a URL without a path with ``/`` in its auth documents.
    _slash_empty_path = True

    def __init__(
        self,
        name: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        auth_server_provider: Any = None,
        token_verifier: Any = None,
        event_store: Any = None,
        retry_interval: int | None = None,
        *,
        tools: list[Any] | None = None,
        lifespan: Callable[[Any], Any] | None = None,
        auth: Any = None,
        **settings: Any,
    ) -> None:
        super().__init__(
            name or "FastMCP",
            version=_sdk1_version(),
            instructions=instructions,
            website_url=website_url,
            icons=icons,
            auth_server_provider=auth_server_provider,
            token_verifier=token_verifier,
            lifespan=lifespan,
            auth=auth,
            debug=bool(settings.get("debug", False)),
        )
        values = {**_DEFAULTS, **settings, "lifespan": lifespan, "auth": auth}
        if event_store is not None:
            values["event_store"] = event_store
        if retry_interval is not None:
            values["retry_interval"] = retry_interval
        self.settings = Settings(**values)  # type: ignore[assignment]
        self.native.session_not_found = SESSION_NOT_FOUND_V1
        self.native.method_not_found = method_not_found_v1
        self._sdk_auth(values["streamable_http_path"])
        self.dependencies = list(values["dependencies"])
        for tool in tools or ():
            fn = getattr(tool, "fn", tool)
            self.add_tool(fn, name=getattr(tool, "name", None))

    def run(self, transport: str = "stdio", mount_path: str | None = None) -> None:  # type: ignore[override]
        """Serve: ``"stdio"`` (the default), ``"streamable-http"`` or ``"sse"``, on the
        host, port and paths of :attr:`settings`."""
        if transport == "stdio":
            self.native.run()
            return
        s = self.settings
        options: dict[str, Any] = {
            "host": s.host,  # type: ignore[attr-defined]
            "port": s.port,  # type: ignore[attr-defined]
            "streamable_http_path": s.streamable_http_path,  # type: ignore[attr-defined]
            "stateless_http": s.stateless_http,  # type: ignore[attr-defined]
            "json_response": s.json_response,  # type: ignore[attr-defined]
            "sse_path": s.sse_path,  # type: ignore[attr-defined]
            "message_path": s.message_path,  # type: ignore[attr-defined]
        }
        for name in (
            "event_store",
            "retry_interval",
            "session_idle_timeout",
            "max_sessions",
            "transport_security",
        ):
            if name in s.__dict__:
                options[name] = s.__dict__[name]
        super().run(transport, **options)

    @property
    def _mcp_server(self) -> Any:
        """1.x's name of the private low-level server (its decorators register beside the
        FastMCP's own tools, resources and prompts)."""
        return self._lowlevel_server

    def streamable_http_app(self, **options: Any) -> Any:
        """The Streamable HTTP ASGI app, on the paths and modes of :attr:`settings`."""
        s = self.settings.__dict__
        merged = {
            "streamable_http_path": s["streamable_http_path"],
            "stateless_http": s["stateless_http"],
            "json_response": s["json_response"],
            "transport_security": s["transport_security"],
            **options,
        }
        return super().streamable_http_app(**merged)
