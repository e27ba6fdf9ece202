"""Sampling: the server asks the client to run an LLM completion (sampling/createMessage)."""

from typing import Any, Literal, TypeAlias

from pydantic import Field

from .base import McpModel, Meta, RequestBase, Result, Role
from .content import SamplingMessageContentBlock
from .tasks import TaskAugmentedRequestParams
from .tools import Tool

IncludeContext: TypeAlias = Literal["none", "thisServer", "allServers"]
"""Which MCP servers' context the client should add to the sampling prompt."""

ToolChoiceMode: TypeAlias = Literal["auto", "required", "none"]
"""How the model may use the tools offered in a sampling request."""


class ModelHint(McpModel):
    """A hint for model selection, e.g. a (partial) model name like ``"claude-3-5-sonnet"``."""

    name: str | None = None


class ModelPreferences(McpModel):
    """Server's model-selection preferences: name hints plus cost/speed/intelligence weights."""

    hints: list[ModelHint] | None = None
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None


class ToolChoice(McpModel):
    """Controls whether and how the model uses tools during sampling."""

    mode: ToolChoiceMode | None = None


class SamplingMessage(McpModel):
    """A message sent to or received from an LLM: one block or a list of blocks."""

    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    meta: Meta | None = Field(default=None, alias="_meta")


class CreateMessageRequestParams(TaskAugmentedRequestParams):
    """Params of sampling/createMessage: messages, limits, model preferences and tools."""

    messages: list[SamplingMessage]
    model_preferences: ModelPreferences | None = None
    system_prompt: str | None = None
    include_context: IncludeContext | None = None
    temperature: float | None = None
    max_tokens: int
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None


class CreateMessageRequest(RequestBase):
    """Asks the client to sample an LLM (the user should be able to review it)."""

    method: Literal["sampling/createMessage"] = "sampling/createMessage"
    params: CreateMessageRequestParams


class CreateMessageResult(Result):
    """Client's answer to sampling/createMessage: the generated message and model used."""

    role: Role
    content: SamplingMessageContentBlock | list[SamplingMessageContentBlock]
    model: str
    stop_reason: str | None = None
