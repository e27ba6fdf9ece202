"""The layers of mcpkit hold over every import: module-level, in-function and ``if
TYPE_CHECKING:`` ones alike (grimp counts them all).

The layers are the import-linter contract in pyproject.toml (``[tool.importlinter]``, checked
by ``lint-imports`` in scripts/test.sh). This test reads the same contract and checks what
import-linter does not: every module is in a layer, the imports that run against the layers
are exactly the exceptions the contract lists (no more, and none left listed once fixed),
there are at most :data:`MAX_UPWARD` of them, and no import cycle is longer than
:data:`MAX_CYCLE` modules.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

#: The most modules one import cycle may have (the strongly connected components of the
#: module graph; the goal is 4). Lower it as cycles are broken; raise it only when a module
#: inside the cycle is split in several (the cycle itself did not grow), and say so.
MAX_CYCLE = 4
#: The most imports that may run against the layers, each listed with its reason in the
#: contract (the goal is 3). Lower it as exceptions go; never raise it.
MAX_UPWARD = 0

#: Packages whose ``__init__`` re-exports names of several layers: in no layer themselves; an
#: import of one stands for the imports the ``__init__`` makes.
FACADES = frozenset(
    {
        "mcpkit",
        "mcpkit.auth",
        "mcpkit.server",
        "mcpkit.client",
        "mcpkit.transports",
        "mcpkit.transports.http",
        "mcpkit.redis",
        "mcpkit.tasks",
    }
)


def _contract() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = (c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return contract


def _layers() -> list[list[str]]:
    layers = []
    for raw in _contract()["layers"]:
        assert "|" not in raw, "the layers' modules may import each other: separate them with ':'"
        layers.append([name.strip() for name in raw.split(":")])
    return layers


def _graph() -> grimp.ImportGraph:
    sys.path.insert(0, str(SRC))
    try:
        return grimp.build_graph("mcpkit", cache_dir=None)
    finally:
        sys.path.remove(str(SRC))


def _layer_of(layers: list[list[str]]) -> dict[str, int]:
    return {name: index for index, names in enumerate(layers) for name in names}


def _find_layer(module: str, layer_of: dict[str, int]) -> int | None:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = layer_of.get(".".join(parts[:end]))
        if found is not None:
            return found
    return None


def _reached(graph: grimp.ImportGraph, module: str) -> Iterable[str]:
    """What an import of ``module`` reaches: the module, or through a facade the modules its
    ``__init__`` imports (and so on through nested facades)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in FACADES:
            todo.extend(graph.find_modules_directly_imported_by(current))
        else:
            yield current


def _upward_imports(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    layer_of = _layer_of(_layers())
    upward = set()
    for importer in graph.modules:
        mine = _find_layer(importer, layer_of)
        if mine is None:
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            for target in _reached(graph, imported):
                theirs = _find_layer(target, layer_of)
                if theirs is not None and theirs < mine:
                    upward.add((importer, imported))
    return upward


def _listed_exceptions() -> set[tuple[str, str]]:
    listed = set()
    for entry in _contract().get("ignore_imports", []):
        importer, imported = (part.strip() for part in entry.split("->"))
        listed.add((importer, imported))
    return listed


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of the import graph with more than one module
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found, key=len, reverse=True)


def test_the_graph_counts_type_only_and_in_function_imports() -> None:
    graph = _graph()
    # mcpkit/redis/backend.py imports RedisTaskStore under `if TYPE_CHECKING:` and again
    # inside a method: grimp reports both lines.
    lines = (SRC / "mcpkit" / "redis" / "backend.py").read_text(encoding="utf-8").splitlines()
    guard = lines.index("if TYPE_CHECKING:")
    type_only = lines.index("    from mcpkit.redis.tasks import RedisTaskStore", guard) + 1
    in_method = lines.index("            from mcpkit.redis.tasks import RedisTaskStore") + 1
    details = graph.get_import_details(
        importer="mcpkit.redis.backend", imported="mcpkit.redis.tasks"
    )
    assert {type_only, in_method} <= {d["line_number"] for d in details}


def test_every_module_is_in_one_layer() -> None:
    layers = _layers()
    names = [name for layer in layers for name in layer]
    assert len(names) == len(set(names)), "a module is named in two layers"
    layer_of = _layer_of(layers)
    graph = _graph()
    missing = sorted(
        m for m in graph.modules if m not in FACADES and _find_layer(m, layer_of) is None
    )
    assert not missing, f"modules in no layer of pyproject.toml [tool.importlinter]: {missing}"
    unknown = sorted(name for name in names if name not in graph.modules)
    assert not unknown, f"layers name modules that do not exist: {unknown}"


def test_the_imports_against_the_layers_are_the_listed_exceptions() -> None:
    graph = _graph()
    upward = _upward_imports(graph)
    listed = _listed_exceptions()
    unlisted = sorted(upward - listed)
    assert not unlisted, "imports against the layers, not in the contract's ignore_imports: " + (
        "; ".join(f"{a} -> {b}" for a, b in unlisted)
    )
    stale = sorted(listed - upward)
    assert not stale, "ignore_imports lists imports that no longer run against the layers: " + (
        "; ".join(f"{a} -> {b}" for a, b in stale)
    )
    assert len(upward) <= MAX_UPWARD, sorted(upward)


def test_no_import_cycle_is_longer_than_the_bound() -> None:
    cycles = _cycles(_graph())
    largest = cycles[0] if cycles else []
    assert len(largest) <= MAX_CYCLE, f"{len(largest)} modules import each other: {largest}"
