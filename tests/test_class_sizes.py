"""No class of mcpkit is over :data:`MAX_LINES` lines but those listed with their reason, and
the public constructors stay short enough to read.

A class that grows past the bound holds more than one concept: move one out (a part it
holds, or a base offering the methods that part serves) instead of raising the bound.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from mcpkit import Client

SRC = Path(__file__).resolve().parent.parent / "src"

#: The most lines a class may span (its ``class`` line to its last line).
MAX_LINES = 600
#: Classes allowed over the bound, each with its reason (take an entry out once its class is
#: under the bound).
EXEMPT = {
    "mcpkit.session.Session": "the engine: one JSON-RPC session of both roles",
}
#: The most parameters ``Client.__init__`` may take (httpx's ``AsyncClient`` takes 19).
MAX_CLIENT_PARAMETERS = 20


def _class_spans() -> dict[str, int]:
    spans = {}
    for path in sorted(SRC.rglob("*.py")):
        module = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                spans[f"{module}.{node.name}"] = node.end_lineno - node.lineno + 1
    return spans


def test_no_class_is_over_the_bound_but_the_exempt_ones() -> None:
    spans = _class_spans()
    over = {name: lines for name, lines in spans.items() if lines > MAX_LINES}
    assert set(over) - set(EXEMPT) == set(), f"classes over {MAX_LINES} lines: {over}"


def test_client_init_parameters_are_bounded() -> None:
    parameters = [p for p in inspect.signature(Client.__init__).parameters if p != "self"]
    assert len(parameters) <= MAX_CLIENT_PARAMETERS, parameters
