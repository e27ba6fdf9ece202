"""Streamable HTTP request headers of the stateless (modern) revisions: pure checks.

A modern POST mirrors body fields into headers so intermediaries can route on them:
``MCP-Protocol-Version`` (= ``_meta`` ``io.modelcontextprotocol/protocolVersion``),
``Mcp-Method`` (= ``method``) and, for ``tools/call``/``prompts/get`` (``params.name``) and
``resources/read`` (``params.uri``), ``Mcp-Name``. A missing, malformed or mismatching
header is ``-32020`` (HeaderMismatch) with HTTP 400. Header names are case-insensitive,
values case-sensitive; surrounding whitespace of a value is not part of it (RFC 9110
field values), and an ``Mcp-Name`` of the form ``=?base64?...?=`` is decoded before the
comparison (:func:`mcpkit.http_headers.decode_value`). ``Mcp-Param-*`` headers (tool
parameters marked ``x-mcp-header``) are checked by
:func:`mcpkit.http_headers.validate_param_headers`.

:func:`check_modern_request` runs every check in the order the conformance suite assumes
and returns the request's :class:`~mcpkit.envelope.Envelope`; :func:`http_status` maps
the resulting error to its status code.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from mcpkit.envelope import (
    HEADER_MISMATCH,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PROTOCOL_VERSION_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    Envelope,
    check_supported_version,
    has_request_meta,
    read_request_envelope,
)
from mcpkit.errors import HeaderMismatch, McpError
from mcpkit.http_headers import (
    MCP_METHOD,
    MCP_NAME,
    MCP_PROTOCOL_VERSION,
    NAME_SOURCES,
    decode_value,
)
from mcpkit.versions import LEGACY_SUPPORTED, MODERN_SUPPORTED, ProtocolVersion

__all__ = [
    "MCP_METHOD",
    "MCP_NAME",
    "MCP_PROTOCOL_VERSION",
    "MCP_SESSION_ID",
    "NAMED_METHODS",
    "check_method_header",
    "check_modern_headers",
    "check_modern_request",
    "check_name_header",
    "check_protocol_version_header",
    "header_mismatch",
    "http_status",
    "is_modern_request",
    "is_modern_stream_request",
    "legacy_names",
    "status_for_code",
]

MCP_SESSION_ID: Final = "Mcp-Session-Id"
#: Methods whose ``Mcp-Name`` header is required, and the params field it mirrors.
NAMED_METHODS: Final = NAME_SOURCES
_LEGACY_NAMES = frozenset(v.name for v in LEGACY_SUPPORTED)
# RFC 9110 field-value characters: visible ASCII, space, horizontal tab.
_FIELD_VALUE = re.compile(r"[\x20-\x7e\t]*")


def header_mismatch(message: str) -> HeaderMismatch:
    """The -32020 HeaderMismatch error (HTTP 400)."""
    return HeaderMismatch(f"Header mismatch: {message}")


_LOWER: Final = {
    n: n.lower() for n in (MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, "Mcp-Session-Id")
}


def _get(headers: Mapping[str, str], name: str) -> str | None:
    lowered = _LOWER.get(name) or name.lower()
    value = headers.get(lowered)
    if value is None:
        value = headers.get(name)
        if value is not None:
            return value
        for key, v in headers.items():
            if key.lower() == lowered:
                return v
    return value


def _value(headers: Mapping[str, str], name: str, display: str) -> str | None:
    raw = _get(headers, name)
    if raw is None:
        return None
    if not _FIELD_VALUE.fullmatch(raw):
        raise header_mismatch(f"{display} header contains invalid characters")
    return raw.strip(" \t")


def check_protocol_version_header(header: str | None, meta_version: str) -> None:
    """``MCP-Protocol-Version`` must be present and equal ``_meta``'s protocolVersion."""
    if header is None:
        raise header_mismatch("missing MCP-Protocol-Version header")
    if header != meta_version:
        raise header_mismatch(
            f"MCP-Protocol-Version header value {header!r} does not match body value "
            f"{meta_version!r}"
        )


def check_method_header(header: str | None, method: str) -> None:
    """``Mcp-Method`` must be present and equal the body's ``method`` (case-sensitive)."""
    if header is None:
        raise header_mismatch("missing Mcp-Method header")
    if header != method:
        raise header_mismatch(
            f"Mcp-Method header value {header!r} does not match body value {method!r}"
        )


def check_name_header(header: str | None, method: str, params: Any) -> None:
    """For the methods of :data:`~mcpkit.http_headers.NAME_SOURCES` (``tools/call``,
    ``prompts/get``: ``params.name``; ``resources/read``: ``params.uri``; the tasks
    extension's ``tasks/*``: ``params.taskId``): ``Mcp-Name`` (decoded when base64-encoded)
    must be present and equal the body field. Other methods are not checked. A body
    without the field is left to the method's own validation."""
    field = NAME_SOURCES.get(method)
    if field is None:
        return
    body = params.get(field) if type(params) is dict or isinstance(params, Mapping) else None
    if header is None:
        raise header_mismatch(f"missing Mcp-Name header for {method}")
    if not isinstance(body, str):
        return
    decoded = decode_value(header)
    if decoded != body:
        raise header_mismatch(
            f"Mcp-Name header value {decoded!r} does not match body value {body!r}"
        )


