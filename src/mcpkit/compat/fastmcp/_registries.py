"""fastmcp's answers for prompts and resources that are not there, on mcpkit's registries:
``Unknown prompt: '<name>'``, ``Missing required arguments: {...}`` and ``Resource not
found: '<uri>'`` (-32602 with ``data.uri``, in both eras), as fastmcp 4.x words them."""

from __future__ import annotations

from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.prompts import PromptRegistry
from mcpkit.server.resources import ResourceRegistry

__all__ = ["FastPrompts", "FastResources", "is_not_found"]


class FastPrompts(PromptRegistry):
    """A prompt registry answering an unknown prompt and missing arguments as fastmcp."""

    def unknown_error(self, name: str) -> McpError:
        """fastmcp's error for a prompt that is not there (or hidden from the caller)."""
        return McpError(INVALID_PARAMS, f"Unknown prompt: {name!r}")

    async def get(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """``prompts/get``, fastmcp's texts first."""
        name = params.get("name") if type(params) is dict else None
        if type(name) is str:
            entry = self.prompts.get(name)
            if entry is None:
                from mcpkit.server._revealed import find

                entry = find("prompts", name)  # hidden, but shown to this caller
            if entry is None:
                raise McpError(INVALID_PARAMS, f"Unknown prompt: {name!r}")
            entry = self.chosen(name, entry, params)
            given = params.get("arguments") if type(params) is dict else None
            given = given if type(given) is dict else {}
            missing = {
                a["name"]
                for a in entry.definition.get("arguments") or ()
                if a.get("required") and a["name"] not in given
            }
            if missing:
                raise McpError(INVALID_PARAMS, f"Missing required arguments: {missing}")
            return await self.render(entry, params, rctx)
        return await super().get(params, rctx)

    def chosen(self, name: str, entry: Any, params: JSONObject | None) -> Any:
        """The entry that serves this request for prompt ``name`` (``entry`` here)."""
        return entry

    async def render(self, entry: Any, params: JSONObject | None, rctx: Any) -> JSONObject:
        """The ``prompts/get`` result of ``entry``."""
        return await super().get(params, rctx)


def is_not_found(exc: McpError) -> bool:
    """True for mcpkit's resource-not-found error (either era's code)."""
    data = exc.data
    return (
        type(data) is dict
        and type(data.get("uri")) is str
        and exc.message.startswith("Resource not found: ")
    )


class FastResources(ResourceRegistry):
    """A resource registry answering a URI nothing serves as fastmcp."""

    def not_found_error(self, uri: str) -> McpError:
        """fastmcp's error for a URI nothing serves (or hidden from the caller)."""
        return McpError(INVALID_PARAMS, f"Resource not found: {uri!r}", {"uri": uri})

    async def read_resource(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """``resources/read``; not found is -32602 ``Resource not found: '<uri>'``."""
        try:
            return await super().read_resource(params, rctx)
        except McpError as exc:
            if not is_not_found(exc):
                raise
            uri = exc.data["uri"]
            raise McpError(INVALID_PARAMS, f"Resource not found: {uri!r}", {"uri": uri}) from None
