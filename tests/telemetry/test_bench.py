"""bench/telemetry.py --smoke: every configuration answers right and traces line up, on
both eras."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, server_env


def test_the_telemetry_benchmark_smoke_run() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "telemetry.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"smoke run ({era}): checked the answers of 5 configurations and the traces"
        for era in ("legacy", "2026-07-28")
    ]
