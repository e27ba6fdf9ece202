"""Streamable HTTP request headers of the 2026-07-28 revision, shared by client and server.

A modern POST mirrors body fields into headers so intermediaries can route on them without
parsing the body: ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` (the
:data:`STANDARD_HEADERS`), and ``Mcp-Param-{Name}`` for every tool parameter whose schema in
the tool's ``inputSchema`` carries ``"x-mcp-header": "{Name}"``.

The rules (basic/transports/streamable-http, "Custom Headers from Tool Parameters"):

- An ``x-mcp-header`` value is a non-empty RFC 9110 token (``1*tchar``: no space, colon,
  control or non-ASCII character), case-insensitively unique within the ``inputSchema``, on
  a property of type ``string``, ``integer`` or ``boolean`` (not ``number``) that is
  reachable from the schema root through ``properties`` keys only. An annotation anywhere
  else (under ``items``, ``oneOf``, ``$defs``, ...) makes the whole tool invalid; a client
  drops such tools from ``tools/list`` (:func:`split_valid_tools`).
- Values: strings as they are, integers in decimal (within ±(2**53-1)), booleans
  ``true``/``false``. A value that is not plain visible ASCII (non-ASCII, any control
  character including tab, leading or trailing space) or that looks like the sentinel is
  sent as ``=?base64?{base64 of the UTF-8}?=`` (:func:`encode_value`); the same encoding
  applies to ``Mcp-Name``. A null or absent argument sends no header.
- A server decodes (:func:`decode_value`) and compares each mirrored header with the body
  (:func:`validate_param_headers`); a missing, malformed or different header is ``-32020``
  (:class:`~mcpkit.errors.HeaderMismatch`) with HTTP 400 (:data:`HEADER_MISMATCH_STATUS`).
  Integers compare numerically (``42.0`` equals ``42``).

Pure functions, no I/O. The server's checks of the standard headers themselves live in
:mod:`mcpkit.transports.http.modern_headers`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal

from mcpkit.errors import HeaderMismatch, McpkitError

__all__ = [
    "HEADER_MISMATCH_STATUS",
    "MCP_METHOD",
    "MCP_NAME",
    "MCP_PROTOCOL_VERSION",
    "NAME_SOURCES",
    "PARAM_PREFIX",
    "STANDARD_HEADERS",
    "X_MCP_HEADER",
    "HeaderParam",
    "InvalidHeaderAnnotation",
    "decode_value",
    "definition_header_params",
    "encode_value",
    "header_params",
    "param_headers",
    "request_headers",
    "split_valid_tools",
    "validate_param_headers",
]

MCP_PROTOCOL_VERSION: Final = "MCP-Protocol-Version"
MCP_METHOD: Final = "Mcp-Method"
MCP_NAME: Final = "Mcp-Name"
#: The standard headers of every modern POST (``Mcp-Name`` only on :data:`NAME_SOURCES`).
STANDARD_HEADERS: Final = (MCP_PROTOCOL_VERSION, MCP_METHOD, MCP_NAME)
#: ``Mcp-Param-{Name}``: a tool parameter marked ``"x-mcp-header": "{Name}"``.
PARAM_PREFIX: Final = "Mcp-Param-"
X_MCP_HEADER: Final = "x-mcp-header"
#: The HTTP status of a -32020 HeaderMismatch.
HEADER_MISMATCH_STATUS: Final = 400
#: Methods that carry ``Mcp-Name``, and the ``params`` field it mirrors (the tasks
#: extension's ``tasks/*`` name their task).
NAME_SOURCES: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

_PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
_SENTINEL_PREFIX: Final = "=?base64?"
_SENTINEL_SUFFIX: Final = "?="
# RFC 9110 token characters.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# A value that can travel as it is: visible ASCII and inner spaces.
_PLAIN = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
# What a received (literal) field value may contain: visible ASCII, space, tab.
_FIELD_VALUE = re.compile(r"[\x20-\x7e\t]*")
_MAX_SAFE_INTEGER: Final = 2**53 - 1
_HEADER_TYPES: Final = ("string", "integer", "boolean")
# Keywords whose values are instance data, not subschemas: an "x-mcp-header" key in there
# is no annotation.
_DATA_KEYWORDS: Final = frozenset({"const", "default", "enum", "examples"})

HeaderType = Literal["string", "integer", "boolean"]


class InvalidHeaderAnnotation(McpkitError, ValueError):
    """A tool's ``x-mcp-header`` annotation breaks the rules; the tool must not be used."""


