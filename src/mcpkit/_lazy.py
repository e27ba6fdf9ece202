"""Lazy package exports (PEP 562): a package's public names load on first use."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def load_export(
    package: str, name: str, exports: Mapping[str, str], namespace: dict[str, Any], prefix: str = ""
) -> Any:
    """The attribute ``name`` of ``package``, imported from module ``prefix + exports[name]``
    and kept in ``namespace`` (the package's globals) so the next access is direct."""
    module = exports.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(prefix + module), name)
    namespace[name] = value
    return value
