"""Configuration: every setting of ``mcpkit run`` from the command line, ``MCPKIT_*``
environment variables, ``mcpkit.toml`` and ``[tool.mcpkit]`` in ``pyproject.toml`` (in that
order); ``mcpkit run`` alone serving the project's server over stdio and HTTP; ``Server.run``
reading the environment; ``--with`` / ``--python`` through uv (the command line built, a
recording stand-in for uv, and a real offline ``uv run`` with a local wheel)."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client
from mcpkit import settings as config
from mcpkit.cli.app import build_parser
from mcpkit.cli.run import _child_argv, _settle
from mcpkit.cli.uv import extras_for, same_environment, uv_command
from tests.cli.conftest import ROOT, Served, cli_env

SERVER = textwrap.dedent(
    """
    import os

    from mcpkit import Server

    app = Server("project", version="7")

    @app.tool()
    def greeting() -> str:
        return os.environ.get("GREETING", "unset") + " / " + os.environ.get("SHELL_SET", "unset")
    """
)


def env(**extra: str) -> dict[str, str]:
    """The test's environment for a ``mcpkit`` process: no ``MCPKIT_*`` of the caller's."""
    out = {k: v for k, v in cli_env().items() if not k.startswith("MCPKIT_")}
    out.update(extra)
    return out


def project(root: Path, toml: str, *, name: str = "mcpkit.toml") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "server.py").write_text(SERVER)
    (root / name).write_text(textwrap.dedent(toml))
    return root


def run_cli(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpkit", "run", *args],
        capture_output=True,
        text=True,
        timeout=60,
        input="",
        cwd=cwd,
        env=env(**extra),
    )


# -- precedence -------------------------------------------------------------------------------


def test_flag_over_env_over_mcpkit_toml_over_pyproject_over_default(tmp_path: Path) -> None:
    project(
        tmp_path,
        """
        port = 9001
        host = "0.0.0.0"
        path = "/own"
        """,
    )
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [project]
            name = "x"

            [tool.mcpkit]
            port = 9002
            path = "/py"
            stateless = true
            server = "server.py:app"
            """
        )
    )
    found = config.find_project(tmp_path)
    assert found is not None and found.root == tmp_path.absolute()
    settings = config.load(
        {"port": 7000}, {"MCPKIT_PORT": "8000", "MCPKIT_HOST": "10.0.0.1"}, found
    )
    assert settings.port == 7000 and settings.sources["port"] == "flag"
    assert settings.host == "10.0.0.1" and settings.sources["host"] == "env"
    assert settings.path == "/own" and settings.sources["path"] == str(tmp_path / "mcpkit.toml")
    assert settings.stateless is True
    assert settings.sources["stateless"] == str(tmp_path / "pyproject.toml")
    assert settings.server == f"{tmp_path / 'server.py'}:app"  # relative to the file
    assert settings.json_response is False and settings.sources["json_response"] == "default"
    assert config.load({}, {"MCPKIT_PORT": "8000"}, found).port == 8000
    assert config.load({}, {}, found).port == 9001
    assert config.load({}, {}, None).port == 8000  # the default


def test_environment_variables_of_every_kind() -> None:
    settings = config.load(
        {},
        {
            "MCPKIT_TRANSPORT": "HTTP",
            "MCPKIT_STATELESS": "yes",
            "MCPKIT_HEALTH": "0",
            "MCPKIT_ALLOWED_HOSTS": "a.example, b.example:*",
            "MCPKIT_DRAIN_TIMEOUT": "2.5",
            "MCPKIT_WORKERS": "3",
            "MCPKIT_LOG_LEVEL": "info",
            "MCPKIT_SERVER": "pkg.mod:app",
        },
    )
    assert settings.transport == "http"
    assert settings.stateless is True and settings.health is False
    assert settings.allowed_hosts == ("a.example", "b.example:*")
    assert settings.drain_timeout == 2.5 and settings.workers == 3
    assert settings.log_level == "info" and settings.server == "pkg.mod:app"


