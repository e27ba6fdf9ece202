"""The official SDK's ``stories/oauth`` (2.x), unchanged: an ``MCPServer`` (``server.py``)
and a low-level ``Server`` (``server_lowlevel.py``) that are their own authorization server
(the stories' in-memory provider, consenting at once with ``OAUTH_DEMO_AUTO_CONSENT=1``),
served on the SDK and on mcpkit and taken through a whole login: metadata, registration,
authorization with PKCE, the code exchanged for a token, MCP requests with it and without;
every answer equal. The stories import ``httpx2`` (in mcpkit's test environment too)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import ACCEPT, INIT, listening
from tests.compat.test_fastmcp_oauth_server import REDIRECT, Recorder, code_of, pkce
from tests.compat.test_mcp_auth import mcp_calls
from tests.compat.test_unchanged import peer

pytestmark = pytest.mark.timeout(180)

APP = str(Path(SERVERS) / "sdk_auth_app.py")
#: The codes and tokens the stories' provider mints.
STORY_MINTED = re.compile(r"(?:code|access)_[0-9a-f]{32}")


class StoryRecorder(Recorder):
    """A :class:`Recorder` naming the stories' codes and tokens too."""

    def normal(self, text: str) -> str:
        return super().normal(STORY_MINTED.sub(self._name, text))


@contextlib.contextmanager
def started(module: str) -> Iterator[tuple[str, str]]:
    """The story's ``build_app`` served on the SDK and on mcpkit: their base URLs."""
    ports = free_port(), free_port()
    env = {**os.environ, "OAUTH_DEMO_AUTO_CONSENT": "1"}
    ours_env = {**env, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [
        ([str(peer("mcp2"))], env),
        ([sys.executable, "-m", "mcpkit.compat"], ours_env),
    ]
    procs = [
        subprocess.Popen(
            [*command, APP, f"official_v2:{module}", "build_app", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=run_env,
        )
        for (command, run_env), port in zip(runs, ports, strict=True)
    ]
    try:
        for proc, port in zip(procs, ports, strict=True):
            listening(proc, port)
        yield f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def login_flow(base: str) -> dict[str, Any]:
    """The story's login, step by step, then MCP with the token issued."""
    r = StoryRecorder(base)
    get, post = r.http.get, r.http.post
    r.record("resource metadata", get("/.well-known/oauth-protected-resource/mcp"))
    r.record("server metadata", get("/.well-known/oauth-authorization-server"))
    r.record("no token", post("/mcp", json=INIT, headers=ACCEPT))
    r.record(
        "register bad scope", post("/register", json={"redirect_uris": [REDIRECT], "scope": "x"})
    )
    client = r.record("register", post("/register", json={"redirect_uris": [REDIRECT]})).json()
    cid, secret = client["client_id"], client["client_secret"]
    verifier, challenge = pkce()
    ask = {"client_id": cid, "response_type": "code", "code_challenge": challenge, "state": "s1"}
    r.record("authorize unknown client", get("/authorize", params={**ask, "client_id": "nobody"}))
    code = code_of(r.record("authorize", get("/authorize", params=ask)))
    grant = {"grant_type": "authorization_code", "code": code, "client_id": cid}
    r.record(
        "token bad verifier",
        post("/token", data={**grant, "client_secret": secret, "code_verifier": "x" * 43}),
    )
    tokens = r.record(
        "token", post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier})
    ).json()
    r.record(
        "token replayed",
        post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier}),
    )
    call = {"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    mcp_calls(r, "token", tokens["access_token"], [{"method": "tools/list", "params": {}}, call])
    mcp_calls(r, "bad token", "access_nope", [call])
    return r.answers


@pytest.mark.parametrize("module", ["stories.oauth.server", "stories.oauth.server_lowlevel"])
def test_oauth_story_login_answers_as_on_the_sdk(module: str) -> None:
    """Every step of the login and the MCP requests after it answer as on the SDK."""
    with started(module) as (sdk, ours):
        expected = login_flow(sdk)
        got = login_flow(ours)
    assert got == expected
    assert expected["token"]["status"] == 200
    assert expected["mcp token tools/call"]["status"] == 200
    assert expected["no token"]["status"] == 401
