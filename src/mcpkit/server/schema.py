"""Type hints -> JSON Schema 2020-12, and argument validators compiled once per function.

:func:`analyze` looks at a handler's signature once, at registration: which parameter wants
the :class:`~mcpkit.server.context.Context` (found by type, not name), the JSON Schema of the
other parameters (through a pydantic model built with ``create_model``), and a fast
``validate(arguments) -> kwargs`` that runs the compiled pydantic validator. A hand-written
JSON Schema may replace the generated one; it is then validated with
:func:`mcpkit.json_schema.compile_schema` (2020-12 unless ``$schema`` says otherwise).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Union, get_args, get_origin

import jsonschema_rs
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo
from typing_extensions import is_typeddict

from mcpkit.json_schema import SchemaValidator, compile_schema

__all__ = [
    "ArgumentsError",
    "OutputSpec",
    "Signature",
    "analyze",
    "output_spec",
    "validation_message",
]

NO_ARGUMENTS_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False}


class ArgumentsError(ValueError):
    """Arguments did not validate; the message names the offending field."""


def validation_message(exc: ValidationError, limit: int = 3) -> str:
    """A short message naming each offending field (``'days': Input should be ...``)."""
    parts: list[str] = []
    for err in exc.errors(include_url=False)[:limit]:
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "missing":
            msg = "Field required"
        elif err["type"] == "extra_forbidden":
            msg = "Unexpected argument"
        parts.append(f"'{loc}': {msg}" if loc else msg)
    more = exc.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def schema_errors_message(validator: SchemaValidator, instance: Any, limit: int = 3) -> str:
    """Schema errors in the style of :func:`validation_message` (each names its field)."""
    parts: list[str] = []
    # The compiled jsonschema-rs validator, for the structured error kinds.
    for err in validator._validator.iter_errors(instance):
        path = [str(p) for p in err.instance_path]
        kind = err.kind
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
            parts.append(f"'{'.'.join([*path, str(kind.property)])}': Field required")
        elif isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
            parts.extend(
                f"'{'.'.join([*path, str(name)])}': Unexpected argument" for name in kind.unexpected
            )
        else:
            message = err.message
            parts.append(f"'{'.'.join(path)}': {message}" if path else message)
        if len(parts) >= limit:
            break
    return "; ".join(parts[:limit]) or "Arguments do not match the input schema"


def _is_context(hint: Any, context_type: type) -> bool:
    if isinstance(hint, type):
        return issubclass(hint, context_type)
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        args = [a for a in get_args(hint) if a is not type(None)]
        return len(args) == 1 and _is_context(args[0], context_type)
    if origin is typing.Annotated:
        return _is_context(get_args(hint)[0], context_type)
    return False


def type_hints(fn: Callable[..., Any], localns: dict[str, Any] | None = None) -> dict[str, Any]:
    """Resolved annotations of ``fn`` (string annotations included), extras kept."""
    target = fn
    if not (inspect.isfunction(target) or inspect.ismethod(target)) and callable(fn):
        target = fn.__call__  # type: ignore[operator]
    try:
        return typing.get_type_hints(target, localns=localns, include_extras=True)
    except Exception:
        return dict(getattr(target, "__annotations__", {}))


class Signature:
    """What registration learned about one handler's parameters."""

    __slots__ = (
        "_field_to_param",
        "_pass_as",
        "_raw_validator",
        "_strict_validator",
        "_validator",
        "context_param",
        "has_var_keyword",
        "input_schema",
        "model",
        "param_names",
    )

    def __init__(self) -> None:
        self.context_param: str | None = None
        self.param_names: list[str] = []
        self.input_schema: dict[str, Any] = dict(NO_ARGUMENTS_SCHEMA)
        self.model: type[BaseModel] | None = None
        self.has_var_keyword = False
        self._field_to_param: list[tuple[str, str]] = []
        self._raw_validator: SchemaValidator | None = None
        self._strict_validator: SchemaValidator | None = None
        self._pass_as: str | None = None
        self._validator: Any = None

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Keyword arguments for the function; raise :class:`ArgumentsError`."""
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise ArgumentsError("Arguments must be an object")
        raw = self._raw_validator
        if raw is not None:
            if not raw.is_valid(arguments):
                raise ArgumentsError("; ".join(raw.errors(arguments, limit=3)))
            if self._pass_as is not None:
                return {self._pass_as: arguments}
            return dict(arguments)
        validator = self._validator
        if validator is None:
            if arguments:
                names = ", ".join(f"'{k}'" for k in list(arguments)[:3])
                raise ArgumentsError(f"{names}: Unexpected argument (this takes no arguments)")
            return {}
        strict = self._strict_validator
        try:
            if strict is not None and not strict.is_valid(arguments):
                # Pydantic's message is the more precise one when it rejects too (it looks
                # inside unions); otherwise only the schema's JSON semantics rejected them.
                validator.validate_python(arguments)
                raise ArgumentsError(schema_errors_message(strict, arguments))
            instance = validator.validate_python(arguments)
        except ValidationError as exc:
            raise ArgumentsError(validation_message(exc)) from None
        values = instance.__dict__
        kwargs = {param: values[field] for field, param in self._field_to_param}
        if self.has_var_keyword and instance.__pydantic_extra__:
            kwargs.update(instance.__pydantic_extra__)
        return kwargs


def _field_name(name: str) -> str:
    if name.startswith("_") or hasattr(BaseModel, name):
        return f"arg_{name.lstrip('_')}_"
    return name


def analyze(
    fn: Callable[..., Any],
    context_type: type,
    *,
    input_schema: dict[str, Any] | None = None,
    model_name: str = "Arguments",
    strings_only: bool = False,
    strict: bool = False,
) -> Signature:
    """Inspect ``fn`` once and build its argument validator.

    ``strict``: the generated input schema is the contract. Arguments are first checked
    against it with a validator compiled here (JSON semantics: ``"5"`` is not an integer,
    ``5`` is a number, objects are accepted for models/dataclasses/TypedDicts), then converted
    by pydantic (enums, datetimes, models, ...). Without it (prompt arguments and URI template
    variables, which arrive as strings) pydantic's lax conversion alone decides.

    ``input_schema`` (a hand-written JSON Schema) replaces the generated one; the function
    then receives the arguments as keywords (or as one dict, when its only parameter is
    called ``arguments``).
    """
    sig = Signature()
    hints = type_hints(fn, {context_type.__name__: context_type})
    parameters = inspect.signature(fn).parameters
    fields: dict[str, Any] = {}
    for name, param in parameters.items():
        hint = hints.get(name, Any)
        if param.annotation is inspect.Parameter.empty:
            hint = Any
        if _is_context(hint, context_type):
            sig.context_param = name
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            sig.has_var_keyword = True
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise TypeError(f"{fn!r}: positional-only parameter {name!r} is not supported")
        sig.param_names.append(name)
        default = param.default
        fname = _field_name(name)
        if fname != name:
            hint = typing.Annotated[hint, Field(alias=name)]
        if default is inspect.Parameter.empty:
            fields[fname] = (hint, ...)
        else:
            fields[fname] = (hint, default)
        sig._field_to_param.append((fname, name))

    if input_schema is not None:
        if not isinstance(input_schema, Mapping) or input_schema.get("type") != "object":
            raise ValueError('input_schema must be a JSON Schema object with "type": "object"')
        sig.input_schema = dict(input_schema)
        sig._raw_validator = compile_schema(sig.input_schema)
        if sig.param_names == ["arguments"]:
            sig._pass_as = "arguments"
        return sig

    if not fields and not sig.has_var_keyword:
        return sig
    config = ConfigDict(
        extra="allow" if sig.has_var_keyword else "forbid",
        arbitrary_types_allowed=False,
        populate_by_name=False,
        coerce_numbers_to_str=strings_only,
    )
    model = create_model(model_name, __config__=config, **fields)
    sig.model = model
    sig._validator = model.__pydantic_validator__
    schema = model.model_json_schema(by_alias=True)
    schema.pop("title", None)
    if not schema.get("properties") and not sig.has_var_keyword:
        schema = dict(NO_ARGUMENTS_SCHEMA)
    sig.input_schema = schema
    if strict:
        sig._strict_validator = compile_schema(schema)
    return sig


# -- output ----------------------------------------------------------------------------------


class OutputSpec:
    """How a tool's return value becomes ``structuredContent``."""

    __slots__ = ("adapter", "schema", "validator", "wrap")

    def __init__(self, schema: dict[str, Any], adapter: TypeAdapter[Any], wrap: bool) -> None:
        self.schema = schema
        self.adapter = adapter
        self.wrap = wrap
        self.validator = compile_schema(schema)

    def structured(self, value: Any) -> Any:
        """The JSON-ready ``structuredContent`` for ``value``."""
        data = self.adapter.dump_python(value, mode="json", warnings=False)
        return {"result": data} if self.wrap else data


