"""The hand-written schema path for simple signatures gives exactly what pydantic gives.

Every signature below goes through :func:`analyze` twice, once as registration does it and
once with the hand-written path switched off (so pydantic builds the model): the input
schemas must be byte-identical (key order included), the same arguments must be accepted
and converted to the same Python values, the same ones rejected, and the completion choices
must agree. Return annotations are compared the same way through :func:`output_spec`.
A server with only such tools, prompts and resources must not import pydantic at all.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import orjson
import pytest

from mcpkit.server import schema as schema_module
from mcpkit.server.context import Context
from mcpkit.server.schema import ArgumentsError, Signature, analyze, output_spec

SIGNATURES = [
    "a: str",
    "a: int",
    "a: float",
    "a: bool",
    "a: None = None",
    "a",
    "a=3",
    "a: Any",
    "a: Any = None",
    "text: str, count: int = 3, ratio: float = 1, flag: bool = False",
    "long_name_with_parts: str, x_1: int = 0",
    "a: str | None = None",
    "a: Optional[int] = 5",
    "a: Union[None, float] = None",
    "a: Optional[str]",
    "a: list[str] = []",
    "a: list",
    "a: List[int]",
    "a: list[float]",
    "a: list[list[int]] | None = None",
    "a: list[Any]",
    "a: list[int | None]",
    "a: dict",
    "a: dict[str, int] = {}",
    "a: dict[str, Any] | None = None",
    "a: dict[str, list[float]]",
    "a: Dict[str, bool]",
    'a: Literal["x", "y"] = "x"',
    'a: Literal["only"]',
    "a: Literal[True]",
    "a: Literal[True, False]",
    'a: Optional[Literal["p", "q"]] = None',
    'a: list[Literal["p", "q"]]',
    'a: dict = {"z": 1, "b": {"y": 2, "a": 1}}',
    'a: list = [1, "two", None, {"k": [1.5]}]',
    "ctx: Context, a: int",
    "a: str, ctx: Context | None = None",
    # Not simple: these go through pydantic in both runs (the comparison still holds).
    "a: tuple[int, str]",
    "a: set[str]",
    "a: bytes",
    'a: Literal[1, "a"]',
    "a: Literal[1, 2]",
    "a: int | str",
    "a: Color",
    "a: Annotated[int, 'meta']",
    "a: dict[int, str]",
    "json: str",
    "_private: int = 0",
    "model_name: str",
    "a: float = float('nan')",
    "a: list = (1, 2)",
    "**kw",
    "a: int, **kw",
]

ARGUMENTS: list[Any] = [
    None,
    {},
    {"a": "s"},
    {"a": 5},
    {"a": 5.0},
    {"a": 5.5},
    {"a": True},
    {"a": None},
    {"a": [1, 2.0, 3]},
    {"a": [[1], [2.0]]},
    {"a": [None, 1]},
    {"a": ["p", "q"]},
    {"a": ["p", "r"]},
    {"a": {"k": 1}},
    {"a": {"k": [1, 2.5]}},
    {"a": {"k": True}},
    {"a": "x"},
    {"a": "y"},
    {"a": "only"},
    {"a": "p"},
    {"a": "s", "extra": 1},
    {"text": "t", "count": 2, "ratio": 2, "flag": True},
    {"text": "t", "count": 2.0},
    {"text": "t", "count": "2"},
    {"long_name_with_parts": "v", "x_1": 1},
    {"json": "j"},
    {"model_name": "m"},
    {"_private": 1},
    [1, 2],
    "string",
]

PRELUDE = """
import enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Union
from mcpkit.server.context import Context