def test_the_search_goes_up_and_stops_at_the_projects_root(tmp_path: Path) -> None:
    project(tmp_path, 'server = "server.py"\nport = 1234\n')
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    found = config.find_project(deep)
    assert found is not None and found.root == tmp_path.absolute()
    assert found.own["server"] == str(tmp_path / "server.py")
    # A pyproject.toml without [tool.mcpkit] below it is another project's root: no settings.
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    inside = config.find_project(inner)
    assert inside is not None and inside.root == inner.absolute() and not inside.configured


def test_paths_in_the_file_are_relative_to_it(tmp_path: Path) -> None:
    project(
        tmp_path,
        """
        server = "app/server.py:make"
        event_store = "var/events.db"
        dependencies = ["./libs/helper", "httpx>=0.27"]
        """,
    )
    found = config.find_project(tmp_path / "app")
    assert found is not None
    assert found.own["server"] == f"{tmp_path / 'app' / 'server.py'}:make"
    assert found.own["event_store"] == str(tmp_path / "var" / "events.db")
    assert found.own["dependencies"] == (str(tmp_path / "libs/helper"), "httpx>=0.27")
    module = tmp_path / "m"
    project(module, 'server = "weather.server:app"\n')
    assert config.find_project(module).own["server"] == "weather.server:app"  # type: ignore[union-attr]


def test_with_adds_to_the_projects_dependencies(tmp_path: Path) -> None:
    project(tmp_path, 'dependencies = ["httpx"]\npython = "3.12"\n')
    found = config.find_project(tmp_path)
    settings = config.load({"dependencies": ["pandas", "httpx"]}, {}, found)
    assert settings.dependencies == ("httpx", "pandas")
    assert settings.python == "3.12"
    assert config.load({"python": "3.13"}, {"MCPKIT_PYTHON": "3.11"}, found).python == "3.13"


def test_the_environment_table_does_not_override_what_is_set(tmp_path: Path) -> None:
    project(tmp_path, '[environment]\nGREETING = "hi"\nSHELL_SET = "from file"\nN = 3\n')
    environ = {"SHELL_SET": "from shell"}
    config.apply_environment(config.find_project(tmp_path), environ)
    assert environ == {"GREETING": "hi", "SHELL_SET": "from shell", "N": "3"}


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("prot = 8000\n", "mcpkit.toml: unknown key 'prot' (did you mean 'port'?)"),
        ('port = "eighty"\n', "mcpkit.toml: port must be an integer, not 'eighty'"),
        ('transport = "sse"\n', "transport must be one of 'stdio', 'http', not 'sse'"),
        ("stateless = 1\n", "mcpkit.toml: stateless must be true or false, not 1"),
        ('dependencies = "httpx"\n', "dependencies must be a list of strings, not 'httpx'"),
        ("port = -1\n", "mcpkit.toml: port must be at least 0"),
        ('path = "mcp"\n', "path must start with '/'"),
        ("port = \n", "mcpkit.toml: not valid TOML"),
        ("[environment]\nDEBUG = true\n", "environment must be a table of strings"),
    ],
)
def test_bad_keys_and_types_name_the_file_the_key_and_what_is_expected(
    tmp_path: Path, text: str, message: str
) -> None:
    project(tmp_path, text)
    with pytest.raises(config.SettingsError) as caught:
        config.find_project(tmp_path)
    assert str(tmp_path / "mcpkit.toml") in str(caught.value)
    assert message in str(caught.value)


