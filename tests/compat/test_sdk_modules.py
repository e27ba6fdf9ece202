"""Modules of the official SDK that servers import, compared with the SDK's own:
``mcp.types.version`` (the revisions by era) and ``mcp.server.elicitation``'s outcomes."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.compat.test_unchanged import peer

PAIRS = [
    (a, b)
    for a in ("2024-11-05", "2025-06-18", "2026-07-28", "1999-01-01")
    for b in (
        "2024-11-05",
        "2025-11-25",
        "2026-07-28",
    )
]

_DUMP = """import json, mcp.types.version as v
out = {n: getattr(v, n) for n in v.__all__ if n != "is_version_at_least"}
out["at_least"] = [v.is_version_at_least(a, b) for a, b in %r]
print(json.dumps(out))
"""


def _values(module: Any) -> dict[str, Any]:
    out: dict[str, Any] = {n: getattr(module, n) for n in module.__all__}
    out.pop("is_version_at_least")
    out["at_least"] = [module.is_version_at_least(a, b) for a, b in PAIRS]
    return json.loads(json.dumps(out))


def test_types_version_matches_the_sdk() -> None:
    """Every name of 2.x's ``mcp.types.version``, with the same values and answers."""
    from mcpkit.compat.mcp.types import version

    theirs = json.loads(
        subprocess.run(
            [str(peer("mcp2")), "-c", _DUMP % (PAIRS,)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    )
    assert _values(version) == theirs
    with pytest.raises(ValueError, match="known protocol version"):
        version.is_version_at_least("2025-06-18", "2020-01-01")


def test_types_version_is_served_under_both_import_names() -> None:
    """``mcp.types.version`` and ``mcp_types.version`` are the same module (in a process of
    its own, the import names served there alone)."""
    code = (
        "from mcpkit.import_aliases import install; install()\n"
        "import mcp.types.version as a, mcp_types.version as b\n"
        "print(a is b, a.MODERN_PROTOCOL_VERSIONS)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.split() == ["True", "('2026-07-28',)"]
