"""An install without extras runs clients over stdio and in memory: the HTTP transport
(httpx, uvicorn, starlette) is never imported for a target that is not a URL."""

from __future__ import annotations

import subprocess
import sys

from tests.firsthour.conftest import HERE, env_with

SCRIPT = f"""
import asyncio, sys
sys.path.insert(0, {str(HERE)!r})
from mcpkit import Client
from mcpkit.testing import call_tool
from weather import app

async def main():
    async with Client(app) as memory:
        print("memory:", (await memory.call_tool("forecast", {{"city": "Oslo"}})).text)
    async with Client({str(HERE / "weather.py")!r}) as stdio:
        print("stdio:", (await stdio.call_tool("forecast", {{"city": "Bergen"}})).text)
        print("era:", stdio.protocol_version)
    print("testing:", (await call_tool(app, "forecast", {{"city": "Tromso"}})).text)

asyncio.run(main())
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("httpx", "uvicorn", "starlette"))
print("loaded:", loaded)
"""


def test_stdio_and_memory_clients_run_without_the_http_extra() -> None:
    blocker = subprocess.run(
        [sys.executable, "-c", "import httpx"],
        capture_output=True,
        text=True,
        env=env_with(HERE / "core_only"),
        timeout=60,
    )
    assert "No module named 'httpx'" in blocker.stderr  # the blocker works
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env_with(HERE / "core_only"),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "loading the weather data",  # printed at import, in this process
        "memory: sunny in Oslo",
        "stdio: sunny in Bergen",
        "era: 2026-07-28",
        "testing: sunny in Tromso",
        "loaded: []",
    ]
