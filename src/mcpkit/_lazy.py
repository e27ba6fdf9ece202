"""Lazy imports: a package's public names (PEP 562) and a module's optional dependencies
load on first use, so importing mcpkit costs only what is served."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from types import ModuleType
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


class LazyModule:
    """Stands in for a module in another module's globals until an attribute is first read:
    then the module is imported and replaces this stand-in there, so every later access is
    a plain global lookup of the real module (no cost on the hot path).

    Use it for a dependency only some features need::

        if TYPE_CHECKING:
            from mcpkit.server import sampling
        else:
            sampling = lazy_module("mcpkit.server.sampling", globals(), "sampling")
    """

    __slots__ = ("__key", "__module", "__namespace")

    def __init__(self, module: str, namespace: MutableMapping[str, Any], key: str) -> None:
        self.__module = module
        self.__namespace = namespace
        self.__key = key

    def __load(self) -> ModuleType:
        # Name-mangled, so that no attribute of the module it stands for is shadowed.
        module = importlib.import_module(self.__module)
        if self.__namespace.get(self.__key) is self:
            self.__namespace[self.__key] = module
        return module

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__load(), name)

    def __repr__(self) -> str:
        return f"<lazy module {self.__module!r}>"


def lazy_module(module: str, namespace: MutableMapping[str, Any], key: str) -> Any:
    """A :class:`LazyModule` for ``module``, bound as ``namespace[key]`` (return value)."""
    return LazyModule(module, namespace, key)
