"""fastmcp's Client on a server at a Streamable HTTP URL. ``ECHO_SERVER`` (JSON) is the
command line that starts ``echo_server.py`` with the interpreter under test."""

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


def main():
    port = free_port()
    command = json.loads(os.environ["ECHO_SERVER"])
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    proc = subprocess.Popen([*command, "--http", str(port)], **quiet)
    try:
        wait_for(port, proc)
        asyncio.run(show(Client(f"http://127.0.0.1:{port}/mcp")))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
