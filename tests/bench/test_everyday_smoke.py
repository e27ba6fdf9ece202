"""bench/everyday.py --smoke runs: one tiny round of every variant (dependencies, timeout,
tag filter), answers checked. Timings are printed, never judged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_everyday_benchmark_smoke_round() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "everyday.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| legacy", "| modern"))]
    assert len(rows) == 8
    assert all(row.split("|")[5].strip() == "1.00x" for row in rows if "| plain |" in row)
