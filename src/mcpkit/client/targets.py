"""Turning a ``Client`` target into a connection: the one target rule, shared with the CLI.

A target is, in this order:

- a :class:`~mcpkit.transports.base.Transport` -> used as it is;
- an mcpkit ``Server`` -> connected in memory (its lifespan runs while connected);
- a config entry of the common ``mcpServers`` JSON (``{"command", "args", "env", "cwd"}``
  or ``{"url"`` (or ``"serverUrl"``), ``"headers"}``);
- an argv list -> the server runs as a subprocess over stdio;
- a string (or path):

  - an ``http://`` / ``https://`` URL -> Streamable HTTP;
  - ``file.py:app`` or ``package.module:app`` -> that ``Server`` object, loaded into this
    process and connected in memory (``app`` may also be a function returning one);
  - ``file.py`` -> the file runs with this interpreter (``sys.executable``) over stdio;
    when it ends without serving, the error says what to write instead (a file that
    defines a Server it does not run gets the ``file.py:app`` form as a hint);
  - otherwise a command line, split like a shell would (``"npx -y @scope/server"``); a
    leading bare ``python`` or ``python3`` is this interpreter too, not whichever one
    ``PATH`` finds first.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from mcpkit.errors import ConnectionClosed, ProcessExited
from mcpkit.transports.base import Transport

if TYPE_CHECKING:
    import httpx

    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.session import AppSession

__all__ = [
    "Connection",
    "ServerRef",
    "Target",
    "TargetError",
    "config_entry",
    "is_url",
    "load_server",
    "open_target",
    "parse_server_ref",
]

Target: TypeAlias = (
    "str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Server | Transport"
    " | Mapping[str, Any]"
)
"""What ``Client(target)`` connects to: a Python file, ``file.py:app`` / ``module:app``, a
command line, an argv list, an http(s) URL, a ``Server``, a ``Transport`` or an
``mcpServers`` config entry (see the module docstring)."""

_FILE_REF = re.compile(r"^(?P<path>.+\.py)(?::(?P<obj>[A-Za-z_][\w.]*))?$")
_MODULE_REF = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<obj>[A-Za-z_][\w.]*)$")
#: Names tried, in order, when a file names no object.
_DEFAULT_NAMES = ("app", "server", "mcp")
#: Command names taken to mean this interpreter.
_PYTHON_NAMES = frozenset({"python", "python3"})


class TargetError(ConnectionClosed):
    """The target cannot be connected to as given: no such file, no Server under that
    name, a Python file that ended without serving. ``hint`` says what to do instead."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


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


@dataclass
class Connection:
    """What a target turned into: the client's transport, an in-process server session to
    start and close with it (in-memory targets), and the server URL when it is remote."""

    transport: Transport
    server_session: AppSession | None = None
    server_url: str | None = None
    #: The in-process server object (its lifespan, ``running()``, is entered while connected).
    server: Server | None = None
    #: The Python file run over stdio (a ``file.py`` target, as given), for a clearer error.
    script: Path | None = None
    #: The folder the server process runs in (None: this process's).
    cwd: Path | None = None

    def explain_failure(self, exc: BaseException) -> BaseException | None:
        """A clearer error for a connection that failed with ``exc``, or None."""
        if self.script is not None and isinstance(exc, ProcessExited) and exc.returncode == 0:
            return explain_exit(self.script, cwd=self.cwd)
        return None


def is_url(value: str) -> bool:
    """True for an ``http://`` or ``https://`` URL."""
    lowered = value[:8].lower()
    return lowered.startswith(("http://", "https://"))


# -- loading a Server into this process ------------------------------------------------------


def _is_server(value: object) -> bool:
    """An mcpkit ``Server``, or a server of another SDK's API served by one (the compat
    layer's ``FastMCP``, ``MCPServer``, low-level ``Server``: its ``native``)."""
    from mcpkit.server.core import ServerCore as Server

    return isinstance(value, Server) or isinstance(getattr(value, "native", None), Server)


def _native(value: Any) -> Server:
    from mcpkit.server.core import ServerCore as Server

    return value if isinstance(value, Server) else value.native


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise TargetError(
            f"no such file: {path}", "give the path of a Python file that defines a Server"
        )
    resolved = path.resolve()
    name = f"_mcpkit_target_{abs(hash(str(resolved)))}"
    loaded = sys.modules.get(name)
    if loaded is not None:  # the same file again (a reconnect): the same Server
        return loaded
    # The file's own folder first, as `python file.py` would do, so its sibling imports work.
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if _written_for_other_sdk(resolved):
        from mcpkit.import_aliases import install

        install()  # its `import mcp` / `import fastmcp` get mcpkit's compat layer
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        del sys.modules[name]
        raise TargetError(
            f"{path} exited while being imported (code {exc.code})",
            "keep the serving code under `if __name__ == '__main__':`",
        ) from exc
    except Exception as exc:
        del sys.modules[name]
        raise TargetError(
            f"importing {path} failed: {type(exc).__name__}: {exc}",
            f"run `python {path}` to see the full traceback",
        ) from exc
    return module


