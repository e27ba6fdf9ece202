"""``mcpkit install CLIENT SERVER``: add a server to an MCP client's configuration.

Clients and where their configuration lives (``--scope``; ``--config PATH`` overrides):

============== ========================================================= =================
client         file                                                      servers under
============== ========================================================= =================
claude-desktop ``claude_desktop_config.json`` in the app's folder:        ``mcpServers``
               macOS ``~/Library/Application Support/Claude``, Windows
               ``%APPDATA%\\Claude``, Linux ``~/.config/Claude``
claude-code    project: ``./.mcp.json`` (default); user: ``~/.claude.json`` ``mcpServers``
cursor         user: ``~/.cursor/mcp.json`` (default); project:           ``mcpServers``
               ``./.cursor/mcp.json``
vscode         project: ``./.vscode/mcp.json`` (default); user: the       ``servers``
               profile's ``mcp.json`` (``Code/User`` in the same folders
               as Claude's)
============== ========================================================= =================

SERVER is ``path/to/file.py[:object]``, ``package.module:object`` or an ``http(s)://`` URL.
A Python server is started with this interpreter (``python -m mcpkit run /abs/file.py``), or
with uv when dependencies are given (``uv run --with mcpkit --with PKG mcpkit run ...``);
its environment comes from ``-e KEY=VALUE`` and ``--env-file FILE`` (written into the
configuration). A URL becomes the client's remote entry (``type: http``; Claude Desktop,
whose file has no remote servers, gets ``npx -y mcp-remote URL``).

The change is shown as a diff before it is written; only the entry of that name is added
or replaced, every other key of the file is kept. A file that is not a JSON object (or whose
servers are not an object) is an error and stays untouched; the new file replaces the old
one atomically. ``--dry-run`` shows the diff only; ``--print`` (or the client ``json``)
prints the entry instead, for any other client.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpkit.cli.errors import EXIT_USAGE, CliError
from mcpkit.client.targets import is_url, parse_server_ref

__all__ = [
    "CLIENTS",
    "Launch",
    "add_install_parser",
    "client_entry",
    "config_path",
    "merge_entry",
    "read_env_file",
    "run_install",
]

#: The clients whose configuration ``mcpkit install`` writes, and ``json`` (print only).
CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "json")
_DEFAULT_SCOPE = {
    "claude-desktop": "user",
    "claude-code": "project",
    "cursor": "user",
    "vscode": "project",
    "json": "user",
}
_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Clients whose stdio entries take a working directory (``cwd``).
_HAS_CWD = frozenset({"claude-desktop", "vscode"})


def _app_data(platform: str, home: Path, env: Mapping[str, str]) -> Path:
    """The per-user application folder of desktop apps on ``platform``."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config")


