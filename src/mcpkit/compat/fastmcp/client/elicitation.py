"""``fastmcp.client.elicitation``: :class:`ElicitResult`, what an elicitation handler may
return to choose the action (``decline``, ``cancel``) or to accept with its content."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import mcpkit.compat.mcp.types as t

__all__ = ["ElicitRequestParams", "ElicitResult"]

T = TypeVar("T")

ElicitRequestParams = t.ElicitRequestFormParams


class ElicitResult(t.ElicitResult, Generic[T]):
    """An elicitation answer whose ``content`` may be any value (a dataclass of the
    response type, a scalar, a dict)."""

    content: Any = None
