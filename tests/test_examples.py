"""The README's quick-start example runs as shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_weather_quickstart_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "weather_client.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
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
