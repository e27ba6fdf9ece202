"""The official clients drive mcpkit's example server (tests/interop/mcpkit_server.py: the
server of examples/server_everything.py plus a tool that changes the tool list), both eras,
over stdio and over Streamable HTTP on 127.0.0.1: every tool (on 2026-07-28 sampling,
elicitation and roots travel as multi round-trip ``input_required`` results), resources,
templates, prompts, completion, and a ``subscriptions/listen`` that sees a list change.
Every conversation is recorded and checked against the official schema of its revision."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, server_env
from tests.interop.conftest import PEER_SCRIPTS, NodePeer, PythonPeer, check_recorded

SERVER = Path(__file__).resolve().parent / "mcpkit_server.py"
TEE = PEER_SCRIPTS / "tee.py"
SAMPLED = "Paris, said the official client"
CONTACT = {"name": "Ann", "color": "blue"}

# Every tool of the example server, with arguments, and what its result must say.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("echo", {"text": "héllo"}),
    ("add", {"a": 2, "b": 40}),
    ("forecast", {"city": "Oslo", "days": 2}),
    ("pixel", {}),
    ("fail", {}),
    ("ask_llm", {"question": "Capital of France?"}),
    ("ask_user", {}),
    ("roots", {}),
    ("connect", {}),
    ("files", {}),
    ("touch", {"uri": "test://static-text"}),
    ("answers", {}),
    ("long_job", {"steps": 2}),
]


def client_args(modern: bool) -> list[str]:
    args = ["--sampling-text", SAMPLED, "--elicit-content", json.dumps(CONTACT)]
    for name, arguments in CALLS:
        args += ["--call", name, json.dumps(arguments)]
    args += ["--read", "test://static-text", "--read", "weather://Oslo/current"]
    args += ["--get", "review", json.dumps({"code": "x = 1"}), "--get", "describe_image", "{}"]
    args += ["--complete", "template", "weather://{city}/current", "city", "O"]
    args += ["--complete", "prompt", "review", "language", "p"]
    if modern:
        args += ["--listen-tools", "add_extra_tool", "{}"]
    return args


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def check_report(report: dict[str, Any], modern: bool) -> None:
    assert report["protocolVersion"] == ("2026-07-28" if modern else "2025-11-25")
    assert report["tools"][:3] == ["forecast", "add", "echo"]
    assert {"ask_llm", "ask_user", "roots", "add_extra_tool"} <= set(report["tools"])
    assert report["prompts"] == ["review", "describe_image"]
    assert report["resources"] == ["test://static-text", "test://static-binary"]
    assert report["templates"] == ["weather://{city}/current"]

    calls = {call["name"]: call for call in report["calls"]}
    assert list(calls) == [name for name, _ in CALLS]
    assert text_of(calls["echo"]["result"]) == "héllo"
    assert calls["add"]["result"]["structuredContent"] == {"result": 42}
    assert calls["forecast"]["result"]["structuredContent"] == {
        "city": "Oslo",
        "days": 2,
        "summary": "sunny",
    }
    assert calls["pixel"]["result"]["content"][0]["type"] == "image"
    assert calls["fail"]["result"]["isError"] is True
    assert "this tool always fails" in text_of(calls["fail"]["result"])
    # sampling, elicitation and roots: answered by the official client's callbacks
    assert text_of(calls["ask_llm"]["result"]) == SAMPLED
    assert text_of(calls["ask_user"]["result"]) == "hello Ann (blue)"
    assert "file:///interop/root" in text_of(calls["roots"]["result"])
    # the official client declares URL elicitation too: connect's URL request is accepted
    assert text_of(calls["connect"]["result"]) == "user chose accept"
    answered = report["answered"]
    assert [a["kind"] for a in answered] == ["sampling", "elicitation", "roots", "elicitation"]
    assert answered[3]["params"]["mode"] == "url"
    assert answered[3]["params"]["url"] == "https://example.com/connect"
    assert calls["files"]["result"]["content"][0]["type"] == "resource_link"
    assert text_of(calls["touch"]["result"]) == "notified subscribers of test://static-text"
    assert calls["answers"]["result"]["structuredContent"] == {"result": 42}
    assert text_of(calls["long_job"]["result"]) == "done after 2 steps"

    reads = [r["result"]["contents"][0] for r in report["reads"]]
    assert reads[0]["text"] == "This is the content of the static text resource."
    assert json.loads(reads[1]["text"]) == {"city": "Oslo", "sky": "clear"}
    review, image = (g["result"]["messages"] for g in report["gets"])
    assert "x = 1" in review[0]["content"]["text"]
    assert image[0]["content"]["type"] == "image"
    assert [c["result"]["completion"]["values"] for c in report["completions"]] == [
        ["Oslo", "Osaka", "Ottawa"],
        ["python"],
    ]
    if modern:
        listen = report["listen"]
        assert listen["honored"] == {"toolsListChanged": True}
        assert text_of(listen["call"]) == "added the tool 'extra'"
        assert listen["events"] == ["ToolsListChanged"]
    else:
        assert "listen" not in report


def check_wire(log: Path, modern: bool) -> None:
    checker = check_recorded(log)
    assert not checker.errors, checker.errors
    requests = [m for m in checker.received() if "method" in m and "id" in m]
    assert requests
    if modern:
        assert not checker.received("initialize")
        assert all(
            m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
            for m in requests
        )
        # no request ever went from server to client: input travelled in input_required
        assert not [m for _, m in checker.messages if _ == "send" and "method" in m and "id" in m]
    else:
        assert checker.received("initialize")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The mcpkit server on 127.0.0.1 in its own process, recording to a log: (url, log)."""
    port, log = free_port(), tmp_path / "wire.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port), str(log)],
        env=server_env(),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the mcpkit server did not start"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_official_python_client_drives_mcpkit_over_stdio(
    py_peer: PythonPeer, tmp_path: Path, mode: str
) -> None:
    log = tmp_path / "wire.jsonl"
    modern = mode != "legacy"
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        mode,
        *client_args(modern),
        "--",
        sys.executable,
        TEE,
        log,
        "--",
        sys.executable,
        SERVER,
        env=server_env(),
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    check_report(json.loads(run.stdout), modern)
    check_wire(log, modern)


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_official_python_client_drives_mcpkit_over_http(
    py_peer: PythonPeer, http_server: tuple[str, Path], mode: str
) -> None:
    url, log = http_server
    modern = mode != "legacy"
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        mode,
        *client_args(modern),
        "--url",
        url,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    check_report(json.loads(run.stdout), modern)
    check_wire(log, modern)


