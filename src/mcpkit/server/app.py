"""The :class:`Server`: every server feature of MCP behind decorators.

```python
app = Server("weather", version="1.0.0")

@app.tool()
async def forecast(city: str, days: int = 3, *, ctx: Context) -> Forecast: ...

app.run()            # stdio; app.run("http", port=8000) for Streamable HTTP
```

A Server is a set of features (tools, resources, prompts, completions, logging), each
owning its wire handlers, plus settings. :meth:`Server.session` makes an
:class:`~mcpkit.server.session.AppSession` on any transport and gives it the handler table
collected from the features; stdio, Streamable HTTP and the in-memory client all go through
it.

The Server is :class:`~mcpkit.server.core.ServerCore` (settings and stores, the handler
table, the decorators, sessions and serving, each its own class) with the methods that build
compositions from it: :meth:`~Server.mount`, :meth:`~Server.from_openapi`,
:meth:`~Server.transform_tool`, the resource and prompt tools. Those are built *from* the
core, so this module sits with them in the composition layer (pyproject's
``[tool.importlinter]``), above the core it extends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from mcpkit.server.configured import Feature, Lifespan
from mcpkit.server.context import LifespanT
from mcpkit.server.core import ServerCore
from mcpkit.server.http_app import ServerHTTPApp
from mcpkit.server.session import AppSession

if TYPE_CHECKING:
    from mcpkit.proxy import ProxyServer
    from mcpkit.server.mount import Mount
    from mcpkit.server.openapi import Route
    from mcpkit.server.tools import ToolEntry
    from mcpkit.server.transforms import ArgTransform, Wrap

__all__ = ["AppSession", "Feature", "Lifespan", "Server", "ServerHTTPApp"]

F = TypeVar("F", bound=Callable[..., Any])


class Server(ServerCore[LifespanT]):
    """An MCP server: register tools, resources and prompts, then :meth:`run` it.

    One object serves both protocol eras: a client that opens with ``initialize`` gets a
    2025-era session, one that sends 2026-07-28 requests is served statelessly (see
    :mod:`mcpkit.server.session`). The Server is a façade over collaborators, each in its
    own module (its own classes: :mod:`mcpkit.server.core`): the registries and
    :class:`~mcpkit.server.registration.Registration`
    (tools, resources, prompts), :mod:`~mcpkit.server.serving` (``run``), the handler
    table, the lifespan, the bus and :class:`~mcpkit.bus.BusRelay` (changes reaching every
    replica's clients), the shared ``store``.

    The keyword options are told in docs/server.md: ``declare`` (capabilities declared
    before anything is registered), ``ttl_ms``/``cache_scope`` (default caching hints),
    ``request_state_keys`` (sealing MRTR ``requestState``), ``extensions``, ``bus``,
    ``include_tags``/``exclude_tags`` (:mod:`~mcpkit.server.components`), ``tool_search``,
    ``store`` (a ``redis://`` URL or a :class:`mcpkit.redis.RedisBackend`: sessions, events,
    bus, tasks and keys shared by replicas; docs/deploy.md), ``mask_errors``
    (:mod:`~mcpkit.server.masking`), ``middleware``, ``max_tool_concurrency``/
    ``max_tool_queued``/``tool_timeout``/``inline_schema_refs`` (defaults of every tool),
    ``state_ttl`` (:mod:`~mcpkit.server.state`) and ``session_visibility``
    (:mod:`~mcpkit.server.visibility`).
    """

    @classmethod
    def proxy(cls, target: Any, **options: Any) -> ProxyServer:
        """Deprecated: ``mcpkit.proxy.ProxyServer(target, **options)``, which this returns."""
        import warnings

        warnings.warn(
            "Server.proxy(target) is deprecated: use mcpkit.proxy.ProxyServer(target)",
            DeprecationWarning,
            stacklevel=2,
        )
        from mcpkit.proxy import ProxyServer

        return ProxyServer(target, **options)

    @staticmethod
    def from_openapi(
        spec: Any,
        *,
        client: Any = None,
        route_filter: Callable[[Route], bool] | None = None,
        names: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Server[Any]:
        """A server whose tools are the operations of an OpenAPI 3.x document (a dict, JSON
        text or a path), called with ``client`` (an ``httpx.AsyncClient``); ``route_filter``
        picks operations, ``names`` renames them (by operationId or ``"GET /path"``).
        ``options``: ``base_url``, ``output_schemas``, ``name``, ``version`` and Server
        options; see :mod:`mcpkit.server.openapi`."""
        from mcpkit.server.openapi import from_openapi

        return from_openapi(spec, client=client, route_filter=route_filter, names=names, **options)

    @staticmethod
    def from_fastapi(
        app: Any,
        *,
        route_filter: Callable[[Route], bool] | None = None,
        names: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Server[Any]:
        """A server whose tools are the operations of a FastAPI app, called in this process
        (through ``httpx.ASGITransport``, the app's lifespan run inside the server's);
        ``route_filter``, ``names`` and ``options`` as for :meth:`from_openapi`; see
        :func:`mcpkit.server.openapi.from_fastapi`."""
        from mcpkit.server.openapi import from_fastapi

        return from_fastapi(app, route_filter=route_filter, names=names, **options)

    # -- tools made from other components -------------------------------------------------------

    def transform_tool(
        self,
        source: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        args: Mapping[str, ArgTransform] | None = None,
        wrap: Wrap | None = None,
        keep_original: bool = True,
        **options: Any,
    ) -> ToolEntry:
        """Register a new tool made from the tool ``source`` (of this server or a mounted
        one, by its name here): renamed, re-described, with arguments renamed, hidden, fixed
        or given new defaults (``args``, by the original's argument names), and ``wrap``
        (``wrap(arguments, call_next)``) around the call. ``keep_original=False`` stops
        serving a local ``source``. Other options as :meth:`tool`. See
        :mod:`mcpkit.server.transforms`."""
        from mcpkit.server.transforms import transform_tool

        return transform_tool(
            self,
            source,
            name=name,
            title=title,
            description=description,
            args=args,
            wrap=wrap,
            keep_original=keep_original,
            **options,
        )

    def tool_transform(self, source: str, **options: Any) -> Callable[[F], F]:
        """``@app.tool_transform("search", name="find", ...)`` on a ``wrap`` function: the
        same as :meth:`transform_tool` with ``wrap=`` the decorated function."""

        def decorator(fn: F) -> F:
            self.transform_tool(source, wrap=fn, **options)
            return fn

        return decorator

    def add_resource_tools(
        self, list_name: str = "list_resources", read_name: str = "read_resource"
    ) -> None:
        """Add tools that list and read this server's resources (``list_name``, and
        ``read_name`` taking ``uri``), for clients that only call tools; they answer what
        ``resources/list``, ``resources/templates/list`` and ``resources/read`` answer (see
        :mod:`mcpkit.server.component_tools`)."""
        from mcpkit.server.component_tools import add_resource_tools

        add_resource_tools(self, list_name, read_name)

    def add_prompt_tools(
        self, list_name: str = "list_prompts", get_name: str = "get_prompt"
    ) -> None:
        """Add tools that list and get this server's prompts (``list_name``, and
        ``get_name`` taking ``name`` and ``arguments``), for clients that only call tools
        (see :mod:`mcpkit.server.component_tools`)."""
        from mcpkit.server.component_tools import add_prompt_tools

        add_prompt_tools(self, list_name, get_name)

    def mount(self, server: ServerCore[Any], prefix: str | None = None) -> Mount:
        """Serve ``server``'s tools, prompts, resources and templates from this one, under
        ``prefix`` (tool ``forecast`` -> ``weather_forecast``, resource ``file:///x`` ->
        ``weather+file:///x``; None keeps names and URIs, refusing collisions). Live (what
        ``server`` registers later appears), with its notifications, Context features and
        lifespan forwarded; see :mod:`mcpkit.server.mount`. Returns the
        :class:`~mcpkit.server.mount.Mount` (``.unmount()``)."""
        from mcpkit.server.mount import mount

        return mount(self, server, prefix)
