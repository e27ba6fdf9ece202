"""bench/inprocess.py --smoke: every in-process case (stateless HTTP of both eras, the
2025 session answered over SSE, stdio with 32 requests per chunk, the bare ASGI app of each
wire) runs and every answer it checks is right; bench/uvicorn_inprocess.py answers every
case through uvicorn's protocol, mcpkit and the bare app. Timings are printed, never
judged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _inprocess(*args: str) -> subprocess.CompletedProcess[str]:
    """bench/inprocess.py run with ``args``, which must exit 0."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "inprocess.py"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_inprocess_smoke_runs_every_case() -> None:
    done = _inprocess("--smoke", "--turn")
    cases = [line.split("  ")[0] for line in done.stdout.splitlines()[1:]]
    for name in (
        "2025 stateless JSON",
        "2026 JSON",
        "2025 session SSE",
        "stdio 32 per chunk",
        "bare app, 2025 JSON",
        "bare app, 2026 JSON",
        "bare app, SSE",
    ):
        assert name in cases, done.stdout


@pytest.mark.parametrize(
    ("app", "case"),
    [("mcpkit", "legacy"), ("mcpkit", "modern"), ("mcpkit", "sse"), ("bare", "sse")],
)
def test_uvicorn_inprocess_answers_every_case(app: str, case: str) -> None:
    script = ROOT / "bench" / "uvicorn_inprocess.py"
    argv = [sys.executable, str(script), "--app", app, "--case", case, "--calls", "20"]
    done = subprocess.run(
        [*argv, "--rounds", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"{app} {case}: "), done.stdout


@pytest.mark.parametrize("app", ["mcpkit", "bare"])
def test_uvicorn_inprocess_split_times_the_app_apart(app: str) -> None:
    script = ROOT / "bench" / "uvicorn_inprocess.py"
    argv = [sys.executable, str(script), "--app", app, "--case", "legacy", "--calls", "50"]
    done = subprocess.run(
        [*argv, "--rounds", "1", "--split"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    split = done.stdout.splitlines()[1]
    words = split.replace(",", "").split()
    total, own, io = (float(words[i]) for i in (2, 11, 17))
    # Each part was timed (a positive share), and the two the wrapper saw fit in the whole.
    assert 0 < own < total and 0 < io < total and own + io < total * 1.5, split


def test_opcodes_counts_the_bytecodes_of_each_function() -> None:
    done = _inprocess("--opcodes", "modern")
    first, _, rest = done.stdout.partition("\n")
    total = int(first.split(": ")[1].split()[0])
    rows = [line.split() for line in rest.splitlines()[1:]]
    functions = {row[1] for row in rows}
    # The request path's own functions are counted; the harness's are not.
    assert {"serve_post", "sessionless", "respond_plain"} <= functions, done.stdout
    assert "run_calls" not in functions
    listed = sum(float(row[0]) for row in rows)  # (functions under one per call are not)
    assert 0.9 * total <= listed <= total + 1, done.stdout
