"""Types nested in a tool's arguments keep their own rules for extra keys: the arguments
model refuses an unknown top-level argument, but a TypedDict or dataclass inside it drops
extra keys (as pydantic does for them on their own, and as the official SDK and fastmcp
do) and a nested pydantic model keeps its own ``extra`` setting; the listed schema says the
same (no ``additionalProperties`` inside but where the model sets it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired

from pydantic import BaseModel, ConfigDict, TypeAdapter
from typing_extensions import TypedDict

from mcpkit import Client, Server
from mcpkit.server.context import Context
from mcpkit.server.schema import analyze


class Inner(TypedDict):
    x: int


class Answer(TypedDict):
    text: str
    inner: Inner
    note: NotRequired[str]


@dataclass
class Spot:
    x: int


@dataclass
class Pin:
    label: str
    spot: Spot


class Plain(BaseModel):
    name: str
    answer: Answer | None = None


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


def nested(
    answer: Answer,
    answers: list[Answer],
    by_name: dict[str, Pin],
    pin: Pin,
    plain: Plain,
    closed: Closed,
    open: Open,
    maybe: Answer | None = None,
) -> str:
    return "ok"


ARGUMENTS: dict[str, Any] = {
    "answer": {"text": "a", "inner": {"x": 1, "y": 2}, "extra": True},
    "answers": [{"text": "b", "inner": {"x": 2, "z": 0}, "more": 1}],
    "by_name": {"k": {"label": "q", "spot": {"x": 3, "w": 1}, "f": 2}},
    "pin": {"label": "p", "spot": {"x": 4, "y": 2}, "extra": 1},
    "plain": {"name": "p", "answer": {"text": "t", "inner": {"x": 1, "q": 1}, "r": 2}, "s": 3},
    "closed": {"name": "c"},
    "open": {"name": "o", "kept": [1]},
    "maybe": {"text": "m", "inner": {"x": 5, "y": 6}, "e": 1},
}

HINTS = {
    "answer": Answer,
    "answers": list[Answer],
    "by_name": dict[str, Pin],
    "pin": Pin,
    "plain": Plain,
    "closed": Closed,
    "open": Open,
    "maybe": Answer | None,
}


def extra_rules(schema: Any, path: str = "") -> dict[str, Any]:
    """Where a schema says something about extra keys: path -> additionalProperties
    (a schema given for dict values is not a rule about extra keys)."""
    found: dict[str, Any] = {}
    if isinstance(schema, dict):
        rule = schema.get("additionalProperties")
        if isinstance(rule, bool) and "properties" in schema:
            found[path or "."] = rule
        for key, value in schema.items():
            found.update(extra_rules(value, f"{path}/{key}"))
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found.update(extra_rules(value, f"{path}/{i}"))
    return found


def test_nested_types_are_validated_by_their_own_rules() -> None:
    """What the function receives for each argument is what pydantic gives for that type
    alone: extra keys dropped in TypedDicts and dataclasses, kept by an ``extra="allow"``
    model."""
    sig = analyze(nested, Context, strict=True)
    kwargs = sig.validate(ARGUMENTS)
    for name, hint in HINTS.items():
        assert kwargs[name] == TypeAdapter(hint).validate_python(ARGUMENTS[name]), name
    assert kwargs["answer"] == {"text": "a", "inner": {"x": 1}}
    assert kwargs["pin"] == Pin("p", Spot(4))
    assert kwargs["open"].model_extra == {"kept": [1]}


def test_the_schema_rules_out_extra_keys_only_where_the_types_do() -> None:
    sig = analyze(nested, Context, strict=True)
    assert extra_rules(sig.input_schema) == {
        ".": False,  # the arguments themselves
        "/properties/closed": False,
        "/properties/open": True,
    }


def test_unknown_top_level_arguments_are_still_refused() -> None:
    sig = analyze(nested, Context, strict=True)
    try:
        sig.validate({**ARGUMENTS, "unknown": 1})
    except ValueError as exc:
        assert str(exc) == "'unknown': Unexpected argument"
    else:
        raise AssertionError("an unknown argument was accepted")


def test_a_nested_model_that_forbids_extra_keys_still_does() -> None:
    sig = analyze(nested, Context, strict=True)
    try:
        sig.validate({**ARGUMENTS, "closed": {"name": "c", "nope": 1}})
    except ValueError as exc:
        assert str(exc) == "'closed.nope': Unexpected argument"
    else:
        raise AssertionError("closed.nope was accepted")


def test_errors_inside_a_typeddict_name_only_what_is_wrong() -> None:
    sig = analyze(nested, Context, strict=True)
    bad = {**ARGUMENTS, "answer": {"text": "a", "inner": {"y": 2}}}
    try:
        sig.validate(bad)
    except ValueError as exc:
        assert str(exc) == "'answer.inner.x': Field required"
    else:
        raise AssertionError("a missing field was accepted")


def test_var_keyword_keeps_top_level_extras_and_nested_types_their_rules() -> None:
    def with_kwargs(answer: Answer, **rest: Any) -> str:
        return "ok"

    sig = analyze(with_kwargs, Context, strict=True)
    kwargs = sig.validate({"answer": ARGUMENTS["answer"], "other": {"any": 1}})
    assert kwargs == {"answer": {"text": "a", "inner": {"x": 1}}, "other": {"any": 1}}
    assert extra_rules(sig.input_schema) == {".": True}


async def test_over_the_wire() -> None:
    app: Server[Any] = Server("nested")
    seen: dict[str, Any] = {}

    @app.tool()
    def record(answer: Answer, pins: list[Pin], open: Open) -> str:
        seen.update(answer=answer, pins=pins, open=open)
        return "ok"

    async with Client(app, era="legacy", timeout=10) as client:
        listed = {t.name: t for t in await client.list_tools()}
        wire = listed["record"].input_schema.model_dump(by_alias=True, exclude_none=True)
        assert extra_rules(wire) == {".": False, "/properties/open": True}
        ok = await client.call_tool(
            "record",
            {
                "answer": {"text": "a", "inner": {"x": 1, "y": 2}, "extra": True},
                "pins": [{"label": "p", "spot": {"x": 1, "y": 2}, "e": 1}],
                "open": {"name": "o", "kept": 1},
            },
        )
        assert not ok.is_error, ok.content
        assert seen["answer"] == {"text": "a", "inner": {"x": 1}}
        assert seen["pins"] == [Pin("p", Spot(1))]
        assert seen["open"].model_extra == {"kept": 1}
        bad = await client.call_tool(
            "record",
            {"answer": {"text": "a", "inner": {"x": 1}}, "pins": [], "open": {"name": "o"}, "u": 1},
        )
        assert bad.is_error
        text = bad.content[0].text  # type: ignore[union-attr]
        assert text == "Invalid arguments for tool 'record': 'u': Unexpected argument"
