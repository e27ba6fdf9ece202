"""``fastmcp.prompts`` on mcpkit: :class:`Prompt` (``Prompt.from_function(fn, ...)`` then
``mcp.add_prompt(prompt)``) and the prompt messages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpkit.compat.mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage

__all__ = ["AssistantMessage", "Message", "Prompt", "UserMessage"]


@dataclass
class Prompt:
    """A function and the options it is registered with."""

    fn: Callable[..., Any]
    name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], name: str | None = None, **options: Any
    ) -> Prompt:
        """A prompt of ``fn`` with :meth:`FastMCP.prompt`'s options."""
        return cls(fn, name, options)
