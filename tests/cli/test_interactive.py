"""Sampling and elicitation answered at a terminal: ``mcpkit call`` runs on a pseudo-terminal
(stdin and stderr), the test types the answers. The server (tests/cli/ask_server.py, over
stdio) checks every message against the official schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.conftest import ASK_SERVER, EVERYTHING, command


def test_elicitation_form_field_by_field(pty_command: Any, tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    cli = pty_command("call", command(ASK_SERVER), "signup", WIRE_ERRORS=str(errors))
    cli.expect(r"The server asks you for input \(elicitation\):")
    cli.expect(r"Please sign up")
    cli.expect(r"Answer\? \[A\]ccept / \[d\]ecline / \[c\]ancel: ")
    cli.send("")  # Enter accepts
    cli.expect(r"name: Your name")
    cli.expect(r"  name\*: ")
    cli.send("")  # required: asked again
    cli.expect(r"this field is required")
    cli.expect(r"  name\*: ")
    cli.send("Ada")
    cli.expect(r"  age\*: ")
    cli.send("old")  # not a number
    cli.expect(r"expected a whole number")
    cli.expect(r"  age\*: ")
    cli.send("200")  # checked against the field's schema (maximum 150)
    cli.expect(r"200 is greater than the maximum of 150")
    cli.expect(r"  age\*: ")
    cli.send("36")
    cli.expect(r"1\) red  2\) green  3\) blue")
    cli.expect(r'  color \["red"\]: ')
    cli.send("2")  # by number
    cli.expect(r"  newsletter \[false\]: ")
    cli.send("y")
    cli.expect(r"  nickname \[skip\]: ")
    cli.send("")  # optional: left out
    code, out = cli.finish()
    assert code == 0, cli.seen
    assert out.strip() == "signed up Ada, 36, green, newsletter=True, nick=None"
    assert errors.read_text() == ""


def test_elicitation_defaults_taken_on_enter(pty_command: Any) -> None:
    cli = pty_command("call", str(EVERYTHING), "ask_user")
    cli.expect(r"Who are you\?")
    cli.expect(r"Answer\? ")
    cli.send("a")
    cli.expect(r"  name\*: ")
    cli.send("Grace")
    cli.expect(r"  email \[skip\]: ")
    cli.send("-")
    cli.expect(r'  color \["red"\]: ')
    cli.send("")
    code, out = cli.finish()
    assert code == 0, cli.seen
    assert out.strip() == "hello Grace (red)"


def test_elicitation_declined_and_cancelled(pty_command: Any) -> None:
    declined = pty_command("call", str(EVERYTHING), "ask_user")
    declined.expect(r"Answer\? ")
    declined.send("d")
    code, out = declined.finish()
    assert (code, out.strip()) == (0, "user chose decline")

    cancelled = pty_command("call", str(EVERYTHING), "ask_user")
    cancelled.expect(r"Answer\? ")
    cancelled.send("a")
    cancelled.expect(r"  name\*: ")
    cancelled.send("\x04")  # Ctrl-D at the start of a line: end of input
    code, out = cancelled.finish()
    assert (code, out.strip()) == (0, "user chose cancel"), cancelled.seen
    assert "elicitation cancelled" in cancelled.seen


def test_url_elicitation_shows_the_url(pty_command: Any, tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    cli = pty_command("call", command(ASK_SERVER), "visit", WIRE_ERRORS=str(errors))
    cli.expect(r"The server asks you to open a URL")
    cli.expect(r"https://example.com/login")
    cli.expect(r"Answer\? ")
    cli.send("accept")
    code, out = cli.finish()
    assert (code, out.strip()) == (0, "url elicitation: accept"), cli.seen
    assert errors.read_text() == ""


def test_sampling_reply_typed_at_the_terminal(pty_command: Any, tmp_path: Path) -> None:
    errors = tmp_path / "wire.txt"
    cli = pty_command(
        "call",
        command(ASK_SERVER),
        "ask_llm",
        "question=Capital of France?",
        WIRE_ERRORS=str(errors),
    )
    cli.expect(r"The server asks for an LLM completion \(sampling\):")
    cli.expect(r"system: Be brief\.")
    cli.expect(r"user: Capital of France\?")
    cli.expect(r"max tokens: 50")
    cli.expect(r"Your reply \(empty line declines\): ")
    cli.send("Paris")
    code, out = cli.finish()
    assert code == 0, cli.seen
    assert out.strip() == "llm said: Paris"
    assert errors.read_text() == ""


def test_sampling_declined_with_an_empty_line(pty_command: Any) -> None:
    cli = pty_command("call", str(EVERYTHING), "ask_llm", "question=hi")
    cli.expect(r"Your reply \(empty line declines\): ")
    cli.send("")
    code, out = cli.finish()
    assert (code, out) == (0, "")
    assert "sampling declined" in cli.seen
    assert "gave up after the sampling request was declined: The user declined" in cli.seen


def test_no_input_on_a_terminal_still_refuses(pty_command: Any) -> None:
    cli = pty_command("call", str(EVERYTHING), "ask_user", "--no-input")
    code, out = cli.finish()
    assert (code, out.strip()) == (0, "user chose decline")
    assert "Answer?" not in cli.seen


def test_progress_bar_and_logs_on_a_terminal(pty_command: Any) -> None:
    cli = pty_command("call", str(EVERYTHING), "forecast", "city=Oslo", "days=3")
    code, out = cli.finish()
    assert code == 0, cli.seen
    assert '"summary":"sunny"' in out.replace(" ", "")
    assert "[info] forecasting Oslo" in cli.seen
    assert "3/3" in cli.seen  # the bar's final state stays on screen
