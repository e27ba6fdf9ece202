"""Prompts: templated messages a server offers, listed and fetched by name."""

from typing import Literal

from pydantic import Field

from .base import (
    BaseMetadata,
    McpModel,
    Meta,
    NotificationBase,
    NotificationParams,
    PaginatedRequest,
    PaginatedResult,
    RequestBase,
    RequestParams,
    Result,
    Role,
)
from .content import ContentBlock, TextContent, joined_text
from .lifecycle import Icons


class PromptArgument(BaseMetadata):
    """An argument a prompt template accepts."""

    description: str | None = None
    required: bool | None = None


class Prompt(BaseMetadata, Icons):
    """A prompt or prompt template offered by the server."""

    description: str | None = None
    arguments: list[PromptArgument] | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class PromptMessage(McpModel):
    """One message of a prompt: a role plus a single content block."""

    role: Role
    content: ContentBlock

    @property
    def text(self) -> str:
        """The message's text ("" when its content is not a text block)."""
        return self.content.text if isinstance(self.content, TextContent) else ""


class ListPromptsRequest(PaginatedRequest):
    """Asks the server for a (paginated) list of its prompts."""

    method: Literal["prompts/list"] = "prompts/list"


class ListPromptsResult(PaginatedResult):
    """Answer to prompts/list."""

    prompts: list[Prompt]


class GetPromptRequestParams(RequestParams):
    """Params of prompts/get: the prompt name and its template arguments."""

    name: str
    arguments: dict[str, str] | None = None


class GetPromptRequest(RequestBase):
    """Asks the server for a specific prompt, filled in with arguments."""

    method: Literal["prompts/get"] = "prompts/get"
    params: GetPromptRequestParams


class GetPromptResult(Result):
    """Answer to prompts/get: the prompt's messages and an optional description."""

    description: str | None = None
    messages: list[PromptMessage]

    @property
    def text(self) -> str:
        """The text of every text message, joined by newlines ("" when there is none)."""
        return joined_text(m.content for m in self.messages)


class PromptListChangedNotification(NotificationBase):
    """Tells the client that the server's list of prompts changed."""

    method: Literal["notifications/prompts/list_changed"] = "notifications/prompts/list_changed"
    params: NotificationParams | None = None
