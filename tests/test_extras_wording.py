"""One wording for a missing extra, everywhere: the library's ImportErrors and the command
line's hints say the same command (mcpkit is installed from its checkout until published),
and nothing in the package tells users to install a name the package index does not have."""

from __future__ import annotations

from pathlib import Path

from mcpkit._extras import INSTALL_HINT, needs_extra
from mcpkit.cli import errors as cli_errors

SRC = Path(__file__).resolve().parent.parent / "src" / "mcpkit"


def test_the_command_line_and_the_library_share_the_hint() -> None:
    assert cli_errors.INSTALL_HINT is INSTALL_HINT
    message = str(needs_extra("RedisBackend", "redis", "redis"))
    assert message == (
        "RedisBackend needs the 'redis' extra (redis is not installed): "
        "in the mcpkit checkout: pip install '.[redis]'"
    )


def test_no_module_names_an_install_command_of_its_own() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "pip install 'mcpkit[" in line or 'pip install "mcpkit[' in line
    ]
    assert offenders == []
