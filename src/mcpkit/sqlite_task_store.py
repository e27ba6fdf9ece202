"""The durable SQLite task store, under its first name: see :mod:`mcpkit.tasks.sqlite`."""

from __future__ import annotations

from mcpkit.tasks.sqlite import ABANDONED_MESSAGE, SQLiteTaskStore

__all__ = ["ABANDONED_MESSAGE", "SQLiteTaskStore"]
