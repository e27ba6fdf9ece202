"""What a :class:`~mcpkit.compat.fastmcp.FastMCP` is composed of besides its own
components: providers and component objects, mounted servers, what is hidden
(``enable``/``disable``), transforms and extensions. A base of ``FastMCP`` (it imports
nothing above it: the providers and transforms are imported where used)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self, cast

if TYPE_CHECKING:
    from mcpkit.compat._native import CompatServer
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.compat.fastmcp._versions import Versions

__all__ = ["Composing"]


class Composing:
    """fastmcp's composition methods of ``FastMCP`` (see the module)."""

    native: CompatServer
    _versions: Versions

    def add_provider(self, provider: Any, *, namespace: str = "") -> None:
        """Serve ``provider``'s components (a ``fastmcp.server.providers.Provider``) after
        this server's own and those of the providers added before it, asked for on every
        request; a FastMCP server is mounted (``namespace``: its namespace); an
        ``OpenAPIProvider`` registers its components; another kind raises
        NotImplementedError."""
        if isinstance(provider, Composing):  # a FastMCP server
            self.mount(provider, namespace=namespace or None)
            return
        from mcpkit.compat.fastmcp.server.providers.base import Provider

        if not isinstance(provider, Provider):
            install = getattr(provider, "install", None)
            if install is None:
                raise NotImplementedError(f"{type(provider).__name__} is not supported on mcpkit")
            install(self)  # a provider registering its components (OpenAPI)
            return
        if namespace:
            raise NotImplementedError(
                "add_provider(..., namespace=...) is not supported on mcpkit for a provider"
            )
        from mcpkit.compat.fastmcp.server.providers._host import host_of

        host_of(cast("FastMCPView", self)).add(provider)

    def add_resource(self, resource: Any) -> Any:
        """Serve a ``fastmcp.resources.Resource`` object (``TextResource``,
        ``FileResource``, ...) or a function marked by the standalone ``@resource``."""
        from mcpkit.compat.fastmcp._components import component_of

        found = component_of(resource)
        if found is None:
            raise TypeError(f"add_resource() takes a Resource, not {type(resource).__name__}")
        self._local_provider()._register(found)
        return found

    def add_template(self, template: Any) -> Any:
        """Serve a ``fastmcp.resources.ResourceTemplate`` object."""
        return self._local_provider().add_template(template)

    def _local_provider(self) -> Any:
        """The provider serving component objects given to ``add_tool``/``add_prompt``."""
        local = self.__dict__.get("_objects")
        if local is None:
            from mcpkit.compat.fastmcp.server.providers import LocalProvider

            local = self.__dict__["_objects"] = LocalProvider(on_duplicate="replace")
            from mcpkit.compat.fastmcp.server.providers._host import host_of

            host_of(cast("FastMCPView", self)).providers.insert(0, local)
        return local

    def mount(self, *args: Any, **options: Any) -> None:
        """Serve another server's tools, resources and prompts from this one, named as
        fastmcp names them: ``mount(server, namespace="weather")`` serves tool ``forecast``
        as ``weather_forecast`` and resource ``weather://now`` as
        ``weather://weather/now``; without a namespace, names stay as they are.
        ``tool_names={"forecast": "tomorrow"}`` serves that tool as ``weather_tomorrow``
        (renamed, then namespaced; its old name is not served). fastmcp 2.x's
        ``mount(server, prefix=...)`` and ``mount(prefix, server)`` are the same."""
        from mcpkit.compat.fastmcp._mount import FastMount, mount_args
        from mcpkit.server.mount import mount

        server, namespace, tool_names = mount_args(args, options)
        if server is self:
            raise ValueError("Cannot mount a server onto itself")
        kind = FastMount.renaming(tool_names)
        mount(self.native, getattr(server, "native", server), namespace or None, kind=kind)

    def enable(
        self,
        *,
        names: set[str] | None = None,
        tags: set[str] | None = None,
        components: set[str] | None = None,
        version: Any = None,
        **criteria: Any,
    ) -> Self:
        """Serve again what :meth:`disable` hid: the components with one of ``tags``, or
        those named (tool and prompt names, resource URIs; of ``components`` only), or the
        versions ``version`` (a ``VersionSpec``) matches, of those named if named."""
        self._visibility(True, names, tags, components, version, criteria)
        return self

    def disable(
        self,
        *,
        names: set[str] | None = None,
        tags: set[str] | None = None,
        components: set[str] | None = None,
        version: Any = None,
        **criteria: Any,
    ) -> Self:
        """Stop serving, for everyone, the components with one of ``tags`` (also those
        registered later), or those named, or the versions ``version`` (a ``VersionSpec``)
        matches (of those named if named: the highest version left is then served by
        default); a session may still be shown them with ``ctx.enable_components(...)``."""
        self._visibility(False, names, tags, components, version, criteria)
        return self

    def _visibility(
        self,
        on: bool,
        names: set[str] | None,
        tags: set[str] | None,
        components: set[str] | None,
        version: Any,
        criteria: dict[str, Any],
    ) -> None:
        from mcpkit.compat.fastmcp._visibility import set_global, version_rule

        if version is not None:
            self._versions.add_rule(version_rule(on, names, tags, components, version, criteria))
            return
        set_global(self.native, on, names, tags, components, **criteria)
        if tags and self._versions.kept:
            self._versions.refresh_all()  # each version is served by its own tags

    def add_transform(self, transform: Any) -> None:
        """Apply a ``fastmcp.server.transforms`` transform (``PromptsAsTools(mcp)``,
        ``ResourcesAsTools(mcp)``, ``search.RegexSearchTransform()``,
        ``search.BM25SearchTransform()``, ``VersionFilter(...)``, or
        ``fastmcp.experimental.transforms.code_mode.CodeMode(...)``); any other is refused
        with NotImplementedError."""
        from mcpkit.compat.fastmcp.server.transforms import Transform

        if not isinstance(transform, Transform):
            raise NotImplementedError(f"{type(transform).__name__} is not supported on mcpkit")
        transform.install(cast("FastMCPView", self))

    def add_extension(self, extension: Any) -> None:
        """Register a server extension: fastmcp_tasks' ``TasksExtension`` (another is
        refused with NotImplementedError; the same identifier twice with ValueError)."""
        from mcpkit.compat.fastmcp_tasks import TasksExtension

        if not isinstance(extension, TasksExtension):
            raise NotImplementedError(
                f"{type(extension).__name__} is not supported on mcpkit "
                "(add_extension serves fastmcp_tasks.TasksExtension)"
            )
        if extension.identifier in self.native.extensions:
            raise ValueError(
                f"An extension with identifier {extension.identifier!r} is already registered."
            )
        extension.install(self.native)