def _written_for_other_sdk(path: Path) -> bool:
    """True when the file imports ``mcp``, ``mcp_types`` or ``fastmcp`` (a server written
    for the official SDK or fastmcp, served here through :mod:`mcpkit.compat`)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(n.partition(".")[0] in ("mcp", "mcp_types", "fastmcp") for n in names):
            return True
    return False


def _not_a_factory(value: Any) -> str | None:
    """Why ``value`` is not called as a server factory, or None when it is one: a function
    of no required arguments whose return annotation names a server. Anything else (a tool
    function, a class, a callable object) is never called: running it is not looking."""
    if not inspect.isfunction(value):
        return f"a {type(value).__name__}"
    name = getattr(value, "__qualname__", "function")
    try:
        try:
            signature = inspect.signature(value, eval_str=True)
        except Exception:  # an annotation naming what the module does not define
            signature = inspect.signature(value)
    except (TypeError, ValueError):
        return f"the function {name}"
    required = [
        p.name
        for p in signature.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if required:
        return f"the function {name}({', '.join(required)})"
    if not _names_a_server(signature.return_annotation):
        return f"the function {name}, not annotated '-> Server'"
    return None


def _names_a_server(annotation: Any) -> bool:
    """Whether a return annotation names a server class (mcpkit's or a compat one)."""
    from mcpkit.server.core import ServerCore as Server

    if isinstance(annotation, str):  # not resolvable: its name says
        last = annotation.strip().strip("'\"").rsplit(".", 1)[-1]
        return last.endswith("Server") or last == "FastMCP"
    if isinstance(annotation, type):
        return issubclass(annotation, Server) or hasattr(annotation, "native")
    return False


def _servers_hint(module: Any, ref: ServerRef) -> str:
    found = _servers_in(module)
    where = str(ref).rsplit(":", 1)[0]
    return f"{where}:{found[0]}" if found else "e.g. file.py:app"


def _servers_in(module: Any) -> list[str]:
    return [name for name, value in vars(module).items() if _is_server(value)]


def load_server(ref: ServerRef) -> Server:
    """Import the file or module of ``ref`` and return its mcpkit ``Server`` (the object
    named, a function named that returns one, or the file's only / ``app`` Server).

    Raises :class:`TargetError` with a hint when there is none."""
    if ref.path is not None:
        module = _import_file(ref.path)
    else:
        assert ref.module is not None
        try:
            module = importlib.import_module(ref.module)
        except ImportError as exc:
            raise TargetError(
                f"cannot import module {ref.module!r}: {exc}",
                "use path/to/file.py:object for a file, or check the module is installed",
            ) from exc
    if ref.obj:
        value: Any = module
        for part in ref.obj.split("."):
            if not hasattr(value, part):
                raise TargetError(
                    f"{ref}: no attribute {part!r}",
                    f"the servers defined there: {', '.join(_servers_in(module)) or 'none'}",
                )
            value = getattr(value, part)
        if callable(value) and not _is_server(value):
            refused = _not_a_factory(value)
            if refused is not None:
                raise TargetError(
                    f"{ref} is {refused}, not an mcpkit Server (it was not called)",
                    f"point at the Server object ({_servers_hint(module, ref)}), or make a "
                    "factory: a function of no arguments annotated '-> Server'",
                )
            value = value()  # a factory function
        if not _is_server(value):
            raise TargetError(
                f"{ref} is a {type(value).__name__}, not an mcpkit Server",
                "point at the object created with Server(...)",
            )
        server: Server = _native(value)
        return server
    for name in _DEFAULT_NAMES:
        value = getattr(module, name, None)
        if _is_server(value):
            return _native(value)
    found = _servers_in(module)
    if len(found) == 1:
        return _native(getattr(module, found[0]))
    if not found:
        raise TargetError(
            f"no mcpkit Server found in {ref}",
            f"name it with {ref}:OBJECT, or run another kind of server as a command line: "
            f"'python {ref}'",
        )
    raise TargetError(
        f"{ref} defines several servers ({', '.join(found)})",
        f"choose one: {ref}:{found[0]}",
    )


# -- a Python file that ended without serving ------------------------------------------------


def _defined_servers(tree: ast.AST) -> tuple[list[str], set[str]]:
    """Names assigned ``Server(...)`` in ``tree``, and names something calls ``.run*()`` on."""
    servers: list[str] = []
    run: set[str] = set()
    for node in ast.walk(tree):
        value: ast.expr | None = None
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        elif isinstance(node, ast.AnnAssign):
            value, targets = node.value, [node.target]
        if isinstance(value, ast.Call):
            func = value.func
            called = func.id if isinstance(func, ast.Name) else None
            if isinstance(func, ast.Attribute):
                called = func.attr
            if called == "Server":
                servers += [t.id for t in targets if isinstance(t, ast.Name)]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.startswith("run")
            and isinstance(node.func.value, ast.Name)
        ):
            run.add(node.func.value.id)
    return servers, run


