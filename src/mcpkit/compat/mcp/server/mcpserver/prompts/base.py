"""``Message``, ``UserMessage`` and ``AssistantMessage``: prompt messages whose content may be
given as a plain string. They are mcpkit's :class:`~mcpkit.types.PromptMessage`."""

from __future__ import annotations

from typing import Any, Literal

from mcpkit.types import PromptMessage, TextContent

__all__ = ["AssistantMessage", "Message", "UserMessage"]


def _content(content: Any) -> Any:
    return TextContent(type="text", text=content) if isinstance(content, str) else content


class Message(PromptMessage):
    """A prompt message; a string ``content`` becomes text content."""

    def __init__(self, content: Any, **kwargs: Any) -> None:
        super().__init__(content=_content(content), **kwargs)


class UserMessage(Message):
    """A message from the user."""

    def __init__(self, content: Any, role: Literal["user", "assistant"] = "user", **kw: Any):
        super().__init__(content, role=role, **kw)


class AssistantMessage(Message):
    """A message from the assistant."""

    def __init__(
        self, content: Any, role: Literal["user", "assistant"] = "assistant", **kw: Any
    ) -> None:
        super().__init__(content, role=role, **kw)
