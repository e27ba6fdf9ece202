"""The locks the tests install from (locks/, written by scripts/lock.sh) agree with
pyproject.toml: every requirement of the core and of every extra the test environment installs
is pinned there, at a version its range admits. A requirement added to pyproject.toml without
running scripts/lock.sh would otherwise be missing from every fresh test environment, because
mcpkit itself is installed with ``--no-deps``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
#: The extras scripts/lock.sh locks into locks/dev.txt (all of them, read from the script).
LOCKED_EXTRAS = re.findall(r"--extra (\w+)", (ROOT / "scripts" / "lock.sh").read_text())
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$", re.M)


def _pins(path: Path) -> dict[str, list[tuple[Version, str | None]]]:
    pins: dict[str, list[tuple[Version, str | None]]] = {}
    for name, version, marker in _PIN.findall(path.read_text(encoding="utf-8")):
        pins.setdefault(canonicalize_name(name), []).append((Version(version), marker or None))
    return pins


def _applies(marker: str | None) -> bool:
    from packaging.markers import Marker

    return marker is None or Marker(marker).evaluate()


def test_every_requirement_of_the_test_environment_is_locked_within_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(r) for r in project["dependencies"]]
    for extra in LOCKED_EXTRAS:
        requirements += [Requirement(r) for r in project["optional-dependencies"][extra]]
    pins = _pins(ROOT / "locks" / "dev.txt")
    env = default_environment()
    problems = []
    for req in requirements:
        if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
            continue
        here = [v for v, m in pins.get(canonicalize_name(req.name), []) if _applies(m)]
        if not here:
            problems.append(f"{req.name}: not in locks/dev.txt")
        elif not all(req.specifier.contains(v, prereleases=True) for v in here):
            problems.append(f"{req.name}: locked {here}, pyproject.toml asks {req.specifier}")
    assert not problems, "run bash scripts/lock.sh: " + "; ".join(problems)


def test_the_lock_pins_exact_versions_with_hashes() -> None:
    text = (ROOT / "locks" / "dev.txt").read_text(encoding="utf-8")
    entries = [
        line
        for line in text.splitlines()
        if line and not line[0].isspace() and not line.startswith("#")
    ]
    assert entries and all("==" in line for line in entries), entries[:3]
    assert text.count("--hash=sha256:") >= len(entries)


def test_the_scripts_lock_every_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert sorted(LOCKED_EXTRAS) == sorted(project["optional-dependencies"])
