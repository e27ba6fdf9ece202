"""A short coverage-guided run of the message decoder (atheris; see atheris_decoder.py for
the longer run by hand): a fixed seed and run count, no finding allowed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_a_seeded_coverage_guided_run_finds_nothing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(HERE / "atheris_decoder.py"),
            "-runs=4000",
            "-seed=1",
            f"-dict={HERE / 'jsonrpc.dict'}",
            "-max_len=512",
            f"-artifact_prefix={tmp_path}/",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(HERE.parents[1]),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done 4000 runs" in proc.stderr
    assert not list(tmp_path.iterdir()), "crash artifacts written"
