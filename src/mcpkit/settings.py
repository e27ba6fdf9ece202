"""Server settings: from the command line, ``MCPKIT_*`` environment variables and the
project file.

Each setting of :data:`SETTINGS` is taken from the first of these that gives it:

1. the command line of ``mcpkit run`` (or the arguments given to :meth:`Server.run`);
2. its ``MCPKIT_*`` environment variable;
3. ``mcpkit.toml`` (top-level keys);
4. ``[tool.mcpkit]`` in ``pyproject.toml``;
5. its default.

The project file is looked for in the working directory, then in each parent: the search
stops at the first directory holding ``mcpkit.toml`` or ``pyproject.toml`` (the project's
root, as uv finds it); both files of that directory are read, key by key in the order
above. Paths in the file (``server``, ``event_store``, ``./`` dependencies) are relative
to its directory. An unknown key or a value of the wrong type is a :class:`SettingsError`
naming the file (or variable), the key and what is expected.

``environment`` (the file only) is a table of environment variables for the server: each
is set unless the environment already has it (the environment wins, as with
``uv run --env-file``), before the ``MCPKIT_*`` variables are read.
``dependencies`` and ``python`` make ``mcpkit run`` serve through ``uv run --with``
(:mod:`mcpkit.cli.uv`); ``--with`` adds to the file's dependencies.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from mcpkit.errors import McpkitError

if TYPE_CHECKING:  # pathlib is loaded by what reads a project file, not by app.run()
    from pathlib import Path

__all__ = [
    "PROJECT_FILE",
    "SETTINGS",
    "Project",
    "Setting",
    "Settings",
    "SettingsError",
    "apply_environment",
    "configure_logging",
    "env_store",
    "find_project",
    "load",
    "run_options",
]

#: The project file of its own.
PROJECT_FILE: Final = "mcpkit.toml"
PYPROJECT: Final = "pyproject.toml"
#: ``1``: serve in this environment as it is, never through uv (set for the server that
#: ``uv run`` starts; also a way to ignore ``dependencies``/``python`` where uv is absent).
NO_UV_ENV: Final = "MCPKIT_NO_UV"

Kind = Literal["str", "int", "float", "bool", "list", "table", "path"]
LOG_LEVELS: Final = ("debug", "info", "warning", "error", "critical")
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


class SettingsError(McpkitError, ValueError):
    """A setting with an unknown key or a value of the wrong type (the message says where)."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting: its key (in the file and on :class:`Settings`), how its value is
    written, its environment variable and flag (None: none), its default and choices."""

    key: str
    kind: Kind
    env: str | None
    flag: str | None
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    help: str = ""


#: Every setting, in the order of the documentation's table (docs/configuration.md).
SETTINGS: Final[tuple[Setting, ...]] = (
    Setting("server", "str", "MCPKIT_SERVER", "SERVER", None, help="the entry point"),
    Setting(
        "transport", "str", "MCPKIT_TRANSPORT", "--transport", None, ("stdio", "http"),
        help="stdio, or http (implied by host, port or path)",
    ),
    Setting("host", "str", "MCPKIT_HOST", "--host", "127.0.0.1"),
    Setting("port", "int", "MCPKIT_PORT", "--port", 8000, minimum=0),
    Setting("path", "str", "MCPKIT_PATH", "--path", "/mcp"),
    Setting("store", "str", "MCPKIT_STORE", "--store", None),
    Setting(
        "http_server", "str", "MCPKIT_HTTP_SERVER", "--server", "auto",
        ("auto", "uvicorn", "granian"),
    ),
    Setting("workers", "int", "MCPKIT_WORKERS", "--workers", None, minimum=1),
    Setting("log_level", "str", "MCPKIT_LOG_LEVEL", "--log-level", None, LOG_LEVELS),
    Setting("mask_errors", "bool", "MCPKIT_MASK_ERRORS", "--mask-errors", None),
    Setting("stateless", "bool", "MCPKIT_STATELESS", "--stateless", False),
    Setting("json_response", "bool", "MCPKIT_JSON_RESPONSE", "--json-response", False),
    Setting("event_store", "path", "MCPKIT_EVENT_STORE", "--event-store", None),
    Setting("allowed_hosts", "list", "MCPKIT_ALLOWED_HOSTS", "--allowed-host", ()),
    Setting("allowed_origins", "list", "MCPKIT_ALLOWED_ORIGINS", "--allowed-origin", ()),
    Setting("max_in_flight", "int", "MCPKIT_MAX_IN_FLIGHT", "--max-in-flight", None, minimum=1),
    Setting("max_queued", "int", "MCPKIT_MAX_QUEUED", "--max-queued", None, minimum=0),
    Setting("max_sessions", "int", "MCPKIT_MAX_SESSIONS", "--max-sessions", None, minimum=1),
    Setting(
        "max_sessions_per_client", "int", "MCPKIT_MAX_SESSIONS_PER_CLIENT",
        "--max-sessions-per-client", None, minimum=0,
    ),
    Setting("health", "bool", "MCPKIT_HEALTH", "--health", False),
    Setting("metrics", "bool", "MCPKIT_METRICS", "--metrics", False),
    Setting(
        "observability_port", "int", "MCPKIT_OBSERVABILITY_PORT", "--observability-port",
        None, minimum=0,
    ),
    Setting("drain_timeout", "float", "MCPKIT_DRAIN_TIMEOUT", "--drain-timeout", None, minimum=0),
    Setting("dependencies", "list", None, "--with", ()),
    Setting("python", "str", "MCPKIT_PYTHON", "--python", None),
    Setting("environment", "table", None, None, {}),
)  # fmt: skip
_BY_KEY: Final = {s.key: s for s in SETTINGS}


@dataclass(frozen=True)
class Project:
    """The project file(s) found for a directory: the root, and the values of
    ``mcpkit.toml`` and of ``[tool.mcpkit]`` (each checked, paths made absolute)."""

    root: Path
    own: Mapping[str, Any] = field(default_factory=dict)
    pyproject: Mapping[str, Any] = field(default_factory=dict)

    @property
    def configured(self) -> bool:
        """True when either file gives a setting."""
        return bool(self.own) or bool(self.pyproject)

    def source(self, key: str) -> str | None:
        """Which file gives ``key`` (``mcpkit.toml`` or ``pyproject.toml``), or None."""
        if key in self.own:
            return str(self.root / PROJECT_FILE)
        if key in self.pyproject:
            return str(self.root / PYPROJECT)
        return None


@dataclass(frozen=True)
class Settings:
    """Every setting's value (see :data:`SETTINGS`), and where each came from."""

    server: str | None = None
    transport: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    store: str | None = None
    http_server: str = "auto"
    workers: int | None = None
    log_level: str | None = None
    mask_errors: bool | None = None
    stateless: bool = False
    json_response: bool = False
    event_store: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_in_flight: int | None = None
    max_queued: int | None = None
    max_sessions: int | None = None
    max_sessions_per_client: int | None = None
    health: bool = False
    metrics: bool = False
    observability_port: int | None = None
    drain_timeout: float | None = None
    dependencies: tuple[str, ...] = ()
    python: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    #: Per key: ``"flag"``, ``"env"``, the project file's path, or ``"default"``.
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)
    #: The project found (None: no project file).
    project: Project | None = field(default=None, compare=False)

    def given(self, key: str) -> bool:
        """True when ``key`` was set somewhere (not its default)."""
        return self.sources.get(key, "default") != "default"


