"""Content blocks exchanged with LLMs: text, media, resources, tool use and tool results."""

from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag

from .base import BaseMetadata, McpModel, Meta, Role
from .lifecycle import Icons


class Annotations(McpModel):
    """Hints for the client: intended audience, priority (0..1) and last-modified time."""

    audience: list[Role] | None = None
    priority: float | None = None
    last_modified: str | None = None


# ------------------------------------------------------------------ resource contents


class ResourceContents(McpModel):
    """Contents of a specific resource or sub-resource (base of the text/blob variants)."""

    uri: str
    mime_type: str | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class TextResourceContents(ResourceContents):
    """Resource contents that can be represented as text."""

    text: str


class BlobResourceContents(ResourceContents):
    """Binary resource contents, base64-encoded in ``blob``."""

    blob: str


def _resource_contents_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "blob" if "blob" in value and "text" not in value else "text"
    return "blob" if isinstance(value, BlobResourceContents) else "text"


TextOrBlobResourceContents: TypeAlias = Annotated[
    Annotated[TextResourceContents, Tag("text")] | Annotated[BlobResourceContents, Tag("blob")],
    Discriminator(_resource_contents_kind),
]
"""Either text or blob resource contents (told apart by which key is present)."""


# ---------------------------------------------------------------------- content blocks


class TextContent(McpModel):
    """Text provided to or from an LLM."""

    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ImageContent(McpModel):
    """A base64-encoded image provided to or from an LLM."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class AudioContent(McpModel):
    """Base64-encoded audio provided to or from an LLM."""

    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ResourceLink(BaseMetadata, Icons):
    """A link to a resource the server can read, included in a prompt or tool result."""

    type: Literal["resource_link"] = "resource_link"
    uri: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class EmbeddedResource(McpModel):
    """Resource contents embedded directly into a prompt or tool result."""

    type: Literal["resource"] = "resource"
    resource: TextOrBlobResourceContents
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


ContentBlock: TypeAlias = Annotated[
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource,
    Field(discriminator="type"),
]
"""Any content block allowed in prompts and tool results (tagged by ``type``)."""


class ToolUseContent(McpModel):
    """A request from the assistant (during sampling) to call a tool."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]
    meta: Meta | None = Field(default=None, alias="_meta")


class ToolResultContent(McpModel):
    """The result of a tool use, sent back to the assistant (during sampling)."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: list[ContentBlock]
    structured_content: dict[str, Any] | None = None
    is_error: bool | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


def joined_text(blocks: Iterable[object]) -> str:
    """The ``text`` of every :class:`TextContent` (or :class:`TextResourceContents`) among
    ``blocks``, joined by newlines; other blocks are skipped."""
    return "\n".join(b.text for b in blocks if isinstance(b, (TextContent, TextResourceContents)))


SamplingMessageContentBlock: TypeAlias = Annotated[
    TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent,
    Field(discriminator="type"),
]
"""Any content block allowed in a sampling message (tagged by ``type``)."""
