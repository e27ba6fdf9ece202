"""bench/modern_floor.py --smoke runs: one tiny round of every server on the three wires
(2025 stateless JSON, 2026-07-28 JSON, 2025 sessions + SSE), every answer checked by the
benchmark client."""

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
        ("2025-11-25 sessions + SSE", "bare ASGI"),
        *([("2025-11-25 sessions + SSE", "bare granian")] if granian else []),
        ("2025-11-25 sessions + SSE", "mcpkit"),
        ("2025-11-25 sessions + SSE", "raw asyncio"),
    ]
    assert sorted((c[0], c[1]) for c in cells) == sorted(expected)
    for cell in cells:  # calls were made (CPU per call may read 0: clock ticks are 10 ms)
        assert float(cell[2].replace(",", "")) > 0
        assert cell[3].endswith("x") and float(cell[3][:-1]) > 0  # the share of the raw loop
        assert cell[4].endswith("x") and float(cell[4][:-1]) > 0  # and of the bare app
    for wire, target in [("2025-11-25 stateless JSON", 0.75), ("2025-11-25 sessions + SSE", 0.5)]:
        assert f"{wire}: mcpkit at " in done.stdout and f"(target {target}x)" in done.stdout
