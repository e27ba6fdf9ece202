"""Summarise a conformance run: one line per scenario, exit 1 on any unexpected failure.

Usage: python scripts/conformance_report.py OUTPUT_DIR EXPECTED_FAILURES_FILE

OUTPUT_DIR holds the suite's ``-o`` folders (``server/`` and ``client/``); every
``checks.json`` below them is read. When OUTPUT_DIR also has ``scenarios.txt`` (the output of
``conformance list --requirements ...``), every scenario listed there must have results: a
scenario that never reported (a crashed or hung leg) is a failure too.

The expected-failures file lists one ``leg:scenario`` per line (``#`` comments allowed); such
a scenario may fail, and must fail (a stale entry is reported so the list shrinks as fixes
land). Every other scenario, scored or not, must have no FAILURE check.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

# Result folders are "<scenario>-<timestamp>" (server ones "server-<scenario>-<timestamp>");
# the timestamp 2026-11-29T17:30:00.000Z is written as 2026-11-29T17-30-00-000Z.
_FOLDER = re.compile(r"^(?P<name>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")


def scenario_name(leg: str, leg_dir: Path, checks: Path) -> str:
    rel = checks.parent.relative_to(leg_dir).as_posix()
    match = _FOLDER.match(rel)
    name = match.group("name") if match else rel
    return name.removeprefix("server-") if leg == "server" else name


def listed_scenarios(listing: Path) -> set[str]:
    """``leg:scenario`` for every scenario of a ``conformance list --requirements`` output."""
    out: set[str] = set()
    section = ""
    for line in listing.read_text().splitlines():
        if line.startswith("Server scenarios"):
            section = "server"
        elif line.startswith("Client scenarios"):
            section = "client"
        elif line.startswith("Run and reported"):
            section = ""
        item = re.match(r"^\s+- (\S+)(?: \[(server|client)\])?\s*$", line)
        if item:
            leg = item.group(2) or section
            if leg:
                out.add(f"{leg}:{item.group(1)}")
    return out


def main() -> int:
    out = Path(sys.argv[1])
    expected = set()
    for line in Path(sys.argv[2]).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            expected.add(line)
    failed_unexpected: list[str] = []
    passed_expected: list[str] = []
    rows: list[tuple[str, str, int, int, int]] = []
    seen: set[str] = set()
    for leg in ("server", "client"):
        leg_dir = out / leg
        if not leg_dir.is_dir():
            failed_unexpected.append(f"{leg}: no results (the leg did not run)")
            continue
        found = sorted(leg_dir.rglob("checks.json"))
        if not found:
            failed_unexpected.append(f"{leg}: no scenario results")
        for checks in found:
            name = scenario_name(leg, leg_dir, checks)
            data = json.loads(checks.read_text())
            statuses = [c.get("status") for c in data]
            ok = statuses.count("SUCCESS")
            fail = statuses.count("FAILURE")
            warn = statuses.count("WARNING")
            rows.append((leg, name, ok, fail, warn))
            key = f"{leg}:{name}"
            seen.add(key)
            if fail and key not in expected:
                failed_unexpected.append(key)
                for c in data:
                    if c.get("status") == "FAILURE":
                        msg = c.get("errorMessage") or c.get("description") or ""
                        print(f"  FAILURE {key} [{c.get('id')}] {msg}"[:400])
                if leg == "client":
                    print(f"    (client output: {checks.parent}/stdout.txt, stderr.txt)")
            if not fail and key in expected:
                passed_expected.append(key)
    listing = out / "scenarios.txt"
    if listing.is_file():
        for key in sorted(listed_scenarios(listing) - seen):
            failed_unexpected.append(f"{key} (no results)")
    print()
    print("| leg | scenario | passed | failed | warnings |")
    print("|---|---|---|---|---|")
    for leg, name, ok, fail, warn in rows:
        print(f"| {leg} | {name} | {ok} | {fail} | {warn} |")
    total_fail = sum(r[3] for r in rows)
    print(f"\n{len(rows)} scenarios, {sum(r[2] for r in rows)} checks passed, {total_fail} failed")
    if passed_expected:
        print("stale expected failures (they pass now; remove them):", ", ".join(passed_expected))
    if failed_unexpected:
        print("UNEXPECTED FAILURES:", ", ".join(failed_unexpected))
        return 1
    return 1 if passed_expected else 0


if __name__ == "__main__":
    sys.exit(main())
