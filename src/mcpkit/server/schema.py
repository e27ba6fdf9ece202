"""Type hints -> JSON Schema 2020-12, and argument validators compiled once per function.

:func:`analyze` looks at a handler's signature once, at registration: which parameter wants
the :class:`~mcpkit.server.context.Context` (found by type, not name), the JSON Schema of the
other parameters, and a fast ``validate(arguments) -> kwargs``. Simple signatures (JSON
primitives, ``Optional``, string/bool ``Literal``, lists and ``dict[str, ...]`` of those,
JSON defaults) get their schema and conversion from a small hand-written path that gives
exactly what pydantic would (tests/test_schema_light.py compares them), so a server with
only such handlers never imports pydantic; everything else goes through a pydantic model
built with ``create_model`` and its compiled validator. A hand-written
JSON Schema may replace the generated one; it is then validated with
:func:`mcpkit.json_schema.compile_schema` (2020-12 unless ``$schema`` says otherwise).
The rules the arguments are checked by (strict JSON types or pydantic's lax conversion,
unknown arguments refused or dropped, the error's wording) are an
:class:`~mcpkit.server.argument_policy.ArgumentPolicy` given at registration.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import itertools
import json
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Union, get_args, get_origin

from mcpkit._lazy import lazy_module
from mcpkit._models import is_model_class, to_jsonable
from mcpkit.json_schema import (
    FlatObjectCheck,
    SchemaValidator,
    compile_schema,
    flat_object_check,
    inline_local_refs,
    nested_too_deeply,
)
from mcpkit.server.argument_policy import STRICT, ArgumentPolicy

if TYPE_CHECKING:
    import jsonschema_rs
    from pydantic import BaseModel, TypeAdapter, ValidationError
else:  # its error kinds, for messages (loaded with the first validator anyway)
    jsonschema_rs = lazy_module("jsonschema_rs", globals(), "jsonschema_rs")

__all__ = [
    "ArgumentsError",
    "OutputSpec",
    "Signature",
    "analyze",
    "choices_of",
    "output_spec",
    "pydantic_compatible",
    "type_hints",
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
    try:
        # The compiled jsonschema-rs validator, for the structured error kinds.
        errors = list(itertools.islice(validator._validator.iter_errors(instance), limit))
    except ValueError as exc:  # its limits (a value nested hundreds of levels deep)
        return nested_too_deeply(exc)
    for err in errors:
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
    # Context[State]: the parameterised form of the context class.
    return isinstance(origin, type) and issubclass(origin, context_type)


def type_hints(fn: Callable[..., Any], localns: dict[str, Any] | None = None) -> dict[str, Any]:
    """Resolved annotations of ``fn`` (string annotations included), extras kept."""
    target = fn
    if not (inspect.isfunction(target) or inspect.ismethod(target)) and callable(fn):
        target = fn.__call__  # type: ignore[operator]
    try:
        hints = typing.get_type_hints(target, localns=localns, include_extras=True)
    except Exception:
        return dict(getattr(target, "__annotations__", {}))
    if sys.version_info < (3, 12):
        hints = {name: pydantic_compatible(hint) for name, hint in hints.items()}
    return hints


_compatible_typeddicts: dict[type, type] = {}


def pydantic_compatible(hint: Any) -> Any:
    """``hint`` with every ``typing.TypedDict`` in it (nested in generics, unions,
    ``Annotated`` and other TypedDicts' fields) replaced by the same
    ``typing_extensions.TypedDict``: before Python 3.12 pydantic accepts only the latter.
    Anything else is returned as it is."""
    if isinstance(hint, type):
        if _is_typing_typeddict(hint):
            return _typeddict_copy(hint)
        return hint
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is None or not args or origin is Literal:
        return hint
    if origin is typing.Annotated:
        inner = pydantic_compatible(args[0])
        return hint if inner is args[0] else typing.Annotated[inner, *hint.__metadata__]
    converted = tuple(pydantic_compatible(a) for a in args)
    if all(c is a for c, a in zip(converted, args, strict=True)):
        return hint
    if origin is Union or origin is types.UnionType:
        return Union[converted]  # noqa: UP007
    try:
        return origin[converted if len(converted) > 1 else converted[0]]
    except TypeError:
        return hint


def _is_typing_typeddict(tp: type) -> bool:
    if not typing.is_typeddict(tp):
        return False
    import typing_extensions

    return not isinstance(tp, type(typing_extensions.TypedDict("Shape", {})))  # type: ignore[operator]


def _typeddict_copy(tp: type) -> type:
    done = _compatible_typeddicts.get(tp)
    if done is not None:
        return done
    if getattr(tp, "__parameters__", ()):
        return tp  # a generic TypedDict: left to pydantic as it is
    import typing_extensions

    try:
        fields = typing.get_type_hints(tp, include_extras=True)
    except Exception:
        return tp
    required: frozenset[str] = tp.__required_keys__  # type: ignore[attr-defined]
    spec: dict[str, Any] = {}
    for key, field in fields.items():
        while get_origin(field) in (typing.Required, typing.NotRequired):
            field = get_args(field)[0]
        field = pydantic_compatible(field)
        spec[key] = (
            typing_extensions.Required[field]
            if key in required
            else typing_extensions.NotRequired[field]
        )
    make: Any = typing_extensions.TypedDict
    copy: type = make(tp.__name__, spec)
    copy.__doc__ = tp.__doc__
    copy.__module__ = tp.__module__
    copy.__qualname__ = tp.__qualname__
    _compatible_typeddicts[tp] = copy
    return copy


class Signature:
    """What registration learned about one handler's parameters."""

    __slots__ = (
        "_choices",
        "_fast_check",
        "_field_to_param",
        "_ignore_unknown",
        "_json_text",
        "_light",
        "_pass_as",
        "_raw_validator",
        "_report",
        "_strict_validator",
        "_validation_error",
        "_validator",
        "context_param",
        "has_var_keyword",
        "input_schema",
        "model",
        "param_names",
        "plain_check",
        "policy",
    )

    def __init__(self) -> None:
        self.context_param: str | None = None
        self.param_names: list[str] = []
        self.input_schema: dict[str, Any] = dict(NO_ARGUMENTS_SCHEMA)
        self.model: type[BaseModel] | None = None
        self.has_var_keyword = False
        #: The rules its arguments are checked by.
        self.policy = STRICT
        self._field_to_param: list[tuple[str, str]] = []
        self._raw_validator: SchemaValidator | None = None
        self._strict_validator: SchemaValidator | None = None
        self._fast_check: FlatObjectCheck | None = None
        self._pass_as: str | None = None
        self._validator: Any = None
        self._validation_error: type[ValidationError] | None = None
        # The hand-written path: (param, converter) for the parameters that need converting.
        self._light: list[tuple[str, Callable[[Any], Any]]] | None = None
        #: ``plain_check(arguments)`` (a dict): True when :meth:`validate` would return
        #: them as they are (a closed schema of primitives, no value of them converted),
        #: so a caller may pass them on without it; False: ask :meth:`validate`. None
        #: when there is no such check.
        self.plain_check: Callable[[dict[str, Any]], bool] | None = None
        self._choices: dict[str, list[str]] = {}
        # The policy's rules for the pydantic path (see ArgumentPolicy).
        self._ignore_unknown = False
        self._json_text: frozenset[str] | None = None  # the keys whose JSON text is read
        self._report: Callable[[ValidationError], str] = validation_message

    def choices(self, name: str) -> list[str] | None:
        """The fixed choices (``Literal`` / ``Enum``) of parameter ``name``, if it has them."""
        if self.model is None:
            return self._choices.get(name)
        return choices_of(self.model, name)

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Keyword arguments for the function; raise :class:`ArgumentsError`."""
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise ArgumentsError("Arguments must be an object")
        light = self._light
        if light is not None:
            fast = self._fast_check  # primitive-typed properties: no engine needed
            if fast is None or not fast.matches(arguments):
                checker = self._strict_validator
                if checker is None:  # compiled on first use
                    checker = self._strict_validator = compile_schema(self.input_schema)
                if not checker.is_valid(arguments):
                    raise ArgumentsError(schema_errors_message(checker, arguments))
            kwargs = dict(arguments)
            for param, convert in light:
                if param in kwargs:
                    kwargs[param] = convert(kwargs[param])
            return kwargs
        raw = self._raw_validator
        if raw is not None:
            if not raw.is_valid(arguments):
                raise ArgumentsError("; ".join(raw.errors(arguments, limit=3)))
            if self._pass_as is not None:
                return {self._pass_as: arguments}
            return dict(arguments)
        validator = self._validator
        if validator is None:
            if arguments and not self._ignore_unknown:
                names = ", ".join(f"'{k}'" for k in list(arguments)[:3])
                raise ArgumentsError(f"{names}: Unexpected argument (this takes no arguments)")
            return {}
        strict = self._strict_validator
        validation_error = self._validation_error
        assert validation_error is not None
        if self._json_text is not None:
            arguments = _json_text_read(arguments, self._json_text)
        try:
            if strict is not None and not strict.is_valid(arguments):
                # Pydantic's message is the more precise one when it rejects too (it looks
                # inside unions); otherwise only the schema's JSON semantics rejected them.
                validator.validate_python(arguments)
                raise ArgumentsError(schema_errors_message(strict, arguments))
            values, extra, _ = validator.validate_python(arguments)
        except validation_error as exc:
            raise ArgumentsError(self._report(exc)) from None
        kwargs = {param: values[field] for field, param in self._field_to_param}
        if extra:
            kwargs.update(extra)
        return kwargs


def _json_text_read(arguments: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """``arguments`` with the strings given for ``keys`` read as JSON where they hold an
    array, an object or null (a number, a boolean or a string in quotes stays as sent)."""
    out = arguments
    for key, value in arguments.items():
        if type(value) is str and key in keys:
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if isinstance(parsed, str | int | float):  # bool too
                continue
            if out is arguments:
                out = dict(arguments)
            out[key] = parsed
    return out


def _field_name(name: str) -> str:
    if name.startswith("_") or name in _MODEL_ATTRIBUTES or name.startswith("model_"):
        return f"arg_{name.lstrip('_')}_"
    return name


#: Non-dunder attributes of ``pydantic.BaseModel`` (a field cannot be called so).
_MODEL_ATTRIBUTES = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)


# -- the hand-written path for simple signatures ---------------------------------------------


class _Unsupported(Exception):
    """The hint (or default) needs pydantic."""


def _to_int(value: Any) -> Any:
    # The schema let it through as an integer: 5.0 -> 5 (pydantic's lax int).
    return int(value) if type(value) is float else value


def _to_float(value: Any) -> Any:
    return float(value) if type(value) is int else value


def _optional(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


#: ``Optional[int]``'s converter, made once.
_OPTIONAL_INT: Final = _optional(_to_int)
#: The converters that change no value a flat check accepts (an integer is an int there:
#: no float reaches them).
_UNCHANGING: Final = (_to_int, _OPTIONAL_INT)


def _list_of(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: [convert(v) for v in value]


def _dict_of(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: {k: convert(v) for k, v in value.items()}


_PRIMITIVES: dict[Any, tuple[str, Callable[[Any], Any] | None]] = {
    str: ("string", None),
    int: ("integer", _to_int),
    float: ("number", _to_float),
    bool: ("boolean", None),
    type(None): ("null", None),
    None: ("null", None),
}


def _light_type(tp: Any, lax: bool) -> tuple[dict[str, Any], Callable[[Any], Any] | None]:
    """(JSON Schema, converter or None for identity) of a simple hint, as pydantic makes it.

    ``lax`` (strings from the wire, converted by pydantic's lax mode): only hints whose
    lax conversion of a string is the identity (``str``, ``Any``, string literals,
    ``Optional`` of those); anything else raises :class:`_Unsupported`.
    """
    if tp is Any:
        return {}, None
    primitive = _PRIMITIVES.get(tp) if isinstance(tp, type) or tp is None else None
    if primitive is not None:
        name, convert = primitive
        if lax and name != "string":
            raise _Unsupported
        return {"type": name}, convert
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        if len(args) != 2 or type(None) not in args:
            raise _Unsupported
        # pydantic puts null last whatever the order in the hint.
        other = args[1] if args[0] is type(None) else args[0]
        inner, inner_convert = _light_type(other, lax)
        if not inner or "anyOf" in inner:
            raise _Unsupported
        parts = [inner, {"type": "null"}]
        if inner_convert is None:
            return {"anyOf": parts}, None
        if inner_convert is _to_int:
            return {"anyOf": parts}, _OPTIONAL_INT
        return {"anyOf": parts}, _optional(inner_convert)
    if origin is Literal:
        values = get_args(tp)
        if not values or len(set(values)) != len(values):
            raise _Unsupported
        if all(type(v) is str for v in values):
            kind = "string"
        elif all(type(v) is bool for v in values) and not lax:
            kind = "boolean"
        else:
            raise _Unsupported
        if len(values) == 1:
            return {"const": values[0], "type": kind}, None
        return {"enum": list(values), "type": kind}, None
    if lax:
        raise _Unsupported
    if tp is list or origin is list:
        args = get_args(tp)
        if not args:
            return {"items": {}, "type": "array"}, None
        items, convert = _light_type(args[0], lax)
        return {"items": items, "type": "array"}, (None if convert is None else _list_of(convert))
    if tp is dict or origin is dict:
        args = get_args(tp)
        if not args or (args[0] is str and args[1] is Any):
            return {"additionalProperties": True, "type": "object"}, None
        if args[0] is not str:
            raise _Unsupported
        values_schema, convert = _light_type(args[1], lax)
        schema = {"additionalProperties": values_schema, "type": "object"}
        return schema, (None if convert is None else _dict_of(convert))
    raise _Unsupported


def _is_json(value: Any) -> bool:
    tp = type(value)
    if tp is str or tp is int or tp is bool or value is None:
        return True
    if tp is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if tp is list:
        return all(_is_json(v) for v in value)
    if tp is dict:
        return all(type(k) is str and _is_json(v) for k, v in value.items())
    return False


def _sorted(value: Any, parent_key: str | None = None) -> Any:
    """Keys sorted as pydantic sorts its JSON Schemas (not under properties/default)."""
    if isinstance(value, dict):
        keys = value.keys() if parent_key in ("properties", "default") else sorted(value)
        return {k: _sorted(value[k], k) for k in keys}
    if isinstance(value, list):
        return [_sorted(v, parent_key) for v in value]
    return value


def _light_signature(sig: Signature, fields: dict[str, tuple[Any, Any]], lax: bool) -> bool:
    """Fill ``sig`` by the hand-written path; False when a parameter needs pydantic."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: list[tuple[str, Callable[[Any], Any]]] = []
    choices: dict[str, list[str]] = {}
    for name, (hint, default) in fields.items():
        try:
            schema, convert = _light_type(hint, lax)
        except _Unsupported:
            return False
        prop = dict(schema)
        if default is ...:
            required.append(name)
        else:
            if not _is_json(default):
                return False
            prop["default"] = default
        prop["title"] = name.title().replace("_", " ").strip()
        properties[name] = _sorted(prop)
        if convert is not None:
            converters.append((name, convert))
        literal = hint
        if get_origin(literal) in (Union, types.UnionType):
            literal = next(a for a in get_args(literal) if a is not type(None))
        if get_origin(literal) is Literal:
            choices[name] = [str(v) for v in get_args(literal)]
    schema_out: dict[str, Any] = {"additionalProperties": False, "properties": properties}
    if required:
        schema_out["required"] = required
    schema_out["type"] = "object"
    sig.input_schema = schema_out  # its validator is compiled on first use (see validate)
    fast = sig._fast_check = flat_object_check(schema_out)
    sig._light = converters
    unchanged = all(convert in _UNCHANGING for _, convert in converters)
    sig.plain_check = fast.matches if fast is not None and unchanged else None
    sig._choices = choices
    return True


def analyze(
    fn: Callable[..., Any],
    context_type: type,
    *,
    input_schema: dict[str, Any] | None = None,
    model_name: str = "Arguments",
    strings_only: bool = False,
    strict: bool = False,
    inline_refs: bool = True,
    policy: ArgumentPolicy = STRICT,
) -> Signature:
    """Inspect ``fn`` once and build its argument validator.

    ``strict``: the generated input schema is the contract. Arguments are first checked
    against it with a validator compiled once (JSON semantics: ``"5"`` is not an integer,
    ``5`` is a number, objects are accepted for models/dataclasses/TypedDicts), then converted
    by pydantic (enums, datetimes, models, ...). Without it (prompt arguments and URI template
    variables, which arrive as strings) pydantic's lax conversion alone decides.

    ``input_schema`` (a hand-written JSON Schema) replaces the generated one; the function
    then receives the arguments as keywords (or as one dict, when its only parameter is
    called ``arguments``).

    ``inline_refs``: the generated schema has its local ``$ref``/``$defs`` (nested models)
    inlined, which LLM clients read best (:func:`mcpkit.json_schema.inline_local_refs`;
    recursive models keep their references); False leaves pydantic's schema as it is.

    ``policy``: the rules the arguments are checked by (:mod:`mcpkit.server.argument_policy`;
    a lax one replaces ``strict``'s schema check with pydantic's lax conversion).
    """
    sig = Signature()
    sig._ignore_unknown = policy.unknown == "ignore"
    sig.policy = policy
    if policy.lax:
        strict = False
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
            from pydantic import Field

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
    simple = not sig.has_var_keyword and not strings_only
    renamed = any(f != p for f, p in sig._field_to_param)
    if simple and not renamed and not policy.lax and _light_signature(sig, fields, not strict):
        return sig
    from pydantic import ConfigDict, PydanticUserError, ValidationError, create_model

    sig._validation_error = ValidationError
    # No ``extra`` here: pydantic hands a model's config down to the TypedDicts and stdlib
    # dataclasses in its fields, which would then refuse (or keep) their own extra keys.
    # The arguments themselves get their rule afterwards, at the top level only.
    config = ConfigDict(
        arbitrary_types_allowed=False,
        populate_by_name=False,
        coerce_numbers_to_str=strings_only,
    )
    try:
        model = create_model(model_name, __config__=config, **fields)
        schema = model.model_json_schema(by_alias=True)
    except PydanticUserError:
        raise _unsupported_parameter(fn, fields) from None
    sig.model = model
    unknown: Literal["ignore", "forbid"] = "ignore" if sig._ignore_unknown else "forbid"
    sig._validator = _fields_validator(model, "allow" if sig.has_var_keyword else unknown)
    if policy.report == "pydantic":
        sig._report = str
    if policy.json_text:
        sig._json_text = frozenset(
            key
            for name, info in model.model_fields.items()
            if info.annotation is not str
            for key in (name, info.alias or name)
        )
    schema["additionalProperties"] = sig.has_var_keyword
    schema = {key: schema[key] for key in sorted(schema)}  # pydantic's order
    schema.pop("title", None)
    if inline_refs:
        schema = inline_local_refs(schema)
    if not schema.get("properties") and not sig.has_var_keyword:
        schema = dict(NO_ARGUMENTS_SCHEMA)
    sig.input_schema = schema
    if strict:
        sig._strict_validator = compile_schema(schema)
    return sig


def _fields_validator(model: type[BaseModel], extra: Literal["allow", "forbid", "ignore"]) -> Any:
    """A validator of ``model``'s fields alone (``validate_python`` gives ``(values, extra,
    fields set)``, no model instance), with ``extra`` as the rule for unknown arguments at
    their level only: the types in the fields keep their own."""
    from pydantic_core import SchemaValidator as CoreValidator

    core: dict[str, Any] = dict(model.__pydantic_core_schema__)
    outer = core["schema"] if core["type"] == "definitions" else core
    if outer["type"] != "model":
        raise TypeError(f"unexpected core schema for {model.__name__}: {outer['type']}")
    fields = {**outer["schema"], "extra_behavior": extra}
    if core["type"] == "definitions":
        core["schema"] = fields
    else:
        core = fields
    return CoreValidator(core, outer.get("config"))


_JSON_TYPES = (
    "use a type JSON Schema can describe: str, int, float, bool, None, list, dict, a "
    "pydantic model, a dataclass, a TypedDict, an Enum or a Literal"
)


def _type_name(hint: Any) -> str:
    name = getattr(hint, "__qualname__", None) if isinstance(hint, type) else None
    if name is not None and not hint.__module__.startswith(("builtins", "__main__", "_")):
        return f"{hint.__module__}.{name}"
    return name or repr(hint).replace("typing.", "").replace("collections.abc.", "")


def _unsupported_parameter(fn: Callable[..., Any], fields: dict[str, Any]) -> TypeError:
    """The error for a signature pydantic cannot turn into a JSON Schema: it names the
    function and the first parameter whose type is the cause."""
    from pydantic import PydanticUserError, TypeAdapter

    where = getattr(fn, "__name__", repr(fn))
    for name, (hint, _default) in fields.items():
        try:
            TypeAdapter(hint).json_schema()
        except PydanticUserError:
            shown = _type_name(typing.get_args(hint)[0] if _is_annotated(hint) else hint)
            return TypeError(
                f"{where}(): parameter {name!r} has type {shown}, which has no JSON Schema; "
                f"{_JSON_TYPES}"
            )
    return TypeError(f"{where}(): its parameters have no JSON Schema; {_JSON_TYPES}")


def _is_annotated(hint: Any) -> bool:
    return typing.get_origin(hint) is typing.Annotated


# -- output ----------------------------------------------------------------------------------


class OutputSpec:
    """How a tool's return value becomes ``structuredContent``."""

    __slots__ = ("convert", "schema", "validator", "wrap")

    def __init__(self, schema: dict[str, Any], convert: Callable[[Any], Any], wrap: bool) -> None:
        self.schema = schema
        self.convert = convert
        self.wrap = wrap
        self.validator = compile_schema(schema)

    def structured(self, value: Any) -> Any:
        """The JSON-ready ``structuredContent`` for ``value``."""
        data = self.convert(value)
        return {"result": data} if self.wrap else data


def _dumper(adapter: TypeAdapter[Any]) -> Callable[[Any], Any]:
    dump = adapter.dump_python
    return lambda value: dump(value, mode="json", warnings=False)


def _light_dump(tp: Any) -> Callable[[Any], Any]:
    """``TypeAdapter(tp).dump_python(value, mode="json", warnings=False)`` for a hint that
    :func:`_light_type` accepts (pydantic's serializer turns bools into ints for ``int``,
    ints and bools into floats for ``float``, and passes anything unexpected through)."""
    if tp is int:
        return lambda v: int(v) if type(v) is bool else to_jsonable(v)
    if tp is float:
        return lambda v: float(v) if type(v) is int or type(v) is bool else to_jsonable(v)
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        other = next(a for a in get_args(tp) if a is not type(None))
        inner = _light_dump(other)
        return lambda v: None if v is None else inner(v)
    args = get_args(tp)
    if (tp is list or origin is list) and args:
        item = _light_dump(args[0])
        return lambda v: [item(x) for x in v] if type(v) is list else to_jsonable(v)
    if (tp is dict or origin is dict) and args:
        value = _light_dump(args[1])
        return lambda v: (
            {k: value(x) for k, x in v.items()}
            if type(v) is dict and all(type(k) is str for k in v)
            else to_jsonable(v)
        )
    return to_jsonable


def _is_object_type(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    if origin is typing.Annotated:
        return _is_object_type(get_args(tp)[0])
    if isinstance(origin, type):
        if is_model_class(origin) or dataclasses.is_dataclass(origin):
            return True
        typing_extensions = sys.modules.get("typing_extensions")
        if typing.is_typeddict(origin) or (
            typing_extensions is not None and typing_extensions.is_typeddict(origin)
        ):
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
    owner: str = "the function",
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
        return OutputSpec(dict(output_schema), to_jsonable, wrap=False)
    if structured_output is False:
        return None
    empty = return_type is inspect.Parameter.empty or return_type is None
    if empty or return_type is type(None) or return_type is Any or return_type is object:
        if structured_output:
            raise ValueError("structured_output=True needs a return annotation")
        return None
    if structured_output is None and _is_content_like(return_type, content_types):
        return None
    try:
        light_schema, _ = _light_type(return_type, lax=False)
    except _Unsupported:
        from pydantic import PydanticUserError, TypeAdapter

        try:
            adapter: TypeAdapter[Any] = TypeAdapter(return_type)
            schema = adapter.json_schema(mode="serialization")
        except PydanticUserError:
            raise TypeError(
                f"{owner}: the return type {_type_name(return_type)} has no JSON Schema for "
                f"structured output; {_JSON_TYPES}, or pass structured_output=False to send "
                "the value as text"
            ) from None
        convert = _dumper(adapter)
    else:
        schema = _sorted(light_schema)
        convert = _light_dump(return_type)
    if _is_object_type(return_type):
        schema.setdefault("type", "object")
        return OutputSpec(schema, convert, wrap=False)
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return OutputSpec(wrapped, convert, wrap=True)


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


def choices_of(model: type[BaseModel] | None, field_alias: str) -> list[str] | None:
    """The fixed choices of a ``Literal`` / ``Enum`` field of ``model``, if it has them."""
    if model is None:
        return None
    for name, info in model.model_fields.items():
        if (info.alias or name) != field_alias:
            continue
        tp = info.annotation
        origin = get_origin(tp)
        if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
            args = [a for a in get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            origin = get_origin(tp)
        if origin is typing.Literal:
            return [str(a) for a in get_args(tp)]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return [str(m.value) for m in tp]
    return None
