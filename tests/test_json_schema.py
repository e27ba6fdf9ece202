"""Schema validation by declared dialect."""

from __future__ import annotations

import pytest

from mcpkit.json_schema import InvalidSchemaError, UnsupportedDialectError, compile_schema

OBJ = {
    "type": "object",
    "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"type": "string"}},
    "required": ["a"],
}


@pytest.mark.parametrize(
    "dialect",
    [
        None,
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
    ],
)
def test_supported_dialects_validate(dialect: str | None) -> None:
    schema = dict(OBJ)
    if dialect:
        schema["$schema"] = dialect
    v = compile_schema(schema)
    assert v.is_valid({"a": 1})
    assert not v.is_valid({"a": -1})
    assert v.first_error({"a": "x"}) is not None and "'a'" in v.first_error({"a": "x"})  # type: ignore[operator]
    assert "required" in (v.first_error({}) or "")


def test_dialect_semantics_differ() -> None:
    # prefixItems exists in 2020-12 but not in draft-07 (where it is ignored).
    tup = {"type": "array", "prefixItems": [{"type": "integer"}]}
    assert not compile_schema(tup).is_valid(["x"])
    assert compile_schema({**tup, "$schema": "http://json-schema.org/draft-07/schema#"}).is_valid(
        ["x"]
    )


@pytest.mark.parametrize(
    "dialect", ["http://json-schema.org/draft-04/schema#", "https://example.com/my-dialect"]
)
def test_unsupported_dialect_is_an_error(dialect: str) -> None:
    with pytest.raises(UnsupportedDialectError, match="not supported"):
        compile_schema({**OBJ, "$schema": dialect})


def test_invalid_schema_is_an_error() -> None:
    with pytest.raises(InvalidSchemaError):
        compile_schema({"type": "no-such-type"})


def test_wire_checker_erratum_allows_fractional_elicitation_answers() -> None:
    from tests.wire import validate

    result = {"action": "accept", "content": {"score": 95.5, "name": "x", "ok": True}}
    assert validate("2025-11-25", "ElicitResult", result) == []
    assert validate("2025-11-25", "ElicitResult", {"action": "accept", "content": {"x": {}}})
