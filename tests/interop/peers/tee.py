"""A transparent stdio relay that records every JSON-RPC line in both directions.

    python tests/interop/peers/tee.py LOG_FILE -- COMMAND [ARG ...]

Starts COMMAND, copies this process's stdin to its stdin and its stdout to this process's
stdout, line by line, and appends each line to LOG_FILE as ``{"dir": "c2s"|"s2c", "msg": ...}``
(``msg`` is the parsed JSON, or the raw text under ``"raw"`` when a line is no JSON). Put it
between a client and a stdio server to check their traffic, e.g. with
:class:`tests.wire.WireChecker`. Standard library only, so it runs under any Python.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO


def _pump(
    src: IO[bytes], dst: IO[bytes], direction: str, log: IO[str], lock: threading.Lock
) -> None:
    for line in iter(src.readline, b""):
        # Logged before it is forwarded: the answer to a request must never be logged first.
        text = line.decode("utf-8", "replace").strip()
        if text:
            try:
                entry = {"dir": direction, "msg": json.loads(text)}
            except ValueError:
                entry = {"dir": direction, "raw": text}
            with lock:
                log.write(json.dumps(entry) + "\n")
                log.flush()
        dst.write(line)
        dst.flush()
    if direction == "c2s":
        dst.close()


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    log_path, command = argv[0], argv[2:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    lock = threading.Lock()
    with open(log_path, "a", encoding="utf-8") as log:
        up = threading.Thread(
            target=_pump, args=(sys.stdin.buffer, child.stdin, "c2s", log, lock), daemon=True
        )
        up.start()
        _pump(child.stdout, sys.stdout.buffer, "s2c", log, lock)
        return child.wait()


if __name__ == "__main__":
    sys.exit(main())
