"""A server for the CLI tests whose tools return every kind of content block: text next to
different structuredContent, audio, a resource link, embedded text and blob resources, and
image data that is not base64."""

from __future__ import annotations

import base64

from mcpkit import Server
from mcpkit.types import CallToolResult

app = Server("content", version="0.1")

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)


@app.tool()
def summary() -> CallToolResult:
    """Text plus structuredContent that says more than the text."""
    return CallToolResult.from_wire(
        {
            "content": [{"type": "text", "text": "2 items"}],
            "structuredContent": {"items": ["a", "b"]},
        }
    )


@app.tool()
def every_block() -> CallToolResult:
    """One content block of each kind."""
    return CallToolResult.from_wire(
        {
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"},
                {
                    "type": "resource_link",
                    "uri": "file:///tmp/report.pdf",
                    "name": "report",
                    "mimeType": "application/pdf",
                },
                {
                    "type": "resource",
                    "resource": {"uri": "note://1", "mimeType": "text/plain", "text": "a note"},
                },
                {
                    "type": "resource",
                    "resource": {
                        "uri": "blob://1",
                        "mimeType": "application/octet-stream",
                        "blob": base64.b64encode(b"\x00\x01\x02").decode(),
                    },
                },
                {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            ]
        }
    )


if __name__ == "__main__":
    app.run()
