"""The ``mcpkit`` command as a new user meets it: ``--json '{...}'`` as the arguments,
KEY=VALUE pairs anywhere among the options, usage errors that name the command's help, a hint
on every error a user can act on, and ``mcpkit run`` on a terminal saying what it does. Driven
as real subprocesses (stdio servers, pseudo-terminal)."""

from __future__ import annotations

import http.server
import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import ASK_SERVER, EVERYTHING, command, mcpkit

CONTENT_SERVER = Path(__file__).resolve().parent / "content_server.py"


def error_lines(stderr: str) -> list[str]:
    """The ``error:`` and ``hint:`` lines; fails on a traceback or any other line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 2, stderr
    assert lines[0].startswith("error: ") and lines[1].startswith("hint: "), stderr
    return lines


# -- arguments ----------------------------------------------------------------------------------


def test_json_object_after_json_gives_the_tool_arguments() -> None:
    done = mcpkit("call", str(EVERYTHING), "echo", "--json", '{"text": "hi there"}')
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi there"  # text output: --json took the object
    both = mcpkit("call", str(EVERYTHING), "echo", "--json", '{"text": "hi"}', "--json")
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)["content"] == [{"type": "text", "text": "hi"}]
    equals = mcpkit("call", str(EVERYTHING), "add", '--json={"a": 1, "b": 2}')
    assert json.loads(equals.stdout) == {"result": 3}


def test_key_value_pairs_after_options_still_count() -> None:
    after_option = mcpkit("call", str(EVERYTHING), "add", "--timeout", "5", "a=1", "b=2")
    assert after_option.returncode == 0, after_option.stderr
    assert json.loads(after_option.stdout) == {"result": 3}
    between = mcpkit("call", str(EVERYTHING), "add", "a=1", "--json", "b=2")
    assert between.returncode == 0, between.stderr
    assert json.loads(between.stdout)["structuredContent"] == {"result": 3}
    before_tool = mcpkit("call", str(EVERYTHING), "--json", "add", "a=1", "b=2")
    assert json.loads(before_tool.stdout)["structuredContent"] == {"result": 3}


def test_bad_json_arguments_name_the_option_and_hint_quoting() -> None:
    done = mcpkit("call", str(EVERYTHING), "add", "--args", '{"a": 1')
    assert done.returncode == 2
    lines = error_lines(done.stderr)
    assert lines[0].startswith("error: the JSON arguments are not valid JSON: ")
    assert lines[1] == "hint: quote them for the shell: --args-json '{\"a\": 1}'"


def test_prompt_json_arguments_are_sent_as_strings(tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    done = mcpkit(
        "prompt",
        command(ASK_SERVER),
        "greet",
        "--args",
        '{"name": "Ada", "times": 3}',
        WIRE_ERRORS=str(errors),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[user]", "hello Ada x3"]
    assert errors.read_text() == ""  # the server saw {"times": "3"}, valid on the wire


# -- usage errors -------------------------------------------------------------------------------


def test_only_the_tool_is_required_after_the_target() -> None:
    done = mcpkit("call", str(EVERYTHING))
    assert done.returncode == 2
    assert error_lines(done.stderr) == [
        "error: the following arguments are required: TOOL",
        "hint: see: mcpkit call --help",
    ]


@pytest.mark.parametrize(
    ("args", "extra", "where"),
    [
        (["inspect", str(EVERYTHING), "extra"], "extra", "mcpkit inspect"),
        (["read", str(EVERYTHING), "test://x", "more"], "more", "mcpkit read"),
        (["call", str(EVERYTHING), "add", "--timeout", "5", "stray"], "stray", "mcpkit call"),
    ],
)
def test_leftover_arguments_name_the_commands_help(args: list[str], extra: str, where: str) -> None:
    done = mcpkit(*args)
    assert done.returncode == 2
    assert error_lines(done.stderr) == [
        f"error: unrecognized arguments: {extra}",
        f"hint: see: {where} --help",
    ]


def test_unknown_protocol_version_is_a_usage_error() -> None:
    from mcpkit.versions import SUPPORTED_VERSIONS

    done = mcpkit("inspect", str(EVERYTHING), "--protocol-version", "1999-01-01")
    assert done.returncode == 2
    assert error_lines(done.stderr) == [
        "error: unknown protocol version '1999-01-01'",
        f"hint: mcpkit speaks {', '.join(SUPPORTED_VERSIONS)}",
    ]


# -- server and config errors -------------------------------------------------------------------


def test_a_protocol_error_from_tools_call_exits_1_with_a_hint() -> None:
    # before 2025-11-25 invalid tool arguments are a JSON-RPC error, not an isError result
    done = mcpkit(
        "call",
        command(EVERYTHING),
        "forecast",
        "city=Oslo",
        "days=99",
        "--protocol-version",
        "2025-06-18",
    )
    assert done.returncode == 1
    assert done.stdout == ""
    lines = error_lines(done.stderr)
    assert lines[0].startswith("error: server error -32602: Invalid arguments for tool 'forecast'")
    assert "mcpkit inspect TARGET" in lines[1]


def test_an_unknown_resource_hints_at_inspect() -> None:
    done = mcpkit("read", command(EVERYTHING), "test://nope")
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        "error: server error -32602: Resource not found: test://nope",  # 2026-07-28's code
        "hint: mcpkit inspect TARGET lists the resources and templates",
    ]


def test_config_errors_have_hints(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{bad")
    done = mcpkit("inspect", "x", "--config", str(bad))
    assert done.returncode == 1
    assert error_lines(done.stderr)[0].startswith(f"error: bad config file {bad}: ")
    missing = mcpkit("inspect", "x", "--config", str(tmp_path / "none.json"))
    assert error_lines(missing.stderr)[0] == f"error: config file not found: {tmp_path}/none.json"
    folder = mcpkit("inspect", "x", "--config", str(tmp_path))
    assert folder.returncode == 1
    assert folder.stderr.startswith(f"error: cannot read config file {tmp_path}: ")
    assert "Traceback" not in folder.stderr


# -- mcpkit run on a terminal -------------------------------------------------------------------


def test_run_over_stdio_on_a_terminal_says_what_it_does(pty_command: Any) -> None:
    cli = pty_command("run", str(EVERYTHING))
    cli.expect(r"mcpkit: serving everything 1\.0\.0 over stdio: an MCP client starts this command")
    cli.expect(r"Ctrl-C stops")
    cli.proc.terminate()
    _, out = cli.finish()
    assert out == ""  # stdout is the protocol channel: nothing but JSON-RPC goes there


def test_run_over_stdio_for_a_client_prints_nothing_extra() -> None:
    target = f"{sys.executable} -m mcpkit run {EVERYTHING}"
    done = mcpkit("inspect", target, "--json", "--debug")
    assert done.returncode == 0, done.stderr
    assert "over stdio" not in done.stderr  # stdin is a pipe: no note for people


# -- content blocks -----------------------------------------------------------------------------


def test_structured_content_that_says_more_than_the_text_is_printed_as_json() -> None:
    done = mcpkit("call", str(CONTENT_SERVER), "summary")
    assert done.returncode == 0, done.stderr
    text, rest = done.stdout.split("[structured content]\n")
    assert text == "2 items\n"
    assert json.loads(rest) == {"items": ["a", "b"]}


def test_every_content_block_kind_is_printed_or_saved(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = mcpkit("call", command(CONTENT_SERVER), "every_block", "--save-dir", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "hello",
        f"[audio audio/wav, 44 bytes] saved to {out / 'every_block-2.wav'}",
        "[resource link] file:///tmp/report.pdf (report, application/pdf)",
        "[resource] note://1 (text/plain)",
        "a note",
        f"[resource] blob://1 (application/octet-stream), 3 bytes saved to "
        f"{out / 'every_block-5.bin'}",
        "[image image/png: invalid base64 data]",
    ]
    assert (out / "every_block-2.wav").read_bytes().startswith(b"RIFF")
    assert (out / "every_block-5.bin").read_bytes() == b"\x00\x01\x02"


# -- HTTP failures ------------------------------------------------------------------------------


class _Refuse(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer realm="mcp"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def refusing_url() -> Iterator[str]:
    """A URL whose server answers every POST with 401 Unauthorized."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    httpd.shutdown()
    httpd.server_close()


