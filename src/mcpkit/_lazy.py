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


def export_names(exports: Mapping[str, str], *eager: str) -> list[str]:
    """A package's ``__all__``: the names of its lazy export table plus those it binds
    eagerly, sorted (so the table stays the one list of public names)."""
    return sorted({*exports, *eager})
