"""Summarise a conformance run: one line per scenario, exit 1 on any unexpected failure.

Usage: python scripts/conformance_report.py OUTPUT_DIR EXPECTED_FAILURES_FILE

OUTPUT_DIR holds the suite's ``-o`` folders (``server/`` and ``client/``); every
``checks.json`` below them is read. The expected-failures file lists one ``leg:scenario``
per line (``#`` comments allowed); such a scenario may fail, and must fail (a stale entry is
reported so the list shrinks as fixes land).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def scenario_name(leg_dir: Path, checks: Path) -> str:
    # Folders are "<scenario>-<timestamp>" (server ones prefixed "server-"); the timestamp
    # 2026-11-29T17:30:00.000Z is written as 2026-11-29T17-30-00-000Z: six dash-separated parts.
    rel = checks.parent.relative_to(leg_dir).as_posix()
    parts = rel.split("-")
    name = "-".join(parts[:-6]) if len(parts) > 6 else rel
    return name.removeprefix("server-")


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
    for leg in ("server", "client"):
        leg_dir = out / leg
        if not leg_dir.is_dir():
            failed_unexpected.append(f"{leg}: no results (the leg did not run)")
            continue
        found = sorted(leg_dir.rglob("checks.json"))
        if not found:
            failed_unexpected.append(f"{leg}: no scenario results")
        for checks in found:
            name = scenario_name(leg_dir, checks)
            data = json.loads(checks.read_text())
            statuses = [c.get("status") for c in data]
            ok = statuses.count("SUCCESS")
            fail = statuses.count("FAILURE")
            warn = statuses.count("WARNING")
            rows.append((leg, name, ok, fail, warn))
            key = f"{leg}:{name}"
            if fail and key not in expected:
                failed_unexpected.append(key)
                for c in data:
                    if c.get("status") == "FAILURE":
                        msg = c.get("errorMessage") or c.get("description") or ""
                        print(f"  FAILURE {key} [{c.get('id')}] {msg}"[:400])
            if not fail and key in expected:
                passed_expected.append(key)
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