def check_modern_request(
    headers: Mapping[str, str],
    method: str,
    params: Any,
    *,
    supported: Iterable[ProtocolVersion] = MODERN_SUPPORTED,
) -> Envelope:
    """Every header and envelope check of a modern POST carrying a request, in order:
    ``MCP-Protocol-Version`` present (-32020), ``Mcp-Method`` present and equal (-32020),
    the ``_meta`` envelope well-formed (-32602), the version header equal to ``_meta``'s
    (-32020), ``Mcp-Name`` (-32020), the version supported (-32022). Returns the envelope,
    its ``version`` set. ``headers`` may be any mapping; names are matched
    case-insensitively."""
    version_header = _value(headers, MCP_PROTOCOL_VERSION, "MCP-Protocol-Version")
    if version_header is None:
        raise header_mismatch("missing MCP-Protocol-Version header")
    check_method_header(_value(headers, MCP_METHOD, "Mcp-Method"), method)
    env = read_request_envelope(params)
    check_protocol_version_header(version_header, env.protocol_version)
    check_name_header(_get(headers, MCP_NAME), method, params)
    return dataclasses.replace(
        env, version=check_supported_version(env.protocol_version, supported)
    )


def check_modern_headers(headers: Mapping[str, str], method: str, params: Any) -> None:
    """The checks of :func:`check_modern_request` that need the headers, in the same order
    and with the same errors, leaving the envelope to the session that serves the request:
    the envelope is parsed here only when a check after ``Mcp-Method`` fails (so a malformed
    one still answers -32602 first). A request that passes has header and ``_meta``
    versions equal; its envelope and version are then the session's to judge (-32602,
    -32022)."""
    version_header = _value(headers, MCP_PROTOCOL_VERSION, "MCP-Protocol-Version")
    if version_header is None:
        raise header_mismatch("missing MCP-Protocol-Version header")
    check_method_header(_value(headers, MCP_METHOD, "Mcp-Method"), method)
    meta = params.get("_meta") if type(params) is dict else None
    meta_version = meta.get(PROTOCOL_VERSION_KEY) if type(meta) is dict else None
    try:
        if meta_version != version_header:
            raise header_mismatch(
                f"MCP-Protocol-Version header value {version_header!r} does not match body "
                f"value {meta_version!r}"
            )
        check_name_header(_get(headers, MCP_NAME), method, params)
    except HeaderMismatch:
        read_request_envelope(params)  # a malformed envelope is reported first
        raise


def is_modern_request(headers: Mapping[str, str], params: Any) -> bool:
    """Which era a POST belongs to (CONFORMANCE §2.1's routing): legacy when it carries
    ``Mcp-Session-Id``; modern when ``params._meta`` names a protocol version; otherwise
    modern when an ``MCP-Protocol-Version`` header names anything but a legacy revision
    (so a modern request with a broken envelope gets the modern -32602), legacy when the
    header names a legacy revision or is absent (a bare ``initialize``)."""
    if _get(headers, MCP_SESSION_ID) is not None:
        return False
    if type(params) is dict:
        meta = params.get("_meta")
        if type(meta) is dict:
            if PROTOCOL_VERSION_KEY in meta:
                return True
        elif has_request_meta(params):
            return True
    elif has_request_meta(params):
        return True
    header = _get(headers, MCP_PROTOCOL_VERSION)
    return header is not None and header.strip(" \t") not in _LEGACY_NAMES


_BAD_REQUEST_CODES: Final = frozenset(
    {
        HEADER_MISMATCH,
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        UNSUPPORTED_PROTOCOL_VERSION,
        -32700,
        -32600,
        -32602,
    }
)


def status_for_code(code: int) -> int:
    """The HTTP status of a modern error response with JSON-RPC error ``code``: 400 for the
    envelope, header, version and capability errors (and -32700/-32600/-32602), 404 for
    -32601, else 200."""
    if code == -32601:
        return 404
    if code in _BAD_REQUEST_CODES:
        return 400
    return 200


def legacy_names() -> frozenset[str]:
    """The names of the handshake-era revisions (what a legacy ``MCP-Protocol-Version``
    names)."""
    return _LEGACY_NAMES


def is_modern_stream_request(session_id: str | None, protocol_version: str | None) -> bool:
    """Whether a GET or DELETE belongs to the modern era (and gets 405), from its
    ``Mcp-Session-Id`` and ``MCP-Protocol-Version`` headers: no session id and a version
    naming anything but a legacy revision. Without either it stays on the legacy path (the
    2025 GET stream and DELETE)."""
    if session_id is not None or protocol_version is None:
        return False
    return protocol_version.strip(" \t") not in _LEGACY_NAMES


def http_status(error: McpError) -> int:
    """The HTTP status of a modern error response (:func:`status_for_code` of its code)."""
    return status_for_code(error.code)