@dataclass(frozen=True, slots=True)
class HeaderParam:
    """One mirrored parameter: header ``Mcp-Param-{name}`` for the argument at ``path``."""

    #: The ``x-mcp-header`` value (the name part of the header).
    name: str
    #: The chain of ``properties`` keys from the arguments object to the parameter.
    path: tuple[str, ...]
    type: HeaderType

    @property
    def header(self) -> str:
        """The full header name, ``Mcp-Param-{name}``."""
        return PARAM_PREFIX + self.name

    def value_in(self, arguments: Any) -> Any:
        """The argument at :attr:`path`, or None when absent."""
        value = arguments
        for key in self.path:
            if not isinstance(value, Mapping) or key not in value:
                return None
            value = value[key]
        return value


def header_params(input_schema: Any) -> tuple[HeaderParam, ...]:
    """The mirrored parameters a tool's ``inputSchema`` declares, in schema order.

    Raises :class:`InvalidHeaderAnnotation` (with the reason) when any ``x-mcp-header``
    annotation breaks the rules; a schema without annotations gives ``()``.
    """
    found: list[HeaderParam] = []
    seen: dict[str, str] = {}
    for path, node, reachable in _annotated(input_schema, (), True):
        value = node[X_MCP_HEADER]
        where = "/".join(path) or "the schema root"
        if not reachable or not path:
            raise InvalidHeaderAnnotation(
                f"x-mcp-header at {where} is not on a property reachable through "
                "'properties' keys alone"
            )
        if not isinstance(value, str) or not value:
            raise InvalidHeaderAnnotation(f"x-mcp-header of {where} is empty or not a string")
        if not _TOKEN.fullmatch(value):
            raise InvalidHeaderAnnotation(
                f"x-mcp-header {value!r} of {where} is not an HTTP header token "
                "(letters, digits and !#$%&'*+-.^_`|~ only)"
            )
        if value.lower() in seen:
            raise InvalidHeaderAnnotation(
                f"x-mcp-header {value!r} of {where} repeats {seen[value.lower()]!r} "
                "(names are compared case-insensitively)"
            )
        kind = node.get("type")
        if kind not in _HEADER_TYPES:
            raise InvalidHeaderAnnotation(
                f"x-mcp-header {value!r} is on {where} of type {kind!r}; only string, "
                "integer and boolean parameters can be mirrored"
            )
        seen[value.lower()] = value
        found.append(HeaderParam(value, path, kind))
    return tuple(found)


def definition_header_params(definition: Mapping[str, Any]) -> tuple[HeaderParam, ...] | None:
    """:func:`header_params` of a tool definition's ``inputSchema``; None when an annotation
    breaks the rules (the tool then mirrors nothing)."""
    try:
        return header_params(definition.get("inputSchema"))
    except InvalidHeaderAnnotation:
        return None


def _annotated(
    node: Any, path: tuple[str, ...], reachable: bool
) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any], bool]]:
    """Every schema object holding an ``x-mcp-header`` key, with its ``properties`` path
    and whether that path is made of ``properties`` keys alone."""
    if isinstance(node, list):
        for item in node:
            yield from _annotated(item, path, False)
        return
    if not isinstance(node, Mapping):
        return
    if X_MCP_HEADER in node:
        yield path, node, reachable
    for key, child in node.items():
        if key in _DATA_KEYWORDS or key == X_MCP_HEADER:
            continue
        if key == "properties" and isinstance(child, Mapping):
            for name, sub in child.items():
                yield from _annotated(sub, (*path, str(name)), reachable)
        else:
            yield from _annotated(child, path, False)


def split_valid_tools(
    tools: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], list[tuple[str, str]]]:
    """``(usable tools, [(name, reason), ...])``: a client over Streamable HTTP keeps only
    the tools whose ``x-mcp-header`` annotations are valid (and should log the others)."""
    valid: list[Mapping[str, Any]] = []
    rejected: list[tuple[str, str]] = []
    for tool in tools:
        try:
            header_params(tool.get("inputSchema"))
        except InvalidHeaderAnnotation as exc:
            rejected.append((str(tool.get("name")), str(exc)))
        else:
            valid.append(tool)
    return valid, rejected


def encode_value(value: str) -> str:
    """A header value for ``value``: itself when it is plain visible ASCII (inner spaces
    allowed, nothing that looks like the sentinel), else ``=?base64?...?=``."""
    if value == "" or (
        _PLAIN.fullmatch(value)
        and not (value.startswith(_SENTINEL_PREFIX) and value.endswith(_SENTINEL_SUFFIX))
    ):
        return value
    encoded = base64.b64encode(value.encode("utf-8")).decode("ascii")
    return f"{_SENTINEL_PREFIX}{encoded}{_SENTINEL_SUFFIX}"


