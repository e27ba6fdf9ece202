"""Validating JSON values against JSON Schemas by their declared dialect.

MCP schemas (tool input/output schemas, elicitation schemas) are JSON Schema 2020-12 unless
they say otherwise with ``$schema``. A :class:`SchemaValidator` is compiled once (at
registration, or when a tool list arrives) and then checks values fast (jsonschema-rs).
A dialect mcpkit does not support is an error at compile time, never a silent skip.

:func:`inline_local_refs` replaces local ``$ref`` references to ``$defs`` by what they point to
(many LLM clients do not follow references); recursive definitions keep theirs.

:class:`FlatObjectCheck` answers, in plain Python, for the commonest tool schema (an object
whose properties each have one primitive type): a server whose tools take only such
arguments never loads the schema engine (a large native library).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag, urljoin

from mcpkit._defaults import DEFAULT
from mcpkit._lazy import lazy_module
from mcpkit.errors import McpkitError

if TYPE_CHECKING:
    import jsonschema_rs
else:  # a large native library: it loads with the first schema compiled
    jsonschema_rs = lazy_module("jsonschema_rs", globals(), "jsonschema_rs")

__all__ = [
    "DEFAULT_DIALECT",
    "MAX_SCHEMA_NODES",
    "SUPPORTED_DIALECTS",
    "FlatObjectCheck",
    "InvalidSchemaError",
    "SchemaTooLargeError",
    "SchemaValidator",
    "UnsupportedDialectError",
    "compile_schema",
    "expanded_size",
    "flat_object_check",
    "inline_local_refs",
    "nested_too_deeply",
]

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# dialect URI -> the name of its jsonschema-rs validator class
_DIALECTS: dict[str, str] = {
    "https://json-schema.org/draft/2020-12/schema": "Draft202012Validator",
    "https://json-schema.org/draft/2019-09/schema": "Draft201909Validator",
    "http://json-schema.org/draft-07/schema": "Draft7Validator",
    "http://json-schema.org/draft-06/schema": "Draft6Validator",
}
#: Dialect URIs accepted in ``$schema`` (with or without a trailing ``#``, http or https).
SUPPORTED_DIALECTS: tuple[str, ...] = tuple(_DIALECTS)


class UnsupportedDialectError(McpkitError, ValueError):
    """The schema declares a ``$schema`` dialect mcpkit cannot validate."""


class InvalidSchemaError(McpkitError, ValueError):
    """The schema itself is not a valid JSON Schema."""


class SchemaTooLargeError(InvalidSchemaError):
    """The schema amounts to more than :data:`MAX_SCHEMA_NODES` nodes with every ``$ref``
    expanded in place (a small schema whose references double at each step expands, and
    is validated, in exponential time)."""


#: The most nodes (objects and arrays) a schema may amount to with every ``$ref`` expanded
#: in place; a larger one is refused (:class:`SchemaTooLargeError`) before it is compiled.
#: Applies to schemas from peers (output and elicitation schemas) and to a server's own.
MAX_SCHEMA_NODES = 20_000
#: Deeper nesting than this (of the schema itself, references followed) is refused too.
_MAX_SCHEMA_DEPTH = 256
# keywords whose values are data, not schemas (a "$ref" key there is no reference)
_DATA_KEYWORDS = frozenset(("const", "enum", "default", "examples"))
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


class _Expansion:
    """Counts the nodes of a schema with its references expanded, each shared node
    counted once per use (memoised, so the count costs the schema's own size); a reference
    back into a node being expanded (recursion) counts 1."""

    def __init__(self, schema: Any, limit: int) -> None:
        self.limit = limit
        self.resources: dict[str, Any] = {}
        self.anchors: dict[tuple[str, str], Any] = {}
        self.dynamic: dict[str, list[Any]] = {}
        self.bases: dict[int, str] = {}
        self.memo: dict[int, int] = {}
        self.active: set[int] = set()
        root_base = ""
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            root_base = urldefrag(schema["$id"]).url
        self.root_base = root_base
        self.resources[""] = schema
        self._index(schema, root_base)

    def _index(self, schema: Any, base: str) -> None:
        stack: list[tuple[Any, str]] = [(schema, base)] if isinstance(schema, (dict, list)) else []
        seen = 0
        while stack:
            node, base = stack.pop()
            seen += 1
            if seen > self.limit:  # the document alone is too large
                raise SchemaTooLargeError(self.message())
            if isinstance(node, list):
                stack.extend((item, base) for item in node if isinstance(item, (dict, list)))
                continue
            found = node.get("$id")
            if isinstance(found, str):
                base = urldefrag(urljoin(base, found)).url
                self.resources[base] = node
            self.bases[id(node)] = base
            for key in ("$anchor", "$dynamicAnchor"):
                name = node.get(key)
                if isinstance(name, str):
                    self.anchors[(base, name)] = node
                    if key == "$dynamicAnchor":
                        self.dynamic.setdefault(name, []).append(node)
            for key, value in node.items():
                if key not in _DATA_KEYWORDS and isinstance(value, (dict, list)):
                    stack.append((value, base))

    def message(self) -> str:
        return (
            f"the schema is too large: more than {self.limit} nodes once its $refs are "
            "expanded (references that double at each step grow exponentially); raise "
            "mcpkit.json_schema.MAX_SCHEMA_NODES only for schemas you trust"
        )

    def _targets(self, keyword: str, ref: str, base: str) -> list[Any]:
        if keyword == "$recursiveRef":
            ref = "#"
        uri, fragment = urldefrag(urljoin(base, ref) if base else ref)
        if keyword == "$dynamicRef" and fragment and not fragment.startswith("/"):
            found = self.dynamic.get(fragment)
            if found:
                return found
        resource = self.resources.get(uri)
        if resource is None and uri == self.root_base:
            resource = self.resources[""]
        if resource is None:
            return []  # another document: never fetched, compiling refuses it
        if not fragment:
            return [resource]
        if not fragment.startswith("/"):
            anchored = self.anchors.get((uri, fragment))
            return [anchored] if anchored is not None else []
        node = resource
        for token in fragment[1:].split("/"):
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return []
        return [node]

    def size(self, node: Any, base: str, depth: int) -> int:
        """Nodes of ``node`` expanded; raises SchemaTooLargeError past the limit."""
        key = id(node)
        known = self.memo.get(key)
        if known is not None:
            return known
        if key in self.active or not isinstance(node, (dict, list)):
            return 1
        if depth > _MAX_SCHEMA_DEPTH:
            raise SchemaTooLargeError(
                f"the schema is nested more than {_MAX_SCHEMA_DEPTH} levels deep "
                "(references followed)"
            )
        self.active.add(key)
        total = 1
        if isinstance(node, dict):
            base = self.bases.get(key, base)
            for name, value in node.items():
                if name in _DATA_KEYWORDS:
                    continue
                if name in _REF_KEYWORDS and isinstance(value, str):
                    for target in self._targets(name, value, base):
                        total += self.size(target, base, depth + 1)
                elif isinstance(value, (dict, list)):
                    total += self.size(value, base, depth + 1)
                if total > self.limit:
                    raise SchemaTooLargeError(self.message())
        else:
            for item in node:
                if isinstance(item, (dict, list)):
                    total += self.size(item, base, depth + 1)
                    if total > self.limit:
                        raise SchemaTooLargeError(self.message())
        self.active.discard(key)
        self.memo[key] = total
        return total


def expanded_size(schema: Any, limit: int | None = None) -> int:
    """How many nodes ``schema`` amounts to with every ``$ref`` expanded in place (local
    references, anchors and ``$id`` s of the document; recursion counted once). Raises
    :class:`SchemaTooLargeError` past ``limit`` (default :data:`MAX_SCHEMA_NODES`), after
    work proportional to the limit, not to the expansion."""
    expansion = _Expansion(schema, MAX_SCHEMA_NODES if limit is None else limit)
    return expansion.size(schema, expansion.root_base, 0)


def _normalise(uri: str) -> str:
    uri = uri.strip().rstrip("#")
    if uri.startswith("https://json-schema.org/draft-0"):
        uri = "http://" + uri[len("https://") :]
    if uri.startswith("http://json-schema.org/draft/"):
        uri = "https://" + uri[len("http://") :]
    return uri


def dialect_of(schema: Any) -> str:
    """The dialect URI a schema declares (2020-12 when it declares none)."""
    if isinstance(schema, dict):
        declared = schema.get("$schema")
        if isinstance(declared, str):
            return _normalise(declared)
    return DEFAULT_DIALECT


def _no_remote(uri: str) -> Any:
    # A schema from a peer must not make this process fetch URLs (SSRF, hangs): a
    # reference to another document is an invalid schema here.
    raise ValueError(f"references to other documents are not fetched ({uri})")


class SchemaValidator:
    """A compiled validator for one schema (``$ref`` to other documents is refused, never
    fetched; a schema past ``max_nodes`` expanded nodes, default :data:`MAX_SCHEMA_NODES`,
    is refused with :class:`SchemaTooLargeError`)."""

    __slots__ = ("_validator", "dialect", "schema")

    def __init__(self, schema: dict[str, Any], *, max_nodes: int | None = None) -> None:
        self.schema = schema
        self.dialect = dialect_of(schema)
        validator_class = _DIALECTS.get(self.dialect)
        if validator_class is None:
            raise UnsupportedDialectError(
                f"JSON Schema dialect {schema.get('$schema')!r} is not supported; "
                f"use one of: {', '.join(SUPPORTED_DIALECTS)} (2020-12 when $schema is absent)"
            )
        expanded_size(schema, max_nodes)  # SchemaTooLargeError before any engine work
        cls = getattr(jsonschema_rs, validator_class)
        try:
            self._validator = cls(schema, validate_formats=False, retriever=_no_remote)
        except (ValueError, jsonschema_rs.ValidationError) as exc:
            raise InvalidSchemaError(f"Invalid JSON Schema: {exc}") from exc

    def is_valid(self, instance: Any) -> bool:
        """True when ``instance`` matches."""
        return bool(self._validator.is_valid(instance))

    def errors(self, instance: Any, limit: int = 5) -> list[str]:
        """Readable messages, each naming the offending location (``at 'a.b'``)."""
        out: list[str] = []
        try:
            for err in self._validator.iter_errors(instance):
                path = ".".join(str(p) for p in err.instance_path)
                out.append(f"{err.message} (at '{path}')" if path else err.message)
                if len(out) >= limit:
                    break
        except ValueError as exc:  # the engine's limits (a value nested too deeply)
            out.append(nested_too_deeply(exc))
        return out

    def first_error(self, instance: Any) -> str | None:
        """The first error message, or None when valid."""
        if self._validator.is_valid(instance):
            return None
        errs = self.errors(instance, limit=1)
        return errs[0] if errs else "value does not match the schema"


def nested_too_deeply(exc: BaseException) -> str:
    """The message for a value the engine gave up on while reporting its errors (it
    refuses values nested more than a few hundred levels deep)."""
    text = str(exc) or type(exc).__name__
    if "recursion" in text.lower():
        return "the value is nested too deeply to validate"
    return f"the value could not be validated ({text})"


def compile_schema(schema: dict[str, Any]) -> SchemaValidator:
    """Compile ``schema`` once; raise UnsupportedDialectError / InvalidSchemaError."""
    return SchemaValidator(schema)


# JSON type -> the Python types a decoded JSON value of that type has
_PRIMITIVE_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset((str,)),
    "integer": frozenset((int,)),
    "number": frozenset((int, float)),  # a float only when finite: see matches
    "boolean": frozenset((bool,)),
    "null": frozenset((type(None),)),
}
# keywords that do not change what a schema accepts
_ANNOTATIONS = frozenset(("title", "description", "default", "examples", "deprecated"))
_FLAT_OBJECT_KEYS = frozenset(("type", "properties", "required", "additionalProperties"))


class FlatObjectCheck:
    """A pure-Python check of an object against a closed schema whose properties each have
    a primitive type (string, integer, number, boolean, null) or are an ``anyOf`` of such
    types (``Optional``). :attr:`matches` True: the schema accepts the value; False: it may
    not, ask the validator (which has the message)."""

    __slots__ = ("matches",)

    def __init__(self, kinds: dict[str, frozenset[type]], required: tuple[str, ...]) -> None:
        #: ``matches(value)``: True when ``value`` (a dict) certainly matches the schema.
        #: A function written for these properties (see :func:`_flat_matcher`): one frame,
        #: one lookup and one type test per property, no loop.
        self.matches: Callable[[dict[str, Any]], bool] = _flat_matcher(kinds, required)


def _flat_matcher(
    kinds: dict[str, frozenset[type]], required: tuple[str, ...]
) -> Callable[[dict[str, Any]], bool]:
    """The ``matches`` function of a :class:`FlatObjectCheck`: for each property, its value
    looked up once and its exact type tested (a float only when finite); a required one
    missing, or a name no property has (the count of those present differs), is False.
    The function's text holds no name of the schema's: the names and the types are
    constants of its namespace."""
    namespace: dict[str, Any] = {"_M": DEFAULT, "_isfinite": math.isfinite}
    lines = ["def matches(value):", "    get = value.get"]
    optional = any(name not in required for name in kinds)
    if optional:
        lines.append("    n = 0")
    for i, (name, types) in enumerate(kinds.items()):
        namespace[f"_k{i}"] = name
        tests = []
        for j, tp in enumerate(sorted(types, key=lambda t: t.__name__)):
            namespace[f"_t{i}_{j}"] = tp
            test = f"tp is _t{i}_{j}"
            tests.append(f"({test} and _isfinite(v))" if tp is float else test)
        check = f"not ({' or '.join(tests)})"
        lines.append(f"    v = get(_k{i}, _M)")
        if name in required:
            lines += ["    if v is _M:", "        return False", "    tp = type(v)"]
            lines += [f"    if {check}:", "        return False"]
        else:
            lines += ["    if v is not _M:", "        tp = type(v)"]
            lines += [f"        if {check}:", "            return False", "        n += 1"]
    present = f"{len(required)} + n" if optional else str(len(required))
    lines.append(f"    return len(value) == {present}")
    exec(compile("\n".join(lines), "<mcpkit flat object check>", "exec"), namespace)
    matcher: Callable[[dict[str, Any]], bool] = namespace["matches"]
    return matcher


def _property_types(prop: Any) -> frozenset[type] | None:
    """The Python types a property schema ``{"type": T}`` or ``{"anyOf": [{"type": T},
    ...]}`` (annotations allowed) accepts, None for any other schema."""
    if not isinstance(prop, dict):
        return None
    keys = set(prop) - _ANNOTATIONS
    if keys == {"type"}:
        kind = prop["type"]
        return _PRIMITIVE_TYPES.get(kind) if isinstance(kind, str) else None
    if keys == {"anyOf"} and isinstance(prop["anyOf"], list) and prop["anyOf"]:
        kinds: frozenset[type] = frozenset()
        for branch in prop["anyOf"]:
            if not isinstance(branch, dict) or set(branch) != {"type"}:
                return None
            part = _property_types(branch)
            if part is None:
                return None
            kinds |= part
        return kinds
    return None


def flat_object_check(schema: dict[str, Any]) -> FlatObjectCheck | None:
    """A :class:`FlatObjectCheck` for ``schema``, or None when it is not of that shape
    (``{"type": "object", "properties": {name: {"type": <primitive>} or {"anyOf": [...]}},
    "required": [...], "additionalProperties": false}``, annotations allowed, no
    ``$schema``)."""
    if set(schema) - _FLAT_OBJECT_KEYS - _ANNOTATIONS:
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if (
        schema.get("type") != "object"
        or schema.get("additionalProperties") is not False
        or not isinstance(properties, dict)
        or not isinstance(required, list)
        or not all(isinstance(name, str) and name in properties for name in required)
    ):
        return None
    kinds: dict[str, frozenset[type]] = {}
    for name, prop in properties.items():
        types = _property_types(prop)
        if types is None:
            return None
        kinds[name] = types
    return FlatObjectCheck(kinds, tuple(dict.fromkeys(required)))


_DEFS_KEYS = ("$defs", "definitions")


def _local_target(ref: Any) -> tuple[str, str] | None:
    """``("$defs", "Name")`` for ``"#/$defs/Name"`` (or ``#/definitions/``), else None."""
    if type(ref) is not str:
        return None
    for key in _DEFS_KEYS:
        prefix = f"#/{key}/"
        if ref.startswith(prefix):
            name = ref[len(prefix) :]
            if name and "/" not in name:
                return key, name.replace("~1", "/").replace("~0", "~")
    return None


def _refs_in(node: Any, found: set[tuple[str, str]]) -> None:
    if isinstance(node, dict):
        target = _local_target(node.get("$ref"))
        if target is not None:
            found.add(target)
        for value in node.values():
            _refs_in(value, found)
    elif isinstance(node, list):
        for item in node:
            _refs_in(item, found)


def inline_local_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every local ``{"$ref": "#/$defs/X"}`` replaced by ``X``'s schema
    (its sibling keywords, e.g. ``description`` or ``default``, kept over it), and
    ``$defs`` (or ``definitions``) left with only what is still referenced: definitions on a
    reference cycle (recursive models) keep their ``$ref``. Other references (to
    ``#/properties/...``, or other documents) are left as they are. A new dict; ``schema``
    is not changed."""
    defs: dict[tuple[str, str], Any] = {}
    for key in _DEFS_KEYS:
        table = schema.get(key)
        if isinstance(table, dict):
            for name, body in table.items():
                defs[(key, name)] = body
    if not defs:
        return schema
    edges: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for target, body in defs.items():
        found: set[tuple[str, str]] = set()
        _refs_in(body, found)
        edges[target] = {t for t in found if t in defs}

    def reaches_itself(start: tuple[str, str]) -> bool:
        seen: set[tuple[str, str]] = set()
        stack = list(edges[start])
        while stack:
            node = stack.pop()
            if node == start:
                return True
            if node not in seen:
                seen.add(node)
                stack.extend(edges[node])
        return False

    recursive = {target for target in defs if reaches_itself(target)}

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            target = _local_target(node.get("$ref"))
            if target is not None and target in defs and target not in recursive:
                siblings = {k: inline(v) for k, v in node.items() if k != "$ref"}
                body = inline(defs[target])
                if isinstance(body, dict):
                    return {**body, **siblings}
                return body if not siblings else {"allOf": [body], **siblings}
            return {
                k: inline(v) for k, v in node.items() if not (k in _DEFS_KEYS and node is schema)
            }
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    out: dict[str, Any] = inline(schema)
    if recursive:
        kept: set[tuple[str, str]] = set()
        _refs_in(out, kept)
        stack = list(kept)
        while stack:  # what the recursive definitions themselves still reference
            node = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt in recursive and nxt not in kept:
                    kept.add(nxt)
                    stack.append(nxt)
        for key in _DEFS_KEYS:
            names = {name: inline(defs[(k, name)]) for k, name in sorted(kept) if k == key}
            if names:
                out[key] = names
    return out
