"""The envelope's quick path (subscripts, for the usual decoded request) judges every
envelope as the full reading does: the same Envelope, or the same -32602/-32022."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from mcpkit.envelope import _read, _read_all
from mcpkit.errors import McpError
from mcpkit.versions import MODERN_SUPPORTED

PV = "io.modelcontextprotocol/protocolVersion"
CC = "io.modelcontextprotocol/clientCapabilities"
CI = "io.modelcontextprotocol/clientInfo"
LL = "io.modelcontextprotocol/logLevel"


class _Frozen(Mapping[str, Any]):
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _meta(**changes: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {PV: "2026-07-28", CC: {}}
    for key, value in changes.items():
        name = {"pv": PV, "cc": CC, "ci": CI, "ll": LL}.get(key, key.replace("_", "."))
        if value is ...:
            meta.pop(name, None)
        else:
            meta[name] = value
    return meta


CASES: list[Any] = [
    {"_meta": _meta()},
    {"_meta": _meta(ci={"name": "c", "version": "1"})},
    {"_meta": _meta(ci={"name": "c"})},
    {"_meta": _meta(ci=[1])},
    {"_meta": _meta(ll="info")},
    {"_meta": _meta(ll="loud")},
    {"_meta": _meta(ll=["info"])},
    {"_meta": _meta(ll="debug", ci={"name": "c", "version": "1"}, progressToken=3)},
    {"_meta": _meta(com_example_trace="x")},
    {"_meta": _meta(cc={"elicitation": {}, "sampling": {"tools": {}}})},
    {"_meta": _meta(cc={"elicitation": True})},
    {"_meta": _meta(cc={"extensions": {"io.x/y": {}}})},
    {"_meta": _meta(cc={"extensions": {"io.x/y": 1}})},
    {"_meta": _meta(cc={"experimental": []})},
    {"_meta": _meta(cc=None)},
    {"_meta": _meta(cc=...)},
    {"_meta": _meta(cc=[])},
    {"_meta": _meta(cc=_Frozen({"roots": {}}))},
    {"_meta": _meta(pv=None)},
    {"_meta": _meta(pv=...)},
    {"_meta": _meta(pv="")},
    {"_meta": _meta(pv=20260728)},
    {"_meta": _meta(pv="2099-01-01")},
    {"_meta": None},
    {"_meta": []},
    {"_meta": _Frozen(_meta())},
    {},
    None,
    [],
    "x",
    _Frozen({"_meta": _meta()}),
]


def _outcome(reader: Any, params: Any, supported: Any) -> Any:
    try:
        env = reader(params, supported)
    except McpError as exc:
        return ("error", exc.code, exc.message, exc.data)
    return (
        env.version,
        env.protocol_version,
        dict(env.client_capabilities),
        env.client_info,
        env.log_level,
        dict(env.extra),
    )


@pytest.mark.parametrize("params", CASES)
@pytest.mark.parametrize("supported", [None, MODERN_SUPPORTED])
def test_the_quick_path_judges_as_the_full_reading(params: Any, supported: Any) -> None:
    assert _outcome(_read, params, supported) == _outcome(_read_all, params, supported)


def test_a_log_level_that_is_not_a_string_is_invalid_params() -> None:
    with pytest.raises(McpError) as caught:
        _read({"_meta": _meta(ll=["info"])}, None)
    assert caught.value.code == -32602
