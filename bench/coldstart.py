"""Cold start and footprint of a minimal mcpkit server process (one tool, nothing optional).

    python bench/coldstart.py [--runs N] [--smoke]

Rows: wall time of ``python -c`` importing mcpkit and building the server (median of N
fresh interpreters, and a bare ``python -c pass`` beside it), the import time ``-X
importtime`` reports for it (median of the top-level cumulative times), the mcpkit modules
and all modules it loads, its peak RSS, and spawn -> ``initialize`` result over stdio
(median), with the peak RSS of that server after 200 ``tools/call``. mcpkit runs from the
interpreter running this script. ``--smoke`` runs each once and checks the answers (CI).
Unset PYTHONDONTWRITEBYTECODE (or precompile) first: else every run compiles mcpkit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import orjson

SERVER = """
from mcpkit import Server

app = Server("coldstart", version="1")


@app.tool()
async def echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    return text
"""

REPORT = """
import sys
mods = list(sys.modules)
print(sum(1 for m in mods if m == "mcpkit" or m.startswith("mcpkit.")), len(mods))
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "coldstart", "version": "1"},
    },
}


def run_child(argv: list[str]) -> tuple[float, bytes, bytes]:
    """(wall ms, stdout, stderr) of one child process run to its end."""
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, timeout=120)
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode:
        raise RuntimeError(f"{argv[:3]} exited with {proc.returncode}: {proc.stderr[-2000:]!r}")
    return wall, proc.stdout, proc.stderr


def peak_rss_kb(argv: list[str]) -> int:
    """Peak RSS of ``argv`` (its own, not this process's other children)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise RuntimeError(f"{argv[:3]} failed ({status})")
    return usage.ru_maxrss


def import_time_ms(stderr: bytes) -> float:
    """Sum of the cumulative times of the top-level imports ``-X importtime`` printed for
    the script (the interpreter's own start-up imports, before ``site``, are left out)."""
    total = 0
    seen_site = False
    for line in stderr.decode().splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not line.startswith("import time:") or "self" in parts[0]:
            continue
        name = parts[2]
        if name.strip() == "site" and not name.startswith("  "):
            seen_site = True
            continue
        if seen_site and name.startswith(" ") and not name.startswith("  "):
            total += int(parts[1])
    return total / 1000


def time_to_initialize(server_argv: list[str], calls: int) -> tuple[float, int, dict[str, object]]:
    """(spawn -> initialize result ms, peak RSS kB after ``calls`` tools/call, the result)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        server_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(orjson.dumps(INITIALIZE) + b"\n")
    proc.stdin.flush()
    first = orjson.loads(proc.stdout.readline())
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    for i in range(1, calls + 1):
        call = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": f"t{i}"}},
        }
        proc.stdin.write(orjson.dumps(call) + b"\n")
        proc.stdin.flush()
        answer = orjson.loads(proc.stdout.readline())
        if answer.get("result", {}).get("content") != [{"type": "text", "text": f"t{i}"}]:
            raise RuntimeError(f"unexpected answer {answer}")
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise RuntimeError(f"server exited with status {status}")
    return elapsed, usage.ru_maxrss, first


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh interpreters per row")
    parser.add_argument("--smoke", action="store_true", help="one run of each; check answers")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    py = sys.executable
    construct = [py, "-c", SERVER + REPORT]
    serve = [py, "-c", SERVER + "\napp.run()\n"]

    bare_ms = median_of(runs, lambda: run_child([py, "-c", "pass"])[0])
    wall_ms = median_of(runs, lambda: run_child(construct)[0])
    importtime = [py, "-X", "importtime", *construct[1:]]
    import_ms = median_of(runs, lambda: import_time_ms(run_child(importtime)[2]))
    _, out, _ = run_child(construct)
    mcpkit_modules, all_modules = (int(x) for x in out.split())
    rss_kb = statistics.median(peak_rss_kb(construct) for _ in range(min(runs, 3)))
    init = [time_to_initialize(serve, 0 if i else 200) for i in range(runs)]
    init_ms = statistics.median(ms for ms, _, _ in init)
    served_rss_kb = init[0][1]
    result = init[0][2]["result"]
    if not isinstance(result, dict) or result.get("serverInfo") != {
        "name": "coldstart",
        "version": "1",
    }:
        raise SystemExit(f"bad initialize result: {init[0][2]}")
    if mcpkit_modules <= 0 or all_modules <= mcpkit_modules or import_ms <= 0:
        raise SystemExit("no measurement")

    rows = [
        ("python -c 'pass' (for scale)", f"{bare_ms:.1f}", "ms"),
        ("import mcpkit + Server + 1 tool, wall", f"{wall_ms:.1f}", "ms"),
        ("same, -X importtime top-level cumulative", f"{import_ms:.1f}", "ms"),
        ("mcpkit modules loaded / all modules", f"{mcpkit_modules} / {all_modules}", ""),
        ("peak RSS, imported + constructed", f"{rss_kb / 1024:.1f}", "MB"),
        ("spawn -> initialize result over stdio", f"{init_ms:.1f}", "ms"),
        ("peak RSS, stdio server after 200 tools/call", f"{served_rss_kb / 1024:.1f}", "MB"),
    ]
    print(f"## mcpkit cold start ({runs} run{'s' if runs > 1 else ''}; medians)\n")
    print("| measure | value | unit |\n|---|---|---|")
    for name, value, unit in rows:
        print(f"| {name} | {value} | {unit} |")


if __name__ == "__main__":
    main()
