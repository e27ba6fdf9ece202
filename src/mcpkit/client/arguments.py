"""What the client sends: tool arguments and completion references in their wire form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import pydantic
import pydantic_core

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

if TYPE_CHECKING:
    from mcpkit.types import PromptReference, ResourceTemplateReference

__all__ = ["Arguments", "CompletionRef", "arguments_to_wire", "ref_to_wire"]

Arguments: TypeAlias = "Mapping[str, Any] | pydantic.BaseModel"
"""Tool arguments: a mapping (values that are models or dataclasses are dumped) or a model."""

CompletionRef: TypeAlias = "PromptReference | ResourceTemplateReference | Mapping[str, Any] | str"
"""What ``Client.complete`` completes for: a reference model, its wire dict, or a string (a
URI template when it contains ``://`` or ``{``, else a prompt name)."""

_JSON_TYPES: Final = frozenset({str, int, float, bool, type(None), dict, list})


def _model_to_wire(value: pydantic.BaseModel) -> Any:
    from mcpkit.types.base import McpModel

    if isinstance(value, McpModel):  # protocol models omit unset optionals
        return value.to_wire()
    return value.model_dump(by_alias=True, mode="json")


def arguments_to_wire(arguments: Mapping[str, Any] | pydantic.BaseModel) -> JSONObject:
    """Tool arguments as a JSON object: a model is dumped, and so is each argument value that
    is not plain JSON (models, dataclasses, ...); plain values are passed as they are."""
    if isinstance(arguments, pydantic.BaseModel):
        wire = _model_to_wire(arguments)
        if not isinstance(wire, dict):
            raise TypeError(f"Tool arguments must dump to an object, not {type(wire).__name__}")
        return wire
    out = dict(arguments)
    for key, value in out.items():
        if type(value) not in _JSON_TYPES:
            if isinstance(value, pydantic.BaseModel):
                out[key] = _model_to_wire(value)
            else:
                out[key] = pydantic_core.to_jsonable_python(value, by_alias=True)
    return out


def ref_to_wire(ref: object) -> JSONObject:
    """A completion reference (see :data:`CompletionRef`) in its wire form; anything else
    is refused with -32602 before sending."""
    if isinstance(ref, pydantic.BaseModel):
        return ref.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(ref, Mapping):
        return dict(ref)
    if isinstance(ref, str):
        if "://" in ref or "{" in ref:
            return {"type": "ref/resource", "uri": ref}
        return {"type": "ref/prompt", "name": ref}
    raise McpError(INVALID_PARAMS, f"A completion ref must be a reference or a string, not {ref!r}")