def test_bad_pyproject_section_and_environment_variables(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\nmcpkit = 3\n")
    with pytest.raises(config.SettingsError, match=r"pyproject.toml \[tool.mcpkit\]: must be a"):
        config.find_project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.mcpkit]\nworkers = 0\n")
    with pytest.raises(config.SettingsError, match=r"\[tool.mcpkit\]: workers must be at least"):
        config.find_project(tmp_path)
    with pytest.raises(config.SettingsError, match="MCPKIT_PORT must be an integer, not 'x'"):
        config.load({}, {"MCPKIT_PORT": "x"})
    with pytest.raises(config.SettingsError, match=r"MCPKIT_STATELESS must be 1 or 0"):
        config.load({}, {"MCPKIT_STATELESS": "maybe"})
    with pytest.raises(config.SettingsError, match="MCPKIT_LOG_LEVEL must be one of"):
        config.load({}, {"MCPKIT_LOG_LEVEL": "loud"})


def test_the_command_says_what_is_wrong_without_a_traceback(tmp_path: Path) -> None:
    project(tmp_path, 'server = "server.py"\nprot = 1\n')
    done = run_cli(cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"error: {tmp_path / 'mcpkit.toml'}: unknown key 'prot' (did you mean 'port'?)"
    )
    assert "Traceback" not in done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pyproject.toml").write_text('[project]\nname = "e"\n')
    bad_env = run_cli("server.py", cwd=elsewhere, MCPKIT_PORT="eighty")
    assert bad_env.returncode == 2
    assert "error: MCPKIT_PORT must be an integer, not 'eighty'" in bad_env.stderr


def test_no_server_and_no_project_says_what_to_do_in_one_line(tmp_path: Path) -> None:
    done = run_cli(cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: no server to run: give one (mcpkit run server.py) or name it in mcpkit.toml: "
        'server = "server.py:app"'
    ]
    (tmp_path / "mcpkit.toml").write_text("port = 9000\n")
    named = run_cli(cwd=tmp_path)
    assert named.returncode == 2
    assert named.stderr.splitlines() == [
        f"error: no server to run: {tmp_path / 'mcpkit.toml'} names none; add server = "
        '"server.py:app" to it, or give one: mcpkit run server.py'
    ]


# -- mcpkit run with no argument ---------------------------------------------------------------


async def test_mcpkit_run_alone_serves_the_project_over_stdio(tmp_path: Path) -> None:
    root = project(
        tmp_path / "proj",
        """
        server = "server.py:app"

        [environment]
        GREETING = "hello from mcpkit.toml"
        SHELL_SET = "not this"
        """,
    )
    sub = root / "docs"
    sub.mkdir()
    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpkit", "run"],
        "cwd": str(sub),  # found from a folder below the project's root
        "env": env(SHELL_SET="from the shell"),
    }
    async with Client(entry) as client:
        assert client.server_info is not None and client.server_info.name == "project"
        result = await client.call_tool("greeting", {})
        assert result.text == "hello from mcpkit.toml / from the shell"


@pytest.mark.parametrize(("flags", "shown"), [([], True), (["--mask-errors"], False)])
async def test_mask_errors_from_the_file_and_the_flag_over_it(
    tmp_path: Path, flags: list[str], shown: bool
) -> None:
    (tmp_path / "server.py").write_text(
        textwrap.dedent(
            """
            from mcpkit import Server

            app = Server("failing")

            @app.tool()
            def fail() -> str:
                raise ValueError("the detail")
            """
        )
    )
    (tmp_path / "mcpkit.toml").write_text('server = "server.py"\nmask_errors = false\n')
    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpkit", "run", *flags],
        "cwd": str(tmp_path),
        "env": env(),
    }
    async with Client(entry) as client:
        result = await client.call_tool("fail", {})
        assert result.is_error
        assert ("the detail" in str(result.text)) is shown, result.text


async def test_a_module_entry_point_is_found_from_the_projects_root(tmp_path: Path) -> None:
    package = tmp_path / "weather"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "server.py").write_text(SERVER)
    (tmp_path / "mcpkit.toml").write_text('server = "weather.server:app"\n')
    (tmp_path / "notes").mkdir()
    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpkit", "run"],
        "cwd": str(tmp_path / "notes"),
        "env": env(GREETING="module"),
    }
    async with Client(entry) as client:
        assert (await client.call_tool("greeting", {})).text == "module / unset"


