"""A proxy of a server in the same process, served over stdio."""

from fastmcp.server import create_proxy
from fastmcp_proxy_upstream import upstream

proxy = create_proxy(upstream, name="Prox")

if __name__ == "__main__":
    proxy.run()
