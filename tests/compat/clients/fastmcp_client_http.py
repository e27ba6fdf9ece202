"""fastmcp's Client on a server at a Streamable HTTP URL, then at an HTTP+SSE one.
``ECHO_SERVER`` (JSON) is the command line that starts ``echo_server.py`` with the
interpreter under test."""

import asyncio
import json
import os
import socket
import subprocess
import time

from fastmcp import Client
from fastmcp_client_stdio import show


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def serve_and_show(transport: str, path: str) -> None:
    port = free_port()
    command = json.loads(os.environ["ECHO_SERVER"])
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    proc = subprocess.Popen([*command, f"--{transport}", str(port)], **quiet)
    try:
        wait_for(port, proc)
        asyncio.run(show(Client(f"http://127.0.0.1:{port}{path}")))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    serve_and_show("http", "/mcp")
    serve_and_show("sse", "/sse")


if __name__ == "__main__":
    main()
