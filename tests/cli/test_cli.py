"""The ``mcpkit`` command, driven as a real subprocess against example servers over stdio
(command lines), in memory (``file.py[:object]``) and Streamable HTTP (``mcpkit run``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import ASK_SERVER, EVERYTHING, ROOT, command, mcpkit

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
COMMANDS = ("run", "inspect", "call", "read", "prompt", "demo")


def one_line_error(stderr: str) -> None:
    """An error is one ``error:`` line plus at most a ``hint:`` line, and no traceback."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr
    assert lines and lines[0].startswith("error: "), stderr
    assert len(lines) <= 2 and all(line.startswith("hint: ") for line in lines[1:]), stderr


# -- help ---------------------------------------------------------------------------------------


def test_help_lists_every_command_with_examples() -> None:
    done = mcpkit("--help")
    assert done.returncode == 0
    for name in COMMANDS:
        assert f"    {name} " in done.stdout
    assert "examples:" in done.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_with_examples(name: str) -> None:
    done = mcpkit(name, "--help")
    assert done.returncode == 0, done.stderr
    assert f"usage: mcpkit {name}" in done.stdout
    assert "examples:" in done.stdout and f"mcpkit {name}" in done.stdout.split("examples:")[1]


def test_no_command_prints_help_and_fails() -> None:
    done = mcpkit()
    assert done.returncode == 2
    assert "usage: mcpkit" in done.stdout


