"""Running an unmodified server written for ``mcp`` (1.x or 2.x) or ``fastmcp`` on mcpkit:
``python -m mcpkit.compat TARGET [ARGS...]`` (or ``mcpkit run --compat TARGET [ARGS...]``).

The import names ``mcp``, ``mcp_types`` and ``fastmcp`` are served by the compat layer in
this process (see :mod:`mcpkit.import_aliases`), then TARGET runs as it would on its own:

- ``path/to/server.py``: the file, as ``__main__``;
- a console script of an installed package (``mcp-server-time``): its entry point;
- ``package.module``: the module, as ``python -m`` runs it;
- ``path/to/server.py:object`` or ``package.module:object``: that server object served over
  stdio (``mcpkit run`` gives the transport options).

``ARGS`` are the server's own arguments (``sys.argv[1:]``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import os
import runpy
import shutil
import sys
from pathlib import Path
from typing import Any

from mcpkit.import_aliases import install

__all__ = ["main", "run_target"]


class CompatTargetError(Exception):
    """TARGET names nothing that can be run."""


def _entry_point(name: str) -> Any:
    for ep in importlib.metadata.entry_points(group="console_scripts"):
        if ep.name == name:
            return ep
    return None


def _result(value: Any) -> Any:
    if inspect.isawaitable(value):
        import asyncio

        return asyncio.run(value)  # type: ignore[arg-type]
    return value


def run_target(target: str, args: list[str]) -> Any:
    """Run TARGET (see the module docstring) with ``args`` as its arguments; returns what
    an entry point returned (its exit status)."""
    install()
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    path = Path(target)
    if path.suffix == ".py" and path.is_file():
        sys.argv = [str(path), *args]
        sys.path.insert(0, str(path.resolve().parent))
        runpy.run_path(str(path), run_name="__main__")
        return None
    ep = _entry_point(target)
    if ep is not None:
        sys.argv = [target, *args]
        return _result(ep.load()())
    script = shutil.which(target)
    if script is not None and _is_python_script(Path(script)):
        sys.argv = [script, *args]
        runpy.run_path(script, run_name="__main__")
        return None
    if _is_module(target):
        sys.argv = [target, *args]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return None
    raise CompatTargetError(
        f"{target!r} is neither a Python file, an installed console script nor a module"
    )


def _is_module(name: str) -> bool:
    if not all(part.isidentifier() for part in name.split(".")):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _is_python_script(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def main(argv: list[str] | None = None) -> int:
    """``python -m mcpkit.compat TARGET [ARGS...]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python -m mcpkit.compat TARGET [ARGS...]", file=sys.stderr)
        return 2 if not argv else 0
    target, *args = argv
    if ":" in target and not Path(target).is_file():
        return _serve_object(target, args)
    try:
        status = run_target(target, args)
    except CompatTargetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return status if isinstance(status, int) else 0


def _serve_object(target: str, args: list[str]) -> int:
    from mcpkit.client.targets import TargetError, load_server, parse_server_ref

    install()
    ref = parse_server_ref(target)
    if ref is None or ref.obj is None:
        print(f"error: {target!r} is not file.py:object or module:object", file=sys.stderr)
        return 2
    sys.argv = [target, *args]
    if ref.module is not None and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        server = load_server(ref)
    except TargetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server.run()
    return 0
