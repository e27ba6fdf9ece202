"""The side-by-side harnesses run: ``bench/soak.py --server official`` drives the official
SDK's reliability server (``official_app.py``, same tools) with the same mix and checks,
and ``bench/reliability.py --smoke`` runs every probe area against mcpkit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / ".cache" / "peers" / "py" / "bin" / "python"


def test_the_soak_harness_drives_the_official_sdk_too() -> None:
    assert PEER.exists(), "the official SDK peer is missing: run `bash scripts/peers.sh`"
    argv = ["--server", "official", "--duration", "4", "--warmup", "1"]
    argv += ["--stdio", "1", "--http", "2", "--concurrency", "2", "--json"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(ROOT),
    )
    assert proc.stdout, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    assert set(results) == {"stdio", "http"}
    for kind, row in results.items():
        assert row["requests"] > 20 and row["ok"] > 0, (kind, row)
        assert (row["lost"], row["duplicated"], row["mismatched"]) == (0, 0, 0), (kind, row)


def test_the_reliability_probes_run_against_mcpkit() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "reliability.py"), "--smoke", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=str(ROOT),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    assert set(results) == {"floods", "hostile HTTP clients", "bad input"}
    floods = results["floods"]["mcpkit"]
    assert floods["stdio result of 1 KiB"].startswith("whole")
    assert floods["HTTP burst of 100 logs"].startswith("100/100 in order")
    bad = results["bad input"]["mcpkit"]
    assert bad["HTTP not JSON"] == "400, -32700"
    assert bad["stdio not JSON"] == "-32700"
    assert bad["HTTP session goes on after"] == bad["stdio session goes on after"] == "yes"
    hostile = results["hostile HTTP clients"]["mcpkit"]
    assert hostile["500 headers: answer"] == "431"
