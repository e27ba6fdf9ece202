"""bench/proxy.py --smoke runs: one tiny round of every path, answers checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_proxy_benchmark_smoke_round() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "proxy.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = [[cell.strip() for cell in row] for row in rows[1:]]  # after the header row
    assert [(c[0], c[1]) for c in cells] == [
        ("stdio", "legacy"),
        ("stdio", "2026-07-28"),
        ("http", "legacy"),
        ("http", "2026-07-28"),
    ]
    for _, _, direct, proxied, ratio in cells:
        assert float(direct) > 0 and float(proxied) > 0
        assert float(ratio.removesuffix("x")) > 0
