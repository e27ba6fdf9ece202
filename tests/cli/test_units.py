"""The CLI's pure helpers: argument typing, compact schemas, TARGET parsing; and the hint
printed when the ``cli`` extra (rich) is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpkit.cli.call import convert_value, parse_arguments
from mcpkit.cli.errors import CliError
from mcpkit.cli.render import compact_schema
from mcpkit.cli.targets import ServerRef, parse_server_ref
from tests.cli.conftest import EVERYTHING, mcpkit

SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object"},
        "name": {"type": "string"},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "either": {"type": ["integer", "string"]},
        "color": {"enum": ["red", "green"]},
        "free": {},
    },
    "required": ["n"],
}


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("n", "42", 42),
        ("n", " -3 ", -3),
        ("x", "2", 2),
        ("x", "2.5", 2.5),
        ("flag", "true", True),
        ("flag", "no", False),
        ("tags", '["a", "b"]', ["a", "b"]),
        ("opts", '{"k": 1}', {"k": 1}),
        ("name", "42", "42"),  # a string stays a string
        ("name", "", ""),
        ("maybe", "null", None),
        ("maybe", "7", 7),
        ("either", "7", 7),
        ("either", "seven", "seven"),
        ("color", "green", "green"),
        ("free", "[1]", [1]),
        ("free", "plain words", "plain words"),
    ],
)
def test_values_typed_by_the_schema(key: str, text: str, value: object) -> None:
    converted = convert_value(key, text, SCHEMA["properties"][key])  # type: ignore[index]
    assert converted == value and type(converted) is type(value)


@pytest.mark.parametrize(
    ("key", "text"), [("n", "1.5"), ("flag", "maybe"), ("tags", "a,b"), ("opts", "[1]")]
)
def test_values_that_do_not_fit(key: str, text: str) -> None:
    with pytest.raises(CliError) as info:
        convert_value(key, text, SCHEMA["properties"][key])  # type: ignore[index]
    assert info.value.code == 2
    assert info.value.message.startswith(f"argument {key!r}: expected ")


def test_pairs_json_and_raw_json_combine() -> None:
    args = parse_arguments(["n=1", "name:=null", "x=2.5"], '{"n": 0, "flag": true}', SCHEMA)
    assert args == {"n": 1, "flag": True, "name": None, "x": 2.5}
    assert parse_arguments(["a=1"], None, None, typed=False) == {"a": "1"}
    closed = {"type": "object", "properties": {"alpha": {}}, "additionalProperties": False}
    with pytest.raises(CliError, match="unknown argument 'alpah'"):
        parse_arguments(["alpah=1"], None, closed)


def test_compact_schema() -> None:
    assert compact_schema(SCHEMA).startswith(
        "n: integer, x?: number, flag?: boolean, tags?: string[], opts?: object, name?: string, "
        "maybe?: integer|null, either?: integer|string, color?: "
    )
    nested = {
        "type": "object",
        "properties": {"p": {"type": "object", "properties": {"q": {"type": "integer"}}}},
    }
    assert compact_schema(nested) == "p?: {q?: integer}"
    assert compact_schema({"type": "object"}) == ""


def test_server_refs() -> None:
    assert parse_server_ref("srv.py") == ServerRef(Path("srv.py"), None, None)
    assert parse_server_ref("dir/srv.py:app") == ServerRef(Path("dir/srv.py"), None, "app")
    assert parse_server_ref("pkg.mod:app") == ServerRef(None, "pkg.mod", "app")
    assert parse_server_ref("python srv.py") is None
    assert parse_server_ref("uvx") is None
    assert parse_server_ref("http://x:1/mcp") is None


def test_missing_rich_gives_an_install_hint(tmp_path: Path) -> None:
    fake = tmp_path / "rich"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'rich'\")\n")
    src = Path(__file__).resolve().parents[2] / "src"
    done = mcpkit("inspect", str(EVERYTHING), PYTHONPATH=f"{tmp_path}:{src}")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "error: the mcpkit command needs the 'rich' package",
        "hint: in the mcpkit checkout: pip install '.[cli]'",
    ]


def test_cli_errors_are_in_the_error_tree() -> None:
    from mcpkit.cli.errors import Declined
    from mcpkit.errors import CommandLineError, McpkitError

    assert issubclass(CliError, CommandLineError)
    error = Declined("the user said no")
    assert isinstance(error, McpkitError) and error.code == 0


def test_a_server_whose_store_is_down_is_not_told_to_start() -> None:
    from mcpkit.cli.app import _explain
    from mcpkit.errors import HTTP_ERROR, McpError

    down = McpError(
        HTTP_ERROR,
        "HTTP 503 Service Unavailable: Shared store unavailable: Redis did not answer",
        {"status": 503},
    )
    assert "its shared store is not" in (_explain(down).hint or "")
    failing = McpError(HTTP_ERROR, "HTTP 500 Internal Server Error", {"status": 500})
    assert "could not answer (HTTP 500)" in (_explain(failing).hint or "")
    refused = McpError(HTTP_ERROR, "HTTP request failed", {"exception": "ConnectError"})
    assert "that the server is running" in (_explain(refused).hint or "")
