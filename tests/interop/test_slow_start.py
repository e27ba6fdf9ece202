"""A stdio server slower to start than a client's discover probe waits (11 s, longer than
the 10 s the probes give up after) is reached by the official Python client (it recovers
from the -32022 mcpkit answers to its late ``initialize``) and through ``mcpkit proxy``."""

from __future__ import annotations

import json
import os
import sys

from mcpkit import Client
from mcpkit.client import StdioOptions
from tests.conftest import ROOT
from tests.interop.conftest import PEER_SCRIPTS, PythonPeer

SLOW = ROOT / "tests" / "firsthour" / "slow_server.py"
SECONDS = "20"  # twice the 10 s the discover probe once waited
PYTHONPATH = f"PYTHONPATH={os.pathsep.join([str(ROOT / 'src'), str(ROOT)])}"


def test_the_official_client_reaches_a_slow_mcpkit_server(py_peer: PythonPeer) -> None:
    # `env` sets the server's variables: the official client passes only a default set.
    server = ["env", PYTHONPATH, f"SLOW_SECONDS={SECONDS}", sys.executable, str(SLOW)]
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py", "--call", "ready", "{}", "--", *server, timeout=120
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["protocolVersion"] == "2026-07-28"
    assert report["calls"][0]["result"]["content"] == [{"type": "text", "text": "ready"}]


async def test_mcpkit_proxy_in_front_of_a_slow_server_is_reached() -> None:
    upstream = f"env SLOW_SECONDS={SECONDS} {PYTHONPATH} {sys.executable} {SLOW}"
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    proxy = [sys.executable, "-m", "mcpkit", "proxy", upstream]
    async with Client(proxy, connection=StdioOptions(env=env)) as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool("ready")).text == "ready"