class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"
"""


def make(params: str, returns: str | None = None) -> Any:
    namespace: dict[str, Any] = {}
    arrow = f" -> {returns}" if returns else ""
    exec(f"{PRELUDE}\ndef f({params}){arrow}:\n    return locals()\n", namespace)
    return namespace["f"]


def _no_light(*args: Any, **kwargs: Any) -> Any:
    raise schema_module._Unsupported


def both(monkeypatch: pytest.MonkeyPatch, fn: Any, **kwargs: Any) -> tuple[Signature, Signature]:
    light = analyze(fn, Context, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(schema_module, "_light_type", _no_light)
        heavy = analyze(fn, Context, **kwargs)
    assert heavy._light is None
    return light, heavy


def outcome(fn: Any, sig: Signature, arguments: Any) -> Any:
    try:
        kwargs = sig.validate(arguments)
    except ArgumentsError:
        return "rejected"
    if sig.context_param is not None:
        kwargs[sig.context_param] = None
    values = fn(**kwargs)
    # Compare types too: 5 and 5.0 (and True and 1) are equal in Python.
    return repr(values), orjson.dumps(values, default=repr)


@pytest.mark.parametrize("strict", [True, False], ids=["tool", "prompt"])
@pytest.mark.parametrize("params", SIGNATURES)
def test_input_schemas_and_conversion_match_pydantic(
    monkeypatch: pytest.MonkeyPatch, params: str, strict: bool
) -> None:
    fn = make(params)
    light, heavy = both(monkeypatch, fn, strict=strict)
    assert orjson.dumps(light.input_schema) == orjson.dumps(heavy.input_schema)
    assert light.context_param == heavy.context_param
    assert light.param_names == heavy.param_names
    for arguments in ARGUMENTS:
        assert outcome(fn, light, arguments) == outcome(fn, heavy, arguments), arguments
    for name in light.param_names:
        assert light.choices(name) == heavy.choices(name)


def test_simple_signatures_take_the_light_path(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = make("text: str, n: int = 1, tags: list[str] | None = None")
    light = analyze(fn, Context, strict=True)
    assert light.model is None and light._light is not None
    # Prompt arguments arrive as strings, converted by pydantic's lax mode: only the hints
    # for which that conversion is the identity skip pydantic.
    assert analyze(make("text: str, mode: Literal['a', 'b'] = 'a'"), Context)._light is not None
    assert analyze(make("n: int"), Context).model is not None
    assert analyze(make("a: tuple[int, str]"), Context, strict=True).model is not None


RETURNS = [
    "int",
    "float",
    "bool",
    "str",
    "list[str]",
    "list[float]",
    "list",
    "dict",
    "dict[str, int]",
    "dict[str, Any]",
    "Optional[int]",
    "list[int] | None",
    'Literal["a", "b"]',
    "tuple[int, int]",
    "set[int]",
    "Color",
]

VALUES: list[Any] = [
    1,
    5.0,
    False,
    [True, 2, 2.5],
    {"k": True, "j": 3},
    {"k": None},
    [None],
    2.5,
    True,
    "s",
    None,
    [1, 2],
    (1, 2.5),
    ["a", "b"],
    {"k": 1},
    {"k": [1, "x"]},
    {1: "a"},
    "a",
]


@pytest.mark.parametrize("structured", [None, True])
@pytest.mark.parametrize("returns", RETURNS)
def test_output_schemas_and_values_match_pydantic(
    monkeypatch: pytest.MonkeyPatch, returns: str, structured: bool | None
) -> None:
    return_type = make("", returns).__annotations__["return"]
    namespace: dict[str, Any] = {}
    exec(PRELUDE, namespace)
    return_type = eval(returns, namespace)
    light = output_spec(return_type, structured, ())
    with monkeypatch.context() as m:
        m.setattr(schema_module, "_light_type", _no_light)
        heavy = output_spec(return_type, structured, ())
    if heavy is None:
        assert light is None
        return
    assert light is not None
    assert orjson.dumps(light.schema) == orjson.dumps(heavy.schema)
    assert light.wrap == heavy.wrap
    for value in VALUES:
        a, b = light.structured(value), heavy.structured(value)
        assert (repr(a), light.validator.is_valid(a)) == (repr(b), heavy.validator.is_valid(b))


def test_a_server_of_simple_handlers_never_imports_pydantic() -> None:
    code = textwrap.dedent(
        """
        import sys
        from typing import Literal, Optional
        from mcpkit import Context, Server
        from mcpkit.transports.memory import MemoryTransport

        app = Server("light")

        @app.tool()
        async def echo(text: str, times: int = 1, ctx: Context | None = None) -> str:
            return text * times

        @app.tool()
        def stats(values: list[float]) -> dict[str, float]:
            return {"sum": sum(values)}

        @app.prompt()
        def greet(name: str, tone: Literal["warm", "dry"] = "warm") -> str:
            return f"hello {name}"

        @app.resource("notes://{name}")
        def note(name: str) -> str:
            return name

        assert echo is not None
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