# -- reading values ----------------------------------------------------------------------------


def _expected(setting: Setting) -> str:
    if setting.choices:
        return "one of " + ", ".join(repr(c) for c in setting.choices)
    return {
        "str": "a string",
        "path": "a path (string)",
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "list": "a list of strings",
        "table": "a table of strings (KEY = 'value')",
    }[setting.kind]


def _check(setting: Setting, value: Any, subject: str) -> Any:
    """``value`` of the right type for ``setting`` (tuple for lists, dict for tables);
    ``subject`` names it in errors (``FILE: key`` or the variable)."""
    kind = setting.kind
    ok: bool
    if kind in ("str", "path"):
        ok = isinstance(value, str)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "list":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    else:  # table: strings, numbers written as they read
        ok = isinstance(value, dict) and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value.values()
        )
        value = {str(k): str(v) for k, v in value.items()} if ok else value
    if ok and setting.choices and value not in setting.choices:
        ok = False
    if ok and setting.minimum is not None and value < setting.minimum:
        raise SettingsError(f"{subject} must be at least {setting.minimum:g}")
    if ok and setting.key == "path" and not value.startswith("/"):
        raise SettingsError(f"{subject} must start with '/', not {value!r}")
    if not ok:
        raise SettingsError(f"{subject} must be {_expected(setting)}, not {value!r}")
    return value


