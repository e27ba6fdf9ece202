"""``Message``, ``UserMessage`` and ``AssistantMessage``: prompt messages whose content may be
given as a plain string, an ``Image`` or an ``Audio``. They are mcpkit's
:class:`~mcpkit.types.PromptMessage`. :class:`Prompt`: a prompt made from a function, for
``MCPServer.add_prompt``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from mcpkit.types import PromptMessage, TextContent

__all__ = ["AssistantMessage", "Message", "Prompt", "UserMessage"]


def _content(content: Any) -> Any:
    if isinstance(content, str):
        return TextContent(type="text", text=content)
    for convert in ("to_image_content", "to_audio_content"):  # the media helpers
        method = getattr(content, convert, None)
        if method is not None:
            return method()
    return content


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


class Prompt:
    """A prompt made from a function (:meth:`from_function`), registered by
    ``MCPServer.add_prompt``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
    ) -> None:
        self.fn = fn
        self.name = name
        self.title = title
        self.description = description
        self.icons = icons

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        context_kwarg: str | None = None,
    ) -> Prompt:
        """The prompt ``fn`` renders (named after it unless ``name`` is given)."""
        found = name or fn.__name__
        if found == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(fn, found, title, description or fn.__doc__ or "", icons)
