"""``mcp.server.fastmcp.utilities.logging`` on mcpkit: ``get_logger`` and
``configure_logging``."""

from __future__ import annotations

import logging

__all__ = ["configure_logging", "get_logger"]


def get_logger(name: str) -> logging.Logger:
    """The logger ``name`` (under ``FastMCP.``, as the official SDK names them)."""
    return logging.getLogger(name)


def configure_logging(level: str = "INFO") -> None:
    """Log to stderr at ``level``."""
    logging.basicConfig(level=level, format="%(message)s")
