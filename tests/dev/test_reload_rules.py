"""What restarts the server under ``mcpkit dev``: not the data files the server itself writes
while it runs a call, not files an ``--exclude`` glob names; still every source change."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import httpx

from mcpkit.dev import DevServer
from mcpkit.dev.api import TOKEN_HEADER
from mcpkit.dev.reloader import SourceWatcher
from tests.dev.conftest import SAMPLE, events_of

WRITER = '''

import json as _json
from pathlib import Path as _Path


@app.tool()
def take_note(text: str) -> str:
    """Keeps a note in notes.json beside the server."""
    path = _Path(__file__).with_name("notes.json")
    notes = _json.loads(path.read_text()) if path.exists() else []
    path.write_text(_json.dumps([*notes, text]))
    return f"{len(notes) + 1} notes"
'''


def _bump(path: Path, text: str) -> None:
    path.write_text(text)
    stamp = path.stat().st_mtime + 2
    os.utime(path, (stamp, stamp))


def test_exclude_globs_leave_files_out(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    for name in ("server.py", "notes.json", "view.html", "data/cache.json"):
        (tmp_path / name).write_text("x")
    watcher = SourceWatcher(tmp_path, exclude=["notes.json", "data/*"])
    for name in ("server.py", "notes.json", "view.html", "data/cache.json"):
        _bump(tmp_path / name, "y")
    assert [p.name for p in watcher.changed()] == ["server.py", "view.html"]


async def test_a_data_file_the_server_writes_does_not_restart_it(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    shutil.copy(SAMPLE, server)
    server.write_text(server.read_text() + WRITER)
    async with DevServer(str(server), interval=0.1) as dev:
        headers = {TOKEN_HEADER: dev.token}
        async with httpx.AsyncClient(base_url=dev.base_url, headers=headers, timeout=30) as http:
            async with events_of(http, dev.token) as events:
                generation = (await http.get("/api/state")).json()["generation"]
                for n in (1, 2, 3):
                    answer = await http.post(
                        "/api/tools/call", json={"name": "take_note", "arguments": {"text": "a"}}
                    )
                    assert answer.json()["content"][0]["text"] == f"{n} notes"
                await asyncio.sleep(1.0)  # several polls after the writes
                assert (tmp_path / "notes.json").exists()
                assert dev.reloads == 0
                assert (await http.get("/api/state")).json()["generation"] == generation
                # A source change still restarts it.
                server.write_text(server.read_text() + "\n# edited\n")
                await events.wait_for("reload", reason="change")
                assert dev.reloads == 1