def _is_object_type(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    if origin is typing.Annotated:
        return _is_object_type(get_args(tp)[0])
    if isinstance(origin, type):
        if issubclass(origin, BaseModel) or dataclasses.is_dataclass(origin):
            return True
        if is_typeddict(origin):
            return True
        if issubclass(origin, Mapping):
            args = get_args(tp)
            return not args or args[0] is str
    return False


def output_spec(
    return_type: Any,
    structured_output: bool | None,
    content_types: tuple[type, ...],
    output_schema: dict[str, Any] | None = None,
) -> OutputSpec | None:
    """The structured-output plan for a return annotation, or None for content-only tools.

    Automatic (``structured_output=None``): models, dataclasses, TypedDicts and ``dict``
    give their own schema; other JSON-able types (int, float, bool, lists, unions, ...) are
    wrapped as ``{"result": ...}``; ``str``, bytes, content helpers and unannotated functions
    give none. ``True`` forces a schema (``str`` wrapped too); ``False`` turns it off.
    """
    if output_schema is not None:
        if output_schema.get("type") != "object":
            raise ValueError('output_schema must be a JSON Schema with "type": "object"')
        adapter: TypeAdapter[Any] = TypeAdapter(Any)
        return OutputSpec(dict(output_schema), adapter, wrap=False)
    if structured_output is False:
        return None
    empty = return_type is inspect.Parameter.empty or return_type is None
    if empty or return_type is type(None) or return_type is Any or return_type is object:
        if structured_output:
            raise ValueError("structured_output=True needs a return annotation")
        return None
    if structured_output is None and _is_content_like(return_type, content_types):
        return None
    adapter = TypeAdapter(return_type)
    schema = adapter.json_schema(mode="serialization")
    if _is_object_type(return_type):
        schema.setdefault("type", "object")
        return OutputSpec(schema, adapter, wrap=False)
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return OutputSpec(wrapped, adapter, wrap=True)


def _is_content_like(tp: Any, content_types: tuple[type, ...]) -> bool:
    if tp is str or tp is bytes or tp is bytearray:
        return True
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return _is_content_like(get_args(tp)[0], content_types)
    if origin is Union or origin is types.UnionType:
        return any(_is_content_like(a, content_types) for a in get_args(tp) if a is not type(None))
    if origin in (list, tuple, typing.Sequence, set, frozenset) or (
        isinstance(origin, type) and origin.__module__ == "collections.abc"
    ):
        args = [a for a in get_args(tp) if a is not Ellipsis]
        return any(
            a is Any or a is object or (a is not str and _is_content_like(a, content_types))
            for a in args
        )
    if isinstance(tp, type):
        return issubclass(tp, content_types)
    return False


def is_field_info(value: Any) -> bool:
    """True for a pydantic ``Field(...)`` default."""
    return isinstance(value, FieldInfo)
