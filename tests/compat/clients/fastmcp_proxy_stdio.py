"""A proxy of a server it starts over stdio (a script given as a Path), served over stdio."""

from pathlib import Path

from fastmcp.server import create_proxy

proxy = create_proxy(Path(__file__).parent / "fastmcp_proxy_upstream.py", name="Prox")

if __name__ == "__main__":
    proxy.run()
