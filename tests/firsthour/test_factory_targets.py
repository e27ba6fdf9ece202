"""A ``file.py:name`` target is looked at, never run: only a function of no arguments
annotated to return a Server is called as a factory; a tool, a helper or a class named by
mistake is refused without being called."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.firsthour.conftest import HERE, env_with

SIDE = str(HERE / "side_effects.py")


def mcpkit(*args: str, effects: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpkit", *args],
        capture_output=True,
        text=True,
        input="",
        env=env_with(SIDE_EFFECTS=str(effects)),
        timeout=60,
    )


@pytest.mark.parametrize("name", ["reset_database", "helper", "Server"])
def test_a_callable_that_is_no_factory_is_not_called(name: str, tmp_path: Path) -> None:
    effects = tmp_path / "effects"
    done = mcpkit("inspect", f"{SIDE}:{name}", effects=effects)
    assert done.returncode == 1
    assert not effects.exists()  # nothing ran
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"error: {SIDE}:{name} is ")
    assert "not an mcpkit Server (it was not called)" in first
    assert "side_effects.py:app" in done.stderr  # the server it probably meant


def test_a_factory_annotated_to_return_a_server_is_called(tmp_path: Path) -> None:
    effects = tmp_path / "effects"
    done = mcpkit("inspect", f"{SIDE}:make_server", "--json", effects=effects)
    assert done.returncode == 0, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)["tools"]] == ["hi"]
    assert not effects.exists()
