"""Tools annotated to return one content block of each kind (text, image, audio, resource
link, embedded text and blob resources), with annotations, a URL to normalise and a
``_meta``; one with ``structured_output=False``. The first argument picks the SDK: ``mcp1``
(1.x ``FastMCP``, which lists each block's model schema as the output schema and sends the
block as ``structuredContent`` too) or ``mcp2`` (2.x ``MCPServer``, which does neither)."""

from __future__ import annotations

import sys

from mcp.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)

if (sys.argv[1] if len(sys.argv) > 1 else "mcp1") == "mcp1":
    from mcp.server.fastmcp import FastMCP as Server
else:
    from mcp.server.mcpserver import MCPServer as Server

mcp = Server("content returns")

NOTE = {"audience": ["user"], "priority": 0.5}


@mcp.tool()
def text(words: str) -> TextContent:
    """A text block."""
    return TextContent.model_validate({"type": "text", "text": words, "annotations": NOTE})


@mcp.tool()
def image() -> ImageContent:
    """An image block."""
    return ImageContent.model_validate({"type": "image", "data": "AAAA", "mimeType": "image/png"})


@mcp.tool()
def audio() -> AudioContent:
    """An audio block."""
    return AudioContent.model_validate(
        {"type": "audio", "data": "UklG", "mimeType": "audio/wav", "_meta": {"k": 1}}
    )


@mcp.tool()
def link(name: str) -> ResourceLink:
    """A link to a resource, its URL without a path."""
    return ResourceLink.model_validate(
        {"type": "resource_link", "name": name, "uri": "https://example.com", "size": 3}
    )


@mcp.tool()
def embedded_text(path: str) -> EmbeddedResource:
    """A text resource embedded."""
    return EmbeddedResource.model_validate(
        {
            "type": "resource",
            "resource": {"uri": f"file:///{path}", "text": "{}", "mimeType": "application/json"},
            "annotations": NOTE,
        }
    )


@mcp.tool()
def embedded_blob() -> EmbeddedResource:
    """A binary resource embedded."""
    return EmbeddedResource.model_validate(
        {"type": "resource", "resource": {"uri": "https://example.com/a b", "blob": "AAEC"}}
    )


@mcp.tool(structured_output=False)
def unstructured() -> EmbeddedResource:
    """A resource embedded, no structured output asked for."""
    return EmbeddedResource.model_validate(
        {"type": "resource", "resource": {"uri": "memo://one", "text": "one"}}
    )


if __name__ == "__main__":
    mcp.run()
