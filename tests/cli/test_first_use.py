"""What a new user meets first: a file target's prints kept off stdout, no temporary folders
left behind, quiet logs on request, JSON output kept apart from JSON arguments."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import mcpkit

PRINTING = Path(__file__).resolve().parent / "printing_server.py"


def test_a_file_targets_prints_go_to_stderr_not_into_the_json() -> None:
    for tool in ("shout", "shout_async"):
        done = mcpkit("call", str(PRINTING), tool, "text=hi", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "HI"}]
        assert "printed while importing" in done.stderr
        assert "printed by the" in done.stderr and ": hi" in done.stderr
    listed = mcpkit("inspect", str(PRINTING), "--json")
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["shout", "shout_async"]
    text = mcpkit("call", str(PRINTING), "shout", "text=hi")
    assert text.stdout == "HI\n"
