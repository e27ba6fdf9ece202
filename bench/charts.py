"""SVG charts of one benchmark run, drawn from the results file ``bench/run.py`` writes.

Usage: python bench/charts.py [RESULTS.json] [--out DIR]

Without RESULTS it takes ``docs/performance/results.json`` (the run the docs show; ``run.py
--publish`` writes it). Writes to DIR (default: the results file's folder):

- ``peers.svg``: mcpkit's calls/s over each peer's, per workload (a bar above 1 is a win);
- ``floor.svg``: each mcpkit column's calls/s as a share of the raw asyncio loop's;
- ``memory.svg``: peak RSS of every server on stdio and HTTP, MB.

Every number is the median over the run's rounds, the same the run's table shows; the charts
are never edited by hand (``tests/test_bench_charts.py`` redraws them and compares).
Needs ``pygal`` (in the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygal
from pygal.style import Style

BENCH = Path(__file__).resolve().parent
PUBLISHED = BENCH.parent / "docs" / "performance" / "results.json"

# The call workloads, in the table's order, with short axis labels.
CALL_ROWS = {
    "stdio-seq": "stdio, 1 at a time",
    "stdio-32": "stdio, 32 in flight",
    "http-sse-seq": "HTTP sessions+SSE, 1 at a time",
    "http-sse-32": "HTTP sessions+SSE, 32 clients",
    "http-json-32": "HTTP stateless JSON, 32 clients",
    "modern-json-32": "HTTP 2026-07-28 JSON, 32 clients",
    "modern-sse-32": "HTTP 2026-07-28 SSE, 32 clients",
}
PEERS = ["mcp-mcpserver", "mcp-lowlevel", "fastmcp", "ts", "ts2"]
MCPKIT_COLUMNS = ["mcpkit", "mcpkit-sync", "mcpkit-compat", "mcpkit-fastmcp", "mcpkit-granian"]
MEMORY_ROWS = {"rss-stdio": "stdio server", "rss-http": "HTTP server after 32 sessions"}

STYLE = Style(
    background="white",
    plot_background="white",
    font_family="system-ui, -apple-system, 'Segoe UI', sans-serif",
    colors=("#3b6fb6", "#e08a2c", "#4a9d5b", "#c44e52", "#8172b2", "#937860"),
    title_font_size=16,
    legend_font_size=12,
    label_font_size=11,
    major_label_font_size=11,
    value_font_size=10,
)


@dataclass(frozen=True)
class Run:
    """The parts of a results file the charts read."""

    when: str
    rounds: int
    labels: dict[str, str]  # implementation key -> its column label (usable ones only)
    medians: dict[str, dict[str, float]]  # implementation -> workload -> median value

    @classmethod
    def load(cls, path: Path) -> Run:
        data: dict[str, Any] = json.loads(path.read_text())
        if data.get("smoke"):
            raise SystemExit(f"{path}: a --smoke run has no timings worth a chart")
        labels = {k: v["label"] for k, v in data["impls"].items() if v.get("status") is None}
        medians: dict[str, dict[str, float]] = {}
        for impl, cells in data["results"].items():
            if impl not in labels:
                continue
            medians[impl] = {
                w: statistics.median(c["values"])
                for w, c in cells.items()
                if c["values"] and not c["failed"]
            }
        return cls(data["when"], data["rounds"], labels, medians)

    def value(self, impl: str, workload: str) -> float | None:
        return self.medians.get(impl, {}).get(workload)

    def ratio(self, impl: str, other: str, workload: str) -> float | None:
        a, b = self.value(impl, workload), self.value(other, workload)
        return a / b if a is not None and b else None

    @property
    def caption(self) -> str:
        day, clock = self.when.split("-")
        stamp = f"{day[:4]}-{day[4:6]}-{day[6:]} {clock[:2]}:{clock[2:4]}"
        return f"{stamp}, median of {self.rounds} interleaved round{'s' * (self.rounds != 1)}"


def _bar(title: str, run: Run, **options: Any) -> pygal.HorizontalBar:
    return pygal.HorizontalBar(
        title=f"{title}\n({run.caption})",
        style=STYLE,
        js=[],  # no script from elsewhere: a static picture
        width=900,
        height=520,
        legend_at_bottom=True,
        legend_at_bottom_columns=3,
        print_values=True,
        print_zeroes=False,
        truncate_legend=-1,
        **options,
    )


def peers_chart(run: Run) -> pygal.HorizontalBar:
    """mcpkit's calls/s over each peer's, per call workload (log scale: 1x to 100x)."""
    chart = _bar(
        "mcpkit's calls/s over each SDK's (times as many; above 1 mcpkit is faster)",
        run,
        logarithmic=True,
        zero=1,  # bars grow from parity: right of it mcpkit is faster, left slower
        range=(0.5, 200),
        y_labels=[0.5, 1, 2, 5, 10, 20, 50, 100, 200],
        truncate_label=-1,
        value_formatter=lambda v: f"{v:.1f}x" if v < 10 else f"{v:.0f}x",
    )
    # pygal draws the first label at the bottom: reversed, the chart reads as the table does.
    rows = [w for w in reversed(CALL_ROWS) if run.value("mcpkit", w) is not None]
    chart.x_labels = [CALL_ROWS[w] for w in rows]
    for peer in PEERS:
        if peer in run.labels:
            chart.add(run.labels[peer], [run.ratio("mcpkit", peer, w) for w in rows])
    return chart


def floor_chart(run: Run) -> pygal.HorizontalBar:
    """Each mcpkit column's calls/s as a share of the raw asyncio loop's (1.0 = the floor)."""
    rows = [
        w for w in reversed(CALL_ROWS) if w.startswith(("stdio", "http")) and run.value("raw", w)
    ]
    impls = [i for i in MCPKIT_COLUMNS if i in run.labels]
    series = {i: [run.ratio(i, "raw", w) for w in rows] for i in impls}
    top = max([1.0, *(v for values in series.values() for v in values if v is not None)])
    step = 0.2 if top <= 1.6 else 0.5
    chart = _bar(
        "Share of the raw asyncio loop's calls/s (no framework: what Python itself costs)",
        run,
        range=(0, top * 1.05),
        y_labels=[round(k * step, 1) for k in range(int(top * 1.05 / step) + 1)],
        value_formatter=lambda v: f"{v:.2f}x",
    )
    chart.x_labels = [CALL_ROWS[w] for w in rows]
    for impl, values in series.items():
        chart.add(run.labels[impl], values)
    return chart


def memory_chart(run: Run) -> pygal.HorizontalBar:
    """Peak RSS of each server, MB (shorter is better)."""
    chart = _bar(
        "Peak RSS of the server process, MB (shorter is better)",
        run,
        value_formatter=lambda v: f"{v:.0f}",
    )
    impls = [i for i in reversed(["raw", "mcpkit", *PEERS]) if i in run.labels]
    chart.x_labels = [run.labels[i] for i in impls]
    for workload, label in MEMORY_ROWS.items():
        chart.add(label, [run.value(i, workload) for i in impls])
    return chart


CHARTS = {"peers.svg": peers_chart, "floor.svg": floor_chart, "memory.svg": memory_chart}


def render(run: Run) -> dict[str, bytes]:
    """Every chart of ``run`` as SVG bytes, by file name (the same bytes on every call)."""
    out: dict[str, bytes] = {}
    for name, make in CHARTS.items():
        svg = make(run).render()
        # pygal names each chart with a random UUID; a stable name keeps the files diffable.
        uuid = re.search(rb'id="chart-([0-9a-f-]{36})"', svg)
        if uuid:
            svg = svg.replace(uuid.group(1), f"perf-{name[:-4]}".encode())
        # ... and stamps the day it drew it: left out, the same results draw the same bytes
        # on any day.
        svg = re.sub(rb" on \d{4}-\d{2}-\d{2}-->", b"-->", svg, count=1)
        out[name] = svg
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("results", nargs="?", type=Path, default=PUBLISHED)
    p.add_argument("--out", type=Path, default=None, help="folder (default: the results')")
    args = p.parse_args(argv)
    if not args.results.exists():
        print(f"{args.results}: no such results file (bench/run.py writes them)", file=sys.stderr)
        return 2
    run = Run.load(args.results)
    out: Path = args.out or args.results.parent
    out.mkdir(parents=True, exist_ok=True)
    for name, svg in render(run).items():
        (out / name).write_bytes(svg)
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
