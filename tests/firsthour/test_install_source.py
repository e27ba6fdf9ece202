"""``mcpkit install --with PKG`` from an install that is not this checkout: the entry names
the source pip recorded (``direct_url.json``), never the name ``mcpkit`` on PyPI (not this
project); with no record it refuses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.firsthour.conftest import ROOT, env_with


def installed_copy(site: Path, direct_url: dict[str, object] | None) -> None:
    """mcpkit in ``site`` as pip installs it: the package and its dist-info."""
    shutil.copytree(ROOT / "src" / "mcpkit", site / "mcpkit")
    info = site / "mcpkit-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcpkit\nVersion: 0.1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))


def install_json(site: Path, server: Path) -> subprocess.CompletedProcess[str]:
    env = env_with()
    env["PYTHONPATH"] = str(site)  # this copy, not the checkout
    return subprocess.run(
        [sys.executable, "-m", "mcpkit", "install", "json", str(server), "--with", "httpx"],
        capture_output=True,
        text=True,
        env=env,
        cwd=server.parent,
        timeout=60,
    )


@pytest.fixture
def server(tmp_path: Path) -> Path:
    path = tmp_path / "project" / "weather.py"
    path.parent.mkdir()
    path.write_text("from mcpkit import Server\n\napp = Server('weather')\n")
    return path


@pytest.mark.parametrize(
    ("direct_url", "requirement"),
    [
        ({"url": "file:///src/mcpkit", "dir_info": {}}, "mcpkit @ file:///src/mcpkit"),
        (
            {
                "url": "https://example.org/mcpkit.git",
                "vcs_info": {"vcs": "git", "commit_id": "0123abc"},
            },
            "mcpkit @ git+https://example.org/mcpkit.git@0123abc",
        ),
    ],
)
def test_the_recorded_source_is_what_uv_installs(
    tmp_path: Path, server: Path, direct_url: dict[str, object], requirement: str
) -> None:
    site = tmp_path / "site"
    installed_copy(site, direct_url)
    done = install_json(site, server)
    assert done.returncode == 0, done.stderr
    args = json.loads(done.stdout)["mcpServers"]["weather"]["args"]
    assert args[:5] == ["run", "--with", requirement, "--with", "httpx"]


def test_without_a_record_it_refuses_rather_than_name_another_package(
    tmp_path: Path, server: Path
) -> None:
    site = tmp_path / "site"
    installed_copy(site, None)
    done = install_json(site, server)
    assert done.returncode == 1
    assert "cannot tell where this mcpkit was installed from" in done.stderr
    assert "--with 'mcpkit @ " in done.stderr
    assert done.stdout == ""
