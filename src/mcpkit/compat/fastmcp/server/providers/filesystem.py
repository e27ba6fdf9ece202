"""fastmcp's :class:`FileSystemProvider`: the components defined in a directory of Python
files with the standalone decorators (``@tool``, ``@resource``, ``@prompt``) or as
component objects, found as fastmcp finds them:

- every ``*.py`` under the root, recursively and sorted by path, but ``__init__.py`` and
  ``__pycache__``;
- a file in a package (a directory with ``__init__.py``, at or below the root) imported as
  a member of it (relative imports work), its parent directory on ``sys.path`` for the
  import only; any other file imported under its stem (or a private name when the stem is
  taken by another module), its directory on ``sys.path`` for the import only; an already
  imported file is executed again when the provider rescans;
- in each module, its public attributes (not starting with ``_``) in alphabetical order;
- a file that fails to import is left out (logged), the others are served.

``reload=True`` rescans before every request (a development mode); otherwise the scan made
when the provider is created is served.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import logging
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from mcpkit.compat.fastmcp._components import Component, component_of
from mcpkit.compat.fastmcp.server.providers.local_provider import LocalProvider

__all__ = ["FileSystemProvider", "discover_files"]

logger = logging.getLogger("mcpkit.compat.fastmcp.providers")


def discover_files(root: Path) -> list[Path]:
    """The Python files a provider rooted at ``root`` imports, in its order."""
    if not root.exists():
        return []
    if not root.is_dir():
        return [root] if root.suffix == ".py" and root.name != "__init__.py" else []
    return sorted(
        p for p in root.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def _package_root(file: Path, stop_at: Path) -> Path | None:
    """The outermost package directory holding ``file``, not above ``stop_at``."""
    found = None
    current = file.parent
    while current != current.parent and current != stop_at.parent:
        if not (current / "__init__.py").exists():
            break
        found = current
        current = current.parent
    return found


@contextlib.contextmanager
def _on_path(directory: str) -> Iterator[None]:
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(directory)


def _private(prefix: str, path: Path) -> str:
    return f"{prefix}{hashlib.sha1(str(path).encode(), usedforsecurity=False).hexdigest()[:12]}"


def import_file(file: Path, root: Path) -> ModuleType:
    """Import (or execute again) ``file`` as the provider rooted at ``root`` does."""
    file = file.resolve()
    package = _package_root(file, root.resolve())
    if package is not None:
        parts = list(file.relative_to(package.parent).with_suffix("").parts)
        name = ".".join(parts)
        top = sys.modules.get(parts[0])
        paths = [Path(p).resolve() for p in getattr(top, "__path__", ())] if top else []
        if top is not None and package.resolve() not in paths:  # another tree's package
            anchor = _private("_fastmcp_pkg_", package.parent.resolve())
            if anchor not in sys.modules:
                anchor_spec = importlib.machinery.ModuleSpec(anchor, loader=None, is_package=True)
                holder = importlib.util.module_from_spec(anchor_spec)
                holder.__path__ = [str(package.parent)]
                sys.modules[anchor] = holder
            name = f"{anchor}.{name}"
        with _on_path(str(package.parent)):
            if name in sys.modules:
                return importlib.reload(sys.modules[name])
            return importlib.import_module(name)
    stem = file.stem
    existing = sys.modules.get(stem)
    name = stem
    if existing is not None and getattr(existing, "__file__", None) != str(file):
        name = _private(f"_fastmcp_{stem}_", file)
    with _on_path(str(file.parent)):
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ImportError(f"Cannot load spec for {file}")
        module = sys.modules.get(name)
        if module is not None:
            spec.loader.exec_module(module)
            return module
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module


def components_in(module: ModuleType) -> list[Component]:
    """The components a module defines, by attribute name."""
    found = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        component = component_of(getattr(module, name, None))
        if component is not None:
            found.append(component)
    return found


class FileSystemProvider(LocalProvider):
    """Serves the components found under ``root`` (see the module)."""

    def __init__(self, root: str | Path = ".", reload: bool = False) -> None:
        super().__init__(on_duplicate="replace")
        self._root = Path(root).resolve()
        self._reload = reload
        self._failed: dict[Path, str] = {}
        self._lock = threading.Lock()
        self._load()

    def __repr__(self) -> str:
        return f"FileSystemProvider(root={self._root!r}, reload={self._reload})"

    @property
    def failed_files(self) -> dict[Path, str]:
        """The files the last scan could not use, and why."""
        return dict(self._failed)

    def _load(self) -> None:
        """Scan again; the new components replace the old at once (a request reading
        them meanwhile sees the old ones)."""
        with self._lock:
            fresh = LocalProvider(on_duplicate="replace")
            failed: dict[Path, str] = {}
            if not self._root.exists():
                logger.warning("FileSystemProvider root does not exist: %s", self._root)
            for file in discover_files(self._root):
                try:
                    found = components_in(import_file(file, self._root))
                except Exception as exc:
                    failed[file] = str(exc)
                    logger.warning("Failed to load %s: %s", file, exc)
                    continue
                for component in found:
                    fresh._register(component)
            self._components = fresh._components
            self._failed = failed

    async def _fresh(self, read: Callable[[], Any]) -> Any:
        if self._reload:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self._load)
        return await read()

    async def _list_tools(self) -> Sequence[Any]:
        return await self._fresh(super()._list_tools)  # type: ignore[no-any-return]

    async def _list_resources(self) -> Sequence[Any]:
        return await self._fresh(super()._list_resources)  # type: ignore[no-any-return]

    async def _list_resource_templates(self) -> Sequence[Any]:
        return await self._fresh(super()._list_resource_templates)  # type: ignore[no-any-return]

    async def _list_prompts(self) -> Sequence[Any]:
        return await self._fresh(super()._list_prompts)  # type: ignore[no-any-return]
