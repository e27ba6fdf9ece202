"""The soak runner for 30 s in CI: stdio and HTTP sessions under the realistic mix lose,
duplicate and mismatch nothing, and neither memory nor descriptors leak (bench/soak.py
defines the leak rule from measurement)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import soak  # noqa: E402


def test_a_30_second_soak_loses_nothing_and_leaks_nothing() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "soak.py"),
            "--duration",
            "30",
            "--warmup",
            "4",
            "--stdio",
            "2",
            "--http",
            "6",
            "--concurrency",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(ROOT),
    )
    assert proc.stdout, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    print(soak.table(results))
    for kind in ("stdio", "http"):
        r = results[kind]
        assert r["requests"] > 300, (kind, r)  # it did run under load
        assert r["cancelled"] > 0 and r["ok"] > 0
        assert (r["lost"], r["duplicated"], r["mismatched"], r["errors"]) == (0, 0, 0, 0), r
        assert not r["leak"], r
        assert r["fds_after_close"] <= r["fds_before"] + 2, r
    assert proc.returncode == 0, proc.stderr[-3000:]


def sample(**changes: Any) -> dict[str, Any]:
    row = {"lost": 0, "duplicated": 0, "mismatched": 0, "errors": 0, "leak": False}
    row.update(changes)
    return {"http": row}


def test_the_soak_fails_on_any_loss_duplicate_mismatch_error_or_leak() -> None:
    assert not soak.failed(sample())
    for key, value in [
        ("lost", 1),
        ("duplicated", 1),
        ("mismatched", 1),
        ("errors", 1),
        ("leak", True),
    ]:
        assert soak.failed(sample(**{key: value})), key


def test_the_leak_rule_tells_a_leak_from_allocator_noise() -> None:
    sampler = soak.Sampler([])
    # Allocator noise as measured: +-0.3 MiB steps, +0.4 MiB over 30 s.
    sampler.rss = [(t, 50_000 + (t % 3) * 300 + t * 15) for t in range(30)]
    assert not soak.leaking(sampler.report(), 8, 2)
    # Warm-up growth that has levelled off: +12 MiB in the first half, flat after.
    sampler.rss = [(t, 50_000 + min(t, 12) * 1_000) for t in range(30)]
    assert not soak.leaking(sampler.report(), 8, 2)
    # 1 KiB per request at 600 requests/s: about 35 MiB/min.
    sampler.rss = [(t, 50_000 + t * 600) for t in range(30)]
    assert soak.leaking(sampler.report(), 8, 2)
