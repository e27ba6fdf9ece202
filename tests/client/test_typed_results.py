"""The user guide's patterns type-check under ``mypy --strict``: results' ``text`` helpers,
``is_error`` as a plain bool, typed ``Client`` parameters and ``Timeout``."""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import api

PATTERN = """
from mcpkit import Client, Timeout
from mcpkit.types import LoggingMessageNotificationParams


def log(params: LoggingMessageNotificationParams) -> None:
    print(params.level, params.data)


async def main() -> None:
    async with Client("server.py", on_log=log, roots=["/srv"], timeout=Timeout(5)) as c:
        result = await c.call_tool("add", {"a": 1}, timeout=2.5)
        text: str = result.text
        failed: bool = result.is_error
        read: str = (await c.read_resource("note://idea")).text
        prompt = await c.get_prompt("review", {"code": "x"})
        first: str = prompt.messages[0].text
        whole: str = prompt.text
        print(text, failed, read, first, whole)
"""

WRONG = """
from mcpkit import Client


async def main() -> None:
    async with Client(42) as c:
        await c.call_tool("add", timeout="soon")
"""


def _mypy(tmp_path: Path, source: str) -> tuple[str, int]:
    file = tmp_path / "pattern.py"
    file.write_text(source)
    out, err, status = api.run(
        [
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--python-executable",
            sys.executable,
            str(file),
        ]
    )
    return out + err, status


def test_the_guide_pattern_type_checks(tmp_path: Path) -> None:
    out, status = _mypy(tmp_path, PATTERN)
    assert status == 0, out
    out, status = _mypy(tmp_path, WRONG)
    assert status == 1
    assert 'incompatible type "int"' in out and 'incompatible type "str"' in out, out