def config_path(
    client: str,
    scope: str | None = None,
    *,
    platform: str = sys.platform,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Path:
    """Where ``client`` keeps its MCP servers for ``scope`` (``user`` or ``project``; None:
    the client's default) on ``platform``."""
    home = home if home is not None else Path.home()
    env = env if env is not None else os.environ
    cwd = cwd if cwd is not None else Path.cwd()
    scope = scope or _DEFAULT_SCOPE[client]
    if scope not in ("user", "project"):
        raise CliError(f"unknown scope {scope!r}", "use --scope user or --scope project")
    if client == "claude-desktop":
        if scope == "project":
            raise CliError(
                "Claude Desktop has no project configuration", "drop --scope (it is per user)"
            )
        return _app_data(platform, home, env) / "Claude" / "claude_desktop_config.json"
    if client == "claude-code":
        return cwd / ".mcp.json" if scope == "project" else home / ".claude.json"
    if client == "cursor":
        return cwd / ".cursor" / "mcp.json" if scope == "project" else home / ".cursor" / "mcp.json"
    if client == "vscode":
        if scope == "project":
            return cwd / ".vscode" / "mcp.json"
        return _app_data(platform, home, env) / "Code" / "User" / "mcp.json"
    raise CliError(f"unknown client {client!r}", f"choose one of {', '.join(CLIENTS)}")


def servers_key(client: str) -> str:
    """The top-level key holding the servers in ``client``'s file."""
    return "servers" if client == "vscode" else "mcpServers"


@dataclass
class Launch:
    """How a client reaches the server: a command to start (stdio) or a URL."""

    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def client_entry(client: str, launch: Launch) -> dict[str, Any]:
    """The server entry in ``client``'s format."""
    if launch.url is not None:
        if client == "claude-desktop":  # its file has stdio servers only
            args = ["-y", "mcp-remote", launch.url]
            for key, value in launch.headers.items():
                args += ["--header", f"{key}: {value}"]
            return {"command": "npx", "args": args}
        entry: dict[str, Any] = {"url": launch.url}
        if client in ("claude-code", "vscode"):
            entry = {"type": "http", **entry}
        if launch.headers:
            entry["headers"] = dict(launch.headers)
        return entry
    assert launch.command is not None
    entry = {"command": launch.command, "args": list(launch.args)}
    if client in ("claude-code", "vscode"):
        entry = {"type": "stdio", **entry}
    if launch.env:
        entry["env"] = dict(launch.env)
    if launch.cwd is not None:
        entry["cwd"] = launch.cwd
    return entry


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a dotenv file (``#`` comments, blank lines, ``export``, and
    quoted values allowed); CliError naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read the env file {path}: {exc.strerror or exc}") from None
    out: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not _ENV_KEY.fullmatch(key):
            raise CliError(
                f"{path}:{number}: not a KEY=VALUE line: {raw.strip()!r}",
                "each line of an env file is KEY=VALUE (# starts a comment)",
            )
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


def _pairs(items: Sequence[str], what: str, sep: str, key_rule: re.Pattern[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        key = key.strip()
        if not found or not key_rule.fullmatch(key):
            example = "KEY=VALUE" if sep == "=" else "'Name: value'"
            raise CliError(f"{what} {item!r} is not {example}", None, EXIT_USAGE)
        out[key] = value.strip() if sep == ":" else value
    return out


def mcpkit_requirement() -> str:
    """What ``uv run --with`` installs mcpkit from: this checkout when mcpkit runs from one,
    else the source pip recorded for the install (``direct_url.json``: a folder, an archive,
    a VCS commit). The package is not on PyPI (the name there is not this project), so
    without either the command cannot say: CliError."""
    import mcpkit

    root = Path(mcpkit.__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "src" / "mcpkit").is_dir():
        return f"mcpkit @ {root.as_uri()}"
    source = _recorded_source()
    if source is not None:
        return f"mcpkit @ {source}"
    raise CliError(
        "cannot tell where this mcpkit was installed from, and the name 'mcpkit' on PyPI "
        "is not this project",
        "name the source yourself: --with 'mcpkit @ file:///path/to/checkout' "
        "(or a git+https:// URL)",
    )


def _recorded_source() -> str | None:
    """The URL pip recorded in mcpkit's ``direct_url.json`` (PEP 610), or None."""
    from importlib import metadata

    try:
        raw = metadata.distribution("mcpkit").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        info = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(info, dict) or not isinstance(info.get("url"), str):
        return None
    url: str = info["url"]
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        commit = vcs.get("commit_id")
        ref = f"@{commit}" if isinstance(commit, str) else ""
        return f"{vcs['vcs']}+{url}{ref}"
    return url


def _stdio(spec: str) -> list[str]:
    """``mcpkit run``'s arguments serving ``spec`` to the client over stdio, whatever the
    project file (``mcpkit.toml``, ``[tool.mcpkit]``) of the folder the client starts it in
    or ``MCPKIT_TRANSPORT`` say."""
    return ["--transport", "stdio", spec]


def _uv() -> str:
    return shutil.which("uv") or "uv"


def plan_launch(args: argparse.Namespace, cwd: Path) -> tuple[Launch, str]:
    """The :class:`Launch` for the parsed arguments, and the default server name."""
    target: str = args.server
    env: dict[str, str] = {}
    for env_file in args.env_files or ():
        env.update(read_env_file(Path(env_file)))
    env.update(_pairs(args.env or (), "-e", "=", _ENV_KEY))
    headers = _pairs(args.headers or (), "--header", ":", re.compile(r"[A-Za-z0-9\-_]+"))
    if is_url(target):
        if env and args.client != "claude-desktop":
            raise CliError(
                "-e/--env-file set the environment of a server the client starts; "
                f"{target} is a remote server",
                "pass credentials with --header 'Authorization: Bearer ...'",
                EXIT_USAGE,
            )
        if args.with_packages or args.uv or args.cwd:
            raise CliError(
                "--with, --uv and --cwd are for a Python server the client starts, not for a URL",
                None,
                EXIT_USAGE,
            )
        from urllib.parse import urlsplit

        host = urlsplit(target).hostname or "server"
        return Launch(url=target, headers=headers, env=env), host.replace(".", "-")
    if headers:
        raise CliError("--header is for a URL server", None, EXIT_USAGE)
    ref = parse_server_ref(target)
    if ref is None:
        raise CliError(
            f"{target!r} is neither a Python server (file.py[:object], module:object) nor a URL",
            "mcpkit install CLIENT path/to/server.py (or http://host/mcp)",
            EXIT_USAGE,
        )
    if ref.path is not None:
        path = (cwd / ref.path).resolve()
        if not path.is_file():
            raise CliError(f"no such file: {path}", "give the path of the server's .py file")
        spec = f"{path}:{ref.obj}" if ref.obj else str(path)
        default_name = path.parent.name if path.stem in ("server", "main", "app") else path.stem
    else:
        spec = str(ref)
        default_name = str(ref.module).rsplit(".", 1)[-1]
        # A module is found from the folder it was installed from.
        env.setdefault("PYTHONPATH", str(cwd))
    workdir = str((cwd / args.cwd).resolve()) if args.cwd else None
    if workdir is not None and not Path(workdir).is_dir():
        raise CliError(f"--cwd: no such folder: {workdir}")
    if args.with_packages or args.uv:
        packages = list(args.with_packages or ())
        uv_args = ["run"]
        if workdir is not None:
            uv_args += ["--directory", workdir]
        if not any(re.match(r"mcpkit\b", p) for p in packages):
            packages.insert(0, mcpkit_requirement())
        for pkg in packages:
            uv_args += ["--with", pkg]
        return Launch(_uv(), [*uv_args, "mcpkit", "run", *_stdio(spec)], env), default_name
    if workdir is not None and args.client not in _HAS_CWD and args.client != "json":
        raise CliError(
            f"{args.client}'s configuration has no working directory for a server",
            "add --uv (uv run --directory ...) or drop --cwd",
            EXIT_USAGE,
        )
    python = sys.executable  # not resolved: a virtualenv's python is a symlink to keep
    if args.python:
        given = str(args.python)
        found = shutil.which(given) if os.sep not in given else None
        python = found or os.path.abspath(given)
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise CliError(
                f"--python {given}: no such interpreter"
                + (f" ({python})" if python != given else ""),
                "give the path of a Python that has mcpkit installed (e.g. .venv/bin/python)",
                EXIT_USAGE,
            )
    return Launch(python, ["-m", "mcpkit", "run", *_stdio(spec)], env, cwd=workdir), default_name


def merge_entry(
    text: str | None, path: Path, key: str, name: str, entry: Mapping[str, Any]
) -> tuple[str, str]:
    """The file's text before and after setting ``key.name`` to ``entry`` (everything else
    kept); CliError when the file is not a JSON object or ``key`` is not an object."""
    before = text or ""
    fix = "fix the file, or print the entry with --print and add it by hand"
    if before.strip():
        try:
            doc = json.loads(before)
        except json.JSONDecodeError as exc:
            hint = fix
            if path.name == "mcp.json" and ("//" in before or "/*" in before):
                hint = "the file has comments (JSONC), which mcpkit cannot keep: " + hint
            raise CliError(
                f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                f"{exc.msg}); it was left untouched",
                hint,
            ) from None
        if not isinstance(doc, dict):
            raise CliError(
                f"{path} holds a JSON {type(doc).__name__}, not an object; it was left untouched",
                fix,
            )
    else:
        doc = {}
    servers = doc.get(key)
    if servers is None:
        servers = {}
    elif not isinstance(servers, dict):
        raise CliError(
            f"{path}: {key!r} is a JSON {type(servers).__name__}, not an object of servers; "
            "it was left untouched",
            fix,
        )
    doc[key] = {**servers, name: dict(entry)}
    return before, json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a temporary file beside it, then
    ``os.replace``), keeping the old file's permissions; a new file is readable by its owner
    only (0600: server entries hold tokens and keys)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with_suppressed_unlink(tmp)
        raise


def with_suppressed_unlink(path: str) -> None:
    """Remove ``path`` if it is there."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def _confirm(path: Path) -> bool:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return True  # scripts and tests: the diff above is the record
    answer = input(f"Write {path}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def run_install(args: argparse.Namespace) -> int:
    """``mcpkit install``: plan the entry, show the diff, write (or print) it."""
    cwd = Path.cwd()
    launch, default_name = plan_launch(args, cwd)
    name = args.name or default_name
    if not _NAME.fullmatch(name):
        raise CliError(
            f"{name!r} is not a usable server name",
            "pass --name NAME (letters, digits, '-', '_' and '.')",
            EXIT_USAGE,
        )
    client: str = args.client
    entry = client_entry("claude-code" if client == "json" else client, launch)
    if client == "json":
        entry = {k: v for k, v in entry.items() if k != "type"}
    if args.print or client == "json":
        print(json.dumps({servers_key(client): {name: entry}}, indent=2, ensure_ascii=False))
        return 0
    path = Path(args.config).expanduser() if args.config else config_path(client, args.scope)
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else None
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    before, after = merge_entry(text, path, servers_key(client), name, entry)
    if before == after:
        print(f"{path} already has this '{name}' entry: nothing to do")
        return 0
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=str(path) if text is not None else "/dev/null",
        tofile=str(path),
    )
    sys.stdout.writelines(diff)
    if args.dry_run:
        print(f"dry run: {path} was not written")
        return 0
    if not _confirm(path):
        print(f"{path} was not written")
        return 1
    write_atomic(path, after)
    print(f"{'updated' if text is not None else 'created'} {path}: server '{name}' for {client}")
    written = [what for what, given in (("environment values", launch.env),
                                        ("headers", launch.headers)) if given]  # fmt: skip
    if written and path.name in (".mcp.json", "mcp.json") and path.parent != Path.home():
        print(
            f"note: the {' and '.join(written)} are written into this file; keep it out of "
            "version control if they are secrets",
            file=sys.stderr,
        )
    return 0


def add_install_parser(
    sub: Any, command: Callable[..., argparse.ArgumentParser]
) -> argparse.ArgumentParser:
    """Register ``mcpkit install`` (``command`` is the CLI's subcommand factory)."""
    parser = command(
        sub,
        "install",
        "add a server to Claude Desktop, Claude Code, Cursor or VS Code (or print its entry)",
        """
        mcpkit install claude-desktop server.py
        mcpkit install claude-code server.py --name weather -e API_KEY=... --env-file .env
        mcpkit install cursor server.py:app --with httpx --with pandas     # started with uv
        mcpkit install vscode http://127.0.0.1:8000/mcp --header "Authorization: Bearer T"
        mcpkit install cursor server.py --dry-run                  # show the diff only
        mcpkit install json server.py                  # the entry, for any other client
        """,
        description="Add a server to the MCP configuration of Claude Desktop, Claude Code, "
        "Cursor or VS Code: the change is shown as a diff, only the entry of that name is "
        "added or replaced, and a file that is not valid JSON is left untouched. "
        "Files: claude-desktop claude_desktop_config.json (per user); claude-code "
        "./.mcp.json (--scope project, default) or ~/.claude.json (user); cursor "
        "~/.cursor/mcp.json (user, default) or ./.cursor/mcp.json; vscode ./.vscode/mcp.json "
        "(project, default) or the profile's mcp.json (user).",
    )
    parser.add_argument("client", choices=CLIENTS, metavar="CLIENT", help=", ".join(CLIENTS))
    parser.add_argument(
        "server", metavar="SERVER", help="path/to/file.py[:object], module:object or a URL"
    )
    parser.add_argument("--name", help="the entry's name (default: from the file or host)")
    parser.add_argument(
        "-e",
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="an environment variable of the server (repeatable)",
    )
    parser.add_argument(
        "--env-file",
        action="append",
        dest="env_files",
        metavar="FILE",
        help="environment variables from a dotenv file (repeatable; -e wins)",
    )
    parser.add_argument(
        "--with",
        action="append",
        dest="with_packages",
        metavar="PKG",
        help="a dependency of the server: start it with uv run --with PKG (repeatable)",
    )
    parser.add_argument("--uv", action="store_true", help="start the server with uv run")
    parser.add_argument(
        "--python", metavar="PATH", help="the interpreter to start it with (default: this one)"
    )
    parser.add_argument("--cwd", metavar="DIR", help="the server's working directory")
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        dest="headers",
        metavar="'NAME: VALUE'",
        help="an HTTP header for a URL server (repeatable)",
    )
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        help="user or project configuration (default: the client's usual one)",
    )
    parser.add_argument("--config", metavar="PATH", help="write this file instead")
    parser.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    parser.add_argument(
        "--print", action="store_true", help="print the entry as JSON, write nothing"
    )
    return parser
