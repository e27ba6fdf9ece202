"""The README's quick-start example runs as shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The examples run against this checkout's src/, whatever the virtualenv has installed.
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
}


def test_weather_quickstart_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "weather_client.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=ENV,
    ).stdout.splitlines()
    assert out == [
        "['forecast']",
        "  1/3 day 1",
        "  2/3 day 2",
        "  3/3 day 3",
        "{'city': 'Oslo', 'days': 3, 'summary': 'sunny'}",
        "Oslo: 21°C, clear",
        "Plan a three-day trip to Oslo; check the forecast first.",
    ]


def test_the_benchmark_smoke_run_says_it_checked_answers_only() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--smoke",
            "--only",
            "mcpkit",
            "--workloads",
            "stdio-seq,http-json-32",
            "--no-setup",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "smoke run: checked the answers only (2 implementation x workload runs, " in "\n".join(
        lines
    )
    assert not any(line.startswith("|") for line in lines)  # no table of meaningless timings
    assert "calls/s" not in done.stdout
