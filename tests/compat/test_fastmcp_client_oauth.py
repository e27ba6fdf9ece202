"""fastmcp's Client OAuth on mcpkit: ``Client(url, auth="oauth")``, ``OAuth(scopes=...,
client_name=...)`` and ``BearerAuth`` in a client script run on fastmcp and unchanged on
mcpkit against the same server (a fastmcp server that is its own authorization server, run
on fastmcp, then on mcpkit): what the scripts print (the tools, the token the tool sees, the
authorization request the browser was sent, how often it was opened) must be equal. The
browser is a function following the redirects from a thread (``webbrowser.open`` patched);
the loopback callback server is the client's own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import warmed
from tests.compat.test_compat import SERVERS, free_port
from tests.compat.test_fastmcp_auth import listening
from tests.compat.test_unchanged import peer

pytestmark = pytest.mark.timeout(240)

CLIENTS = Path(__file__).resolve().parent / "clients"
SCRIPT = CLIENTS / "fastmcp_client_oauth.py"
SERVER = str(Path(SERVERS) / "fastmcp_oauth_memory.py")


def run_client(python: list[str], url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        warmed([*python, str(SCRIPT), url]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=CLIENTS,
    )


def printed(proc: subprocess.Popen[str], tag: str) -> list[str]:
    out, err = proc.communicate(timeout=200)
    assert proc.returncode == 0, f"{tag} failed:\n{err[-4000:]}"
    return out.splitlines()


@pytest.mark.parametrize("server_on", ["fastmcp", "mcpkit"])
def test_oauth_client_script_prints_the_same(server_on: str) -> None:
    port = free_port()
    python = (
        [str(peer("fastmcp"))]
        if server_on == "fastmcp"
        else [sys.executable, "-m", "mcpkit.compat"]
    )
    server = subprocess.Popen(
        warmed([*python, SERVER, "multi", str(port)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        listening(server, port)
        url = f"http://127.0.0.1:{port}/mcp"
        theirs = run_client([str(peer("fastmcp"))], url)
        ours = run_client([sys.executable, "-m", "mcpkit.compat"], url)
        expected, got = printed(theirs, "fastmcp"), printed(ours, "mcpkit")
    finally:
        server.terminate()
        server.wait(10)
    assert got == expected
    assert got[0] == "tools ['whoami', 'add']"
    assert "browser opened 2" in got and got[-1] == "browser opened 2"
    assert any(line.startswith("bearer whoami") and "'ci'" in line for line in got)


def _fetch(url: str, into: dict[str, Any]) -> None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            into["status"], into["body"] = response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        into["status"], into["body"] = refused.code, refused.read().decode()


def test_callback_server_receives_the_redirect(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loopback callback server: the browser sent to the authorization URL lands on
    ``/callback``; the handler returns that URL (an error response too, shown to the user
    as a failure page) and stops listening."""
    import webbrowser

    from mcpkit.compat.fastmcp.client.auth._callback import browser_authorization_handler

    port = free_port()
    seen: dict[str, Any] = {}

    def browser(url: str, *args: Any, **kwargs: Any) -> bool:
        seen["opened"] = url
        back = f"http://127.0.0.1:{port}/callback?error=access_denied&error_description=no&state=s"
        thread = threading.Thread(target=_fetch, args=(back, seen))
        thread.start()
        seen["thread"] = thread
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    handler = browser_authorization_handler("127.0.0.1", port, timeout=30)
    returned = asyncio.run(handler("https://as.example.com/authorize?x=1"))
    seen["thread"].join(10)
    assert seen["opened"] == "https://as.example.com/authorize?x=1"
    assert (
        returned
        == f"http://127.0.0.1:{port}/callback?error=access_denied&error_description=no&state=s"
    )
    assert seen["status"] == 400 and "Authentication failed" in seen["body"]
    with pytest.raises(OSError):  # closed once the redirect arrived
        urllib.request.urlopen(f"http://127.0.0.1:{port}/callback", timeout=5)


def test_callback_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """No browser ever comes back: a TimeoutError naming the wait, as fastmcp's."""
    import webbrowser

    from mcpkit.compat.fastmcp.client.auth._callback import browser_authorization_handler

    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: True)
    handler = browser_authorization_handler("127.0.0.1", free_port(), timeout=0.2)
    with pytest.raises(TimeoutError, match=r"OAuth callback timed out after 0\.2 seconds"):
        asyncio.run(handler("https://as.example.com/authorize"))


def test_bearer_auth_sets_the_header() -> None:
    import httpx

    from mcpkit.compat.fastmcp.client.auth import BearerAuth

    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(answer), auth=BearerAuth("t0k")) as http:
        http.get("http://example.com/")
    assert seen == ["Bearer t0k"]