TS_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("echo", {"text": "héllo"}),
    ("ask_llm", {"question": "Capital of France?"}),
    ("ask_user", {}),
    ("roots", {}),
    ("fail", {}),
]


def ts_args() -> list[str]:
    args = ["--mode", "2026-07-28"]
    for name, arguments in TS_CALLS:
        args += ["--call", name, json.dumps(arguments)]
    return [*args, "--read", "weather://Oslo/current", "--get", "describe_image", "{}"]


def check_ts_report(report: dict[str, Any]) -> None:
    assert report["protocolVersion"] == "2026-07-28"
    assert {"ask_llm", "ask_user", "roots"} <= set(report["tools"])
    calls = {call["name"]: call["result"] for call in report["calls"]}
    assert text_of(calls["echo"]) == "héllo"
    assert text_of(calls["ask_llm"]) == "sampled by the TypeScript client"
    assert text_of(calls["ask_user"]) == "hello Tess (green)"
    assert "file:///interop/ts-root" in text_of(calls["roots"])
    assert calls["fail"]["isError"] is True
    assert [a["kind"] for a in report["answered"]] == ["sampling", "elicitation", "roots"]
    (read,) = report["reads"]
    assert json.loads(read["result"]["contents"][0]["text"]) == {"city": "Oslo", "sky": "clear"}
    (got,) = report["gets"]
    assert got["result"]["messages"][0]["content"]["type"] == "image"


def test_typescript_client_2026_drives_mcpkit_over_stdio(ts_peer: NodePeer, tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    env = {**ts_peer.env(), **{"PYTHONPATH": server_env()["PYTHONPATH"]}}
    run = ts_peer.run(
        PEER_SCRIPTS / "ts_client.mjs",
        *ts_args(),
        "--",
        sys.executable,
        TEE,
        log,
        "--",
        sys.executable,
        SERVER,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    check_ts_report(json.loads(run.stdout))
    check_wire(log, modern=True)


def test_typescript_client_2026_drives_mcpkit_over_http(
    ts_peer: NodePeer, http_server: tuple[str, Path]
) -> None:
    url, log = http_server
    run = ts_peer.run(PEER_SCRIPTS / "ts_client.mjs", *ts_args(), "--url", url, timeout=120)
    assert run.returncode == 0, run.stderr
    check_ts_report(json.loads(run.stdout))
    check_wire(log, modern=True)
