"""The ``mcpkit`` command line: run, inspect and call MCP servers, and a demo.

``app`` parses arguments; one module per command (``run``, ``inspect``, ``call`` with read
and prompt, ``demo``); ``targets`` resolves TARGET; ``interactive`` answers sampling and
elicitation at the terminal; ``render`` prints results.
"""

from mcpkit.cli.app import main

__all__ = ["main"]
