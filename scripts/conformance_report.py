"""Summarise a conformance run: one table per revision, exit 1 on any unexpected result.

Usage: python scripts/conformance_report.py OUTPUT_DIR EXPECTED_FAILURES_FILE [OUTPUT_DIR
EXPECTED_FAILURES_FILE ...]

Each OUTPUT_DIR holds the suite's ``-o`` folders of one revision (``server/`` and
``client/``); every ``checks.json`` below them is read. When OUTPUT_DIR also has
``scenarios.txt`` (the output of ``conformance list --requirements ...``), every scenario
listed there must have results: a scenario that never reported (a crashed or hung leg) is a
failure too. A scenario is reported under the revision folder's name (``2026-07-28`` for
``.../2026-07-28``); its rows say whether it is scored for that revision.

A scenario none of whose checks passed or failed (all SKIPPED or INFO: the implementation
never exercised it, e.g. a client that sent nothing) counts as failing, except the ones in
``ALWAYS_SKIPPED``.

The expected-failures file lists one ``leg:scenario`` per line (``#`` comments allowed); such
a scenario may fail, and must fail (a stale entry is reported so the list shrinks as fixes
land). Every other scenario, scored or not, must have no FAILURE check.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Result folders are "<scenario>-<timestamp>" (server ones "server-<scenario>-<timestamp>");
# the timestamp 2026-11-29T17:30:00.000Z is written as 2026-11-29T17-30-00-000Z.
_FOLDER = re.compile(r"^(?P<name>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
# Scenarios the suite (0.2.0-alpha.12) always answers with a single SKIPPED check.
ALWAYS_SKIPPED = {"server:tasks-status-notifications"}


def scenario_name(leg: str, leg_dir: Path, checks: Path) -> str:
    rel = checks.parent.relative_to(leg_dir).as_posix()
    match = _FOLDER.match(rel)
    name = match.group("name") if match else rel
    return name.removeprefix("server-") if leg == "server" else name


def listed_scenarios(listing: Path) -> set[str]:
    """``leg:scenario`` for every scenario of a ``conformance list --requirements`` output."""
    return set(_listing(listing))


def scored_scenarios(listing: Path) -> set[str]:
    """The scored subset of :func:`listed_scenarios` (not under "Run and reported")."""
    return {key for key, scored in _listing(listing).items() if scored}


def _listing(listing: Path) -> dict[str, bool]:
    out: dict[str, bool] = {}
    section = ""
    scored = True
    for line in listing.read_text().splitlines():
        if line.startswith("Server scenarios"):
            section = "server"
        elif line.startswith("Client scenarios"):
            section = "client"
        elif line.startswith("Run and reported"):
            section = ""
            scored = False
        item = re.match(r"^\s+- (\S+)(?: \[(server|client)\])?\s*$", line)
        if item:
            leg = item.group(2) or section
            if leg:
                out[f"{leg}:{item.group(1)}"] = scored
    return out


def read_expected(path: Path) -> set[str]:
    expected = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            expected.add(line)
    return expected


@dataclass
class Revision:
    """The judged results of one revision's legs."""

    name: str
    rows: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    expected_failing: list[str] = field(default_factory=list)
    scored: set[str] | None = None


def judge(out: Path, expected: set[str]) -> Revision:
    rev = Revision(out.name)
    seen: set[str] = set()
    listing = out / "scenarios.txt"
    if listing.is_file():
        rev.scored = scored_scenarios(listing)
    for leg in ("server", "client"):
        leg_dir = out / leg
        if not leg_dir.is_dir():
            rev.unexpected.append(f"{leg}: no results (the leg did not run)")
            continue
        found = sorted(leg_dir.rglob("checks.json"))
        if not found:
            rev.unexpected.append(f"{leg}: no scenario results")
        for checks in found:
            name = scenario_name(leg, leg_dir, checks)
            data = json.loads(checks.read_text())
            statuses = [c.get("status") for c in data]
            ok, fail, warn = (statuses.count(s) for s in ("SUCCESS", "FAILURE", "WARNING"))
            rev.rows.append((leg, name, ok, fail, warn))
            key = f"{leg}:{name}"
            seen.add(key)
            if not ok and not fail and key not in ALWAYS_SKIPPED:
                print(f"  NOT EXERCISED {rev.name} {key}: no check passed or failed")
                fail = 1
            if fail and key in expected:
                rev.expected_failing.append(key)
            elif fail:
                rev.unexpected.append(key)
                for c in data:
                    if c.get("status") == "FAILURE":
                        msg = c.get("errorMessage") or c.get("description") or ""
                        print(f"  FAILURE {rev.name} {key} [{c.get('id')}] {msg}"[:400])
                if leg == "client":
                    print(f"    (client output: {checks.parent}/stdout.txt, stderr.txt)")
            elif key in expected:
                rev.stale.append(key)
    if listing.is_file():
        for key in sorted(listed_scenarios(listing) - seen):
            if key in expected:
                rev.expected_failing.append(f"{key} (no results)")
            else:
                rev.unexpected.append(f"{key} (no results)")
    return rev


def print_revision(rev: Revision) -> None:
    print(f"\n## {rev.name}\n")
    print("| leg | scenario | scored | passed | failed | warnings |")
    print("|---|---|---|---|---|---|")
    for leg, name, ok, fail, warn in rev.rows:
        scored = "?" if rev.scored is None else ("yes" if f"{leg}:{name}" in rev.scored else "no")
        print(f"| {leg} | {name} | {scored} | {ok} | {fail} | {warn} |")
    total_fail = sum(r[3] for r in rev.rows)
    failing = sum(1 for r in rev.rows if r[3])
    print(
        f"\n{rev.name}: {len(rev.rows)} scenarios, {failing} failing, "
        f"{sum(r[2] for r in rev.rows)} checks passed, {total_fail} failed"
    )
    if rev.expected_failing:
        print(
            f"{rev.name}: {len(rev.expected_failing)} expected failures (the list must shrink "
            "to empty): " + ", ".join(sorted(rev.expected_failing))
        )
    if rev.stale:
        print(
            f"{rev.name}: stale expected failures (they pass now; remove them): "
            + ", ".join(rev.stale)
        )
    if rev.unexpected:
        print(f"{rev.name}: UNEXPECTED FAILURES: " + ", ".join(rev.unexpected))


def main(argv: list[str]) -> int:
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    revisions = [
        judge(Path(out), read_expected(Path(expected)))
        for out, expected in zip(argv[::2], argv[1::2], strict=True)
    ]
    for rev in revisions:
        print_revision(rev)
    print()
    bad = False
    for rev in revisions:
        verdict = "ok" if not (rev.unexpected or rev.stale) else "NOT OK"
        bad = bad or verdict != "ok"
        print(
            f"{rev.name}: {verdict} ({len(rev.unexpected)} unexpected failures, "
            f"{len(rev.expected_failing)} expected, {len(rev.stale)} stale)"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
