"""Proxies and bridges: serve any MCP server as if it were local, over any transport and
to clients of either protocol era.

```python
from mcpkit.proxy import ProxyServer

app = ProxyServer("python server.py")      # a stdio server ...
app.run("http", port=8000)                   # ... published over Streamable HTTP
```

:class:`ProxyServer` (:mod:`mcpkit.proxy.server`) forwards every request and what the
upstream sends back while serving; :mod:`mcpkit.proxy.upstream` holds its upstream
connections and :mod:`mcpkit.proxy.rounds` turns MRTR rounds into live requests and back
(era bridging), :mod:`mcpkit.proxy.tasks` translates tasks between the two designs.
The command line's ``mcpkit proxy TARGET`` runs one.
"""

from mcpkit.proxy.server import FORWARDED_METHODS, ProxyServer, Sharing

__all__ = ["FORWARDED_METHODS", "ProxyServer", "Sharing"]