async def test_an_installed_entry_stays_on_stdio_in_a_project_serving_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from mcpkit.cli.app import main

    root = project(tmp_path, 'server = "server.py"\ntransport = "http"\nport = 0\n')
    monkeypatch.chdir(root)
    assert main(["install", "json", "server.py"]) == 0
    entry = json.loads(capsys.readouterr().out)["mcpServers"][root.name]
    assert entry["args"][-3:-1] == ["--transport", "stdio"]
    async with Client({**entry, "cwd": str(root), "env": env(GREETING="installed")}) as client:
        assert (await client.call_tool("greeting", {})).text == "installed / unset"


def test_mcpkit_dev_without_a_server_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcpkit.cli.app import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MCPKIT_SERVER", raising=False)
    assert main(["dev", "--no-open"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: no server to run: give one (mcpkit dev server.py) or name it in mcpkit.toml: "
        'server = "server.py:app"'
    ]


async def test_mcpkit_dev_alone_runs_the_projects_server(tmp_path: Path) -> None:
    import asyncio
    import signal

    import httpx

    root = project(tmp_path, 'server = "server.py"\ntransport = "http"\n')
    (root / "notes").mkdir()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcpkit", "dev", "--no-open",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=root / "notes",
        env=env(PYTHONUNBUFFERED="1"),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(60):
            line = (await proc.stdout.readline()).decode()
        assert line.startswith("mcpkit dev: inspector at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].strip()
        base, token = url.split("/?token=")
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            state = (await http.get("/api/state", params={"token": token})).json()
        assert state["server"]["name"] == "project"  # served over stdio to the inspector
    finally:
        proc.send_signal(signal.SIGINT)
        async with asyncio.timeout(60):
            await proc.wait()


class ServedHere(Served):
    """``mcpkit run ARGS`` (or the command ``argv``) in ``cwd`` with ``environ``; ``url``
    once it serves HTTP."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        environ: dict[str, str],
        argv: list[str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            argv or [sys.executable, "-m", "mcpkit", "run", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=environ,
        )
        self.lines: list[str] = []
        self._buffer = ""
        self.url = self.wait_for(r"^mcpkit: serving .* on (http://\S+) \(").group(1)


async def test_mcpkit_run_alone_serves_tool_mcpkit_of_pyproject_over_http(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        """
        [project]
        name = "weather"

        [tool.mcpkit]
        server = "server.py"
        transport = "http"
        port = 0
        path = "/weather"
        json_response = true
        environment = { GREETING = "over http" }
        """,
        name="pyproject.toml",
    )
    served = ServedHere([], root, env())
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/weather", served.url)
        async with Client(served.url) as client:
            assert (await client.call_tool("greeting", {})).text == "over http / unset"
    finally:
        served.stop()


async def test_environment_variables_choose_http_and_flags_win(tmp_path: Path) -> None:
    root = project(tmp_path, 'server = "server.py"\ntransport = "http"\nport = 1\n')
    served = ServedHere(
        ["--path", "/flag"], root, env(MCPKIT_PORT="0", MCPKIT_PATH="/env", GREETING="env")
    )
    try:
        assert served.url.endswith("/flag") and not served.url.endswith(":1/flag")
        async with Client(served.url) as client:
            assert (await client.call_tool("greeting", {})).text == "env / unset"
    finally:
        served.stop()


async def test_server_run_reads_transport_host_port_path_and_log_level(tmp_path: Path) -> None:
    script = tmp_path / "main.py"
    script.write_text(SERVER + "\napp.run()\n")
    served = ServedHere(
        [],
        tmp_path,
        env(
            MCPKIT_TRANSPORT="http",
            MCPKIT_PORT="0",
            MCPKIT_PATH="/from-env",
            MCPKIT_LOG_LEVEL="info",
            GREETING="run()",
        ),
        argv=[sys.executable, str(script)],
    )
    try:
        url = served.url
        assert url.endswith("/from-env")
        async with Client(url) as client:
            assert (await client.call_tool("greeting", {})).text == "run() / unset"
        # log_level=info: the HTTP server's INFO records (its default shows warnings only).
        assert "INFO:     Application startup complete." in served.lines
    finally:
        served.stop()


async def test_server_run_attaches_the_store_of_mcpkit_store(tmp_path: Path) -> None:
    from tests.scaleout.cluster import Redis
    from tests.security.tenants import SECRET

    script = tmp_path / "main.py"
    script.write_text(
        textwrap.dedent(
            """
            from mcpkit import Server

            app = Server("stored")

            @app.tool()
            def store() -> str:
                return str(getattr(app.store_backend, "url", None))

            app.run()
            """
        )
    )
    (tmp_path / "redis").mkdir()
    redis = Redis(tmp_path / "redis")
    redis.start()
    try:
        entry = {
            "command": sys.executable,
            "args": [str(script)],
            "env": env(MCPKIT_STORE=redis.url, MCPKIT_STORE_SECRET=SECRET),
        }
        async with Client(entry) as client:
            assert (await client.call_tool("store", {})).text == redis.url
    finally:
        redis.stop()


def _initialize_statuses(url: str, count: int) -> list[int]:
    """The HTTP statuses of ``count`` 2025 ``initialize`` requests (each opens a session)."""
    import httpx

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=30) as http:
        return [http.post(url, json=body, headers=headers).status_code for _ in range(count)]


async def test_the_session_limits_from_the_environment_and_the_flag(tmp_path: Path) -> None:
    # A published server's own app.run() takes the per-client cap from the environment (an
    # operator behind a proxy that hides client addresses can lift it without the code)...
    script = tmp_path / "main.py"
    script.write_text(SERVER + "\napp.run()\n")
    environ = env(MCPKIT_TRANSPORT="http", MCPKIT_PORT="0", MCPKIT_MAX_SESSIONS_PER_CLIENT="2")
    served = ServedHere([], tmp_path, environ, argv=[sys.executable, str(script)])
    try:
        assert _initialize_statuses(served.url, 3) == [200, 200, 429]
    finally:
        served.stop()
    # ... and mcpkit run from its flag, over the variable.
    plain = tmp_path / "plain.py"
    plain.write_text(SERVER)
    flag = ["--max-sessions-per-client", "1", "--transport", "http", "--port", "0", str(plain)]
    served = ServedHere(flag, tmp_path, environ)
    try:
        assert _initialize_statuses(served.url, 2) == [200, 429]
    finally:
        served.stop()
    # 0 is no limit; an explicit argument in the code wins over the environment.
    lifted = config.run_options("http", {}, {"MCPKIT_MAX_SESSIONS_PER_CLIENT": "0"})
    assert lifted == ("http", {"max_sessions_per_client": None})
    kept = config.run_options("http", {"max_sessions_per_client": 7}, {"MCPKIT_MAX_SESSIONS": "9"})
    assert kept == ("http", {"max_sessions_per_client": 7, "max_sessions": 9})


def test_server_run_options_explicit_arguments_win() -> None:
    environ = {"MCPKIT_TRANSPORT": "http", "MCPKIT_HOST": "0.0.0.0", "MCPKIT_PORT": "9"}
    transport, options = config.run_options(None, {"port": 1}, environ)
    assert transport == "http" and options == {"port": 1, "host": "0.0.0.0"}
    assert config.run_options("stdio", {}, environ) == ("stdio", {})
    assert config.run_options(None, {}, {}) == ("stdio", {})
    stdio = config.run_options(None, {}, {"MCPKIT_LOG_LEVEL": "debug", "MCPKIT_PORT": "9"})
    assert stdio == ("stdio", {"log_level": "debug"})
    assert config.env_store({"MCPKIT_STORE": " memory "}) is None
    assert config.env_store({"MCPKIT_STORE": "redis://h/0"}) == "redis://h/0"


# -- the child command lines (reload, uv) ------------------------------------------------------


def _settled(argv: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, **environ: str) -> Any:
    monkeypatch.chdir(cwd)
    for key in [k for k in os.environ if k.startswith("MCPKIT_")]:
        monkeypatch.delenv(key)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    args = build_parser().parse_args(["run", *argv])
    return args, _settle(args)


def test_a_child_gets_the_options_given_and_finds_the_rest_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, 'server = "server.py"\nstateless = true\nport = 9\n')
    args, settings = _settled(
        ["--no-stateless", "--allowed-host", "a.example", "--with", "httpx"],
        tmp_path,
        monkeypatch,
    )
    assert settings.stateless is False and settings.port == 9
    argv = _child_argv(args, "python", reload=True)
    assert argv == [
        "python", "-m", "mcpkit", "run", "--no-stateless", "--allowed-host", "a.example",
        "--reload",
    ]  # fmt: skip


def test_the_uv_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path, 'server = "server.py"\ndependencies = ["httpx"]\n')
    args, settings = _settled(["-t", "http", "--with", "pandas"], tmp_path, monkeypatch)
    child = _child_argv(args, "python")
    # This interpreter: its environment (with mcpkit) under the packages.
    here = uv_command("/bin/uv", settings, child, transport="http")
    assert here == [
        "/bin/uv", "run", "--no-project", "--python", sys.executable,
        "--with", "httpx", "--with", "pandas",
        "--", "python", "-m", "mcpkit", "run", "--transport", "http",
    ]  # fmt: skip
    # Another Python: mcpkit (from where this one came, with the extras HTTP needs) too.
    args, settings = _settled(
        ["-t", "http", "--python", "3.12", "--store", "redis://h:6379/0"], tmp_path, monkeypatch
    )
    other = uv_command("uv", settings, _child_argv(args, "python"), transport="http")
    assert other[:5] == ["uv", "run", "--no-project", "--python", "3.12"]
    assert other[5] == "--with"
    assert other[6] == f"mcpkit[http,redis] @ {ROOT.as_uri()}"
    assert other[7:10] == ["--with", "httpx", "--"]
    assert extras_for(settings, "stdio") == ["redis"]


def test_same_environment(tmp_path: Path) -> None:
    assert same_environment(sys.executable, sys.executable)
    sibling = str(Path(sys.executable).parent / "python-other")
    assert same_environment(sibling, sys.executable)  # the same bin folder
    assert not same_environment(str(tmp_path / "python"), sys.executable)
    assert not same_environment("3.12", sys.executable)


# -- through uv ------------------------------------------------------------------------------


def test_with_and_python_need_uv(tmp_path: Path) -> None:
    project(tmp_path, 'server = "server.py"\n')
    empty = tmp_path / "bin"
    empty.mkdir()
    done = run_cli("--with", "httpx", cwd=tmp_path, PATH=str(empty))
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        "error: serving with --with/--python (or dependencies/python in the project file) "
        "needs uv, and there is no uv on PATH"
    )
    # MCPKIT_NO_UV=1: serve in this environment as it is (here: over stdio, no client).
    as_is = run_cli("--with", "httpx", cwd=tmp_path, PATH=str(empty), MCPKIT_NO_UV="1")
    assert as_is.returncode == 0, as_is.stderr


def test_a_recording_uv_is_started_with_the_command_line(tmp_path: Path) -> None:
    project(tmp_path, 'server = "server.py"\ndependencies = ["httpx"]\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.txt"
    fake = bin_dir / "uv"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"with open({str(record)!r}, 'w') as f:\n"
        "    f.write('\\n'.join(sys.argv[1:]) + '\\n' + os.environ.get('MCPKIT_NO_UV', ''))\n"
    )
    fake.chmod(0o755)
    done = run_cli(
        "--with", "pandas", "--python", sys.executable, "--port", "0",
        cwd=tmp_path, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    *argv, marker = record.read_text().split("\n")
    assert argv == [
        "run", "--no-project", "--python", sys.executable, "--with", "httpx",
        "--with", "pandas", "--", "python", "-m", "mcpkit", "run", "--port", "0",
    ]  # fmt: skip
    assert marker == "1"  # the server started by uv serves instead of starting uv again


def _wheel(folder: Path) -> Path:
    """A local pure-Python wheel (``greetpkg``), made by hand: no build backend, no index."""
    name, version = "greetpkg", "0.1"
    files = {
        "greetpkg/__init__.py": "def hello() -> str:\n    return 'hello from the wheel'\n",
        f"{name}-{version}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        ),
        f"{name}-{version}.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = f"{name}-{version}.dist-info/RECORD"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    lines = []
    with zipfile.ZipFile(path, "w") as whl:
        for member, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            lines.append(f"{member},sha256={digest.decode()},{len(data)}")
            whl.writestr(member, data)
        lines.append(f"{record},,")
        whl.writestr(record, "\n".join(lines) + "\n")
    return path


def _uv() -> str:
    """The uv the test environment installs (locks/dev.txt), else one on PATH."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    assert found is not None, "uv is in locks/dev.txt: the test environment installs it"
    return found


async def test_with_a_local_wheel_through_a_real_uv_offline(tmp_path: Path) -> None:
    uv = _uv()
    wheel = _wheel(tmp_path)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "server.py").write_text(
        textwrap.dedent(
            """
            from mcpkit import Server

            app = Server("with-wheel")

            @app.tool()
            def hello() -> str:
                import greetpkg

                return greetpkg.hello()
            """
        )
    )
    (root / "mcpkit.toml").write_text('server = "server.py"\n')
    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpkit", "run", "--with", str(wheel), "--python", sys.executable],
        "cwd": str(root),
        "env": env(
            PATH=f"{Path(uv).parent}{os.pathsep}{os.environ['PATH']}",
            UV_OFFLINE="1",
            UV_CACHE_DIR=str(tmp_path / "uv-cache"),
            UV_NO_CONFIG="1",
        ),
    }
    async with Client(entry) as client:
        assert (await client.call_tool("hello", {})).text == "hello from the wheel"
    # Without uv's environment, the package is not there.
    with pytest.raises(ModuleNotFoundError):
        import greetpkg  # type: ignore[import-not-found]  # noqa: F401


