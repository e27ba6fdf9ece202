"""Helpers for the first-hour checks: real subprocesses, as a new user runs them."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def env_with(*paths: Path | str, **extra: str) -> dict[str, str]:
    """The environment with ``paths`` and the checkout's ``src`` first on PYTHONPATH."""
    env = dict(os.environ)
    parts = [str(p) for p in paths] + [str(ROOT / "src"), str(ROOT)]
    env["PYTHONPATH"] = os.pathsep.join([*parts, env.get("PYTHONPATH", "")])
    env.pop("COLUMNS", None)
    env.pop("PYTHONUNBUFFERED", None)  # stdout on a pipe is buffered, as clients start servers
    env.update(extra)
    return env


def modern(rid: int, method: str, params: dict[str, object] | None = None) -> dict[str, object]:
    """A 2026-07-28 request with its ``_meta`` envelope."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "first-hour", "version": "1"},
    }
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }
