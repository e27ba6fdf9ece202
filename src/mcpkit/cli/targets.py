"""Resolving the TARGET argument of ``mcpkit inspect/call/read/prompt`` and the server of
``mcpkit run``.

A TARGET is, in this order of precedence:

- a server name of the ``mcpServers`` config given with ``--config``;
- an ``http://`` / ``https://`` URL (Streamable HTTP, with fallback to the legacy SSE);
- ``path/to/file.py`` or ``path/to/file.py:object`` (the mcpkit ``Server`` in that file,
  connected in memory) or ``package.module:object``;
- otherwise a command line, run as a subprocess speaking stdio (``"python server.py"``,
  ``"npx -y @scope/server"``).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpkit.cli.errors import CliError

__all__ = ["ServerRef", "load_server", "parse_server_ref", "resolve_target"]

_FILE_REF = re.compile(r"^(?P<path>.+\.py)(?::(?P<obj>[A-Za-z_][\w.]*))?$")
_MODULE_REF = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<obj>[A-Za-z_][\w.]*)$")
#: Names tried, in order, when a file names no object.
_DEFAULT_NAMES = ("app", "server", "mcp")


@dataclass(frozen=True)
class ServerRef:
    """Where an in-process server lives: a file path or a module name, plus an attribute."""

    path: Path | None
    module: str | None
    obj: str | None

    def __str__(self) -> str:
        where = str(self.path) if self.path is not None else str(self.module)
        return f"{where}:{self.obj}" if self.obj else where


def parse_server_ref(text: str) -> ServerRef | None:
    """``file.py[:object]`` or ``module:object`` as a :class:`ServerRef`; None otherwise."""
    if " " not in text:
        m = _FILE_REF.match(text)
        if m:
            return ServerRef(Path(m["path"]), None, m["obj"])
        m = _MODULE_REF.match(text)
        if m and "/" not in text:
            return ServerRef(None, m["module"], m["obj"])
    return None


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise CliError(
            f"no such file: {path}", "give the path of a Python file that defines a Server"
        )
    resolved = path.resolve()
    # The file's own folder first, as `python file.py` would do, so its sibling imports work.
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = f"_mcpkit_target_{abs(hash(str(resolved)))}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except CliError:
        raise
    except SystemExit as exc:
        raise CliError(
            f"{path} exited while being imported (code {exc.code})",
            "keep the serving code under `if __name__ == '__main__':`",
        ) from exc
    except Exception as exc:
        raise CliError(
            f"importing {path} failed: {type(exc).__name__}: {exc}",
            "run `python " + str(path) + "` to see the full traceback, or add --debug",
        ) from exc
    return module


def _is_server(value: Any) -> bool:
    from mcpkit.server import Server

    return isinstance(value, Server)


def load_server(ref: ServerRef) -> Any:
    """Import the module of ``ref`` and return its mcpkit ``Server`` object."""
    if ref.path is not None:
        module = _import_file(ref.path)
    else:
        assert ref.module is not None
        try:
            module = importlib.import_module(ref.module)
        except ImportError as exc:
            raise CliError(
                f"cannot import module {ref.module!r}: {exc}",
                "use path/to/file.py:object for a file, or check the module is installed",
            ) from exc
    if ref.obj:
        value: Any = module
        for part in ref.obj.split("."):
            if not hasattr(value, part):
                raise CliError(
                    f"{ref}: no attribute {part!r}",
                    f"the servers defined there: {', '.join(_servers_in(module)) or 'none'}",
                )
            value = getattr(value, part)
        if callable(value) and not _is_server(value):
            value = value()  # a factory function
        if not _is_server(value):
            raise CliError(
                f"{ref} is a {type(value).__name__}, not an mcpkit Server",
                "point at the object created with Server(...)",
            )
        return value
    for name in _DEFAULT_NAMES:
        value = getattr(module, name, None)
        if _is_server(value):
            return value
    found = _servers_in(module)
    if len(found) == 1:
        return getattr(module, found[0])
    if not found:
        raise CliError(
            f"no mcpkit Server found in {ref}",
            f"name it with {ref}:OBJECT, or run another kind of server as a command line: "
            f"'python {ref}'",
        )
    raise CliError(
        f"{ref} defines several servers ({', '.join(found)})",
        f"choose one: {ref}:{found[0]}",
    )


def _servers_in(module: Any) -> list[str]:
    return [name for name, value in vars(module).items() if _is_server(value)]


def resolve_target(target: str, config: str | None = None) -> Any:
    """What to hand to :class:`~mcpkit.Client` for TARGET (see the module docstring)."""
    from mcpkit.client.targets import config_entry, is_url

    if config is not None:
        try:
            return config_entry(config, target)
        except FileNotFoundError as exc:
            raise CliError(
                f"config file not found: {config}", "give the path of an mcpServers JSON file"
            ) from exc
        except KeyError as exc:
            raise CliError(str(exc.args[0]), "names are the keys of 'mcpServers'") from exc
        except (ValueError, TypeError) as exc:  # json.JSONDecodeError included
            raise CliError(
                f"bad config file {config}: {exc}",
                'expected {"mcpServers": {"NAME": {"command": ..., "args": [...]}}}',
            ) from exc
        except OSError as exc:
            raise CliError(f"cannot read config file {config}: {exc.strerror}") from exc
    if not target.strip():
        raise CliError("empty TARGET", "give a command line, a URL or a file.py")
    if is_url(target):
        return target
    ref = parse_server_ref(target)
    if ref is not None:
        return load_server(ref)
    return target
