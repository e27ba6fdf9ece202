"""fastmcp's :class:`LocalProvider`: components registered on the provider itself, with
the server's decorators (``@provider.tool``, ``@provider.resource(uri)``,
``@provider.prompt``) or as objects (``add_tool(Tool)``, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from mcpkit.compat.fastmcp._components import (
    Component,
    FunctionPrompt,
    FunctionResource,
    FunctionResourceTemplate,
    FunctionTool,
    Prompt,
    Resource,
    ResourceTemplate,
    Tool,
    component_of,
    marked,
)
from mcpkit.compat.fastmcp.server.providers.base import Provider

__all__ = ["LocalProvider"]

DuplicateBehavior = Literal["error", "warn", "replace", "ignore"]


def _key(component: Component) -> str:
    if isinstance(component, Tool):
        kind, ident = "tool", component.name
    elif isinstance(component, ResourceTemplate):
        kind, ident = "template", component.uri_template
    elif isinstance(component, Resource):
        kind, ident = "resource", component.uri_text()
    else:
        kind, ident = "prompt", component.name
    return f"{kind}:{ident}@{component.version or ''}"


class LocalProvider(Provider):
    """Components held by the provider, in the order they were added."""

    def __init__(self, on_duplicate: DuplicateBehavior = "error") -> None:
        super().__init__()
        self._on_duplicate = on_duplicate
        self._components: dict[str, Component] = {}

    def _add(self, component: Component) -> Component:
        key = _key(component)
        if key in self._components:
            if self._on_duplicate == "error":
                raise ValueError(f"Component already exists: {key}")
            if self._on_duplicate == "ignore":
                return self._components[key]
            if self._on_duplicate == "warn":
                import logging

                logging.getLogger("mcpkit.compat.fastmcp").warning(
                    "Component already exists: %s", key
                )
        self._components[key] = component
        return component

    def _of(self, kind: type[Component]) -> list[Any]:
        return [c for c in self._components.values() if isinstance(c, kind)]

    # -- registering ---------------------------------------------------------------------------

    def add_tool(self, tool: Tool | Callable[..., Any], **options: Any) -> Tool:
        """Serve ``tool`` (a Tool, or a function with ``@mcp.tool``'s options)."""
        if not isinstance(tool, Tool):
            tool = FunctionTool.of(tool, options.pop("name", None), options)
        self._add(tool)
        return tool

    def add_resource(self, resource: Resource | Callable[..., Any], **options: Any) -> Resource:
        """Serve ``resource`` (a Resource, or a function with ``uri=`` and options)."""
        if not isinstance(resource, Resource):
            resource = FunctionResource.of(resource, options.pop("uri"), options)
        self._add(resource)
        return resource

    def add_template(
        self, template: ResourceTemplate | Callable[..., Any], **options: Any
    ) -> ResourceTemplate:
        """Serve ``template`` (a ResourceTemplate, or a function with ``uri_template=``)."""
        if not isinstance(template, ResourceTemplate):
            template = FunctionResourceTemplate.of(template, options.pop("uri_template"), options)
        self._add(template)
        return template

    def add_prompt(self, prompt: Prompt | Callable[..., Any], **options: Any) -> Prompt:
        """Serve ``prompt`` (a Prompt, or a function with ``@mcp.prompt``'s options)."""
        if not isinstance(prompt, Prompt):
            prompt = FunctionPrompt.of(prompt, options.pop("name", None), options)
        self._add(prompt)
        return prompt

    def _register(self, fn: Any) -> Any:
        component = component_of(fn)
        if isinstance(component, Tool):
            self.add_tool(component)
        elif isinstance(component, ResourceTemplate):
            self.add_template(component)
        elif isinstance(component, Resource):
            self.add_resource(component)
        elif isinstance(component, Prompt):
            self.add_prompt(component)
        return fn

    def tool(self, name_or_fn: str | Callable[..., Any] | None = None, **options: Any) -> Any:
        """``@provider.tool`` (bare, with a name, or with ``@mcp.tool``'s options)."""
        if callable(name_or_fn):
            return self._register(marked("tool", name_or_fn, options))
        if name_or_fn is not None:
            options["name"] = name_or_fn
        return lambda fn: self._register(marked("tool", fn, options))

    def resource(self, uri: str, **options: Any) -> Callable[[Any], Any]:
        """``@provider.resource("scheme://path")`` (a template when it has ``{...}``)."""
        return lambda fn: self._register(marked("resource", fn, {**options, "uri": uri}))

    def prompt(self, name_or_fn: str | Callable[..., Any] | None = None, **options: Any) -> Any:
        """``@provider.prompt`` (bare, with a name, or with ``@mcp.prompt``'s options)."""
        if callable(name_or_fn):
            return self._register(marked("prompt", name_or_fn, options))
        if name_or_fn is not None:
            options["name"] = name_or_fn
        return lambda fn: self._register(marked("prompt", fn, options))

    def remove_tool(self, name: str, version: str | None = None) -> None:
        """Stop serving the tool ``name`` (every version, or ``version``)."""
        self._remove(Tool, lambda c: c.name == name, version, f"Tool {name!r} not found")

    def remove_resource(self, uri: str, version: str | None = None) -> None:
        """Stop serving the resource at ``uri``."""
        self._remove(
            Resource,
            lambda c: not isinstance(c, ResourceTemplate) and c.uri_text() == uri,
            version,
            f"Resource {uri!r} not found",
        )

    def remove_prompt(self, name: str, version: str | None = None) -> None:
        """Stop serving the prompt ``name``."""
        self._remove(Prompt, lambda c: c.name == name, version, f"Prompt {name!r} not found")

    def _remove(self, kind: type, match: Callable[[Any], bool], version: Any, text: str) -> None:
        keys = [
            k
            for k, c in self._components.items()
            if isinstance(c, kind) and match(c) and (version is None or c.version == version)
        ]
        if not keys:
            raise KeyError(text)
        for k in keys:
            del self._components[k]

    # -- serving -------------------------------------------------------------------------------

    async def _list_tools(self) -> Sequence[Tool]:
        return self._of(Tool)

    async def _list_resources(self) -> Sequence[Resource]:
        return [r for r in self._of(Resource) if not isinstance(r, ResourceTemplate)]

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return self._of(ResourceTemplate)

    async def _list_prompts(self) -> Sequence[Prompt]:
        return self._of(Prompt)
