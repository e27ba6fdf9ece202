"""A tool annotated to return a content block, on the official SDK and unchanged on
mcpkit: 1.x ``FastMCP`` lists the block's model schema as the output schema and sends the
block as ``structuredContent`` besides the content; 2.x ``MCPServer`` sends the content
alone, with no output schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import SERVERS, assert_same, both

CALLS: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "text", "args": {"words": "hello"}},
    {"op": "call", "name": "image"},
    {"op": "call", "name": "audio"},
    {"op": "call", "name": "link", "args": {"name": "home"}},
    {"op": "call", "name": "embedded_text", "args": {"path": "etc/app.json"}},
    {"op": "call", "name": "embedded_blob"},
    {"op": "call", "name": "unstructured"},
]


@pytest.mark.parametrize("sdk", ["mcp1", "mcp2"])
def test_content_block_returns_match_the_sdk(sdk: str, tmp_path: Path) -> None:
    """The listings (output schemas) and the call results are equal to the SDK's."""
    theirs, ours = both(sdk, SERVERS / "content_returns.py", CALLS, tmp_path, sdk)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    results = {op["name"]: op["result"] for op in ours["ops"][1:]}
    assert "outputSchema" not in tools["unstructured"]
    assert "structuredContent" not in results["unstructured"]
    if sdk == "mcp1":
        schema = tools["embedded_text"]["outputSchema"]
        assert schema["title"] == "EmbeddedResource"
        assert set(schema["$defs"]) == {
            "Annotations",
            "TextResourceContents",
            "BlobResourceContents",
        }
        assert results["embedded_text"]["structuredContent"] == {
            "type": "resource",
            "resource": {
                "uri": "file:///etc/app.json",
                "mimeType": "application/json",
                "_meta": None,
                "text": "{}",
            },
            "annotations": {"audience": ["user"], "priority": 0.5},
            "_meta": None,
        }
        link = results["link"]["structuredContent"]
        assert link["uri"] == "https://example.com/"  # normalised as a URL, as 1.x does
        assert results["link"]["content"][0]["uri"] == "https://example.com/"
    else:
        assert not any("outputSchema" in t for t in tools.values())
        assert not any("structuredContent" in r for r in results.values())
