"""The official Python client and the TypeScript SDK v2 client through nginx in front of 3
replicas on Redis, in both eras: every call lands on another replica than the one before,
and sampling, elicitation and roots (2025 requests, 2026 input_required rounds) still work."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from tests.interop.conftest import PEER_SCRIPTS, NodePeer, PythonPeer, py_peer, ts_peer
from tests.scaleout.conftest import Deployment

__all__ = ["py_peer", "ts_peer"]

ERAS = ["legacy", "2026-07-28"]
CALLS = [
    *(("replica", {}) for _ in range(6)),
    ("echo", {"text": "hello"}),
    ("sample", {"prompt": "hi"}),
    ("ask", {"question": "ok?"}),
    ("roots", {}),
]


def call_args() -> list[str]:
    out: list[str] = []
    for name, arguments in CALLS:
        out += ["--call", name, json.dumps(arguments)]
    return out


def texts(report: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for call in report["calls"]:
        assert "error" not in call, call
        result = call["result"]
        structured = result.get("structuredContent")
        out.append(structured["id"] if call["name"] == "replica" else result["content"][0]["text"])
    return out


def check(report: dict[str, Any], era: str, sampled: str, root: str) -> None:
    expected = "2026-07-28" if era != "legacy" else "2025-11-25"
    assert report["protocolVersion"] == expected
    got = texts(report)
    seen = got[:6]
    assert set(seen) == {"r1", "r2", "r3"}, seen
    assert all(a != b for a, b in itertools.pairwise(seen)), seen
    echo, sample, ask, roots = got[6:]
    assert echo == "hello"
    assert sample.endswith(f"sampled: {sampled}"), sample
    assert " got: accept " in ask, ask
    assert roots.endswith(f"roots: {root}"), roots


@pytest.mark.parametrize("era", ERAS)
def test_official_python_client(live: Deployment, py_peer: PythonPeer, era: str) -> None:
    args = ["--mode", era, "--url", live.url, *call_args(), "--elicit-content", '{"v": "py"}']
    if era != "legacy":
        args += ["--listen-tools", "changed", "{}"]
    run = py_peer.run(PEER_SCRIPTS / "py_client.py", *args, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    check(report, era, "sampled by the official client", "file:///interop/root")
    if era != "legacy":
        assert report["listen"], report["listen"]  # a change made on another replica


@pytest.mark.parametrize("era", ERAS)
def test_typescript_client(live: Deployment, ts_peer: NodePeer, era: str) -> None:
    run = ts_peer.run(
        PEER_SCRIPTS / "ts_client.mjs", "--mode", era, "--url", live.url, *call_args(), timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])  # the SDK may warn first
    check(report, era, "sampled by the TypeScript client", "file:///interop/ts-root")
