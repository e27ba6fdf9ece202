"""``mcpkit dev``: a development loop for MCP servers.

The user's server runs as a subprocess and restarts whenever a source file next to it
changes; a web inspector (plain HTML/CSS/JS shipped in this package, no build step, works
offline) drives it through a small token-guarded JSON/SSE API on 127.0.0.1: tools with
forms from their input schemas, resources, templates, prompts, completion, progress and
logs, elicitation and sampling answered from the page, tasks, and MCP Apps rendered in a
sandboxed iframe with the host side of the app bridge.

See :class:`~mcpkit.dev.server.DevServer` and :mod:`mcpkit.dev.api`.
"""

from mcpkit.dev.server import DevServer

__all__ = ["DevServer"]
