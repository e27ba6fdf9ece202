"""scripts/conformance_report.py judges each revision against its expected-failures file."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "conformance_report", ROOT / "scripts" / "conformance_report.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


report = load()
STAMP = "2026-12-01T08-51-20-382Z"
LISTING = """Required for 2026-07-28 (3 scenarios, frozen; run at the 2026-07-28 wire):

Server scenarios (test against a server):
  - tools-list
  - caching

Client scenarios (test against a client):
  - auth/metadata-var2

Run and reported, but never scored:
  extension (1):
    - tasks-lifecycle [server]
"""


def revision(tmp_path: Path, results: dict[str, list[str]]) -> Path:
    out = tmp_path / "2026-07-28"
    for key, statuses in results.items():
        leg, name = key.split(":", 1)
        folder = out / leg / (f"server-{name}-{STAMP}" if leg == "server" else f"{name}-{STAMP}")
        folder.mkdir(parents=True)
        checks = [{"id": f"c{i}", "status": s} for i, s in enumerate(statuses)]
        (folder / "checks.json").write_text(json.dumps(checks))
    (out / "scenarios.txt").write_text(LISTING)
    return out


def test_listing_is_parsed_with_scored_flags(tmp_path: Path) -> None:
    listing = tmp_path / "l.txt"
    listing.write_text(LISTING)
    assert report.listed_scenarios(listing) == {
        "server:tools-list",
        "server:caching",
        "client:auth/metadata-var2",
        "server:tasks-lifecycle",
    }
    assert "server:tasks-lifecycle" not in report.scored_scenarios(listing)


def test_expected_unexpected_stale_missing_and_unexercised(tmp_path: Path) -> None:
    out = revision(
        tmp_path,
        {
            "server:tools-list": ["SUCCESS", "FAILURE"],  # expected to fail: fine
            "server:caching": ["SUCCESS"],  # expected to fail but passes: stale
            "client:auth/metadata-var2": ["SKIPPED"],  # nothing exercised: failing
        },
    )
    rev = report.judge(out, {"server:tools-list", "server:caching"})
    assert rev.expected_failing == ["server:tools-list"]
    assert rev.stale == ["server:caching"]
    assert rev.unexpected == ["client:auth/metadata-var2", "server:tasks-lifecycle (no results)"]


@pytest.mark.parametrize(("expected", "status"), [(set(), 1), ({"server:tools-list"}, 0)])
def test_exit_status(tmp_path: Path, expected: set[str], status: int) -> None:
    out = revision(
        tmp_path,
        {
            "server:tools-list": ["FAILURE"],
            "server:caching": ["SUCCESS"],
            "client:auth/metadata-var2": ["SUCCESS", "WARNING"],
            "server:tasks-lifecycle": ["SUCCESS"],
        },
    )
    exp = tmp_path / "expected.txt"
    exp.write_text("# comment\n" + "".join(f"{e}  # why\n" for e in expected))
    assert report.main([str(out), str(exp)]) == status
    assert report.main([str(out)]) == 2
