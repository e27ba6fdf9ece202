"""The per-request ``_meta`` envelope of the stateless (modern) revisions, both roles.

Every modern request carries its protocol version and the client's capabilities in
``params._meta`` (``io.modelcontextprotocol/protocolVersion``,
``io.modelcontextprotocol/clientCapabilities``, both required), optionally the client's
identity and a log level; every result may carry the server's identity
(``io.modelcontextprotocol/serverInfo``). This module reads and writes those keys and
raises the errors the spec defines for them:

- ``-32602`` (Invalid params) for a missing or malformed envelope;
- ``-32022`` (UnsupportedProtocolVersion), ``data: {"supported": [...], "requested": v}``;
- ``-32021`` (MissingRequiredClientCapability), ``data: {"requiredCapabilities": {...}}``.

On HTTP all three answer ``400 Bad Request`` (see
:mod:`mcpkit.transports.http.modern_headers`). Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mcpkit.errors import McpError, MissingClientCapability, UnsupportedProtocolVersion
from mcpkit.versions import MODERN_SUPPORTED, ProtocolVersion, get

__all__ = [
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "HEADER_MISMATCH",
    "LOG_LEVELS",
    "LOG_LEVEL_KEY",
    "META_PREFIX",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PROGRESS_TOKEN_KEY",
    "PROTOCOL_VERSION_KEY",
    "SERVER_INFO_KEY",
    "SUBSCRIPTION_ID_KEY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Envelope",
    "build_request_meta",
    "check_supported_version",
    "finish_result",
    "has_request_meta",
    "missing_capability_error",
    "missing_client_capabilities",
    "parse_request_envelope",
    "read_request_envelope",
    "require_client_capabilities",
    "result_meta",
    "should_log",
]

META_PREFIX: Final = "io.modelcontextprotocol/"
PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY: Final = "io.modelcontextprotocol/subscriptionId"
PROGRESS_TOKEN_KEY: Final = "progressToken"

#: The error codes the 2026-07-28 revision defines (its reserved sub-range -32020..-32099).
HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

#: ``LoggingLevel``, least to most severe (RFC 5424 order).
LOG_LEVELS: Final = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
_LOG_RANK = {name: i for i, name in enumerate(LOG_LEVELS)}
_ENVELOPE_KEYS = frozenset(
    {PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY}
)
#: ClientCapabilities members whose value must be an object when present.
_OBJECT_CAPABILITIES = ("elicitation", "roots", "sampling", "experimental", "extensions")
#: ClientCapabilities members whose every value must be an object.
_NESTED_CAPABILITIES = ("experimental", "extensions")


@dataclass(slots=True)
class Envelope:
    """What a modern request's ``_meta`` says: version, client capabilities, identity.

    Read-only by convention (not frozen: one is made for every modern request, and a frozen
    dataclass costs several times as much to build)."""

    #: The revision the request speaks (already checked as supported by
    #: :func:`parse_request_envelope`; None from :func:`read_request_envelope` when unknown).
    version: ProtocolVersion | None
    #: The version string as sent.
    protocol_version: str
    client_capabilities: Mapping[str, Any]
    client_info: Mapping[str, Any] | None = None
    log_level: str | None = None
    #: Every other ``_meta`` key (``progressToken``, trace context, vendor keys), unchanged.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def progress_token(self) -> Any:
        """The request's ``progressToken`` or None."""
        return self.extra.get(PROGRESS_TOKEN_KEY)


def _invalid(message: str) -> McpError:
    return McpError(-32602, message)


def has_request_meta(params: Any) -> bool:
    """True when ``params._meta`` names a protocol version: the request is modern."""
    if not isinstance(params, Mapping):
        return False
    meta = params.get("_meta")
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_KEY in meta


def read_request_envelope(params: Any) -> Envelope:
    """Parse ``params._meta`` without judging the version; -32602 when it is missing or
    malformed (``protocolVersion`` not a non-empty string, ``clientCapabilities`` not an
    object, ``clientInfo`` not an Implementation, ``logLevel`` not a LoggingLevel)."""
    return parse_request_envelope(params, None)


def _is_object(value: Any) -> bool:
    # ``type(...) is dict`` first: the decoded JSON of every request (an ABC check is slower;
    # the hot checks of _read test ``type(...) is dict`` inline before calling this).
    return type(value) is dict or isinstance(value, Mapping)


