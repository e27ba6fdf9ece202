"""The README's command-line samples are real: each ``$ mcpkit ...`` line of the samples
that show exact output (a JSON result, and the errors with their exit codes) is run against
the example server, copied to ``server.py`` as the README says, and must print what the
README shows. Wide tables (terminal-dependent) are not compared."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _samples() -> list[tuple[str, str, int]]:
    """(command, expected output, exit code) of the exact-output samples."""
    start = README.index("$ mcpkit call server.py echo --args-json")
    block = README[start : README.index("```", start)]
    errors_at = README.index("Errors are one line and a hint")
    fence = README.index("```\n", errors_at) + 4
    block += README[fence : README.index("```", fence)]
    samples = []
    for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
        if not chunk.startswith("$ mcpkit ") or chunk.rstrip().endswith("&"):
            continue
        command, _, rest = chunk.partition("\n")
        lines = rest.rstrip("\n").splitlines()
        code = 0
        if lines and (m := re.fullmatch(r"\(exit code (\d+)\)", lines[-1])):
            code = int(m.group(1))
            lines = lines[:-1]
        if "--transport http" in command or "127.0.0.1:8765" in command:
            continue  # needs the server of the line before
        samples.append((command[2:], "\n".join(lines).strip(), code))
    return samples


SAMPLES = _samples()


def test_the_samples_were_found() -> None:
    commands = [c for c, _, _ in SAMPLES]
    assert any("--json" in c for c in commands) and any("ad a=1" in c for c in commands)


@pytest.mark.parametrize(("command", "expected", "code"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_readme_sample_prints_what_the_readme_shows(
    tmp_path: Path, command: str, expected: str, code: int
) -> None:
    shutil.copy(ROOT / "examples" / "server_everything.py", tmp_path / "server.py")
    argv = shlex.split(command)
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    shown = (done.stdout + done.stderr).strip()
    assert (shown, done.returncode) == (expected, code)