def test_version() -> None:
    from mcpkit import __version__

    done = mcpkit("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"mcpkit {__version__}"


# -- inspect ------------------------------------------------------------------------------------


def test_inspect_json_over_stdio_command_line() -> None:
    done = mcpkit("inspect", command(EVERYTHING), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["serverInfo"]["name"] == "everything"
    assert info["protocolVersion"] == "2026-07-28"  # --era auto: the server speaks it
    assert set(info["capabilities"]) >= {"tools", "resources", "prompts", "logging"}
    assert info["instructions"].startswith("A demo server")
    tools = {t["name"]: t for t in info["tools"]}
    assert {"forecast", "add", "echo", "pixel", "fail", "ask_llm", "ask_user"} <= set(tools)
    assert tools["add"]["inputSchema"]["properties"]["a"]["type"] == "integer"
    assert [r["uri"] for r in info["resources"]] == ["test://static-text", "test://static-binary"]
    assert [t["uriTemplate"] for t in info["resourceTemplates"]] == ["weather://{city}/current"]
    assert [p["name"] for p in info["prompts"]] == ["review", "describe_image"]


def test_inspect_tables_for_a_file_target() -> None:
    done = mcpkit("inspect", str(EVERYTHING))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("everything 1.0.0 — Everything")
    assert "protocol      2026-07-28" in out
    assert "tools (listChanged)" in out
    assert "A demo server: tools, resources, prompts, completion, logging." in out
    # compact input schemas, annotations and output schemas
    assert "city: string, days?: integer = 3" in out
    assert "read-only, closed-world," in out
    for heading in ("tools (", "resources (2)", "resource templates (1)", "prompts (2)"):
        assert heading in out
    assert "weather://{city}/current" in out
    assert "code, language?" in out


def test_inspect_file_with_object_and_module_targets() -> None:
    by_file = mcpkit("inspect", f"{EVERYTHING}:app", "--json")
    assert by_file.returncode == 0, by_file.stderr
    by_module = mcpkit(
        "inspect",
        "server_everything:app",
        "--json",
        PYTHONPATH=f"{ROOT / 'src'}:{ROOT / 'examples'}",
    )
    assert by_module.returncode == 0, by_module.stderr
    assert json.loads(by_file.stdout)["tools"] == json.loads(by_module.stdout)["tools"]


def test_inspect_a_server_from_an_mcpservers_config(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {"mcpServers": {"everything": {"command": sys.executable, "args": [str(EVERYTHING)]}}}
        )
    )
    done = mcpkit("inspect", "everything", "--config", str(config), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["serverInfo"]["name"] == "everything"

    missing = mcpkit("inspect", "nope", "--config", str(config))
    assert missing.returncode == 1
    one_line_error(missing.stderr)
    assert "No server named 'nope' in the config (known: everything)" in missing.stderr


# -- call ---------------------------------------------------------------------------------------


def test_call_types_arguments_from_the_input_schema() -> None:
    done = mcpkit("call", str(EVERYTHING), "add", "a=2", "b=40")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"result": 42}


def test_call_with_json_arguments_and_json_output() -> None:
    done = mcpkit("call", command(EVERYTHING), "echo", "--args", '{"text": "hi there"}', "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "hi there"}]


def test_call_raw_json_value_with_colon_equals() -> None:
    done = mcpkit("call", str(EVERYTHING), "echo", 'text:="quoted"')
    assert done.returncode == 0, done.stderr
    assert "quoted" in done.stdout


def test_call_shows_progress_and_logs_and_structured_output() -> None:
    done = mcpkit("call", command(EVERYTHING), "forecast", "city=Oslo", "days=3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"city": "Oslo", "days": 3, "summary": "sunny"}
    err = done.stderr.splitlines()
    assert "[info] forecasting Oslo" in err
    assert [line for line in err if line.startswith("progress")] == [
        "progress 1/3: day 1",
        "progress 2/3: day 2",
        "progress 3/3: day 3",
    ]


def test_call_saves_images_to_files(tmp_path: Path) -> None:
    done = mcpkit("call", str(EVERYTHING), "pixel", "--save-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "out" / "pixel.png"
    assert done.stdout.strip() == f"[image image/png, 70 bytes] saved to {saved}"
    assert saved.read_bytes().startswith(PNG_MAGIC)
    again = mcpkit("call", str(EVERYTHING), "pixel", "--save-dir", str(tmp_path / "out"))
    assert (tmp_path / "out" / "pixel-2.png").is_file(), again.stdout  # never overwritten


def test_call_tool_error_exits_3() -> None:
    done = mcpkit("call", command(EVERYTHING), "fail")
    assert done.returncode == 3
    assert "this tool always fails" in done.stdout
    assert "the tool 'fail' reported an error" in done.stderr


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (["add", "a=x", "b=1"], "error: argument 'a': expected integer, got 'x'", "a=3"),
        (["add", "a=1"], "error: missing required argument: b", "add(a: integer, b: integer)"),
        (["ad", "a=1"], "error: no tool named 'ad'", "did you mean 'add'?"),
        (["add", "a"], "error: bad argument 'a'", "key=value"),
        (["add", "--args", "[1]"], "error: the JSON arguments must be a JSON object", "{"),
    ],
)
def test_call_bad_arguments_are_one_line_errors(args: list[str], message: str, hint: str) -> None:
    done = mcpkit("call", str(EVERYTHING), *args)
    assert done.returncode in (1, 2)
    one_line_error(done.stderr)
    assert done.stderr.splitlines()[0] == message
    assert hint in done.stderr.splitlines()[1]


def test_invalid_arguments_are_a_tool_error_in_2025_11_25() -> None:
    # days is limited to 1..7 by the schema: in 2025-11-25 the server answers isError (exit 3);
    # the protocol error of older revisions (exit 1) is in test_arguments_and_hints.py
    done = mcpkit("call", command(EVERYTHING), "forecast", "city=Oslo", "days=99")
    assert done.returncode == 3
    assert "Input should be less than or equal to 7" in done.stdout
    assert "Traceback" not in done.stderr


# -- read and prompt ----------------------------------------------------------------------------


def test_read_text_binary_and_templated_resources(tmp_path: Path) -> None:
    text = mcpkit("read", str(EVERYTHING), "test://static-text")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines() == [
        "[resource] test://static-text (text/plain)",
        "This is the content of the static text resource.",
    ]
    binary = mcpkit(
        "read", command(EVERYTHING), "test://static-binary", "--save-dir", str(tmp_path)
    )
    assert binary.returncode == 0, binary.stderr
    assert (tmp_path / "resource.png").read_bytes().startswith(PNG_MAGIC)
    templated = mcpkit("read", str(EVERYTHING), "weather://Oslo/current", "--json")
    contents = json.loads(templated.stdout)["contents"]
    assert json.loads(contents[0]["text"]) == {"city": "Oslo", "sky": "clear"}
    missing = mcpkit("read", str(EVERYTHING), "test://nope")
    assert missing.returncode == 1
    one_line_error(missing.stderr)
    assert missing.stderr.startswith("error: server error ")


def test_prompt_with_arguments() -> None:
    done = mcpkit("prompt", command(EVERYTHING), "review", "code=print(1)", "language=rust")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[user]",
        "Please review this rust code:",
        "",
        "print(1)",
    ]
    assert "Ask for a code review." in done.stderr
    missing = mcpkit("prompt", str(EVERYTHING), "review")
    assert missing.returncode == 2
    one_line_error(missing.stderr)
    assert "missing required argument: code" in missing.stderr


# -- bad targets --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no/such/server.py", "error: no such file: no/such/server.py"),
        ("no-such-command-xyz --flag", "error: cannot start the server: [Errno 2]"),
        ("http://127.0.0.1:9/mcp", "error: connection failed"),
        (f"{EVERYTHING}:nope", "error: "),
        (f"{ROOT / 'tests' / '__init__.py'}", "error: no mcpkit Server found in"),
        (f"{sys.executable} -c pass", "error: "),
    ],
)
def test_bad_targets_are_one_line_errors(target: str, message: str) -> None:
    done = mcpkit("inspect", target, timeout=30)
    assert done.returncode == 1, done
    one_line_error(done.stderr)
    assert done.stderr.startswith(message), done.stderr


