"""Every dotted ``mcpkit.…`` name the README and the user guide write in backticks exists:
it imports as a module, or is an attribute reached from one. (Names that are not Python
objects, such as metric names, are listed with what they are.)"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
#: Dotted names in the docs that are not Python objects.
NOT_PYTHON = {
    "mcpkit.client.retries": "the metric counting client retries",
    "mcpkit.http": "the logger of the HTTP transport",
    "mcpkit.toml": "the project file of mcpkit run (docs/configuration.md)",
}


def _names() -> list[tuple[str, str]]:
    found = set()
    for page in PAGES:
        for m in re.finditer(r"`(mcpkit(?:\.[A-Za-z_]\w*)+)`", page.read_text(encoding="utf-8")):
            if m.group(1) not in NOT_PYTHON:
                found.add((m.group(1), page.name))
    return sorted(found)


def _resolve(name: str) -> Any:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


NAMES = _names()


def test_the_docs_name_mcpkit_objects() -> None:
    assert len(NAMES) > 20


@pytest.mark.parametrize(("name", "page"), NAMES, ids=[f"{p}:{n}" for n, p in NAMES])
def test_a_name_in_the_docs_exists(name: str, page: str) -> None:
    _resolve(name)