def parse_request_envelope(
    params: Any, supported: Iterable[ProtocolVersion] | None = MODERN_SUPPORTED
) -> Envelope:
    """:func:`read_request_envelope` then :func:`check_supported_version`: the envelope of a
    request this server can serve (its ``version`` set), or the McpError to answer with
    (``supported`` None: the version is not judged, as :func:`read_request_envelope`)."""
    if supported is not None and type(supported) is not tuple:
        supported = tuple(supported)
    # The usual envelope (decoded JSON objects) takes this path: the checks of _read_all
    # below, with subscripts for lookups; anything unusual goes there for its error.
    try:
        meta = params["_meta"]
        version = meta[PROTOCOL_VERSION_KEY]
        caps = meta[CLIENT_CAPABILITIES_KEY]
    except (KeyError, TypeError):
        return _read_all(params, supported)
    if (
        type(params) is not dict
        or type(meta) is not dict
        or type(version) is not str
        or not version
        or type(caps) is not dict
    ):
        return _read_all(params, supported)
    if caps:
        for name in _OBJECT_CAPABILITIES:
            if name in caps and type(caps[name]) is not dict:
                return _read_all(params, supported)
        for name in _NESTED_CAPABILITIES:
            nested = caps.get(name)
            if nested and any(type(value) is not dict for value in nested.values()):
                return _read_all(params, supported)
    known = 2
    info = meta.get(CLIENT_INFO_KEY)
    if info is not None:
        if not (
            type(info) is dict
            and type(info.get("name")) is str
            and type(info.get("version")) is str
        ):
            return _read_all(params, supported)
        known = 3
    level = meta.get(LOG_LEVEL_KEY)
    if level is not None:
        if type(level) is not str or level not in _LOG_RANK:
            return _read_all(params, supported)
        known += 1
    if supported is None:
        revision = get(version)
    else:
        for revision in supported:
            if revision.name == version:
                break
        else:
            revision = check_supported_version(version, supported)  # -32022
    extra = {k: v for k, v in meta.items() if k not in _ENVELOPE_KEYS} if len(meta) > known else {}
    return Envelope(revision, version, caps, info, level, extra)


#: The quick reading (the tests compare it with the full one).
_read = parse_request_envelope


def _read_all(params: Any, supported: Iterable[ProtocolVersion] | None) -> Envelope:
    if params is None:
        raise _invalid("Missing params._meta: every request must carry the request envelope")
    if type(params) is not dict and not _is_object(params):
        raise _invalid("params must be an object")
    meta = params.get("_meta")
    if meta is None:
        raise _invalid("Missing params._meta: every request must carry the request envelope")
    if type(meta) is not dict and not _is_object(meta):
        raise _invalid("params._meta must be an object")
    version = meta.get(PROTOCOL_VERSION_KEY)
    if version is None:
        raise _invalid(f"Missing {PROTOCOL_VERSION_KEY} in params._meta")
    if type(version) is not str or not version:
        raise _invalid(f"{PROTOCOL_VERSION_KEY} must be a non-empty string")
    caps = meta.get(CLIENT_CAPABILITIES_KEY)
    if caps is None:
        raise _invalid(f"Missing {CLIENT_CAPABILITIES_KEY} in params._meta")
    if type(caps) is not dict and not _is_object(caps):
        raise _invalid(f"{CLIENT_CAPABILITIES_KEY} must be an object")
    if caps:
        for name in _OBJECT_CAPABILITIES:
            if name in caps and not _is_object(caps[name]):
                raise _invalid(f"{CLIENT_CAPABILITIES_KEY}.{name} must be an object")
        for name in ("experimental", "extensions"):
            for key, value in (caps.get(name) or {}).items():
                if not _is_object(value):
                    raise _invalid(f"{CLIENT_CAPABILITIES_KEY}.{name}[{key!r}] must be an object")
    info = meta.get(CLIENT_INFO_KEY)
    if info is not None and not (
        (type(info) is dict or _is_object(info))
        and type(info.get("name")) is str
        and type(info.get("version")) is str
    ):
        raise _invalid(f"{CLIENT_INFO_KEY} must be an object with string name and version")
    level = meta.get(LOG_LEVEL_KEY)
    if level is not None and (type(level) is not str or level not in _LOG_RANK):
        raise _invalid(f"{LOG_LEVEL_KEY} must be one of {', '.join(LOG_LEVELS)}")
    revision = get(version) if supported is None else check_supported_version(version, supported)
    known = 2 + (info is not None) + (level is not None)
    extra = {k: v for k, v in meta.items() if k not in _ENVELOPE_KEYS} if len(meta) > known else {}
    return Envelope(revision, version, caps, info, level, extra)


