"""``mcpkit install``: each client's file and entry shape, other entries kept, malformed
files untouched, and the options (environment, uv, working directory, URL, print)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.cli.app import main
from mcpkit.cli.errors import CliError
from mcpkit.cli.install import config_path, read_env_file
from mcpkit.client import StdioOptions

SERVER = "from mcpkit import Server\napp = Server('w')\n"


@pytest.fixture
def server(tmp_path: Path) -> Path:
    path = tmp_path / "project" / "weather.py"
    path.parent.mkdir()
    path.write_text(SERVER)
    return path


def install(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["install", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def expected_stdio(server: Path, client: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "mcpkit", "run", "--transport", "stdio", str(server)],
    }
    return {"type": "stdio", **entry} if client in ("claude-code", "vscode") else entry


@pytest.mark.parametrize(
    ("client", "key"),
    [
        ("claude-desktop", "mcpServers"),
        ("claude-code", "mcpServers"),
        ("cursor", "mcpServers"),
        ("vscode", "servers"),
    ],
)
def test_each_client_gets_its_shape_beside_the_servers_already_there(
    client: str, key: str, server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.json"
    others = {
        key: {"github": {"command": "npx", "args": ["-y", "@x/github"], "env": {"T": "1"}}},
        "theme": "dark",  # keys of the file that are not servers stay too
    }
    config.write_text(json.dumps(others))
    code, out, _ = install(client, str(server), "--config", str(config), capsys=capsys)
    assert code == 0
    written = json.loads(config.read_text())
    assert written == {
        key: {**others[key], "weather": expected_stdio(server, client)},  # type: ignore[dict-item]
        "theme": "dark",
    }
    # The diff came first, and names only the new lines.
    assert out.startswith(f"--- {config}\n+++ {config}\n")
    assert '+    "weather": {' in out and '-    "github"' not in out
    assert f"updated {config}: server 'weather' for {client}" in out


def test_a_new_file_is_created_with_its_folder(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "new" / "dir" / "mcp.json"
    code, out, _ = install("vscode", str(server), "--config", str(config), capsys=capsys)
    assert code == 0 and "--- /dev/null" in out and f"created {config}" in out
    assert json.loads(config.read_text()) == {
        "servers": {"weather": expected_stdio(server, "vscode")}
    }
    # Entries hold tokens and keys: a new file is its owner's alone, whatever the umask.
    assert config.stat().st_mode & 0o777 == 0o600


def test_headers_written_into_a_project_file_get_the_secrets_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".mcp.json"
    header = ["-H", "Authorization: Bearer T"]
    code, _, err = install(
        "claude-code", "https://x.example/mcp", "--config", str(config), *header, capsys=capsys
    )
    assert code == 0
    assert "note: the headers are written into this file" in err
    assert "keep it out of version control" in err
    assert config.stat().st_mode & 0o777 == 0o600


def test_an_existing_files_permissions_are_kept(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "private.json"
    config.write_text("{}")
    config.chmod(0o600)
    assert install("cursor", str(server), "--config", str(config), capsys=capsys)[0] == 0
    assert config.stat().st_mode & 0o777 == 0o600 and "weather" in config.read_text()


def test_installing_again_replaces_only_that_entry_and_twice_is_a_no_op(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"mcpServers": {"weather": {"command": "old"}, "b": {}}}))
    assert install("cursor", str(server), "--config", str(config), capsys=capsys)[0] == 0
    data = json.loads(config.read_text())
    assert data["mcpServers"]["weather"]["command"] == sys.executable
    assert list(data["mcpServers"]) == ["weather", "b"] and data["mcpServers"]["b"] == {}
    before = config.stat().st_mtime_ns
    code, out, _ = install("cursor", str(server), "--config", str(config), capsys=capsys)
    assert code == 0 and "nothing to do" in out and config.stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"mcpServers": {"a": {}},}', "is not valid JSON (line 1"),
        ("[1, 2]", "holds a JSON list, not an object"),
        ('{"mcpServers": ["a"]}', "'mcpServers' is a JSON list, not an object of servers"),
        ('{\n  // my servers\n  "servers": {}\n}', "comments (JSONC)"),
    ],
)
def test_a_malformed_file_is_a_clear_error_and_stays_untouched(
    content: str,
    message: str,
    server: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(content)
    client = "vscode" if 'servers"' in content and "mcpServers" not in content else "cursor"
    code, out, err = install(client, str(server), "--config", str(config), capsys=capsys)
    assert code == 1
    assert message in err and "left untouched" in err and "hint:" in err
    assert config.read_text() == content
    assert not out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcp.json", "project"]  # no temp


def test_dry_run_shows_the_diff_and_writes_nothing(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.json"
    config.write_text("{}")
    code, out, _ = install(
        "claude-desktop", str(server), "--config", str(config), "--dry-run", capsys=capsys
    )
    assert code == 0 and '+    "weather": {' in out and "was not written" in out
    assert config.read_text() == "{}"


def test_environment_name_and_env_file(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("# keys\nexport API_KEY='from-file'\nREGION=eu\n\nEMPTY=\n")
    config = tmp_path / "c.json"
    code, _, _ = install(
        "claude-code",
        str(server),
        "--config",
        str(config),
        "--name",
        "forecasts",
        "--env-file",
        str(env_file),
        "-e",
        "API_KEY=from-flag",
        "-e",
        "URL=https://x.example/?a=b",
        capsys=capsys,
    )
    assert code == 0
    entry = json.loads(config.read_text())["mcpServers"]["forecasts"]
    assert entry["env"] == {
        "API_KEY": "from-flag",  # -e wins over the file
        "REGION": "eu",
        "EMPTY": "",
        "URL": "https://x.example/?a=b",
    }


def test_dependencies_start_the_server_with_uv_in_its_folder(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.json"
    code, _, _ = install(
        "cursor",
        f"{server}:app",
        "--config",
        str(config),
        "--with",
        "httpx>=0.27",
        "--with",
        "pandas",
        "--cwd",
        str(server.parent),
        capsys=capsys,
    )
    assert code == 0
    entry = json.loads(config.read_text())["mcpServers"]["weather"]
    assert Path(entry["command"]).name == "uv"
    assert entry["args"] == [
        "run",
        "--directory",
        str(server.parent),
        "--with",
        f"mcpkit @ {Path(__file__).resolve().parents[2].as_uri()}",  # this checkout
        "--with",
        "httpx>=0.27",
        "--with",
        "pandas",
        "mcpkit",
        "run",
        "--transport",
        "stdio",
        f"{server}:app",
    ]


def test_a_working_directory_where_the_client_has_one_and_a_refusal_where_not(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.json"
    code, _, _ = install(
        "vscode", str(server), "--config", str(config), "--cwd", str(tmp_path), capsys=capsys
    )
    assert code == 0
    assert json.loads(config.read_text())["servers"]["weather"]["cwd"] == str(tmp_path)
    code, _, err = install(
        "cursor", str(server), "--config", str(config), "--cwd", str(tmp_path), capsys=capsys
    )
    assert code == 2 and "no working directory" in err and "--uv" in err


def test_urls_become_remote_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = "https://mcp.example.com/mcp"
    header = ["-H", "Authorization: Bearer T"]
    shapes = {}
    for client in ("claude-code", "cursor", "vscode", "claude-desktop"):
        config = tmp_path / f"{client}.json"
        code, _, _ = install(client, url, "--config", str(config), *header, capsys=capsys)
        assert code == 0
        data = json.loads(config.read_text())
        shapes[client] = data["servers" if client == "vscode" else "mcpServers"]["mcp-example-com"]
    headers = {"Authorization": "Bearer T"}
    assert shapes["claude-code"] == {"type": "http", "url": url, "headers": headers}
    assert shapes["vscode"] == {"type": "http", "url": url, "headers": headers}
    assert shapes["cursor"] == {"url": url, "headers": headers}
    assert shapes["claude-desktop"] == {
        "command": "npx",
        "args": ["-y", "mcp-remote", url, "--header", "Authorization: Bearer T"],
    }


def test_print_and_json_write_nothing(
    server: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    code, out, _ = install("json", str(server), "-e", "A=1", capsys=capsys)
    assert code == 0
    assert json.loads(out) == {
        "mcpServers": {"weather": {**expected_stdio(server, "json"), "env": {"A": "1"}}}
    }
    code, out, _ = install("vscode", str(server), "--print", capsys=capsys)
    assert json.loads(out) == {"servers": {"weather": expected_stdio(server, "vscode")}}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_default_locations_per_client_scope_and_platform(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    where = {"home": home, "cwd": cwd, "env": {"APPDATA": r"C:\Users\u\AppData\Roaming"}}
    linux: dict[str, Any] = {**where, "platform": "linux", "env": {}}
    assert config_path("claude-desktop", **linux) == (
        home / ".config" / "Claude" / "claude_desktop_config.json"
    )
    assert config_path("claude-desktop", platform="darwin", **where) == (
        home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    )
    assert config_path("claude-desktop", platform="win32", **where) == Path(
        r"C:\Users\u\AppData\Roaming", "Claude", "claude_desktop_config.json"
    )
    assert config_path("claude-code", **linux) == cwd / ".mcp.json"
    assert config_path("claude-code", "user", **linux) == home / ".claude.json"
    assert config_path("cursor", **linux) == home / ".cursor" / "mcp.json"
    assert config_path("cursor", "project", **linux) == cwd / ".cursor" / "mcp.json"
    assert config_path("vscode", **linux) == cwd / ".vscode" / "mcp.json"
    assert config_path("vscode", "user", **linux) == home / ".config" / "Code" / "User" / "mcp.json"
    with pytest.raises(CliError, match="no project configuration"):
        config_path("claude-desktop", "project", **linux)
    assert config_path("vscode", "user", platform="darwin", **where) == (
        home / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
    )


def test_the_default_scope_writes_the_project_file(
    server: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(server.parent)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert install("claude-code", "weather.py", capsys=capsys)[0] == 0
    assert install("cursor", "weather.py", capsys=capsys)[0] == 0
    written = json.loads((server.parent / ".mcp.json").read_text())
    assert written["mcpServers"]["weather"]["args"][-1] == str(server)  # made absolute
    assert (tmp_path / "home" / ".cursor" / "mcp.json").exists()


def test_a_module_server_is_found_from_the_folder_it_was_installed_from(
    server: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(server.parent)
    code, out, _ = install("json", "weather:app", capsys=capsys)
    assert code == 0
    entry = json.loads(out)["mcpServers"]["weather"]
    assert entry["args"] == ["-m", "mcpkit", "run", "--transport", "stdio", "weather:app"]
    assert entry["env"] == {"PYTHONPATH": str(server.parent)}


def test_the_written_entry_starts_the_server(
    server: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What the client will run: connect with the entry exactly as written.
    import asyncio

    from mcpkit import Client

    server.write_text(SERVER + "@app.tool()\ndef ping() -> str:\n    return 'pong'\n")
    config = tmp_path / "c.json"
    assert install("cursor", str(server), "--config", str(config), capsys=capsys)[0] == 0
    entry = json.loads(config.read_text())["mcpServers"]["weather"]
    src = str(Path(__file__).resolve().parents[2] / "src")

    async def call() -> str:
        env = {**os.environ, "PYTHONPATH": src}
        async with Client(
            [entry["command"], *entry["args"]], connection=StdioOptions(env=env)
        ) as client:
            result = await client.call_tool("ping")
        return result.content[0].text  # type: ignore[union-attr,no-any-return]

    assert asyncio.run(call()) == "pong"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cursor", "missing.py"], "no such file"),
        (["cursor", "not a server"], "neither a Python server"),
        (["cursor", "SERVER", "-e", "NOEQUALS"], "-e 'NOEQUALS' is not KEY=VALUE"),
        (["cursor", "SERVER", "-e", "1BAD=x"], "is not KEY=VALUE"),
        (["cursor", "SERVER", "--name", "has space"], "not a usable server name"),
        (["cursor", "https://x.example/mcp", "-e", "A=1"], "is a remote server"),
        (["cursor", "https://x.example/mcp", "--with", "x"], "not for a URL"),
        (["cursor", "SERVER", "-H", "A: b"], "--header is for a URL server"),
        (["cursor", "SERVER", "--cwd", "/no/such/dir"], "no such folder"),
        (["cursor", "SERVER", "--python", "/no/such/python"], "--python /no/such/python: no such"),
        (["cursor", "SERVER", "--python", "no-such-python3.99"], "no such interpreter"),
    ],
)
def test_bad_input_is_one_clear_error(
    argv: list[str],
    message: str,
    server: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    argv = [str(server) if a == "SERVER" else a for a in argv]
    code, out, err = install(*argv, "--config", str(tmp_path / "c.json"), capsys=capsys)
    assert code in (1, 2) and not out
    assert message in err and err.startswith("error: ")
    assert not (tmp_path / "c.json").exists()


def test_bad_env_file_lines_are_named(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("A=1\nthis is wrong\n")
    with pytest.raises(CliError, match=r"\.env:2: not a KEY=VALUE line"):
        read_env_file(env_file)