def _from_env(setting: Setting, raw: str) -> Any:
    """The value of ``setting`` written in its environment variable."""
    name = setting.env
    text = raw.strip()
    kind = setting.kind
    try:
        if kind == "int":
            value: Any = int(text)
        elif kind == "float":
            value = float(text)
        elif kind == "bool":
            lowered = text.lower()
            if lowered not in _TRUE | _FALSE:
                raise ValueError
            value = lowered in _TRUE
        elif kind == "list":
            value = [part.strip() for part in text.split(",") if part.strip()]
        else:
            value = text.lower() if setting.choices else text
    except ValueError:
        hint = "1 or 0 (true/false)" if kind == "bool" else _expected(setting)
        raise SettingsError(f"{name} must be {hint}, not {raw!r}") from None
    return _check(setting, value, str(name))


def _table(path: Path, data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The checked settings of a file's table (unknown keys refused), paths absolute."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        setting = _BY_KEY.get(key)
        if setting is None:
            import difflib

            close = difflib.get_close_matches(key, list(_BY_KEY), n=1)
            also = f"did you mean {close[0]!r}?" if close else f"the keys: {', '.join(_BY_KEY)}"
            raise SettingsError(f"{where}: unknown key {key!r} ({also})")
        out[key] = _check(setting, value, f"{where}: {key}")
    root = path.parent
    if "event_store" in out:
        out["event_store"] = str(root / out["event_store"])
    if "server" in out:
        out["server"] = _absolute_entry(out["server"], root)
    if "dependencies" in out:
        out["dependencies"] = tuple(
            str(root / d) if d.startswith(("./", "../")) else d for d in out["dependencies"]
        )
    return out


def _absolute_entry(entry: str, root: Path) -> str:
    """A ``file.py[:object]`` entry point made absolute against ``root``; a module's as is."""
    file, sep, obj = entry.rpartition(":") if ".py:" in entry else (entry, "", "")
    if file.endswith(".py") and not os.path.isabs(file):
        return str(root / file) + sep + obj
    return entry


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def find_project(start: Path | None = None) -> Project | None:
    """The project of ``start`` (default: the working directory): the first directory from
    it upward holding ``mcpkit.toml`` or ``pyproject.toml``, read; None when none has."""
    from pathlib import Path

    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        own, pyproject = folder / PROJECT_FILE, folder / PYPROJECT
        if not (own.is_file() or pyproject.is_file()):
            continue
        values: dict[str, Any] = {}
        if own.is_file():
            values = _table(own, _read_toml(own), str(own))
        tool: dict[str, Any] = {}
        if pyproject.is_file():
            section = _read_toml(pyproject).get("tool", {})
            table = section.get("mcpkit") if isinstance(section, dict) else None
            if table is not None:
                where = f"{pyproject} [tool.mcpkit]"
                if not isinstance(table, dict):
                    raise SettingsError(f"{where}: must be a table")
                tool = _table(pyproject, table, where)
        return Project(folder, values, tool)
    return None


def load(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    project: Project | None = None,
) -> Settings:
    """The settings: ``flags`` (None values: not given) over ``environ`` (default
    ``os.environ``) over ``project`` over the defaults (see the module)."""
    flags = flags or {}
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for setting in SETTINGS:
        key = setting.key
        given = flags.get(key)
        if isinstance(given, (list, tuple)) and not given:
            given = None  # a repeatable flag not used
        raw = env.get(setting.env, "") if setting.env is not None else ""
        if given is not None:
            values[key] = tuple(given) if setting.kind == "list" else given
            sources[key] = "flag"
        elif raw.strip():
            values[key] = _from_env(setting, raw)
            sources[key] = "env"
        elif project is not None and project.source(key) is not None:
            values[key] = project.own[key] if key in project.own else project.pyproject[key]
            sources[key] = str(project.source(key))
        else:
            sources[key] = "default"
    if project is not None and "dependencies" in flags and flags["dependencies"]:
        # --with adds to the project's dependencies, as uv's does to a project's.
        listed = project.own.get("dependencies", project.pyproject.get("dependencies", ()))
        values["dependencies"] = tuple(dict.fromkeys((*listed, *flags["dependencies"])))
    return Settings(**values, sources=sources, project=project)


def apply_environment(project: Project | None, environ: dict[str, str] | None = None) -> None:
    """Set the project's ``environment`` entries in ``environ`` (default ``os.environ``),
    each unless it is set already."""
    if project is None:
        return
    table = project.own.get("environment", project.pyproject.get("environment", {}))
    env = os.environ if environ is None else environ
    for key, value in table.items():
        env.setdefault(key, value)


# -- Server.run --------------------------------------------------------------------------------

#: The options of ``Server.run("http")`` taken from the environment when not given.
_RUN_HTTP: Final = (
    "host",
    "port",
    "path",
    "stateless",
    "json_response",
    "health",
    "metrics",
    "observability_port",
    "max_in_flight",
    "max_queued",
    "max_sessions",
    "max_sessions_per_client",
    "workers",
)


def run_options(
    transport: str | None, options: dict[str, Any], environ: Mapping[str, str] | None = None
) -> tuple[str, dict[str, Any]]:
    """``Server.run``'s transport and options with what the ``MCPKIT_*`` variables set
    (explicit arguments win): the transport (``MCPKIT_TRANSPORT``, else stdio), for HTTP
    the options of :data:`_RUN_HTTP`, and ``log_level`` for either (the store:
    :func:`env_store`)."""
    env = os.environ if environ is None else environ
    if transport is None:
        raw = env.get(_BY_KEY["transport"].env or "", "")
        transport = _from_env(_BY_KEY["transport"], raw) if raw.strip() else "stdio"
    keys: Sequence[str] = ("log_level",)
    if transport != "stdio":
        keys = (*_RUN_HTTP, "log_level")
    out = dict(options)
    for key in keys:
        setting = _BY_KEY[key]
        raw = env.get(setting.env or "", "")
        if key not in out and raw.strip():
            out[key] = _from_env(setting, raw)
    if out.get("max_sessions_per_client") == 0 and "max_sessions_per_client" not in options:
        out["max_sessions_per_client"] = None  # 0 in the environment: no limit
    return str(transport), out


def env_store(environ: Mapping[str, str] | None = None) -> str | None:
    """The store ``MCPKIT_STORE`` names, or None (unset, or ``memory``)."""
    env = os.environ if environ is None else environ
    value = env.get(_BY_KEY["store"].env or "", "").strip()
    return None if not value or value == "memory" else value


def configure_logging(level: str | None) -> None:
    """Send the process's log records at ``level`` and above to stderr (a handler is added
    only when the root logger has none); None: leave logging as it is."""
    if level is None:
        return
    import logging

    number = logging.getLevelName(level.upper())
    if not isinstance(number, int):
        raise SettingsError(f"log_level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(number)
    logging.getLogger("mcpkit").setLevel(number)
