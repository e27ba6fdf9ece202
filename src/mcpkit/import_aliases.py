"""Serving the import names ``mcp``, ``mcp_types`` and ``fastmcp`` from the compat layer, so
that a server written for those packages imports mcpkit's instead, unchanged.

This module is the import machinery alone (it imports nothing of mcpkit): the code that
loads such a server (``mcpkit run``, a Client given a server file) installs it before the
file runs, and only that file's imports reach :mod:`mcpkit.compat`.

:func:`install` puts a finder first on :data:`sys.meta_path`: ``import mcp.server.stdio``
then gives the module ``mcpkit.compat.mcp.server.stdio`` (the same object under both names),
whether or not the real package is installed. A name the compat layer does not provide
fails with an ImportError that says so.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["ALIASES", "CompatFinder", "install", "uninstall"]

#: Import name -> the compat module serving it.
ALIASES = {
    "mcp": "mcpkit.compat.mcp",
    "mcp_types": "mcpkit.compat.mcp.types",
    "fastmcp": "mcpkit.compat.fastmcp",
    "fastmcp_tasks": "mcpkit.compat.fastmcp_tasks",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the target module ran when it was imported."""


class CompatFinder(importlib.abc.MetaPathFinder):
    """Finds ``mcp...``, ``mcp_types...`` and ``fastmcp...`` in ``mcpkit.compat``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        top, _, rest = fullname.partition(".")
        base = ALIASES.get(top)
        if base is None:
            return None
        name = f"{base}.{rest}" if rest else base
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: mcpkit's compat layer does not provide it "
                "(docs/migration.md lists what it covers)",
                name=fullname,
            )
        spec = importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(name), is_package=found.submodule_search_locations is not None
        )
        return spec


_FINDER = CompatFinder()


def install() -> None:
    """Serve ``mcp``, ``mcp_types`` and ``fastmcp`` from the compat layer in this process
    (modules of those names imported already are replaced)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name in list(sys.modules):
        if name.partition(".")[0] in ALIASES:
            del sys.modules[name]


def uninstall() -> None:
    """Undo :func:`install` (the aliased modules are forgotten)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in list(sys.modules):
        if name.partition(".")[0] in ALIASES:
            del sys.modules[name]
