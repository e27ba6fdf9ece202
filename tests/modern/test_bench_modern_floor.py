"""bench/modern_floor.py --smoke runs: one tiny round of every server on both wires, every
answer checked by the benchmark client."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_floor_benchmark_smoke_round() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "modern_floor.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = [[cell.strip() for cell in row] for row in rows[1:]]  # after the header row
    granian = importlib.util.find_spec("granian") is not None
    expected = [
        ("2025-11-25 stateless JSON", "bare ASGI"),
        *([("2025-11-25 stateless JSON", "bare granian")] if granian else []),
        ("2025-11-25 stateless JSON", "mcpkit"),
        ("2025-11-25 stateless JSON", "raw asyncio"),
        ("2026-07-28 JSON", "bare ASGI"),
        *([("2026-07-28 JSON", "bare granian")] if granian else []),
        ("2026-07-28 JSON", "mcpkit"),
    ]
    assert sorted((c[0], c[1]) for c in cells) == expected
    for cell in cells:  # calls were made (CPU per call may read 0: clock ticks are 10 ms)
        assert float(cell[2].replace(",", "")) > 0
        assert cell[3].endswith("x") and float(cell[3][:-1]) > 0  # the share of the raw loop
    assert "mcpkit's own server CPU per call" in done.stdout
