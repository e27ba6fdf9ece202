"""``mcp.shared.inbound`` on mcpkit: the official SDK 2.x's era classifier of an inbound
Streamable HTTP request (``classify_inbound_request``: a 2026-07-28 request envelope, or
the first rule it fails), its results and the routing header names, for servers that route
the two protocol eras themselves (the ``legacy_routing`` story)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from mcpkit.compat.mcp.types.version import MODERN_PROTOCOL_VERSIONS
from mcpkit.envelope import HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION
from mcpkit.jsonrpc import INVALID_PARAMS

__all__ = [
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "NAME_BEARING_METHODS",
    "InboundLadderRejection",
    "InboundModernRoute",
    "classify_inbound_request",
    "decode_header_value",
    "encode_header_value",
    "unsupported_protocol_version_rejection",
]

MCP_PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
MCP_METHOD_HEADER: Final = "mcp-method"
MCP_NAME_HEADER: Final = "mcp-name"

#: The method -> the params key its ``Mcp-Name`` header mirrors.
NAME_BEARING_METHODS: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
}

_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
_INFO_KEY = "io.modelcontextprotocol/clientInfo"
_WRAPPED = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")
_PLAIN = re.compile(r"^[\x20-\x7E]*$")


@dataclass(frozen=True)
class InboundModernRoute:
    """A 2026-07-28 request whose envelope passed every rule (its raw envelope values)."""

    protocol_version: str
    client_info: Any
    client_capabilities: Any


@dataclass(frozen=True)
class InboundLadderRejection:
    """The first rule a request failed, as a JSON-RPC error's fields."""

    code: int
    message: str
    data: Any = None


def encode_header_value(value: str) -> str:
    """``value`` as an HTTP header carries it: as is when plain printable ASCII without
    edge whitespace, else ``=?base64?<utf-8 base64>?=``."""
    if _PLAIN.fullmatch(value) and value == value.strip() and not _WRAPPED.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


def decode_header_value(value: str | None) -> str | None:
    """The value :func:`encode_header_value` encoded (None for a malformed wrapping)."""
    if value is None:
        return None
    found = _WRAPPED.fullmatch(value)
    if found is None:
        return value
    payload = found.group("payload")
    try:
        raw = base64.b64decode(payload, validate=True)
    except binascii.Error:
        return None
    if base64.b64encode(raw).decode("ascii") != payload:
        return None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return None


def unsupported_protocol_version_rejection(
    requested: str, supported_modern_versions: Sequence[str] = MODERN_PROTOCOL_VERSIONS
) -> InboundLadderRejection | None:
    """The unsupported-version rejection for ``requested``, or None when it is served."""
    if requested in supported_modern_versions:
        return None
    return InboundLadderRejection(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(supported_modern_versions), "requested": requested},
    )


def classify_inbound_request(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str] | None = None,
    supported_modern_versions: Sequence[str] = MODERN_PROTOCOL_VERSIONS,
) -> InboundModernRoute | InboundLadderRejection:
    """Check a decoded JSON-RPC request against the 2026-07-28 envelope rules, first
    failure wins: ``params._meta`` carries the protocol version and the client's
    capabilities (else -32602: a handshake-era request); with ``headers`` (lower-case
    names), ``Mcp-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` match the body (else
    -32020); the version is a string (else -32602) the server serves (else -32022)."""
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if not isinstance(meta, Mapping):
        return InboundLadderRejection(
            INVALID_PARAMS,
            "params._meta must be an object carrying the required "
            f"{_VERSION_KEY!r} and {_CAPABILITIES_KEY!r} envelope keys",
        )
    missing = [key for key in (_VERSION_KEY, _CAPABILITIES_KEY) if key not in meta]
    if missing:
        return InboundLadderRejection(
            INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    version = meta[_VERSION_KEY]
    if headers is not None:
        header = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if header is None or header != version:
            return InboundLadderRejection(
                HEADER_MISMATCH,
                f"{MCP_PROTOCOL_VERSION_HEADER} header does not match the request envelope's "
                "protocol version",
            )
        method = body.get("method")
        if headers.get(MCP_METHOD_HEADER) != method:
            return InboundLadderRejection(
                HEADER_MISMATCH,
                f"{MCP_METHOD_HEADER} header does not match the request body's method",
            )
        key = NAME_BEARING_METHODS.get(method) if isinstance(method, str) else None
        if key is not None and isinstance(params, Mapping):
            named = params.get(key)
            if named is not None and decode_header_value(headers.get(MCP_NAME_HEADER)) != named:
                return InboundLadderRejection(
                    HEADER_MISMATCH,
                    f"{MCP_NAME_HEADER} header does not match the request body's {key!r} parameter",
                )
    if not isinstance(version, str):
        return InboundLadderRejection(
            INVALID_PARAMS, "the protocol-version envelope value must be a string"
        )
    refused = unsupported_protocol_version_rejection(version, supported_modern_versions)
    if refused is not None:
        return refused
    return InboundModernRoute(version, meta.get(_INFO_KEY), meta[_CAPABILITIES_KEY])
