"""The official conformance suite's authorization-server scenarios against mcpkit's embedded
authorization server (run by scripts/conformance.sh):

    python scripts/conformance_as.py NODE SUITE_INDEX_JS [OUTPUT_DIR]

Starts an ``AuthorizationServer`` on 127.0.0.1 (it approves every authorization, as a
logged-in user would), registers a public client whose redirect URI is the suite's callback
listener, runs ``conformance authorization`` against it and plays the user's browser: the
authorization URL the suite prints is followed to the redirect, which goes to the suite.
Exits non-zero when a check fails or no result is reported.
"""

from __future__ import annotations

import asyncio
import re
import socket
import sys

import httpx

from mcpkit import Server
from mcpkit.auth import AuthorizationServer
from mcpkit.transports.http import running


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def main(node: str, suite: str, output: str | None) -> int:
    callback = free_port()
    async with running(_Late()) as base:
        issuer = AuthorizationServer(
            base, resource=base + "/mcp", approve=lambda r: "conformance", scopes_supported=["mcp"]
        )
        app = Server("embedded-as", auth=issuer.resource_server())
        issuer.install(app)
        _Late.app = app.http_app()
        async with httpx.AsyncClient(timeout=30) as http:
            r = await http.post(
                base + "/register",
                json={
                    "client_name": "conformance",
                    "redirect_uris": [f"http://127.0.0.1:{callback}/callback"],
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token"],
                },
            )
            r.raise_for_status()
            client_id = r.json()["client_id"]
            command = [node, suite, "authorization", "--url", base, "--client-id", client_id]
            command += ["--resource", base + "/mcp", "-p", str(callback)]
            if output:
                command += ["-o", output]
            proc = await asyncio.create_subprocess_exec(
                *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
            assert proc.stdout is not None
            text = []
            listening, redirect = False, None
            async with asyncio.timeout(300):
                async for raw in proc.stdout:
                    line = raw.decode(errors="replace")
                    text.append(line)
                    sys.stdout.write(line)
                    if line.startswith(base + "/authorize?"):  # the user's browser
                        redirect = (await http.get(line.strip())).headers["location"]
                    listening = listening or line.startswith("Callback server started")
                    if listening and redirect is not None:  # to the suite's listener
                        await http.get(redirect)
                        listening, redirect = False, None
                await proc.wait()
        await _Late.app.aclose()
    total = re.search(r"Total: (\d+) passed, (\d+) failed", "".join(text))
    if proc.returncode != 0 or total is None or int(total[1]) == 0 or int(total[2]) != 0:
        print("authorization-server scenarios: FAILED", file=sys.stderr)
        return 1
    return 0


class _Late:
    """The ASGI app, set once the server listens (its URL is the issuer)."""

    app: object = None

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()  # type: ignore[operator]
                await send({"type": message["type"] + ".complete"})  # type: ignore[operator]
                if message["type"] == "lifespan.shutdown":
                    return
        await _Late.app(scope, receive, send)  # type: ignore[operator]


if __name__ == "__main__":
    out = sys.argv[3] if len(sys.argv) > 3 else None
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], out)))
