"""Write the output schemas ``mcp`` 1.x advertises for a tool annotated to return a content
block (``TextContent``, ``EmbeddedResource``, ...) to
``src/mcpkit/compat/_content_schemas.json``.

1.x's ``FastMCP`` treats such a return like any pydantic model: its JSON schema becomes the
tool's ``outputSchema``. Run with the 1.x peer's interpreter:
``.cache/peers/mcp1/bin/python scripts/official_content_schemas.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import mcp
import mcp.types
from mcp.server.fastmcp.utilities.func_metadata import StrictJsonSchema

NAMES = ("TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource")
OUT = Path(__file__).resolve().parent.parent / "src/mcpkit/compat/_content_schemas.json"


def main() -> None:
    schemas = {
        name: getattr(mcp.types, name).model_json_schema(schema_generator=StrictJsonSchema)
        for name in NAMES
    }
    version = getattr(mcp, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("mcp")
    OUT.write_text(json.dumps({"mcp": version, "schemas": schemas}, indent=1) + "\n")


if __name__ == "__main__":
    main()
