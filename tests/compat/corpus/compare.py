"""Run one published server as published and on mcpkit (``python -m mcpkit.compat``), both
driven by the official Python client, and compare what it saw after normalising only what
differs by nature (the SDK's version string, timestamps).

    python tests/compat/corpus/compare.py VENV SCRIPT.json -- CONSOLE_SCRIPT [ARG ...]

VENV holds the server, its SDK and mcpkit (``scripts/compat_corpus.sh`` makes it). Prints
``same`` or the differences, and exits 0 or 1.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.compat.test_unchanged import drive_both, normalised  # noqa: E402

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}|Z)?")


def scrub(value: Any) -> Any:
    """``value`` with timestamps replaced by a placeholder."""
    if isinstance(value, str):
        return _TIMESTAMP.sub("<timestamp>", value)
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items()}
    return value


def differences(theirs: Any, ours: Any, path: str = "") -> list[str]:
    """Where ``ours`` differs from ``theirs``, one line each."""
    if type(theirs) is not type(ours):
        return [f"{path}: {json.dumps(theirs)[:200]} != {json.dumps(ours)[:200]}"]
    if isinstance(theirs, dict):
        out: list[str] = []
        for key in sorted(set(theirs) | set(ours)):
            if key not in theirs or key not in ours:
                out.append(f"{path}/{key}: only on {'ours' if key in ours else 'theirs'}")
            else:
                out += differences(theirs[key], ours[key], f"{path}/{key}")
        return out
    if isinstance(theirs, list):
        out = [f"{path}: {len(theirs)} items != {len(ours)}"] if len(theirs) != len(ours) else []
        for i, (a, b) in enumerate(zip(theirs, ours, strict=False)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    return (
        []
        if theirs == ours
        else [f"{path}: {json.dumps(theirs)[:200]} != {json.dumps(ours)[:200]}"]
    )


def main() -> int:
    argv = sys.argv[1:]
    cut = argv.index("--")
    venv, script_file = Path(argv[0]), Path(argv[1])
    command = argv[cut + 1 :]
    script = json.loads(script_file.read_text())
    bin_dir = venv / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        # Each side gets a scratch folder of its own (a git repository), named by {tmp}.
        scratch = [Path(tmp) / side for side in ("theirs", "ours")]
        for folder in scratch:
            folder.mkdir()
            subprocess.run(["git", "init", "-q", str(folder)], check=False)
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(folder),
                    "-c",
                    "user.name=c",
                    "-c",
                    "user.email=c@c",
                    "commit",
                    "-q",
                    "--allow-empty",
                    "-m",
                    "init",
                ],
                check=False,
            )
        line = [[arg.replace("{tmp}", str(folder)) for arg in command] for folder in scratch]
        theirs_cmd = [str(bin_dir / line[0][0]), *line[0][1:]]
        ours_cmd = [str(bin_dir / "python"), "-m", "mcpkit.compat", *line[1]]
        theirs, ours = drive_both(script, theirs_cmd, ours_cmd, Path(tmp))
    theirs, ours = (
        json.loads(json.dumps(r).replace(str(f), "{tmp}"))
        for r, f in zip((theirs, ours), scratch, strict=True)
    )
    found = differences(scrub(normalised(theirs)), scrub(normalised(ours)))
    if not found:
        print("same")
        return 0
    print("\n".join(found))
    return 1


if __name__ == "__main__":
    sys.exit(main())
