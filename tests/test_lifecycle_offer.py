"""The server side of the handshake picks what versions.negotiate picks, for any tuple of
supported versions (looked up per tuple, not searched per initialize)."""

from __future__ import annotations

import pytest

from mcpkit import versions
from mcpkit.errors import UnsupportedProtocolVersion
from mcpkit.lifecycle import Lifecycle, Role

_TUPLES = [
    versions.SUPPORTED,
    (versions.V2025_03_26, versions.V2024_11_05),
    (versions.V2026_07_28, versions.V2025_06_18),
    (versions.V2025_06_18, versions.V2025_06_18),
]


def _initialize(requested: str, supported: tuple[versions.ProtocolVersion, ...]) -> object:
    lifecycle = Lifecycle(Role.SERVER, {})
    params = {"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "c"}}
    return lifecycle.server_initialize(params, supported)


@pytest.mark.parametrize("supported", _TUPLES)
def test_the_handshake_negotiates_as_versions_negotiate(
    supported: tuple[versions.ProtocolVersion, ...],
) -> None:
    names = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28", "1999-01-01"]
    for _ in range(2):  # the second time from what the first one looked up
        for name in names:
            assert _initialize(name, supported) is versions.negotiate(name, supported), name


def test_a_modern_only_server_refuses_a_handshake_naming_what_it_speaks() -> None:
    with pytest.raises(UnsupportedProtocolVersion) as raised:
        _initialize("2025-11-25", (versions.V2026_07_28,))
    assert "2026-07-28" in str(raised.value.data)
