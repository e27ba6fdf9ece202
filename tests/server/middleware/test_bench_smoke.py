"""bench/middleware.py --smoke runs: one tiny round of every variant, answers checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_middleware_benchmark_smoke_round() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "middleware.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        line
        for line in done.stdout.splitlines()
        if line.startswith("| legacy") or line.startswith("| modern")
    ]
    assert len(rows) == 6
    assert all(row.split("|")[5].strip() == "1.00x" for row in rows if "bare" in row)
