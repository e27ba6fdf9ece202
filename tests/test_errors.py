"""The error tree: one root, errors from the peer apart from local refusals, the code table."""

from __future__ import annotations

import pytest

import mcpkit
from mcpkit import errors
from mcpkit.errors import (
    AuthError,
    CommandLineError,
    ConnectionClosed,
    HeaderMismatch,
    McpError,
    McpkitError,
    MissingClientCapability,
    ProcessExited,
    RequestRefused,
    RequestTimeout,
    TransportError,
    UnsupportedProtocolVersion,
)
from mcpkit.lifecycle import Lifecycle, Role


def test_one_root() -> None:
    for cls in (
        McpError,
        RequestRefused,
        RequestTimeout,
        HeaderMismatch,
        MissingClientCapability,
        UnsupportedProtocolVersion,
        TransportError,
        ConnectionClosed,
        ProcessExited,
        AuthError,
        CommandLineError,
    ):
        assert issubclass(cls, McpkitError), cls
    assert not issubclass(TransportError, McpError)
    assert not issubclass(AuthError, (McpError, TransportError))
    assert issubclass(RequestTimeout, TimeoutError)
    assert issubclass(ProcessExited, ConnectionClosed)


def test_every_error_name_is_in_the_docstring_tree() -> None:
    doc = errors.__doc__ or ""
    for name in errors.__all__:
        if isinstance(getattr(errors, name), type):  # the classes (not ERROR_CLASSES, HTTP_ERROR)
            assert name in doc, name


def test_peer_errors_by_code() -> None:
    plain = McpError.from_error({"code": -32601, "message": "nope"})
    assert type(plain) is McpError and plain.code == -32601
    err = McpError.from_error(
        {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28", "2025-11-25"], "requested": "1900-01-01"},
        }
    )
    assert isinstance(err, UnsupportedProtocolVersion)
    assert err.supported == ["2026-07-28", "2025-11-25"] and err.requested == "1900-01-01"
    assert err.code == -32022
    err = McpError.from_error(
        {"code": -32021, "message": "m", "data": {"requiredCapabilities": {"sampling": {}}}}
    )
    assert isinstance(err, MissingClientCapability)
    assert err.required == {"sampling": {}} and err.message == "m"
    err = McpError.from_error({"code": -32020, "message": "Header mismatch"})
    assert isinstance(err, HeaderMismatch) and err.data is None
    # Malformed data never breaks the accessors.
    err = McpError.from_error({"code": -32022, "message": "x", "data": "junk"})
    assert isinstance(err, UnsupportedProtocolVersion)
    assert err.supported == [] and err.requested is None
    bad = McpError.from_error("not an object")
    assert type(bad) is McpError and bad.code == -32603
    assert McpError.from_error({"code": True}).code == -32603


def test_code_table() -> None:
    assert errors.ERROR_CLASSES == {
        -32020: HeaderMismatch,
        -32021: MissingClientCapability,
        -32022: UnsupportedProtocolVersion,
        -31429: errors.RateLimited,
        -31503: errors.Overloaded,
        -31413: errors.ResponseTooLarge,
    }
    limited = McpError.from_error(
        {"code": -31429, "message": "slow", "data": {"retryAfterMs": 250}}
    )
    assert isinstance(limited, errors.RateLimited) and limited.retry_after == 0.25
    assert errors.RateLimited("no data").retry_after is None


def test_server_side_builders_give_the_spec_shape() -> None:
    err = UnsupportedProtocolVersion.build("1900-01-01", ["2026-07-28"])
    assert (err.code, err.message) == (-32022, "Unsupported protocol version")
    assert err.data == {"supported": ["2026-07-28"], "requested": "1900-01-01"}
    need = MissingClientCapability.build({"elicitation": {}})
    assert need.code == -32021 and need.data == {"requiredCapabilities": {"elicitation": {}}}


def test_local_refusals_are_told_apart() -> None:
    lc = Lifecycle(Role.CLIENT)
    with pytest.raises(RequestRefused) as info:
        lc.check_outgoing_request("tools/list")
    assert info.value.code == -32600
    lc.client_initialize_result({"protocolVersion": "2025-11-25", "capabilities": {}})
    with pytest.raises(RequestRefused) as info:
        lc.check_outgoing_request("tools/call")
    assert info.value.code == -32601
    with pytest.raises(RequestRefused):
        lc.check_outgoing_notification("notifications/roots/list_changed")


def test_names_importable_where_they_were() -> None:
    for name in ("McpError", "ConnectionClosed", "ProcessExited", "RequestTimeout"):
        assert getattr(mcpkit, name) is getattr(errors, name)
    from mcpkit.jsonrpc import McpError as FromJsonrpc

    assert FromJsonrpc is McpError


def test_package_all_is_the_export_table() -> None:
    assert mcpkit.__all__ == sorted([*mcpkit._EXPORTS, "__version__"])
    for name in mcpkit._EXPORTS:
        assert getattr(mcpkit, name) is not None


def test_role_refusals_are_local_refusals() -> None:
    from mcpkit.client.errors import TaskNotSupported
    from mcpkit.server.errors import ClientCapabilityError

    assert issubclass(TaskNotSupported, RequestRefused)
    assert issubclass(ClientCapabilityError, RequestRefused)


def test_transports_say_what_they_are() -> None:
    from mcpkit.transports import StdioClientTransport, StdioServerTransport
    from mcpkit.transports.memory import MemoryTransport

    assert StdioServerTransport().info.kind == "stdio"
    assert StdioClientTransport("true").info.kind == "stdio"
    a, _ = MemoryTransport.pair()
    assert a.info.kind == "memory" and a.info.session_id is None
