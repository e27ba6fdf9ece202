"""Run one published server as published and on mcpkit (``python -m mcpkit.compat``), both
driven by the official Python client, and compare what it saw after normalising only what
differs by nature (the SDK's version string, timestamps).

    python tests/compat/corpus/compare.py VENV SCRIPT.json -- [NAME=VALUE ...] COMMAND [ARG ...]

VENV holds the server, its SDK and mcpkit (``scripts/compat_corpus.sh`` makes it). Each
side gets a scratch folder of its own, named ``{tmp}`` in the command line and in the
script's arguments (and in what the client saw, before comparing). Prints
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

from tests.compat.test_unchanged import normalised, report_of, start  # noqa: E402

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


def _assignments(words: list[str]) -> int:
    """How many of ``words`` lead the command as ``NAME=value`` environment settings."""
    count = 0
    for word in words:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
            break
        count += 1
    return count


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
        # Leading NAME=value words are the server's environment (through env(1)).
        env = [side[: _assignments(side)] for side in line]
        line = [side[len(e) :] for side, e in zip(line, env, strict=True)]
        theirs_cmd = ["env", *env[0], str(bin_dir / line[0][0]), *line[0][1:]]
        ours_cmd = ["env", *env[1], str(bin_dir / "python"), "-m", "mcpkit.compat", *line[1]]
        # {tmp} in the script's arguments too: each side's own folder.
        scripts = [json.loads(json.dumps(script).replace("{tmp}", str(f))) for f in scratch]
        runs = (
            start(scripts[0], theirs_cmd, Path(tmp), "theirs"),
            start(scripts[1], ours_cmd, Path(tmp), "ours"),
        )
        theirs, ours = report_of(runs[0], "theirs"), report_of(runs[1], "ours")
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
