"""What a new user meets first: a file target's prints kept off stdout, no temporary folders
left behind, quiet logs on request, JSON output kept apart from JSON arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.conftest import EVERYTHING, cli_env, mcpkit

PRINTING = Path(__file__).resolve().parent / "printing_server.py"


def test_an_in_memory_servers_prints_go_to_stderr_not_into_the_json() -> None:
    in_memory = f"{PRINTING}:app"  # file.py:object: loaded into the mcpkit process
    for tool in ("shout", "shout_async"):
        done = mcpkit("call", in_memory, tool, "text=hi", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "HI"}]
        assert "printed while importing" in done.stderr
        assert "printed by the" in done.stderr and ": hi" in done.stderr
    listed = mcpkit("inspect", in_memory, "--json")
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["shout", "shout_async"]
    text = mcpkit("call", in_memory, "shout", "text=hi")
    assert text.stdout == "HI\n"
    plain_file = mcpkit("call", str(PRINTING), "shout", "text=hi", "--json")
    assert plain_file.returncode == 0, plain_file.stderr
    assert json.loads(plain_file.stdout)["content"] == [{"type": "text", "text": "HI"}]


def test_no_temporary_folders_are_left_behind(tmp_path: Path) -> None:
    temp = tmp_path / "temp"  # the system temporary folder of these runs
    temp.mkdir()
    env = {"TMPDIR": str(temp)}
    pixel = mcpkit("call", str(EVERYTHING), "pixel", **env)
    assert pixel.returncode == 0, pixel.stderr
    assert pixel.stdout.strip() == "[image image/png, 70 bytes] not saved (--save-dir DIR saves it)"
    blob = mcpkit("read", str(EVERYTHING), "test://static-binary", **env)
    assert blob.returncode == 0, blob.stderr
    assert "bytes not saved (--save-dir DIR saves it)" in blob.stdout
    image = mcpkit("prompt", str(EVERYTHING), "describe_image", **env)
    assert image.returncode == 0, image.stderr
    assert "not saved (--save-dir DIR saves it)" in image.stdout
    demo = mcpkit("demo", cwd=tmp_path, **env)
    assert demo.returncode == 0, demo.stderr
    assert "<- image image/png (70 bytes) not saved" in demo.stdout
    assert "(SQLite event store in " + str(temp) in demo.stdout  # it was used, then removed
    assert list(temp.iterdir()) == []
    assert list(tmp_path.iterdir()) == [temp]  # nothing written in the working folder either


def test_log_level_and_quiet_choose_what_the_server_logs_show() -> None:
    loud = mcpkit("call", str(EVERYTHING), "forecast", "city=Oslo", "days=2")
    assert loud.returncode == 0, loud.stderr
    assert "[info] forecasting Oslo" in loud.stderr
    assert "progress 2/2" in loud.stderr
    warning = mcpkit("call", str(EVERYTHING), "forecast", "city=Oslo", "--log-level", "warning")
    assert warning.returncode == 0, warning.stderr
    assert "forecasting Oslo" not in warning.stderr
    assert "progress 3/3" in warning.stderr  # progress is not a log message
    assert json.loads(warning.stdout)["city"] == "Oslo"
    quiet = mcpkit("call", str(EVERYTHING), "forecast", "city=Oslo", "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    assert json.loads(quiet.stdout)["city"] == "Oslo"
    bad = mcpkit("call", str(EVERYTHING), "forecast", "city=Oslo", "--log-level", "loud")
    assert bad.returncode == 2
    assert "invalid choice: 'loud'" in bad.stderr


def test_log_level_filters_on_the_client_too() -> None:
    from types import SimpleNamespace

    from mcpkit.cli.render import Output

    shown: list[str] = []
    output = Output(log_level="warning")
    output.err.print = lambda text, **kw: shown.append(str(text))  # type: ignore[method-assign]
    for level in ("debug", "info", "warning", "error"):
        output.log(SimpleNamespace(level=level, logger=None, data=f"a {level} line"))
    assert [line.rsplit(" ", 2)[-2] for line in shown] == ["warning", "error"]


def _initialize_status(url: str, **headers: str) -> int:
    import httpx

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    response = httpx.post(url, json=body, headers={**accept, **headers}, timeout=10)
    return response.status_code


def test_run_allowed_host_and_origin_options(served: Any) -> None:
    plain = served(str(EVERYTHING), "--port", "0")
    assert _initialize_status(plain.url) == 200
    assert _initialize_status(plain.url, Host="mcp.example.com") == 403  # loopback bind
    assert _initialize_status(plain.url, Origin="https://app.example.com") == 403

    named = served(
        str(EVERYTHING),
        "--port",
        "0",
        "--allowed-host",
        "mcp.example.com",
        "--allowed-host",
        "other.example.com:*",
        "--allowed-origin",
        "https://app.example.com",
    )
    assert _initialize_status(named.url) == 200  # loopback names stay allowed
    assert _initialize_status(named.url, Host="mcp.example.com") == 200
    assert _initialize_status(named.url, Host="other.example.com:8443") == 200
    assert _initialize_status(named.url, Host="evil.example.com") == 403
    assert _initialize_status(named.url, Origin="https://app.example.com") == 200
    assert _initialize_status(named.url, Origin="https://evil.example.com") == 403


def test_reload_passes_the_allowed_hosts_and_origins_on() -> None:
    from mcpkit.cli.app import build_parser
    from mcpkit.cli.run import _child_argv

    args = build_parser().parse_args(
        ["run", "s.py", "-t", "http", "--allowed-host", "a.example", "--allowed-origin", "*"]
    )
    argv = _child_argv(args)
    assert argv[argv.index("--allowed-host") + 1] == "a.example"
    assert argv[argv.index("--allowed-origin") + 1] == "*"


def test_json_output_and_json_arguments_are_two_options() -> None:
    both = mcpkit("call", str(EVERYTHING), "add", "--args-json", '{"a": 1, "b": 2}', "--json")
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)["structuredContent"] == {"result": 3}
    assert both.stderr == ""
    short = mcpkit("call", str(EVERYTHING), "add", "-a", '{"a": 1, "b": 2}')
    assert json.loads(short.stdout) == {"result": 3}
    old = mcpkit("call", str(EVERYTHING), "add", "--json", '{"a": 1, "b": 2}')
    assert old.returncode == 0, old.stderr
    assert json.loads(old.stdout) == {"result": 3}  # text output: the object was the arguments
    assert old.stderr.splitlines() == [
        "mcpkit: --json '{...}' for the arguments is deprecated: write --args-json '{...}' "
        "(--json alone asks for JSON output)"
    ]
    prompt = mcpkit("prompt", str(EVERYTHING), "review", "--args-json", '{"code": "x"}', "--json")
    assert prompt.returncode == 0, prompt.stderr
    assert "x" in json.loads(prompt.stdout)["messages"][0]["content"]["text"]


DECLINE = Path(__file__).resolve().parent / "decline_server.py"


def test_a_declined_request_exits_0_unless_the_result_is_an_error() -> None:
    elicitation = mcpkit("call", str(EVERYTHING), "ask_user", "--no-input")
    assert (elicitation.returncode, elicitation.stdout) == (0, "user chose decline\n")
    sampling = mcpkit("call", str(EVERYTHING), "ask_llm", "question=hi", "--no-input")
    assert (sampling.returncode, sampling.stdout) == (0, "")
    assert sampling.stderr.splitlines() == [
        "sampling request refused (--no-input)",
        "the server gave up after the sampling request was declined: "
        "The user declined the sampling request (--no-input)",
    ]
    # the server sees the decline as an error answer to its request: the handshake era's
    tool_error = mcpkit("call", str(DECLINE), "ask_or_fail", "--no-input", "--era", "legacy")
    assert tool_error.returncode == 3, tool_error.stderr
    assert "cannot go on without an answer" in tool_error.stdout
    not_declined = mcpkit("call", str(DECLINE), "minus_one", "--no-input", "--era", "legacy")
    assert not_declined.returncode == 1
    assert not_declined.stderr.startswith("error: server error -1: not a decline")


def test_piped_inspect_has_no_padding_and_the_terminals_width() -> None:
    piped = mcpkit("inspect", str(EVERYTHING))  # stdout, stderr and stdin all pipes
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    assert "tools (13)" in lines
    assert [line for line in lines if line != line.rstrip()] == []
    assert max(len(line) for line in lines) > 100  # no terminal: 120 columns, not 80

    import fcntl
    import struct
    import termios

    master, slave = os.openpty()  # stdout piped, stderr on a 90-column terminal
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 90, 0, 0))
        proc = subprocess.run(
            [sys.executable, "-m", "mcpkit", "inspect", str(EVERYTHING)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=cli_env(),
            timeout=60,
            text=True,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert "tools (13)" in lines
    assert max(len(line) for line in lines) <= 90
    assert [line for line in lines if line != line.rstrip()] == []


def test_server_text_keeps_its_trailing_spaces_when_piped() -> None:
    done = mcpkit("call", str(EVERYTHING), "echo", "text=hi  ")
    assert done.stdout == "hi  \n"
