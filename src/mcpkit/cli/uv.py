"""``mcpkit run --with PKG --python X``: serve in an environment made by ``uv run``.

The server is started as ``uv run --no-project --python X --with PKG ... -- python -m mcpkit
run ...`` (the same options; ``MCPKIT_NO_UV=1`` in its environment, so it serves instead of
starting uv again). ``--with`` (repeatable) adds to the project file's ``dependencies``;
``--python`` defaults to this interpreter, whose packages (mcpkit among them) the
environment then has too, as ``uv run --with`` layers its packages over the interpreter's
environment. Another Python gets mcpkit as well, from where this one was installed
(:func:`mcpkit.cli.install.mcpkit_requirement`), with the extras the options need.
``--no-project``: the project's own environment is not synced (nor a ``uv.lock`` written);
run ``uv run mcpkit run`` for that.

This process is replaced by uv (``exec``), so stdin, stdout and signals go straight to it;
uv is needed (it is found on ``PATH``), without it the command says so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcpkit.cli.errors import CliError
from mcpkit.settings import NO_UV_ENV, Settings

__all__ = ["extras_for", "run_with_uv", "same_environment", "uv_command"]


def same_environment(python: str, executable: str) -> bool:
    """True when ``python`` (a ``--python`` request) names an interpreter of the
    environment of ``executable``: a path, or a name found on ``PATH``, in the same
    ``bin`` folder (a virtualenv's pythons are links to another: not resolved)."""
    if os.sep in python or (os.altsep is not None and os.altsep in python):
        found: str | None = python
    else:
        found = shutil.which(python)
    if found is None:
        return False
    return Path(os.path.abspath(found)).parent == Path(os.path.abspath(executable)).parent


def extras_for(settings: Settings, transport: str) -> list[str]:
    """The extras of mcpkit that serving with ``settings`` over ``transport`` needs."""
    extras = []
    if transport == "http":
        extras.append("http")
        if settings.http_server == "granian":
            extras.append("granian")
        if settings.metrics:
            extras.append("metrics")
    if settings.store is not None and settings.store.startswith("redis"):
        extras.append("redis")
    return extras


def _with_extras(requirement: str, extras: list[str]) -> str:
    """``mcpkit @ URL`` as ``mcpkit[a,b] @ URL``."""
    if not extras:
        return requirement
    name, sep, rest = requirement.partition(" @ ")
    return f"{name}[{','.join(extras)}]{sep}{rest}"


def uv_command(
    uv: str,
    settings: Settings,
    child: list[str],
    *,
    transport: str = "stdio",
    executable: str = sys.executable,
) -> list[str]:
    """The command line running ``child`` (``python -m mcpkit run ...``) through uv with
    the packages and Python of ``settings``."""
    python = settings.python or executable
    argv = [uv, "run", "--no-project", "--python", python]
    if not same_environment(python, executable):
        from mcpkit.cli.install import mcpkit_requirement

        argv += ["--with", _with_extras(mcpkit_requirement(), extras_for(settings, transport))]
    for package in settings.dependencies:
        argv += ["--with", package]
    return [*argv, "--", *child]


def run_with_uv(args: argparse.Namespace, settings: Settings, child: list[str]) -> int:
    """Serve through ``uv run`` (see the module): this process becomes uv."""
    uv = shutil.which("uv")
    if uv is None:
        raise CliError(
            "serving with --with/--python (or dependencies/python in the project file) "
            "needs uv, and there is no uv on PATH",
            "install uv (https://docs.astral.sh/uv/), or set MCPKIT_NO_UV=1 to serve in "
            "this environment as it is",
        )
    argv = uv_command(uv, settings, child, transport=str(args.transport))
    os.environ[NO_UV_ENV] = "1"
    if args.debug:
        sys.stderr.write(f"mcpkit: {' '.join(argv)}\n")
    sys.stderr.flush()
    sys.stdout.flush()
    if sys.platform == "win32":  # no exec there: wait for it instead
        return subprocess.call(argv)
    try:
        os.execv(uv, argv)
    except OSError as exc:
        raise CliError(f"cannot start uv ({uv}): {exc.strerror or exc}") from None
    return 0  # not reached: exec replaced this process
