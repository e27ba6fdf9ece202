"""Resolving the TARGET argument of ``mcpkit inspect/call/read/prompt`` and the server of
``mcpkit run``: the rule of :mod:`mcpkit.client.targets`, with the CLI's errors.

A TARGET is, in this order of precedence:

- a server name of the ``mcpServers`` config given with ``--config``;
- an ``http://`` / ``https://`` URL (Streamable HTTP, with fallback to the legacy SSE);
- ``path/to/file.py:object`` or ``package.module:object`` (that mcpkit ``Server``, loaded
  into this process and connected in memory; modules are found from the current folder
  too, as uvicorn does);
- ``path/to/file.py`` (run with this interpreter, speaking stdio, as ``Client`` does);
- otherwise a command line, run as a subprocess speaking stdio (``"python server.py"``,
  ``"npx -y @scope/server"``).

``mcpkit run`` serves the Server of ``file.py[:object]`` or ``module:object`` itself.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from typing import TYPE_CHECKING, Any

from mcpkit.cli.errors import CliError
from mcpkit.client.targets import ServerRef, TargetError, parse_server_ref
from mcpkit.client.targets import load_server as _load

if TYPE_CHECKING:
    from mcpkit.client.targets import Target
    from mcpkit.server.core import ServerCore

__all__ = ["ServerRef", "load_server", "parse_server_ref", "resolve_target"]


def _cwd_on_path() -> None:
    """Put the working directory first on ``sys.path`` (as ``python -m`` and uvicorn do),
    so ``mcpkit run weather:app`` finds ``weather.py`` in the current folder."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def load_server(ref: ServerRef) -> ServerCore[Any]:
    """Import the module of ``ref`` and return its mcpkit ``Server`` object."""
    if ref.module is not None:
        _cwd_on_path()
    try:
        return _load(ref)
    except TargetError as exc:
        raise CliError(exc.message, exc.hint) from exc


def resolve_target(target: str, config: str | None = None) -> Target:
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
    if ref is not None and ref.obj is not None:
        return load_server(ref)
    if ref is not None and ref.path is not None and not ref.path.is_file():
        raise CliError(
            f"no such file: {ref.path}", "give the path of a Python file that runs a Server"
        )
    _check_command(target)
    return target


_ADDRESS = re.compile(
    r"(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|[\w.-]+):\d{1,5}(/\S*)?"
)
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def _check_command(target: str) -> None:
    """Refuse, naming the likely intent, a one-word TARGET that cannot be a command: an
    address without ``http://``, a URL of another scheme, a file name without ``.py``."""
    try:
        words = shlex.split(target)
    except ValueError:
        return  # the command line's own error will say it
    if len(words) != 1:
        return
    word = words[0]
    scheme = _SCHEME.match(word)
    if scheme is not None:
        raise CliError(
            f"{word!r} is a {scheme.group(1)}:// URL; mcpkit reaches servers over http(s) "
            "or a command line (stdio)",
            "give an http:// or https:// URL, a server.py, or a command",
        )
    if _ADDRESS.fullmatch(word) and not os.path.exists(word):
        path = "" if "/" in word else "/mcp"
        raise CliError(
            f"{word!r} is not a command; did you mean the URL http://{word}{path}?",
            "an HTTP server is given by its URL, with http:// or https://",
        )
    if os.sep in word or os.path.exists(word) or shutil.which(word) is not None:
        return
    for guess in (f"{word}.py", word.replace(".", os.sep) + ".py"):
        if os.path.isfile(guess):
            raise CliError(
                f"no command {word!r}; did you mean the file {guess}?",
                f"give the file: {guess} (or {guess}:app for its Server object)",
            )
    raise CliError(
        f"no command {word!r} on PATH, and no file {word}.py here",
        "give a server.py, a module:object, an http(s) URL, or a command line",
    )
