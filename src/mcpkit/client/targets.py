"""Turning a ``Client`` target into a transport.

A target is one of:

- a command line (``"python server.py --flag"``, split like a shell would) or an argv list
  -> the server runs as a subprocess over stdio;
- a single ``*.py`` path -> run with the current Python interpreter;
- an ``http://`` / ``https://`` URL -> Streamable HTTP;
- an mcpkit ``Server`` (anything with a ``session(transport)`` method) -> in memory;
- an already built :class:`~mcpkit.transports.base.Transport` -> used as it is;
- a config entry of the common ``mcpServers`` JSON (``{"command", "args", "env", "cwd"}``
  or ``{"url", "headers"}``).
"""

from __future__ import annotations

import importlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from mcpkit.transports.base import Transport

if TYPE_CHECKING:
    import httpx

    from mcpkit.server import Server
    from mcpkit.server.session import AppSession

__all__ = ["Connection", "Target", "config_entry", "is_url", "open_target"]

Target: TypeAlias = (
    "str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Server | Transport"
    " | Mapping[str, Any]"
)
"""What ``Client(target)`` connects to: a Python file, ``file.py:app`` / ``module:app``, a
command line, an argv list, an http(s) URL, a ``Server``, a ``Transport`` or an
``mcpServers`` config entry (see the module docstring)."""


@dataclass
class Connection:
    """What a target turned into: the client's transport, an in-process server session to
    start and close with it (in-memory targets), and the server URL when it is remote."""

    transport: Transport
    server_session: AppSession | None = None
    server_url: str | None = None
    #: The in-process server object (its lifespan, ``running()``, is entered while connected).
    server: Server | None = None

    def explain_failure(self, exc: BaseException) -> BaseException | None:
        """A clearer error for a connection that failed with ``exc``, or None."""
        return None


def is_url(value: str) -> bool:
    """True for an ``http://`` or ``https://`` URL."""
    lowered = value[:8].lower()
    return lowered.startswith(("http://", "https://"))


def _http(url: str, headers: Mapping[str, str] | None, auth: Any, **options: Any) -> Connection:
    # Streamable HTTP lives in an optional extra (httpx); import it only when asked for.
    transport_cls = importlib.import_module("mcpkit.transports.http").StreamableHTTPClientTransport
    kwargs: dict[str, Any] = dict(options)
    if headers:
        kwargs["headers"] = dict(headers)
    if auth is not None:
        kwargs["auth"] = auth
    return Connection(transport_cls(url, **kwargs), server_url=url)


def _stdio(argv: Sequence[str], **options: Any) -> Connection:
    from mcpkit.transports.stdio import StdioClientTransport

    if not argv:
        raise ValueError("Client target: empty command line")
    return Connection(StdioClientTransport(argv[0], list(argv[1:]), **options))


def _argv_for(command: str) -> list[str]:
    argv = shlex.split(command, posix=os.name != "nt")
    if len(argv) == 1 and argv[0].endswith(".py") and Path(argv[0]).is_file():
        return [sys.executable, argv[0]]
    return argv


def open_target(
    target: Target | object,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    headers: Mapping[str, str] | None = None,
    auth: httpx.Auth | None = None,
    stderr: str = "capture",
    on_stderr: Callable[[str], None] | None = None,
    http_options: Mapping[str, Any] | None = None,
) -> Connection:
    """Build (but do not start) the transport for ``target``; see the module docstring."""
    stdio_opts: dict[str, Any] = {"env": env, "cwd": cwd, "stderr": stderr, "on_stderr": on_stderr}
    if isinstance(target, Transport):
        return Connection(target)
    if isinstance(target, os.PathLike):
        target = os.fspath(target)
    if isinstance(target, str):
        if is_url(target):
            return _http(target, headers, auth, **(http_options or {}))
        return _stdio(_argv_for(target), **stdio_opts)
    if isinstance(target, (list, tuple)):
        if not all(isinstance(a, (str, os.PathLike)) for a in target):
            raise TypeError("Client target: an argv list must hold only strings")
        return _stdio([os.fspath(a) for a in target], **stdio_opts)
    if isinstance(target, Mapping):
        return _from_entry(
            target,
            env=env,
            cwd=cwd,
            headers=headers,
            auth=auth,
            http_options=http_options,
            **{k: v for k, v in stdio_opts.items() if k not in ("env", "cwd")},
        )
    from mcpkit.server import Server

    if isinstance(target, Server):
        from mcpkit.transports.memory import MemoryTransport

        client_end, server_end = MemoryTransport.pair()
        return Connection(client_end, server_session=target.session(server_end), server=target)
    raise TypeError(
        f"Client target must be a command line, an argv list, an http(s) URL, a Server, "
        f"a Transport or a config entry, not {type(target).__name__}"
    )


def _from_entry(entry: Mapping[str, Any], **opts: Any) -> Connection:
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url", entry.get("serverUrl"))  # serverUrl: Windsurf's name for it
    if url is not None or kind in ("http", "streamable-http", "streamable_http", "sse"):
        if not isinstance(url, str) or not is_url(url):
            raise ValueError(
                f"Server config entry: 'url' (or 'serverUrl') must be an http(s) URL, got {url!r}"
            )
        headers = {**(entry.get("headers") or {}), **(opts.get("headers") or {})}
        return _http(url, headers, opts.get("auth"), **(opts.get("http_options") or {}))
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise ValueError("Server config entry needs a 'command' (stdio) or a 'url' (HTTP)")
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("Server config entry: 'args' must be a list of strings")
    env = dict(entry.get("env") or {})
    if opts.get("env"):
        env.update(opts["env"])
    cwd = opts.get("cwd") or entry.get("cwd")
    return _stdio(
        [command, *args],
        env=env or None,
        cwd=cwd,
        stderr=opts["stderr"],
        on_stderr=opts["on_stderr"],
    )


def config_entry(config: Any, name: str) -> dict[str, Any]:
    """The entry ``name`` of an ``mcpServers`` config (a dict, JSON text or a file path).

    Both the whole file (``{"mcpServers": {...}}``, or VS Code's ``{"servers": {...}}``) and
    the inner mapping are accepted.
    """
    if isinstance(config, (str, os.PathLike)):
        text = str(config)
        if not text.lstrip().startswith("{"):
            text = Path(config).read_text(encoding="utf-8")
        config = json.loads(text)
    if not isinstance(config, Mapping):
        raise TypeError("Server config must be a mapping, JSON text or a path to a JSON file")
    servers = config.get("mcpServers", config.get("servers", config))
    if not isinstance(servers, Mapping):
        raise ValueError("Server config: 'mcpServers' must be an object")
    entry = servers.get(name)
    if not isinstance(entry, Mapping):
        known = ", ".join(sorted(str(k) for k in servers)) or "none"
        raise KeyError(f"No server named {name!r} in the config (known: {known})")
    return dict(entry)
