"""``mcpkit dev`` as a command: it prints the inspector's URL (127.0.0.1, a token), serves
the page and API behind that token, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx
import pytest

from mcpkit.cli.app import main


async def test_mcpkit_dev_prints_the_url_and_serves_it(sample_file: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcpkit", "dev", str(sample_file), "--no-open",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(60):
            line = (await proc.stdout.readline()).decode()
        assert line.startswith("mcpkit dev: inspector at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].strip()
        base, token = url.split("/?token=")
        assert len(token) >= 24
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            assert (await http.get("/api/state")).status_code == 403
            state = (await http.get("/api/state", params={"token": token})).json()
            assert state["server"]["name"] == "dev-sample"
            assert (await http.get(url)).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        async with asyncio.timeout(60):
            code = await proc.wait()
    assert code == 0


def test_a_missing_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["dev", str(tmp_path / "nope.py"), "--no-open"])
    assert code == 1
    err = capsys.readouterr().err
    assert "error: no such file" in err and "hint:" in err
