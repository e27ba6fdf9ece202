"""``fastmcp.prompts`` on mcpkit: :class:`Prompt` (``Prompt.from_function(fn, ...)`` then
``mcp.add_prompt(prompt)``, or a subclass a provider serves), the standalone :func:`prompt`
decorator and the prompt messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.compat.fastmcp._components import FunctionPrompt, Prompt, marked
from mcpkit.compat.mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage

__all__ = ["AssistantMessage", "FunctionPrompt", "Message", "Prompt", "UserMessage", "prompt"]


def prompt(name_or_fn: str | Callable[..., Any] | None = None, **options: Any) -> Any:
    """fastmcp's standalone ``@prompt`` (bare, ``@prompt("name")`` or with ``@mcp.prompt``'s
    options): the function stays as it is, marked for a ``FileSystemProvider`` to find."""
    if callable(name_or_fn):
        return marked("prompt", name_or_fn, options)
    if name_or_fn is not None:
        options["name"] = name_or_fn
    return lambda fn: marked("prompt", fn, options)
