"""``fastmcp.server.transforms`` on mcpkit: :class:`PromptsAsTools` and
:class:`ResourcesAsTools`, added with ``mcp.add_transform(...)``, and :class:`VersionFilter`
(:mod:`.version_filter`).

Each adds two tools answering what the server's own ``prompts/list`` and ``prompts/get``
(``resources/list``, ``resources/templates/list`` and ``resources/read``) answer the same
caller at that moment (mounted servers and hidden components included), in fastmcp's form:
indented JSON text, a read's single text content as it is (binary as base64). The tool
search transforms are in :mod:`.search`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from mcpkit.compat.fastmcp._base import is_fastmcp
from mcpkit.compat.fastmcp._registries import is_not_found
from mcpkit.compat.fastmcp.context import Context
from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject
from mcpkit.server.component_tools import _all, _ask

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView

__all__ = ["PromptsAsTools", "ResourcesAsTools", "Transform", "VersionFilter", "VersionSpec"]


class Transform:
    """A change to what a :class:`~mcpkit.compat.fastmcp.FastMCP` serves, applied by
    ``mcp.add_transform(transform)``."""

    def install(self, server: FastMCPView) -> None:
        """Apply the transform to ``server``."""
        raise NotImplementedError(f"{type(self).__name__} is not supported on mcpkit")


def _server_of(server: Any, what: str) -> FastMCPView:
    if not is_fastmcp(server):
        raise TypeError(
            f"{what} requires a FastMCP server instance, not a {type(server).__name__}. "
            f"Pass your FastMCP server: {what}(mcp)"
        )
    return server


class PromptsAsTools(Transform):
    """Adds the tools ``list_prompts`` and ``get_prompt(name, arguments)``."""

    def __init__(self, server: Any) -> None:
        self._server = _server_of(server, "PromptsAsTools")

    def __repr__(self) -> str:
        return f"PromptsAsTools({self._server!r})"

    def install(self, server: FastMCPView) -> None:
        """Register the two tools on ``server``."""
        native = self._server.native

        async def list_prompts(ctx: Context) -> str:
            prompts = await _all(native, ctx.native, "prompts/list", "prompts")
            return json.dumps(
                [
                    {
                        "name": p.get("name"),
                        "description": p.get("description"),
                        "arguments": [
                            {
                                "name": a.get("name"),
                                "description": a.get("description"),
                                "required": a.get("required"),
                            }
                            for a in p.get("arguments") or ()
                        ],
                    }
                    for p in prompts
                ],
                indent=2,
            )

        async def get_prompt(
            name: Annotated[str, Field(description="The name of the prompt to get")],
            ctx: Context,
            arguments: Annotated[
                dict[str, Any] | None, Field(description="Optional arguments for the prompt")
            ] = None,
        ) -> str:
            from mcpkit.compat.mcp.server.mcpserver.exceptions import MCPServerError

            prompts = await _all(native, ctx.native, "prompts/list", "prompts")
            prompt = next((p for p in prompts if p.get("name") == name), None)
            if prompt is None:
                raise LookupError(f"Unknown prompt: {name!r}")
            given = arguments or {}
            missing = {
                a["name"]
                for a in prompt.get("arguments") or ()
                if a.get("required") and a.get("name") not in given
            }
            if missing:
                raise MCPServerError(f"Missing required arguments: {missing}")
            params: JSONObject = {"name": name}
            if given:
                params["arguments"] = {
                    k: v if isinstance(v, str) else json.dumps(v) for k, v in given.items()
                }
            result = await _ask(native, ctx.native, "prompts/get", params)
            messages = []
            for message in result.get("messages") or ():
                content = message.get("content")
                if isinstance(content, dict) and content.get("type") == "text":
                    content = content.get("text")
                messages.append({"role": message.get("role"), "content": content})
            return json.dumps({"messages": messages}, indent=2)

        server.add_tool(
            list_prompts,
            name="list_prompts",
            description="List all available prompts.\n\nReturns JSON with prompt metadata "
            "including name, description,\nand optional arguments.",
        )
        server.add_tool(
            get_prompt,
            name="get_prompt",
            description="Get a prompt by name with optional arguments.\n\nReturns the "
            "rendered prompt as JSON with a messages array.\nArguments should be provided "
            "as a dict mapping argument names\nto values.",
        )


class ResourcesAsTools(Transform):
    """Adds the tools ``list_resources`` and ``read_resource(uri)``."""

    def __init__(self, server: Any) -> None:
        self._server = _server_of(server, "ResourcesAsTools")

    def __repr__(self) -> str:
        return f"ResourcesAsTools({self._server!r})"

    def install(self, server: FastMCPView) -> None:
        """Register the two tools on ``server``."""
        native = self._server.native

        async def list_resources(ctx: Context) -> str:
            resources = await _all(native, ctx.native, "resources/list", "resources")
            templates = await _all(
                native, ctx.native, "resources/templates/list", "resourceTemplates"
            )
            out: list[dict[str, Any]] = [
                {
                    "uri": r.get("uri"),
                    "name": r.get("name"),
                    "description": r.get("description"),
                    "mime_type": r.get("mimeType"),
                }
                for r in resources
            ]
            out.extend(
                {
                    "uri_template": t.get("uriTemplate"),
                    "name": t.get("name"),
                    "description": t.get("description"),
                }
                for t in templates
            )
            return json.dumps(out, indent=2)

        async def read_resource(
            uri: Annotated[str, Field(description="The URI of the resource to read")],
            ctx: Context,
        ) -> str:
            try:
                result = await _ask(native, ctx.native, "resources/read", {"uri": uri})
            except McpError as exc:
                if is_not_found(exc):
                    raise LookupError(f"Unknown resource: {uri!r}") from None
                raise
            contents = result.get("contents") or []
            if len(contents) == 1:
                only = contents[0]
                return str(only["text"] if "text" in only else only.get("blob", ""))
            return json.dumps(
                [
                    {
                        "content": c["text"] if "text" in c else c.get("blob", ""),
                        "mime_type": c.get("mimeType"),
                    }
                    for c in contents
                ]
            )

        read_only = {"readOnlyHint": True}
        server.add_tool(
            list_resources,
            name="list_resources",
            annotations=read_only,
            description="List all available resources and resource templates.\n\nReturns "
            "JSON with resource metadata. Static resources have a\n'uri' field, while "
            "templates have a 'uri_template' field with\nplaceholders like {name}.",
        )
        server.add_tool(
            read_resource,
            name="read_resource",
            annotations=read_only,
            description="Read a resource by its URI.\n\nFor static resources, provide the "
            "exact URI. For templated\nresources, provide the URI with template parameters "
            "filled in.\n\nReturns the resource content as a string. Binary content is\n"
            "base64-encoded.",
        )


# The version filter subclasses Transform above.
from mcpkit.compat.fastmcp.server.transforms.version_filter import VersionFilter  # noqa: E402
from mcpkit.compat.fastmcp.utilities.versions import VersionSpec  # noqa: E402
