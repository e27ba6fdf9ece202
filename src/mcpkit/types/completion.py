"""Completion: argument auto-completion for prompts and resource templates."""

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from .base import McpModel, RequestBase, RequestParams, Result


class PromptReference(McpModel):
    """Identifies a prompt (by name) as the target of a completion."""

    type: Literal["ref/prompt"] = "ref/prompt"
    name: str
    title: str | None = None


class ResourceTemplateReference(McpModel):
    """Identifies a resource template (by URI template) as the target of a completion."""

    type: Literal["ref/resource"] = "ref/resource"
    uri: str


ResourceReference = ResourceTemplateReference
"""Name used for :class:`ResourceTemplateReference` up to revision 2025-03-26."""

CompletionReference: TypeAlias = Annotated[
    PromptReference | ResourceTemplateReference, Field(discriminator="type")
]
"""What a completion request refers to: a prompt or a resource template."""


class CompletionArgument(McpModel):
    """The argument being completed: its name and the partial value typed so far."""

    name: str
    value: str


class CompletionContext(McpModel):
    """Extra context for a completion: values of arguments already resolved."""

    arguments: dict[str, str] | None = None


class CompleteRequestParams(RequestParams):
    """Params of completion/complete: the reference, the argument and optional context."""

    ref: CompletionReference
    argument: CompletionArgument
    context: CompletionContext | None = None


class CompleteRequest(RequestBase):
    """Asks the server for completion options for an argument."""

    method: Literal["completion/complete"] = "completion/complete"
    params: CompleteRequestParams


class Completion(McpModel):
    """Completion values (at most 100), with optional total count and has-more flag."""

    values: list[str]
    total: int | None = None
    has_more: bool | None = None


class CompleteResult(Result):
    """Answer to completion/complete."""

    completion: Completion
