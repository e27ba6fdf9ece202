"""bench/scaleout.py --smoke runs: one tiny round of every configuration and workload (echo,
tasks, listen fan-out), answers and deliveries checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_scaleout_benchmark_smoke() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scaleout.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "smoke run: checked the answers only (15 runs, 0 wrong or missed)" in run.stdout