def decode_value(raw: str) -> str:
    """The value a received ``Mcp-Param-*`` (or ``Mcp-Name``) header carries.

    Surrounding spaces and tabs are not part of a field value (RFC 9110). A
    ``=?base64?...?=`` value is decoded (strict base64 with padding, then UTF-8). Raises
    :class:`~mcpkit.errors.HeaderMismatch` for invalid characters or a bad encoding.
    """
    value = raw.strip(" \t")
    if not _FIELD_VALUE.fullmatch(value):
        raise HeaderMismatch("Header mismatch: header value contains invalid characters")
    if not (
        len(value) >= len(_SENTINEL_PREFIX) + len(_SENTINEL_SUFFIX)
        and value.startswith(_SENTINEL_PREFIX)
        and value.endswith(_SENTINEL_SUFFIX)
    ):
        return value
    payload = value[len(_SENTINEL_PREFIX) : -len(_SENTINEL_SUFFIX)]
    try:
        return base64.b64decode(payload, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise HeaderMismatch(
            "Header mismatch: header value is not valid =?base64?...?= encoding"
        ) from None


def _text(param: HeaderParam, value: Any) -> str:
    """The unencoded header text of one argument value (client side)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        number = int(value)
        if abs(number) > _MAX_SAFE_INTEGER:
            raise ValueError(f"argument for {param.header} is outside the safe integer range")
        return str(number)
    if isinstance(value, str):
        return value
    raise ValueError(
        f"argument for {param.header} is a {type(value).__name__}; only strings, integers "
        "and booleans can be mirrored into a header"
    )


def param_headers(params: Sequence[HeaderParam], arguments: Any) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of a ``tools/call`` with ``arguments`` (client side): one
    per parameter with a non-null value, encoded. Raises ``ValueError`` for an argument that
    cannot be mirrored (an object, a list, a fractional number)."""
    out: dict[str, str] = {}
    for param in params:
        value = param.value_in(arguments)
        if value is not None:
            out[param.header] = encode_value(_text(param, value))
    return out


def request_headers(
    message: Mapping[str, Any], params: Sequence[HeaderParam] = ()
) -> dict[str, str]:
    """Every MCP header of one modern POST (client side): ``MCP-Protocol-Version`` from
    ``params._meta``, ``Mcp-Method``, ``Mcp-Name`` where the method has one (encoded like a
    parameter value), and for ``tools/call`` the ``Mcp-Param-*`` of ``params`` (the called
    tool's :func:`header_params`)."""
    method = message.get("method")
    if not isinstance(method, str):
        raise ValueError("a request needs a string method")
    body = message.get("params")
    body = body if isinstance(body, Mapping) else {}
    out: dict[str, str] = {}
    meta = body.get("_meta")
    version = meta.get(_PROTOCOL_VERSION_KEY) if isinstance(meta, Mapping) else None
    if isinstance(version, str):
        out[MCP_PROTOCOL_VERSION] = version
    out[MCP_METHOD] = method
    source = NAME_SOURCES.get(method)
    if source is not None and isinstance(body.get(source), str):
        out[MCP_NAME] = encode_value(body[source])
    if method == "tools/call" and params:
        out.update(param_headers(params, body.get("arguments")))
    return out


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {key.lower(): value for key, value in headers.items()}


def _matches(param: HeaderParam, text: str, value: Any) -> bool:
    if param.type == "boolean":
        return isinstance(value, bool) and text == ("true" if value else "false")
    if param.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        try:
            return Decimal(text) == Decimal(str(value))
        except InvalidOperation:
            return False
    return isinstance(value, str) and text == value


def validate_param_headers(
    headers: Mapping[str, str], params: Sequence[HeaderParam], arguments: Any
) -> None:
    """Check the ``Mcp-Param-*`` headers of a ``tools/call`` against its ``arguments``
    (server side; ``params`` from the called tool's :func:`header_params`).

    Header names are matched case-insensitively. Raises
    :class:`~mcpkit.errors.HeaderMismatch` (answer HTTP 400) when an argument with a value
    has no header, a header has no argument, or a decoded header differs from its argument.
    """
    lowered = _lower(headers)
    for param in params:
        raw = lowered.get(param.header.lower())
        value = param.value_in(arguments)
        if value is None:
            if raw is not None:
                raise HeaderMismatch(
                    f"Header mismatch: {param.header} is set but the argument is absent"
                )
            continue
        if raw is None:
            raise HeaderMismatch(f"Header mismatch: {param.header} header is missing")
        if not _matches(param, decode_value(raw), value):
            raise HeaderMismatch(
                f"Header mismatch: {param.header} header does not match the argument"
            )
