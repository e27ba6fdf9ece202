"""bench/coldstart.py --smoke runs: one fresh interpreter per row, the initialize answer and
200 tool calls of the spawned server checked by the benchmark itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_cold_start_benchmark_smoke_round() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "coldstart.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = {row[0].strip(): row[1].strip() for row in rows[1:]}  # after the header row
    assert len(cells) == 7
    mcpkit_modules, all_modules = (
        int(n) for n in cells.pop("mcpkit modules loaded / all modules").split(" / ")
    )
    assert 0 < mcpkit_modules < all_modules
    for name, value in cells.items():
        assert float(value) > 0, name
