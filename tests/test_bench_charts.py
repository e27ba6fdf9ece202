"""The performance charts are drawn from the benchmark's own results file, never by hand:
redrawn from ``docs/performance/results.json`` they are the files the docs show."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import charts  # noqa: E402  (bench/charts.py)

PUBLISHED = ROOT / "docs" / "performance"


def _cell(values: list[float], failed: bool = False) -> dict[str, object]:
    return {"values": values, "server_us": [], "client_us": [], "failed": failed}


def _results(tmp_path: Path, *, smoke: bool = False) -> Path:
    data = {
        "when": "20261206-101500",
        "rounds": 3,
        "smoke": smoke,
        "impls": {
            "raw": {"label": "raw asyncio", "status": None},
            "mcpkit": {"label": "mcpkit", "status": None},
            "mcp-lowlevel": {"label": "mcp lowlevel", "status": None},
            "ts": {"label": "TS SDK", "status": "n/a (no node)"},
        },
        "results": {
            "raw": {"stdio-32": _cell([200.0, 100.0, 300.0]), "rss-stdio": _cell([10.0])},
            "mcpkit": {
                "stdio-32": _cell([100.0, 50.0, 150.0]),
                "stdio-seq": _cell([], failed=True),
                "rss-stdio": _cell([30.0]),
            },
            "mcp-lowlevel": {"stdio-32": _cell([10.0, 20.0, 5.0]), "rss-stdio": _cell([60.0])},
            "ts": {"stdio-32": _cell([1.0])},
        },
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    return path


def test_medians_and_ratios_come_from_the_rounds(tmp_path: Path) -> None:
    run = charts.Run.load(_results(tmp_path))
    assert run.value("mcpkit", "stdio-32") == 100.0  # the median of 50, 100, 150
    assert run.ratio("mcpkit", "mcp-lowlevel", "stdio-32") == 10.0
    assert run.ratio("mcpkit", "raw", "stdio-32") == 0.5
    assert run.value("mcpkit", "stdio-seq") is None  # a failed cell is no number
    assert "ts" not in run.labels  # an implementation that could not run draws nothing
    assert run.caption == "2026-12-06 10:15, median of 3 interleaved rounds"


def test_the_charts_show_those_numbers(tmp_path: Path) -> None:
    svgs = charts.render(charts.Run.load(_results(tmp_path)))
    assert set(svgs) == {"peers.svg", "floor.svg", "memory.svg"}
    assert b"10x" in svgs["peers.svg"] and b"mcp lowlevel" in svgs["peers.svg"]
    assert b"TS SDK" not in svgs["peers.svg"]
    assert b"0.50x" in svgs["floor.svg"]
    assert b">60<" in svgs["memory.svg"] and b">30<" in svgs["memory.svg"]
    for svg in svgs.values():
        assert b"kozea.github.io" not in svg and b"<script src" not in svg  # static pictures


def test_a_smoke_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="smoke"):
        charts.Run.load(_results(tmp_path, smoke=True))


def test_the_published_charts_are_the_results_file_redrawn() -> None:
    run = charts.Run.load(PUBLISHED / "results.json")
    for name, svg in charts.render(run).items():
        assert (PUBLISHED / name).read_bytes() == svg, f"docs/performance/{name} is stale"


def test_readme_and_docs_show_the_published_charts() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for name in ("peers.svg", "floor.svg"):
        assert f"(docs/performance/{name})" in readme
        assert f"(performance/{name})" in page
    assert "(performance/memory.svg)" in page


def test_the_published_table_is_the_results_file() -> None:
    table = json.loads((PUBLISHED / "results.json").read_text())["table"]
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert table in page
