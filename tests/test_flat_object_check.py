"""FlatObjectCheck, the pure-Python check of the commonest tool schema, never accepts what
the schema engine rejects, and does accept the ordinary valid arguments (so a server whose
tools take only primitives need not load the engine)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from mcpkit.json_schema import compile_schema, flat_object_check
from mcpkit.server.context import Context
from mcpkit.server.schema import analyze

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "title": "S"},
        "i": {"type": "integer", "default": 3},
        "n": {"type": "number"},
        "b": {"type": "boolean", "description": "a flag"},
        "o": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    },
    "required": ["s", "i"],
    "additionalProperties": False,
}

VALUES: list[Any] = [
    "",
    "x",
    0,
    -1,
    2**70,
    1.0,
    1.5,
    -0.0,
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    False,
    None,
    [],
    ["x"],
    {},
    {"a": 1},
]


def argument_sets() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}, {"s": "x"}, {"i": 1}, {"s": "x", "i": 1, "zz": 1}]
    for s, i in itertools.product(VALUES, VALUES):
        out.append({"s": s, "i": i})
    for n, b in itertools.product(VALUES, VALUES):
        out.append({"s": "x", "i": 1, "n": n, "b": b})
    for o in VALUES:
        out.append({"s": "x", "i": 1, "o": o})
    return out


def test_never_accepts_what_the_engine_rejects_and_accepts_plain_valid_arguments() -> None:
    check = flat_object_check(SCHEMA)
    assert check is not None
    engine = compile_schema(SCHEMA)
    accepted = 0
    for arguments in argument_sets():
        if check.matches(arguments):
            accepted += 1
            assert engine.is_valid(arguments), arguments
    assert accepted > 0
    for valid in (
        {"s": "x", "i": 1},
        {"s": "", "i": -1, "n": 2.5, "b": False},
        {"s": "x", "i": 2**70, "n": 3},
        {"s": "x", "i": 1, "o": None},
        {"s": "x", "i": 1, "o": 7},
    ):
        assert engine.is_valid(valid)
        assert check.matches(valid), valid
    # what it leaves to the engine: a float that is an integer, missing or unknown names
    for unsure in ({"s": "x", "i": 1.0}, {"s": "x"}, {"s": "x", "i": 1, "zz": 1}):
        assert not check.matches(unsure), unsure


@pytest.mark.parametrize(
    "schema",
    [
        {**SCHEMA, "additionalProperties": True},
        {**SCHEMA, "$schema": "http://json-schema.org/draft-07/schema"},
        {**SCHEMA, "properties": {"s": {"type": "string", "minLength": 2}}, "required": []},
        {**SCHEMA, "properties": {"s": {"type": ["string", "null"]}}, "required": []},
        {**SCHEMA, "properties": {"s": {"type": "array"}}, "required": []},
        {
            **SCHEMA,
            "properties": {"s": {"anyOf": [{"type": "string", "minLength": 1}]}},
            "required": [],
        },
        {**SCHEMA, "properties": {"s": {"anyOf": []}}, "required": []},
        {**SCHEMA, "properties": {"s": {"enum": ["a", "b"], "type": "string"}}, "required": []},
        {**SCHEMA, "required": ["nope"]},
        {"type": "array"},
    ],
)
def test_other_shapes_are_left_to_the_engine(schema: dict[str, Any]) -> None:
    assert flat_object_check(schema) is None


def test_a_signature_of_primitives_validates_with_it_and_reports_with_the_engine() -> None:
    def tool(
        text: str, count: int = 1, ratio: float = 0.5, loud: bool = False, limit: int | None = None
    ) -> str:
        return text

    sig = analyze(tool, Context, strict=True)
    assert sig._fast_check is not None  # this signature is checked without the engine
    assert sig.validate({"text": "a", "limit": None}) == {"text": "a", "limit": None}
    assert sig.validate({"text": "a", "count": 2, "ratio": 1}) == {
        "text": "a",
        "count": 2,
        "ratio": 1.0,
    }
    assert sig.validate({"text": "a", "count": 2.0}) == {"text": "a", "count": 2}  # via engine
    with pytest.raises(ValueError, match="'text': Field required"):
        sig.validate({"count": 2})
    with pytest.raises(ValueError, match="'other': Unexpected argument"):
        sig.validate({"text": "a", "other": 1})
    with pytest.raises(ValueError, match="is not of type"):
        sig.validate({"text": "a", "loud": "yes"})


def _reference(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    # The rule, written plainly: every name is a property's, every value of exactly one of
    # its types (a float only when finite), every required name present.
    kinds = {
        name: {
            {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}[
                branch["type"]
            ]
            for branch in prop.get("anyOf", [prop])
        }
        | ({int} if prop.get("type") == "number" else set())
        for name, prop in schema["properties"].items()
    }
    for name, item in value.items():
        tp = type(item)
        if tp not in kinds.get(name, set()):
            return False
        if tp is float and not math.isfinite(item):
            return False
    return all(name in value for name in schema.get("required", []))


@pytest.mark.parametrize(
    "schema",
    [
        SCHEMA,
        {**SCHEMA, "required": []},
        {**SCHEMA, "required": ["s", "i", "n", "b", "o"]},
        {**SCHEMA, "properties": {}, "required": []},
        {**SCHEMA, "properties": {"n": {"type": "number"}}, "required": ["n"]},
    ],
)
def test_the_written_check_is_the_rule_exactly(schema: dict[str, Any]) -> None:
    # matches is a function written for the schema's properties (no loop): on every
    # argument set it answers what the rule says, neither more nor less.
    check = flat_object_check(schema)
    assert check is not None
    for arguments in [*argument_sets(), {"n": 1}, {"n": 1.5}, {"n": float("nan")}, {"zz": 1}]:
        assert check.matches(arguments) is _reference(schema, arguments), arguments


def test_a_signature_needing_no_conversion_offers_its_check_to_callers() -> None:
    def plain(text: str, count: int = 1, loud: bool = False, limit: int | None = None) -> str:
        return text

    def converted(text: str, ratio: float = 0.5) -> str:
        return text

    sig = analyze(plain, Context, strict=True)
    check = sig.plain_check
    assert check is not None
    for arguments in ({"text": "a"}, {"text": "a", "count": 2, "loud": True, "limit": None}):
        assert check(arguments) and sig.validate(arguments) == arguments
    for refused in (
        {"count": 2},
        {"text": "a", "other": 1},
        {"text": 1},
        {"text": "a", "count": 2.0},
    ):
        assert not check(refused)  # left to validate (which converts 2.0, or refuses)
    # a float parameter converts an integer to a float: validate is always asked
    assert analyze(converted, Context, strict=True).plain_check is None
    assert analyze(converted, Context, strict=True).validate({"text": "a", "ratio": 1}) == {
        "text": "a",
        "ratio": 1.0,
    }