def check_supported_version(
    requested: str, supported: Iterable[ProtocolVersion] = MODERN_SUPPORTED
) -> ProtocolVersion:
    """The revision for ``requested`` when it is among ``supported``, else -32022 with
    ``data: {"supported": [names...], "requested": requested}``."""
    listed = supported if type(supported) is tuple else tuple(supported)
    for v in listed:
        if v.name == requested:
            return v
    raise UnsupportedProtocolVersion.build(requested, [v.name for v in listed])


def build_request_meta(
    protocol_version: str,
    client_capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any] | None = None,
    *,
    log_level: str | None = None,
    progress_token: str | int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Client side: the ``_meta`` object of a modern request (``extra`` keys first, so the
    envelope keys always win)."""
    if log_level is not None and log_level not in _LOG_RANK:
        raise ValueError(f"unknown log level {log_level!r}")
    meta: dict[str, Any] = dict(extra or {})
    meta[PROTOCOL_VERSION_KEY] = protocol_version
    meta[CLIENT_CAPABILITIES_KEY] = dict(client_capabilities)
    if client_info is not None:
        meta[CLIENT_INFO_KEY] = dict(client_info)
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    if progress_token is not None:
        meta[PROGRESS_TOKEN_KEY] = progress_token
    return meta


def result_meta(server_info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_meta`` member identifying the server on a result."""
    return {SERVER_INFO_KEY: dict(server_info)}


def finish_result(
    result: Mapping[str, Any], server_info: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A result ready for the modern wire: ``resultType`` (``"complete"`` unless the
    handler set one) and ``_meta`` serverInfo (the handler's own ``_meta`` keys kept; its
    own serverInfo wins). Returns a new dict; ``result`` is not changed."""
    out = dict(result)
    if "resultType" not in out:
        out["resultType"] = "complete"
    if server_info is not None:
        meta = out.get("_meta")
        # serverInfo itself is not copied: it is the server's and goes on the wire as is.
        merged: dict[str, Any] = {SERVER_INFO_KEY: server_info}
        if meta is not None and _is_object(meta):
            merged.update(meta)
        out["_meta"] = merged
    return out


def missing_client_capabilities(
    declared: Mapping[str, Any], required: Mapping[str, Any]
) -> dict[str, Any]:
    """The part of ``required`` that ``declared`` lacks, recursively over objects
    (``{"sampling": {"tools": {}}}`` against ``{"sampling": {}}`` lacks
    ``{"sampling": {"tools": {}}}``); empty when everything is declared."""
    missing: dict[str, Any] = {}
    for name, need in required.items():
        have = declared.get(name)
        if have is None:
            missing[name] = need
        elif isinstance(need, Mapping) and need:
            if not isinstance(have, Mapping):
                missing[name] = need
            elif sub := missing_client_capabilities(have, need):
                missing[name] = sub
    return missing


def missing_capability_error(required: Mapping[str, Any]) -> MissingClientCapability:
    """-32021 with ``data.requiredCapabilities`` (a ClientCapabilities object)."""
    return MissingClientCapability.build(dict(required))


def require_client_capabilities(
    declared: Mapping[str, Any] | Envelope, required: Mapping[str, Any]
) -> None:
    """Raise -32021 listing what of ``required`` the client did not declare."""
    caps = declared.client_capabilities if isinstance(declared, Envelope) else declared
    if missing := missing_client_capabilities(caps, required):
        raise missing_capability_error(missing)


def should_log(envelope: Envelope, level: str) -> bool:
    """Whether a ``notifications/message`` at ``level`` may be sent for this request: only
    when the request set ``logLevel`` and ``level`` is at least that severe."""
    if envelope.log_level is None:
        return False
    return _LOG_RANK.get(level, -1) >= _LOG_RANK[envelope.log_level]
