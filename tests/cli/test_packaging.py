"""The built wheel works on its own: what ``mcpkit demo`` serves ships inside the package."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.cli.conftest import EVERYTHING, ROOT


def _build_wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = out.glob("mcpkit-*.whl")
    return wheel


def test_the_demo_runs_from_an_installed_wheel_outside_the_checkout(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as zf:
        shipped = zf.read("mcpkit/cli/demo_server.py")
    assert shipped == EVERYTHING.read_bytes()

    site = tmp_path / "site"  # the wheel installed on its own, dependencies from this venv
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS")}
    env["PYTHONPATH"] = str(site)
    where = subprocess.run(
        [sys.executable, "-c", "import mcpkit; print(mcpkit.__file__)"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
        timeout=30,
        check=True,
    )
    assert where.stdout.strip().startswith(str(site))  # not the checkout's src/
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit", "demo"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert "the example server server_everything.py and a client" in done.stdout
    assert "demo finished in" in done.stdout