def explain_exit(script: Path, *, cwd: Path | None = None) -> TargetError | None:
    """Why ``script`` (relative to ``cwd``), run as a server, exited with code 0 before
    answering: it defines a Server it does not run, or no Server at all. None when neither
    is clear. The file is parsed, never run again."""
    try:
        path = cwd / script if cwd is not None else script
        tree = ast.parse(path.read_bytes(), filename=str(script))
    except (OSError, SyntaxError, ValueError):
        return None
    servers, run = _defined_servers(tree)
    if not servers:
        return TargetError(
            f"no mcpkit Server found in {script}: it exited with code 0 without serving",
            "a server file creates app = Server(...) and ends with app.run()",
        )
    idle = [name for name in servers if name not in run]
    if len(idle) < len(servers):
        return None
    name = idle[0]
    return TargetError(
        f"{script} defines the Server {name!r} but does not run it",
        f"connect to it in memory with the target '{script}:{name}', or end the file with "
        f"`if __name__ == '__main__': {name}.run()`",
    )


# -- transports ------------------------------------------------------------------------------


def _http(
    url: str, headers: Mapping[str, str] | None, auth: httpx.Auth | None, **options: Any
) -> Connection:
    # Streamable HTTP lives in an optional extra (httpx); import it only when asked for.
    transport_cls = importlib.import_module("mcpkit.transports.http").StreamableHTTPClientTransport
    kwargs: dict[str, Any] = dict(options)
    if headers:
        kwargs["headers"] = dict(headers)
    if auth is not None:
        kwargs["auth"] = auth
    return Connection(transport_cls(url, **kwargs), server_url=url)


def _stdio(argv: Sequence[str], script: Path | None = None, **options: Any) -> Connection:
    from mcpkit.transports.stdio import StdioClientTransport

    if not argv:
        raise ValueError("Client target: empty command line")
    cwd = options.get("cwd")
    return Connection(
        StdioClientTransport(argv[0], list(argv[1:]), **options),
        script=script,
        cwd=Path(cwd) if cwd is not None else None,
    )


def _memory(server: Server) -> Connection:
    from mcpkit.transports.memory import MemoryTransport

    client_end, server_end = MemoryTransport.pair()
    return Connection(client_end, server_session=server.session(server_end), server=server)


def _command(command: str) -> list[str]:
    argv = shlex.split(command, posix=os.name != "nt")
    if argv and argv[0] in _PYTHON_NAMES:
        argv[0] = sys.executable
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
    """Build (but do not start) the connection for ``target``; see the module docstring.

    A ``file.py:app`` / ``module:app`` target is imported here; a missing file or object
    raises :class:`TargetError`."""
    from mcpkit.server.core import ServerCore as Server

    stdio_opts: dict[str, Any] = {"env": env, "cwd": cwd, "stderr": stderr, "on_stderr": on_stderr}
    if isinstance(target, Transport):
        return Connection(target)
    if isinstance(target, Server):
        return _memory(target)
    if isinstance(target, os.PathLike):
        target = os.fspath(target)
    if isinstance(target, str):
        if is_url(target):
            return _http(target, headers, auth, **(http_options or {}))
        ref = parse_server_ref(target.strip())
        if ref is not None and ref.obj is not None:
            return _memory(load_server(ref))
        if ref is not None and ref.path is not None:
            if not (Path(cwd) / ref.path if cwd is not None else ref.path).is_file():
                raise TargetError(
                    f"no such file: {ref.path}",
                    "give the path of a Python file that runs a Server",
                )
            return _stdio([sys.executable, str(ref.path)], script=ref.path, **stdio_opts)
        return _stdio(_command(target), **stdio_opts)
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
    raise TypeError(
        f"Client target must be a command line, an argv list, an http(s) URL, a Server, "
        f"a Transport or a config entry, not {type(target).__name__}"
    )


def _from_entry(entry: Mapping[str, Any], **opts: Any) -> Connection:
    servers = entry.get("mcpServers", entry.get("servers"))
    if isinstance(servers, Mapping) and "command" not in entry and "url" not in entry:
        # A whole config: one server in it is that server; several need a choice.
        if len(servers) == 1:
            (only,) = servers.values()
            if isinstance(only, Mapping):
                return _from_entry(only, **opts)
        names = ", ".join(sorted(str(k) for k in servers)) or "none"
        raise ValueError(
            f"Client takes one server, and this config has {len(servers)} ({names}): use "
            "mcpkit.ClientGroup(config) for all of them, or Client.from_config(config, name) "
            "for one"
        )
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


def config_entry(config: Mapping[str, Any] | str | os.PathLike[str], name: str) -> dict[str, Any]:
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
