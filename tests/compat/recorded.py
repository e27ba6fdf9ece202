"""A client script run on mcp 2.x and unchanged on mcpkit, each against its own server on
mcp 2.x that writes a JSON line per request it receives: what the tests then compare.

The same run serves the variants the comparison tests need: a client of another peer, one
with no server to reach (in memory, or a stdio server it starts), several servers (workers
of one deployment), and the server (or both scripts) being what runs unchanged on mcpkit."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from tests.compat.driving import warmed
from tests.compat.test_compat import free_port, serve
from tests.compat.test_unchanged import peer


def run_both(
    tmp_path: Path,
    server_src: str | None,
    client_src: str,
    mode: str,
    *,
    args: Sequence[str] = (),
    client_peer: str = "mcp2",
    servers: Sequence[Sequence[str]] = ((),),
    on_mcpkit: Literal["client", "server", "both"] = "client",
) -> dict[str, tuple[str, list[Any]]]:
    """``{"theirs" | "ours": (what the client printed, what the servers recorded)}``; the
    client must exit 0 on each side.

    Each side starts ``server_src`` (on mcp 2.x) once per item of ``servers``, run as
    ``SERVER LOG *item PORT``: every one appends to the side's one ``LOG``. The client
    (on the peer ``client_peer``) is then run as ``CLIENT *URLS mode *args``, a URL per
    server; with ``server_src`` None no server is started and it gets ``mode *args``.
    ``on_mcpkit`` names what runs unchanged on mcpkit (``python -m mcpkit.compat``) on
    the "ours" side, the rest running on its peer as on the "theirs" side."""
    server = tmp_path / "server.py"
    if server_src is not None:
        server.write_text(server_src)
    client = tmp_path / "client.py"
    client.write_text(client_src)
    mcpkit = [sys.executable, "-m", "mcpkit.compat"]
    seen = {}
    for side in ("theirs", "ours"):
        ours = side == "ours"
        client_python = mcpkit if ours and on_mcpkit != "server" else [str(peer(client_peer))]
        server_python = mcpkit if ours and on_mcpkit != "client" else [str(peer("mcp2"))]
        log = tmp_path / f"{side}.jsonl"
        log.write_text("")
        procs, urls = [], []
        try:
            for extra in servers if server_src is not None else ():
                port = free_port()
                procs.append(serve([*server_python, str(server), str(log), *extra], port))
                urls.append(f"http://127.0.0.1:{port}/mcp")
            done = subprocess.run(
                warmed([*client_python, str(client), *urls, mode, *args]),
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=10)
        assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
        seen[side] = done.stdout, [json.loads(line) for line in log.read_text().splitlines()]
    return seen
