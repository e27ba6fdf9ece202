"""Serving ``elicitation/create``: the server asks the user for input, through the client.

The user's handler receives the typed params — :class:`~mcpkit.types.ElicitRequestFormParams`
(form mode: ``message`` and the restricted ``requested_schema``) or
:class:`~mcpkit.types.ElicitRequestURLParams` (URL mode: ``message``, ``url``,
``elicitation_id``) — and the request context, and returns an
:class:`~mcpkit.types.ElicitResult` (or its wire dict, or just the action string
``"decline"`` / ``"cancel"``).

Form mode: defaults declared in the schema are filled in for fields the reply omits
(SEP-1034), then the reply is checked against the schema (by its ``$schema`` dialect). URL
mode is declared only when the handler supports it (``supports_url = True`` on the handler
or ``Client(elicitation_handler=Elicitation(handler, modes=("form", "url")))``). A request
for an undeclared mode gets -32602, as the spec requires.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.client._util import logger, maybe_await, parse_params, to_result_dict
from mcpkit.errors import McpError
from mcpkit.json_schema import (
    InvalidSchemaError,
    SchemaValidator,
    UnsupportedDialectError,
    compile_schema,
)
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject

if TYPE_CHECKING:
    from mcpkit.session import RequestContext
    from mcpkit.types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

__all__ = [
    "Elicitation",
    "ElicitationHandler",
    "apply_defaults",
    "elicitation_capability",
    "elicitation_modes",
    "serve_elicitation",
]

ElicitationHandler = Callable[
    ["ElicitRequestFormParams | ElicitRequestURLParams", "RequestContext"],
    "Awaitable[ElicitResult | dict[str, Any] | str] | ElicitResult | dict[str, Any] | str",
]


@dataclass(frozen=True, slots=True)
class Elicitation:
    """An elicitation handler with its settings: ``Client(elicitation_handler=
    Elicitation(handler, modes=("form", "url")))``. ``modes``: the modes to declare (None:
    the handler's ``supports_form`` / ``supports_url`` attributes decide)."""

    handler: ElicitationHandler
    modes: Collection[str] | None = None


def elicitation_modes(handler: Any, modes: Collection[str] | None) -> tuple[str, ...]:
    """The modes to declare for ``handler`` (explicit ``modes`` win)."""
    if modes is not None:
        chosen = tuple(m for m in ("form", "url") if m in modes)
        unknown = set(modes) - {"form", "url"}
        if unknown or not chosen:
            raise ValueError(f"elicitation modes must be 'form' and/or 'url', got {modes!r}")
        return chosen
    chosen = ()
    if getattr(handler, "supports_form", True):
        chosen += ("form",)
    if getattr(handler, "supports_url", False):
        chosen += ("url",)
    return chosen or ("form",)


def elicitation_capability(modes: tuple[str, ...]) -> JSONObject:
    """The ``elicitation`` capability object for ``modes``."""
    return {m: {} for m in modes}


def apply_defaults(schema: JSONObject, content: dict[str, Any]) -> dict[str, Any]:
    """``content`` with each omitted property set to its schema ``default`` (SEP-1034)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return content
    out = dict(content)
    for name, prop in props.items():
        if name not in out and isinstance(prop, dict) and "default" in prop:
            out[name] = prop["default"]
    return out


class _ValidatorCache:
    """Compiled validators for requested schemas (servers tend to reuse a few forms)."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._items: OrderedDict[bytes, SchemaValidator] = OrderedDict()

    def get(self, schema: JSONObject) -> SchemaValidator:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
            return found
        validator = compile_schema(schema)
        self._items[key] = validator
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return validator


def serve_elicitation(
    handler: ElicitationHandler,
    modes: tuple[str, ...],
    on_url_accepted: Callable[[str], object] | None = None,
) -> Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]:
    """A session request handler for ``elicitation/create`` around ``handler``."""
    from mcpkit.types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

    cache = _ValidatorCache()

    async def serve(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        mode = params.get("mode", "form") if isinstance(params, dict) else "form"
        if mode not in ("form", "url"):
            raise McpError(INVALID_PARAMS, f"Unknown elicitation mode {mode!r}")
        if mode not in modes:
            raise McpError(
                INVALID_PARAMS,
                f"This client did not declare support for {mode!r} mode elicitation",
            )
        typed: ElicitRequestFormParams | ElicitRequestURLParams
        validator: SchemaValidator | None = None
        raw_schema: JSONObject = {}
        if mode == "url":
            typed = parse_params(ElicitRequestURLParams, params, "elicitation/create")
        else:
            typed = parse_params(ElicitRequestFormParams, params, "elicitation/create")
            assert isinstance(params, dict)
            raw_schema = params["requestedSchema"]
            try:
                validator = cache.get(raw_schema)
            except (UnsupportedDialectError, InvalidSchemaError) as exc:
                raise McpError(INVALID_PARAMS, f"Invalid requestedSchema: {exc}") from None
        value = await maybe_await(handler(typed, ctx))
        if isinstance(value, str):
            value = {"action": value}
        result = to_result_dict(ElicitResult, value, "elicitation handler")
        if result["action"] != "accept":
            result.pop("content", None)
        elif validator is not None:
            content = apply_defaults(raw_schema, result.get("content") or {})
            errors = validator.errors(content)
            if errors:
                logger.error("Elicitation reply does not match the schema: %s", errors)
                raise McpError(
                    INTERNAL_ERROR,
                    "The client's elicitation reply does not match the requested schema: "
                    + "; ".join(errors),
                )
            result["content"] = content
        elif mode == "url":
            result.pop("content", None)
            if on_url_accepted is not None and isinstance(typed, ElicitRequestURLParams):
                on_url_accepted(typed.elicitation_id)
        return result

    return serve
