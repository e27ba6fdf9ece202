"""The official SDK's ``examples/servers/simple-auth`` (2.x), unchanged: its authorization
server (``mcp_simple_auth.auth_server``: ``create_auth_routes`` with a login page and an
introspection endpoint) and its resource server (``mcp_simple_auth.server``: an
``MCPServer`` checking tokens by introspection), both run on the SDK and both on mcpkit,
taken through a whole login: registration, authorization, the login form, the code
exchanged, then MCP requests at the resource server with the token (and without); every
answer equal. Its settings import ``pydantic_settings`` (with ``python-dotenv``), its token
check ``httpx2``: the example's own requirements, in both environments' locks
(``locks/peer-mcp.in`` and mcpkit's ``dev`` extra)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.compat.test_compat import free_port
from tests.compat.test_fastmcp_auth import ACCEPT, INIT, listening
from tests.compat.test_fastmcp_oauth_server import REDIRECT, Recorder, pkce
from tests.compat.test_mcp_auth import mcp_calls
from tests.compat.test_unchanged import peer

pytestmark = pytest.mark.timeout(240)

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2_auth"
#: The codes and tokens the example's provider mints.
MINTED = re.compile(r"mcp_[0-9a-f]+")


class SimpleAuthRecorder(Recorder):
    """A :class:`Recorder` naming the example's codes and tokens and its login state too."""

    def normal(self, text: str) -> str:
        return super().normal(MINTED.sub(self._name, text))


@contextlib.contextmanager
def started(command: list[str], path: str) -> Iterator[tuple[str, str]]:
    """The example's authorization and resource servers run by ``command`` with ``path`` as
    the import path: their base URLs."""
    as_port, rs_port = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": path}
    as_url = f"http://localhost:{as_port}"
    procs = [
        subprocess.Popen(
            [*command, "mcp_simple_auth.auth_server", "--port", str(as_port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=EXAMPLES,
        )
    ]
    try:
        listening(procs[0], as_port)
        procs.append(
            subprocess.Popen(
                [
                    *command,
                    "mcp_simple_auth.server",
                    "--port",
                    str(rs_port),
                    "--auth-server",
                    as_url,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=EXAMPLES,
            )
        )
        listening(procs[1], rs_port)
        yield as_url, f"http://localhost:{rs_port}"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def login_flow(as_url: str, rs_url: str) -> dict[str, Any]:
    """The login at the authorization server, then MCP at the resource server."""
    a = SimpleAuthRecorder(as_url)
    get, post = a.http.get, a.http.post
    a.record("server metadata", get("/.well-known/oauth-authorization-server"))
    client = a.record("register", post("/register", json={"redirect_uris": [REDIRECT]})).json()
    cid, secret = client["client_id"], client["client_secret"]
    verifier, challenge = pkce()
    ask = {"client_id": cid, "response_type": "code", "code_challenge": challenge, "state": "s1"}
    a.record("authorize", get("/authorize", params=ask))
    a.record("login page", get("/login", params={"state": "s1"}))
    a.record("login page no state", get("/login"))
    form = {"username": "demo_user", "password": "wrong", "state": "s1"}
    a.record("login wrong password", post("/login/callback", data=form))
    done = a.record("login", post("/login/callback", data={**form, "password": "demo_password"}))
    code = parse_qs(urlsplit(done.headers["location"]).query)["code"][0]
    grant = {"grant_type": "authorization_code", "code": code, "client_id": cid}
    tokens = a.record(
        "token", post("/token", data={**grant, "client_secret": secret, "code_verifier": verifier})
    ).json()
    a.record("introspect", post("/introspect", data={"token": tokens["access_token"]}))
    seen = a.answers["introspect"]["body"]
    for when in ("exp", "iat"):  # times: compared as present
        seen[when] = isinstance(seen.get(when), int)
    r = SimpleAuthRecorder(rs_url)
    r.names.update(a.names)
    r.names[as_url] = "AS_URL"
    r.record("resource metadata", r.http.get("/.well-known/oauth-protected-resource/mcp"))
    r.record("no token", r.http.post("/mcp", json=INIT, headers=ACCEPT))
    call = {"method": "tools/call", "params": {"name": "get_time", "arguments": {}}}
    mcp_calls(r, "token", tokens["access_token"], [{"method": "tools/list", "params": {}}])
    mcp_calls(r, "bad token", "mcp_" + "0" * 32, [call])
    return {**a.answers, **{f"rs {k}": v for k, v in r.answers.items()}}


def test_simple_auth_login_answers_as_on_the_sdk() -> None:
    """Every step of the login and the MCP requests with its token answer as on the SDK."""
    with started([str(peer("mcp2")), "-m"], "") as (as_url, rs_url):
        expected = login_flow(as_url, rs_url)
    with started([sys.executable, "-m", "mcpkit.compat"], os.pathsep.join(sys.path)) as (
        as_url,
        rs_url,
    ):
        got = login_flow(as_url, rs_url)
    assert got == expected
    assert expected["token"]["status"] == 200
    assert expected["rs mcp token tools/list"]["status"] == 200
    assert expected["rs no token"]["status"] == 401
