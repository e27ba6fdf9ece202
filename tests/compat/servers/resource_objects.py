"""``MCPServer.add_resource`` with each kind of resource object of
``mcp.server.mcpserver.resources``: text, bytes, a function (text, bytes, JSON, failing), a
file (as text and as bytes), a subclass with its own ``read``; names defaulted from the URI,
titles, descriptions, MIME types, ``_meta``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import (
    BinaryResource,
    FileResource,
    FunctionResource,
    Resource,
    TextResource,
)

mcp = MCPServer("resource objects")

folder = Path(tempfile.mkdtemp())
(folder / "notes.txt").write_text("line one\nline two\n")
(folder / "blob.bin").write_bytes(b"\x00\x01\x02")


class Upper(Resource):
    """A resource of its own kind."""

    word: str

    async def read(self) -> str:
        return self.word.upper()


def broken() -> str:
    raise RuntimeError("no data")


mcp.add_resource(TextResource(uri="memo://text", text="plain text"))
mcp.add_resource(
    TextResource(
        uri="memo://titled",
        name="titled",
        title="A title",
        description="Described.",
        mime_type="text/markdown",
        text="# heading",
        meta={"k": 1},
    )
)
mcp.add_resource(BinaryResource(uri="memo://bytes", data=b"\xff\x00", mime_type="image/png"))
mcp.add_resource(FunctionResource(uri="memo://fn-text", name="fn-text", fn=lambda: "from fn"))
mcp.add_resource(FunctionResource(uri="memo://fn-json", name="fn-json", fn=lambda: {"a": [1, 2]}))
mcp.add_resource(FunctionResource(uri="memo://fn-bytes", name="fn-bytes", fn=lambda: b"\x01"))
mcp.add_resource(FunctionResource.from_function(broken, uri="memo://broken"))
mcp.add_resource(FileResource(uri="file:///notes", name="notes", path=folder / "notes.txt"))
mcp.add_resource(
    FileResource(
        uri="file:///blob",
        name="blob",
        path=folder / "blob.bin",
        mime_type="application/octet-stream",
        encoding=None,
    )
)
mcp.add_resource(Upper(uri="memo://upper", word="shout"))

if __name__ == "__main__":
    mcp.run()
