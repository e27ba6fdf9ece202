"""Registering what a server serves: the decorators and ``add_``/``remove_`` methods.

:class:`RegisteringServer` is the user's side of the registries (tools, resources and
templates, prompts, MCP Apps, skills, completions), of component control (enable, disable,
tags), of custom HTTP routes, raw handlers, middleware and the logging bridge. The work is
done by :class:`~mcpkit.server.registration.Registration` and the feature modules.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, Unpack, overload

from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server.caching import CacheScope
from mcpkit.server.context import LifespanT
from mcpkit.server.handling import HandlingServer
from mcpkit.server.logging import McpLogHandler
from mcpkit.server.mcp_apps import UiKwargs
from mcpkit.server.registration import PromptKwargs, ResourceKwargs, cache_keywords
from mcpkit.server.registration import normalize_tags as tags_of
from mcpkit.server.tool_options import ToolKwargs, ToolOptions, item_hints

if TYPE_CHECKING:
    from mcpkit.server.middleware.base import MiddlewareLike
    from mcpkit.server.skills import FileSource, Skill, SkillRegistry

__all__ = ["RegisteringServer"]

F = TypeVar("F", bound=Callable[..., Any])


class RegisteringServer(HandlingServer[LifespanT]):
    """Registers tools, resources, prompts, MCP Apps, skills, completions, routes, raw
    handlers and middleware."""

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(self, name: str | None = None, **options: Unpack[ToolKwargs]) -> Callable[[F], F]: ...

    def tool(
        self, name: str | F | None = None, **options: Unpack[ToolKwargs]
    ) -> Callable[[F], F] | F:
        """Register a function (sync or async) as a tool: ``@app.tool`` or
        ``@app.tool(...)`` with the options of :class:`~mcpkit.server.tool_options.ToolOptions`.

        The name defaults to the function's name and the description to its docstring; the
        input schema comes from the type hints (or ``input_schema``), the output schema from
        the return annotation (``structured_output=False`` turns it off). ``annotations``
        (``ToolAnnotations`` or a dict), ``task_support`` (run as a task, docs/tasks.md),
        ``task_start="explicit"`` (a task only at ``await ctx.start_task()``),
        ``ttl_ms``/``cache_scope`` (2026-07-28 caching hints), ``max_concurrency``/
        ``max_queued`` (-31503 beyond), ``inline_refs``, ``timeout`` (seconds; the client
        gets an ``isError`` result), ``tags`` (:mod:`~mcpkit.server.components`), ``ui``/
        ``visibility`` (:mod:`~mcpkit.server.mcp_apps`) and ``scopes``
        (:mod:`~mcpkit.server.scopes`): see docs/server.md.
        """
        if callable(name):
            self.registration.add_tool(name, ToolOptions())
            return name
        tool_options = ToolOptions.of(name=name, **options)

        def decorator(fn: F) -> F:
            self.registration.add_tool(fn, tool_options)
            return fn

        return decorator

    def add_tool(
        self, fn: Callable[..., Any], name: str | None = None, **options: Unpack[ToolKwargs]
    ) -> None:
        """Register ``fn`` as a tool (same options as :meth:`tool`)."""
        self.registration.add_tool(fn, ToolOptions.of(name=name, **options))

    def add_resource(
        self, fn: Callable[..., Any], uri: str, **options: Unpack[ResourceKwargs]
    ) -> None:
        """Register ``fn`` for the resource or template ``uri`` (same options as
        :meth:`resource`)."""
        self.registration.add_resource(fn, uri, dict(options))

    def add_prompt(
        self, fn: Callable[..., Any], name: str | None = None, **options: Unpack[PromptKwargs]
    ) -> None:
        """Register ``fn`` as a prompt (same options as :meth:`prompt`)."""
        self.registration.add_prompt(fn, {"name": name, **options})

    # -- component control ----------------------------------------------------------------------

    def _app_link(
        self, tool: str, meta: dict[str, Any] | None, ui: str | None, visibility: Any
    ) -> dict[str, Any] | None:
        return apps_feature.tool_meta(self, tool, meta, ui, visibility)

    def enable_tool(self, name: str) -> None:
        """Serve a tool :meth:`disable_tool` hid (unless its tags are filtered out);
        clients get ``notifications/tools/list_changed``."""
        self.components.set_enabled("tools", name, True)

    def disable_tool(self, name: str) -> None:
        """Stop serving a tool (it stays registered): it leaves ``tools/list`` and a call of
        it is an unknown tool; clients get ``notifications/tools/list_changed``."""
        self.components.set_enabled("tools", name, False)

    def enable_prompt(self, name: str) -> None:
        """Serve a prompt :meth:`disable_prompt` hid."""
        self.components.set_enabled("prompts", name, True)

    def disable_prompt(self, name: str) -> None:
        """Stop serving a prompt (it stays registered)."""
        self.components.set_enabled("prompts", name, False)

    def enable_resource(self, uri: str) -> None:
        """Serve a resource or template :meth:`disable_resource` hid."""
        self.components.set_enabled(self.registration.resource_kind(uri), uri, True)

    def disable_resource(self, uri: str) -> None:
        """Stop serving a resource or template (by its URI or URI template)."""
        self.components.set_enabled(self.registration.resource_kind(uri), uri, False)

    def enable(self, *, tags: Iterable[str] | str) -> None:
        """Serve the components with these tags again: the tags leave the exclusion (and
        join ``include_tags`` when the server has them). Clients get list-changed."""
        self.components.set_filter(enable=tags_of(tags), disable=frozenset())

    def disable(self, *, tags: Iterable[str] | str) -> None:
        """Stop serving every component with one of these tags (now and when registered
        later). Clients get list-changed."""
        self.components.set_filter(enable=frozenset(), disable=tags_of(tags))

    def remove_tool(self, name: str) -> None:
        """Unregister a tool; connected clients get ``notifications/tools/list_changed``."""
        self.registration.remove_tool(name)

    def resource(self, uri: str, **options: Unpack[ResourceKwargs]) -> Callable[[F], F]:
        """Register a resource (``"file:///x"``) or a template (``"weather://{city}/current"``).

        Template variables are passed to the function as typed arguments. The function returns
        ``str`` (text), ``bytes`` (a base64 blob), contents dicts/models, or any JSON-able value.
        ``ttl_ms``/``cache_scope``: caching hints of its ``resources/read`` (2026-07-28);
        ``tags`` and ``scopes`` as for :meth:`tool`.
        """

        def decorator(fn: F) -> F:
            self.registration.add_resource(fn, uri, dict(options))
            return fn

        return decorator

    def ui(self, uri: str, **options: Unpack[UiKwargs]) -> Callable[[F], F]:
        """Register an MCP App: a function returning the HTML (str) of the ``ui://``
        resource ``uri``, served as ``text/html;profile=mcp-app`` with its ``_meta.ui``:
        ``csp`` (a :class:`mcpkit.apps.Csp` or a dict of its domain lists), ``permissions``
        (``["camera", "microphone", "geolocation", "clipboardWrite"]``), ``domain`` and
        ``prefers_border``. Link tools to it with ``@app.tool(ui=uri)`` (see
        :mod:`mcpkit.server.mcp_apps`)."""

        def decorator(fn: F) -> F:
            self.add_ui(uri, fn, **options)
            return fn

        return decorator

    def add_ui(
        self,
        uri: str,
        html: str | os.PathLike[str] | Callable[..., Any],
        **options: Unpack[UiKwargs],
    ) -> None:
        """Register the MCP App ``uri`` serving ``html``: a string, a path (read at each
        ``resources/read``, so edits show at once) or a function (same options as
        :meth:`ui`)."""
        import pathlib

        source = pathlib.Path(html) if isinstance(html, os.PathLike) else html
        apps_feature.register_ui(self, uri, source, **cache_keywords(dict(options)))

    def remove_resource(self, uri: str) -> None:
        """Unregister a resource or template; clients get ``resources/list_changed``."""
        self.registration.remove_resource(uri)

    @overload
    def prompt(self, name: F, /) -> F: ...

    @overload
    def prompt(
        self, name: str | None = None, **options: Unpack[PromptKwargs]
    ) -> Callable[[F], F]: ...

    def prompt(
        self, name: str | F | None = None, **options: Unpack[PromptKwargs]
    ) -> Callable[[F], F] | F:
        """Register a prompt (``@app.prompt`` or ``@app.prompt(...)`` with options); its
        arguments come from the function's parameters. ``tags`` and ``scopes`` as for
        :meth:`tool`."""
        if callable(name):
            self.registration.add_prompt(name, {})
            return name

        def decorator(fn: F) -> F:
            self.registration.add_prompt(fn, {"name": name, **options})
            return fn

        return decorator

    # -- skills (io.modelcontextprotocol/skills) ----------------------------------------------

    @property
    def skills(self) -> SkillRegistry:
        """The skills this server serves (see :mod:`mcpkit.server.skills`)."""
        registry = self._skills
        if registry is None:
            from mcpkit.server.skills import SkillRegistry

            registry = self._skills = SkillRegistry(self)
        return registry

    def add_skill(
        self,
        source: FileSource,
        *,
        path: str | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> Skill:
        """Serve a skill (the Skills extension): ``source`` is its directory (read at each
        request) or a mapping of relative file paths to text or bytes (a snapshot).
        ``path``: where it lives in the skill namespace (``"acme/billing/refunds"``; default
        the directory's name); its last segment must be the ``name`` of its ``SKILL.md``
        frontmatter. ``ttl_ms``/``cache_scope``: caching hints of its entries (2026-07-28).
        The files are served as ``skill://<path>/<file>`` resources; ``skills/list``,
        ``skills/get`` and ``resources/directory/read`` are answered (see
        :mod:`mcpkit.server.skills`)."""
        return self.skills.add(source, path=path, cache=item_hints(ttl_ms, cache_scope))

    def add_skills(
        self,
        root: str | os.PathLike[str],
        *,
        prefix: str | None = None,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> list[Skill]:
        """Serve every directory under ``root`` that holds a ``SKILL.md`` (nested skills
        too), each at its path relative to ``root``, under ``prefix`` when given."""
        return self.skills.add_tree(root, prefix=prefix, cache=item_hints(ttl_ms, cache_scope))

    def skill(
        self,
        path: str,
        *,
        dynamic: bool = False,
        ttl_ms: int | None = None,
        cache_scope: CacheScope | None = None,
    ) -> Callable[[F], F]:
        """Serve the skill a function returns (a directory or a mapping of files) at
        ``path``. The function is called once, now; with ``dynamic=True`` it is called (sync
        or async) at each request instead, and the skill's entries say
        ``"resources": "dynamic"`` (no digests: hosts may decline it)."""

        def decorator(fn: F) -> F:
            cache = item_hints(ttl_ms, cache_scope)
            if dynamic:
                self.skills.add(path=path, dynamic=fn, cache=cache)
            else:
                self.skills.add(fn(), path=path, cache=cache)
            return fn

        return decorator

    def remove_skill(self, path_or_uri: str) -> None:
        """Stop serving a skill (by path or ``SKILL.md`` URI); clients get
        ``resources/list_changed``."""
        self.skills.remove(path_or_uri)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt; clients get ``notifications/prompts/list_changed``."""
        self.registration.remove_prompt(name)

    def completion(
        self,
        *,
        prompt: str | None = None,
        resource_template: str | None = None,
        argument: str | None = None,
    ) -> Callable[[F], F]:
        """Register a completion handler for a prompt argument or a template variable.

        The handler is ``fn(value)`` or ``fn(value, arguments)`` (the already resolved
        ``context.arguments``) and returns a list of strings (or a dict with ``values``,
        ``total``, ``hasMore``); sync or async. Without ``argument`` it serves every argument
        of that prompt/template as ``fn(argument, value, arguments)``.
        """

        def decorator(fn: F) -> F:
            self.completions.add(
                fn, prompt=prompt, resource_template=resource_template, argument=argument
            )
            return fn

        return decorator

    def custom_route(
        self, path: str, methods: Iterable[str] | None = None, *, name: str | None = None
    ) -> Callable[[F], F]:
        """Serve a plain HTTP route beside the MCP endpoint of :meth:`http_app` (and
        ``run("http")``): a Starlette-style handler taking a ``starlette.requests.Request``
        and returning a ``starlette.responses.Response``, sync or async. ``path`` may have
        parameters (``"/items/{id}"``, in ``request.path_params``); ``methods`` default to
        GET (and HEAD). The route is not behind the endpoint's Host/Origin or OAuth checks
        (see :mod:`mcpkit.transports.http.routes`)."""
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"a route path starts with '/', not {path!r}")
        chosen = None if methods is None else [m.upper() for m in methods]

        def decorator(fn: F) -> F:
            self._custom_routes.append((path, chosen, fn, name))
            return fn

        return decorator

    def on_roots_changed(self, fn: F) -> F:
        """Call ``fn(session)`` when a client sends ``notifications/roots/list_changed``."""
        self._roots_hooks.append(fn)
        return fn

    def request_handler(self, method: str) -> Callable[[F], F]:
        """Low level: serve ``method`` with a raw ``async (params, request_ctx) -> dict``.

        Replaces the built-in handler for that method, if any.
        """

        def decorator(fn: F) -> F:
            self._raw_handlers[method] = fn
            self._reinstall()
            return fn

        return decorator

    def add_middleware(self, middleware: MiddlewareLike) -> None:
        """Run ``middleware`` around every request and notification (see
        :mod:`mcpkit.server.middleware`): a :class:`~mcpkit.server.middleware.Middleware`
        or an ``async (ctx, call_next) -> result`` function. The first added is the
        outermost. Live sessions' requests go through it from now on; their notifications
        only on sessions made after."""
        if not callable(middleware) and not hasattr(middleware, "hooks_for"):
            raise TypeError(
                "middleware must be a Middleware or an async (ctx, call_next) function, "
                f"not {type(middleware).__name__}"
            )
        self.middleware.append(middleware)
        self._reinstall()

    def notification_handler(self, method: str) -> Callable[[F], F]:
        """Low level: call ``fn(params)`` (sync or async) for each ``method`` notification."""

        def decorator(fn: F) -> F:
            self._raw_notifications[method] = fn
            return fn

        return decorator

    def log_handler(self, level: int = logging.NOTSET) -> logging.Handler:
        """A :mod:`logging` handler that forwards records to clients as log notifications."""
        self.log_bridge = True
        return McpLogHandler(self, level)