def test_http_401_hints_at_an_authorization_header(refusing_url: str) -> None:
    done = mcpkit("inspect", refusing_url)
    assert done.returncode == 1
    lines = error_lines(done.stderr)
    assert lines[0].startswith("error: connection failed: HTTP 401")
    assert lines[1] == "hint: the server wants credentials: add -H 'Authorization: Bearer TOKEN'"


def test_http_404_hints_at_the_path(served: Any) -> None:
    server = served(str(EVERYTHING), "--port", "0")
    done = mcpkit("inspect", server.url.replace("/mcp", "/wrong"))
    assert done.returncode == 1
    lines = error_lines(done.stderr)
    assert lines[0].startswith("error: connection failed: HTTP 404 Not Found")
    assert lines[1] == "hint: check the URL's path (mcpkit run serves at /mcp)"


def test_run_on_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = mcpkit("run", str(EVERYTHING), "--transport", "http", "--port", str(port))
    assert done.returncode == 1
    assert error_lines(done.stderr) == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use",
        "hint: another server uses that port: choose another --port (0 picks a free one)",
    ]


def test_demo_of_another_kind_of_server_says_what_it_lacks() -> None:
    done = mcpkit("demo", "--server", str(CONTENT_SERVER))
    assert done.returncode == 1
    lines = error_lines(done.stderr)
    assert lines[0].startswith(
        "error: the demo cannot walk through this server: it lacks tools add, forecast,"
    )
    assert "prompts review" in lines[0]
    assert "examples/server_everything.py" in lines[1]
    assert "-> tools/call" not in done.stdout  # checked before anything is called