# -- the documentation -------------------------------------------------------------------------

DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def test_the_documented_table_is_the_settings_table() -> None:
    section = DOC[DOC.index("## The settings") : DOC.index("A boolean in an environment")]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = []
    for row in rows:
        key, flag, variable, *_ = (cell.strip() for cell in row.strip("|").split("|"))
        documented.append((key.strip("`"), flag, variable))
    assert [key for key, _, _ in documented] == [s.key for s in config.SETTINGS]
    for (key, flag, variable), setting in zip(documented, config.SETTINGS, strict=True):
        assert (variable == "none") == (setting.env is None), key
        if setting.env is not None:
            assert variable.startswith(f"`{setting.env}`"), key
        if setting.flag is not None and setting.key != "server":
            assert flag.startswith(f"`{setting.flag}`"), key


def test_the_documented_project_files_are_valid(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOC, re.S)
    assert len(blocks) == 2
    own, pyproject = tmp_path / "own", tmp_path / "py"
    own.mkdir()
    pyproject.mkdir()
    (own / "mcpkit.toml").write_text(blocks[0])
    (pyproject / "pyproject.toml").write_text(blocks[1])
    settings = config.load({}, {}, config.find_project(own))
    assert settings.server == f"{own / 'src/weather/server.py'}:app"
    assert settings.transport == "http" and settings.port == 8000
    assert settings.environment == {"WEATHER_API_URL": "https://api.example.com"}
    from_pyproject = config.load({}, {}, config.find_project(pyproject))
    assert from_pyproject.environment == settings.environment
