"""``prompts/get`` of an ``MCPServer`` answered as the SDK answers it: a required argument
missing is code 0 ``Missing required arguments: {...}`` (1.x and 2.x); an argument the
function refuses is code 0 ``Error rendering prompt <name>`` (2.x)."""

from __future__ import annotations

from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject
from mcpkit.server.prompts import PromptRegistry

__all__ = ["OfficialPrompts"]


class OfficialPrompts(PromptRegistry):
    """A prompt registry answering as ``MCPServer`` does (set on the native server's
    registry by swapping its class)."""

    #: Whether a refused argument is answered ``Error rendering prompt <name>`` (2.x).
    render_failure: bool = False

    async def get(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """The ``prompts/get`` result, its argument failures as the SDK answers them."""
        name = params.get("name") if type(params) is dict else None
        entry = self.prompts.get(name) if type(name) is str else None
        if entry is None or params is None:
            return await super().get(params, rctx)
        given = params.get("arguments")
        required = {a["name"] for a in entry.definition.get("arguments") or () if a.get("required")}
        missing = required - set(given if type(given) is dict else ())
        if missing:
            raise McpError(0, f"Missing required arguments: {missing}")
        try:
            return await super().get(params, rctx)
        except McpError as exc:
            refused = exc.__cause__ is None and exc.message.startswith(
                f"Invalid arguments for prompt '{name}'"
            )
            if refused and self.render_failure:
                raise McpError(0, f"Error rendering prompt {name}") from None
            raise
