"""Tools: functions the server exposes for the client (and its LLM) to call."""

from typing import Any, Literal, TypeAlias

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from .base import (
    BaseMetadata,
    McpModel,
    Meta,
    NotificationBase,
    NotificationParams,
    PaginatedRequest,
    PaginatedResult,
    RequestBase,
    Result,
)
from .content import ContentBlock, joined_text
from .lifecycle import Icons
from .tasks import TaskAugmentedRequestParams

TaskSupport: TypeAlias = Literal["forbidden", "optional", "required"]
"""Whether a tool can be, or must be, invoked as a task."""


class ToolInputSchema(McpModel):
    """JSON Schema (an object schema) for a tool's arguments; other keywords are kept."""

    schema_: str | None = Field(default=None, alias="$schema")
    type: Literal["object"] = "object"
    properties: dict[str, dict[str, Any]] | None = None
    required: list[str] | None = None


class ToolOutputSchema(ToolInputSchema):
    """JSON Schema (an object schema) for a tool's ``structuredContent``."""


class ToolAnnotations(McpModel):
    """Untrusted hints describing a tool's behaviour (read-only, destructive, ...)."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class ToolExecution(McpModel):
    """Execution-related properties of a tool (task support)."""

    task_support: TaskSupport | None = None


class Tool(BaseMetadata, Icons):
    """Definition of a tool: name, description, argument/result schemas and hints."""

    description: str | None = None
    input_schema: ToolInputSchema
    output_schema: ToolOutputSchema | None = None
    annotations: ToolAnnotations | None = None
    execution: ToolExecution | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ListToolsRequest(PaginatedRequest):
    """Asks the server for a (paginated) list of its tools."""

    method: Literal["tools/list"] = "tools/list"


class ListToolsResult(PaginatedResult):
    """Answer to tools/list."""

    tools: list[Tool]


class CallToolRequestParams(TaskAugmentedRequestParams):
    """Params of tools/call: tool name and arguments (optionally run as a task)."""

    name: str
    arguments: dict[str, Any] | None = None


class CallToolRequest(RequestBase):
    """Asks the server to invoke one of its tools."""

    method: Literal["tools/call"] = "tools/call"
    params: CallToolRequestParams


class CallToolResult(Result):
    """Answer to tools/call: content blocks, optional structured result, error flag.

    ``is_error`` is False when the server left ``isError`` out (and it is left out of the
    wire form again unless it was set); ``text`` joins the text blocks.
    """

    content: list[ContentBlock]
    structured_content: dict[str, Any] | None = None
    is_error: bool = False

    @field_validator("is_error", mode="before")
    @classmethod
    def _null_is_not_an_error(cls, value: Any) -> Any:
        return False if value is None else value

    @model_serializer(mode="wrap")
    def _omit_unset_is_error(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.is_error and "is_error" not in self.model_fields_set:
            data.pop("isError" if info.by_alias else "is_error", None)
        return data

    @property
    def text(self) -> str:
        """The text of every text block, joined by newlines ("" when there is none)."""
        return joined_text(self.content)


class ToolListChangedNotification(NotificationBase):
    """Tells the client that the server's list of tools changed."""

    method: Literal["notifications/tools/list_changed"] = "notifications/tools/list_changed"
    params: NotificationParams | None = None
