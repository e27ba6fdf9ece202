"""A type hint mcpkit cannot describe as JSON Schema is refused at registration with a
TypeError that names the function and the parameter (or the return type), and says what to
use instead: not pydantic's internals, not its documentation link."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpkit import Server


class Thing:
    def __init__(self, size: int) -> None:
        self.size = size


def test_an_unsupported_parameter_type_names_the_function_and_parameter() -> None:
    app = Server("hints")
    with pytest.raises(TypeError) as refused:

        @app.tool()
        def measure(label: str, thing: Thing) -> str:
            return label

    text = str(refused.value)
    assert "measure(): parameter 'thing' has type" in text and "Thing" in text
    assert "pydantic model, a dataclass" in text
    assert "errors.pydantic.dev" not in text and "arbitrary_types_allowed" not in text


def test_a_callable_parameter_is_named_too() -> None:
    app = Server("hints")
    with pytest.raises(TypeError, match=r"apply\(\): parameter 'fn' has type Callable"):

        @app.tool()
        def apply(x: int, fn: Callable[[int], int]) -> int:
            return fn(x)


def test_an_unsupported_return_type_names_the_tool_and_the_way_out() -> None:
    app = Server("hints")
    with pytest.raises(TypeError) as refused:

        @app.tool()
        def connect() -> socket.socket:
            raise NotImplementedError

    text = str(refused.value)
    assert text.startswith("tool 'connect': the return type socket.socket has no JSON Schema")
    assert "structured_output=False" in text and "errors.pydantic.dev" not in text

    @app.tool(structured_output=False)
    def connect_as_text() -> socket.socket:  # the way out the message names works
        raise NotImplementedError

    assert "connect_as_text" in app.tools.tools


def test_a_prompt_argument_of_an_unsupported_type_is_named() -> None:
    app = Server("hints")
    with pytest.raises(TypeError, match=r"greet\(\): parameter 'who' has type .*Thing"):

        @app.prompt()
        def greet(who: Thing) -> str:
            return "hi"


def test_mcpkit_run_shows_the_message_not_pydantics_footer(tmp_path: Path) -> None:
    server = tmp_path / "bad.py"
    server.write_text(
        textwrap.dedent(
            """
            from mcpkit import Server

            app = Server("bad")


            class Thing:
                pass


            @app.tool()
            def f(t: Thing) -> str:
                return ""
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit", "run", str(server)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "f(): parameter 't' has type Thing, which has no JSON Schema" in done.stderr
    assert "errors.pydantic.dev" not in done.stderr and "Traceback" not in done.stderr
