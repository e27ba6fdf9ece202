"""bench/inprocess.py --smoke: every in-process case (stateless HTTP of both eras, the
2025 session answered over SSE, stdio with 32 requests per chunk) runs and every answer it
checks is right. Timings are printed, never judged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_inprocess_smoke_runs_every_case() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "inprocess.py"), "--smoke", "--turn"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cases = [line.split("  ")[0] for line in done.stdout.splitlines()[1:]]
    for name in ("2025 stateless JSON", "2026 JSON", "2025 session SSE", "stdio 32 per chunk"):
        assert name in cases, done.stdout
