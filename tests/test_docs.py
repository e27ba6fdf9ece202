"""Every runnable code example of the user guide (``docs/*.md``) and of the README runs, and
says what it shows; every shell command they print is valid shell.

Fenced blocks are picked by their info string:

- ```` ```python test ```` — a runnable example. It is executed in a fresh subprocess (its
  own temporary working directory, ``__name__ == "docs_example"`` so ``if __name__ ==
  "__main__":`` guards stay off). Top-level ``await`` is allowed: such a block runs as the body
  of one coroutine under ``asyncio.run``.
- ```` ```output ```` right after a test block — the block's stdout must be exactly this.
- ```` ```python file=NAME ```` — not executed itself; written to ``NAME`` in the working
  directory of every test block of the same page (a server script a client example starts).
- plain ```` ```python ```` — a fragment, not run.

Inside the subprocess every :class:`~mcpkit.session.Session` made without a tracer gets a
:class:`tests.wire.WireChecker`, so every message of every example is also validated against
the official schema of the negotiated version; the example fails when one is invalid.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: The pages whose examples run: the user guide and the README.
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]
TIMEOUT = 60.0

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)


@dataclass
class Block:
    page: str
    line: int
    code: str
    output: str | None


def _blocks() -> tuple[list[Block], dict[str, dict[str, str]]]:
    tests: list[Block] = []
    files: dict[str, dict[str, str]] = {}
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        fences = list(_FENCE.finditer(text))
        page_files = files.setdefault(path.name, {})
        for i, m in enumerate(fences):
            info = m.group(1).split()
            if not info or info[0] != "python":
                continue
            line = text.count("\n", 0, m.start()) + 1
            options = info[1:]
            named = [o.split("=", 1)[1] for o in options if o.startswith("file=")]
            if named:
                page_files[named[0]] = m.group(2)
            if "test" not in options:
                continue
            output = None
            if i + 1 < len(fences):
                nxt = fences[i + 1]
                between = text[m.end() : nxt.start()]
                if nxt.group(1).strip() == "output" and not between.strip():
                    output = nxt.group(2)
            tests.append(Block(path.name, line, m.group(2), output))
    return tests, files


BLOCKS, FILES = _blocks()

# Runs one example: top-level await allowed; every session schema-checked.
RUNNER = r"""
import ast, asyncio, inspect, sys, types

sys.path[:0] = [sys.argv[2], sys.argv[3]]
from tests.wire import WireChecker
from mcpkit import session as _session

_checkers = []
_init = _session.Session.__init__

def _checked_init(self, *args, **kwargs):
    if kwargs.get("tracer") is None:
        checker = WireChecker()
        _checkers.append(checker)
        kwargs["tracer"] = checker
    _init(self, *args, **kwargs)

_session.Session.__init__ = _checked_init

path = sys.argv[1]
source = open(path, encoding="utf-8").read()
code = compile(source, path, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
module = types.ModuleType("docs_example")
module.__file__ = path
sys.modules["docs_example"] = module
if code.co_flags & inspect.CO_COROUTINE:
    asyncio.run(eval(code, module.__dict__))
else:
    exec(code, module.__dict__)
errors = [e for c in _checkers for e in c.errors]
if errors:
    sys.stdout.flush()
    print("messages not valid against the official schema:", *errors, sep="\n", file=sys.stderr)
    sys.exit(1)
"""


def test_the_guide_has_examples() -> None:
    pages = {b.page for b in BLOCKS}
    for page in ("index.md", "server.md", "client.md", "transports.md", "tasks.md", "README.md"):
        assert page in pages, f"{page} has no runnable example"


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:{b.line}" for b in BLOCKS])
def test_example(block: Block, tmp_path: Path) -> None:
    for name, content in FILES.get(block.page, {}).items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    script = tmp_path / "_example.py"
    script.write_text(block.code, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.setdefault("PYTHONUNBUFFERED", "1")
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, str(script), str(ROOT / "src"), str(ROOT)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    where = f"{_path(block.page)} line {block.line}"
    assert proc.returncode == 0, f"{where} failed:\n{proc.stdout}\n{proc.stderr}"
    if block.output is not None:
        assert proc.stdout.rstrip() == block.output.rstrip(), (
            f"{where}: output differs\n--- expected\n{block.output}\n--- got\n{proc.stdout}"
        )


def _path(page: str) -> str:
    return page if page == "README.md" else f"docs/{page}"


def _shell_commands(path: Path) -> list[tuple[int, str]]:
    """(line, command) of every ``sh`` block line and every ``$ `` line of a plain block."""
    text = path.read_text(encoding="utf-8")
    found = []
    for m in _FENCE.finditer(text):
        info = m.group(1).strip()
        if info not in ("", "sh", "bash", "console"):
            continue
        first = text.count("\n", 0, m.start()) + 2
        for offset, line in enumerate(m.group(2).splitlines()):
            if info in ("sh", "bash"):
                command = line
            elif line.startswith("$ "):
                command = line[2:]
            else:
                continue
            if command.strip():
                found.append((first + offset, command))
    return found


@pytest.mark.parametrize("page", ["README.md", "docs/cli.md"])
def test_every_shell_command_shown_is_valid_shell(page: str) -> None:
    commands = _shell_commands(ROOT / page)
    assert commands, f"{page} shows no shell command"
    bad = []
    for line, command in commands:
        check = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
        if check.returncode != 0:
            bad.append(f"{page} line {line}: {command}\n  {check.stderr.strip()}")
    assert bad == [], "\n".join(bad)


def test_the_readme_server_is_examples_weather_py() -> None:
    shown = FILES["README.md"]["weather.py"]
    source = (ROOT / "examples" / "weather.py").read_text(encoding="utf-8")
    assert source.endswith(shown)  # the file adds only its docstring


def test_no_page_tells_to_install_from_pypi_alone() -> None:
    """mcpkit is not published yet: every ``pip install`` shown installs from the checkout
    (``.`` / ``-e .``), or names the PyPI spelling only next to it ("once published")."""
    bad = []
    for path in [*PAGES, *sorted((ROOT / "src" / "mcpkit" / "cli").glob("*.py"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install '?mcpkit", line) and "published" not in line:
                bad.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert bad == []