def test_a_crashing_server_shows_its_last_stderr_line() -> None:
    done = mcpkit("inspect", f"{sys.executable} -c \"raise SystemExit('boom: bad config')\"")
    assert done.returncode == 1
    one_line_error(done.stderr)
    assert "boom: bad config" in done.stderr


def test_debug_shows_the_traceback() -> None:
    done = mcpkit("inspect", "no/such/server.py", "--debug")
    assert done.returncode == 1
    assert "Traceback" in done.stderr


def test_unknown_option_is_a_usage_error() -> None:
    done = mcpkit("inspect", str(EVERYTHING), "--frobnicate")
    assert done.returncode == 2
    one_line_error(done.stderr)


# -- answering the server without a terminal ----------------------------------------------------


def test_no_input_declines_elicitation(tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    done = mcpkit("call", command(ASK_SERVER), "signup", "--no-input", WIRE_ERRORS=str(errors))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "user chose decline"
    assert "elicitation declined (--no-input): Please sign up" in done.stderr
    assert errors.read_text() == ""


def test_no_input_refuses_sampling(tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    done = mcpkit(
        "call",
        command(ASK_SERVER),
        "ask_llm",
        "question=hi",
        "--no-input",
        WIRE_ERRORS=str(errors),
    )
    assert done.returncode == 0, done.stderr  # the user's answer, as a declined elicitation
    assert done.stdout == ""
    assert "sampling request refused (--no-input)" in done.stderr
    assert (
        "the server gave up after the sampling request was declined: "
        "The user declined the sampling request (--no-input)"
    ) in done.stderr
    assert "error:" not in done.stderr
    assert errors.read_text() == ""


def test_without_a_terminal_requests_are_refused_not_waited_for() -> None:
    done = mcpkit("call", str(EVERYTHING), "ask_user", timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "user chose decline"
    assert "declined (stdin is not a terminal)" in done.stderr


def test_roots_are_offered_only_when_asked(tmp_path: Path) -> None:
    done = mcpkit("call", str(EVERYTHING), "roots", "--root", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"result": [tmp_path.as_uri()]}
    without = mcpkit("call", str(EVERYTHING), "roots")
    assert without.returncode != 0
