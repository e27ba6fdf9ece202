"""The File content helper: a file as an embedded resource (text or base64) in tool and
prompt results, valid in both eras."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, File, Server


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_files_in_results(tmp_path: Path, era: str, wire: Any) -> None:
    report = tmp_path / "report.csv"
    report.write_text("city,temp\nOslo,3\n")
    app = Server("files")

    @app.tool()
    def files() -> list[Any]:
        return [
            File(path=report),
            File(data=b"\x00\x01\xfe", name="blob.bin"),
            File(data='{"ok": true}', name="data.json"),
            File(data=b"<x/>", format="xml", uri="memo://x", annotations={"priority": 0.5}),
            File(data=b"\xff\xfe", name="notes.txt"),  # text/plain but not UTF-8: a blob
        ]

    @app.prompt()
    def review() -> File:
        return File(path=report, mime_type="text/csv")

    async with Client(app, era=era, tracer=wire()) as client:
        blocks = [
            b.model_dump(by_alias=True, exclude_none=True)
            for b in (await client.call_tool("files")).content
        ]
        prompt = await client.get_prompt("review")
    assert blocks[0] == {
        "type": "resource",
        "resource": {
            "uri": "file:///report.csv",
            "mimeType": "text/csv",
            "text": "city,temp\nOslo,3\n",
        },
    }
    assert blocks[1]["resource"]["mimeType"] == "application/octet-stream"
    assert base64.b64decode(blocks[1]["resource"]["blob"]) == b"\x00\x01\xfe"
    assert blocks[2]["resource"] == {
        "uri": "file:///data.json",
        "mimeType": "application/json",
        "text": '{"ok": true}',
    }
    assert blocks[3]["resource"]["uri"] == "memo://x"
    assert blocks[3]["resource"]["mimeType"] in ("application/xml", "text/xml")
    assert blocks[3]["annotations"] == {"priority": 0.5}
    assert base64.b64decode(blocks[4]["resource"]["blob"]) == b"\xff\xfe"
    message = prompt.messages[0].model_dump(by_alias=True, exclude_none=True)
    assert message["content"]["resource"]["text"] == "city,temp\nOslo,3\n"


def test_file_needs_one_source() -> None:
    with pytest.raises(ValueError, match="exactly one of data or path"):
        File()
    with pytest.raises(ValueError, match="exactly one of data or path"):
        File(data=b"x", path="x.txt")
