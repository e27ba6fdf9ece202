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


def test_the_weather_server_serves_both_eras_over_stdio() -> None:
    """What the README's quick start says: one server file, both eras on the same pipe."""
    script = (
        "import asyncio, sys\n"
        "from mcpkit import Client\n"
        "async def main():\n"
        "    for era in ('auto', 'legacy', '2026-07-28'):\n"
        "        async with Client(sys.argv[1], era=era) as c:\n"
        "            r = await c.call_tool('forecast', {'city': 'Oslo', 'days': 1})\n"
        "            print(era, c.protocol_version, c.modern, r.structured_content['summary'])\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "examples" / "weather.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=ENV,
    ).stdout.splitlines()
    assert out == [
        "auto 2026-07-28 True sunny",
        "legacy 2025-11-25 False sunny",
        "2026-07-28 2026-07-28 True sunny",
    ]


def test_the_lowlevel_demo_runs_in_memory_and_over_stdio() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "lowlevel_demo.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=ENV,
    ).stdout.splitlines()
    for label in ("memory", "stdio"):
        assert f"[{label}] connected to lowlevel-demo 1.0.0, protocol 2025-11-25" in out
        assert f"[{label}] echo -> 'hello, MCP'" in out
        assert f"[{label}] unknown tool -> error -32602: Unknown tool: nope" in out
        assert [line for line in out if line.startswith(f"[{label}]   progress")] == [
            f"[{label}]   progress {n}/3: step {n} of 3" for n in (1, 2, 3)
        ]
    assert out[-1] == "[stdio] server process exited with code 0"
