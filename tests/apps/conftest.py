"""Fixtures of the MCP Apps tests: the ext-apps package's own JSON Schemas of its types
(installed with the Inspector under .cache/peers by scripts/peers.sh) and an app server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit.json_schema import compile_schema
from tests.interop.conftest import PeerMissing, locate_node_peer
from tests.interop.conftest import py_peer as py_peer  # the official Python SDK
from tests.interop.conftest import ts_peer as ts_peer  # the Inspector, for test_inspector.py

EXT_APPS = Path("@modelcontextprotocol") / "ext-apps"


@pytest.fixture(scope="session")
def ext_apps_schema() -> Callable[[str, Any], list[str]]:
    """``check(type_name, value)`` -> the errors of ``value`` against the ext-apps type
    (``McpUiToolMeta``, ``McpUiResourceMeta``, ``McpUiClientCapabilities``, ...)."""
    try:
        peer = locate_node_peer()
    except PeerMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    path = peer.node_modules / EXT_APPS / "dist" / "src" / "generated" / "schema.json"
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/peers.sh", pytrace=False)
    defs = json.loads(path.read_text())["$defs"]

    def check(name: str, value: Any) -> list[str]:
        return compile_schema(defs[name]).errors(value)

    return check
