"""``mcp.server.elicitation`` on mcpkit: the outcomes ``ctx.elicit`` returns
(``AcceptedElicitation`` with ``data``, ``DeclinedElicitation``, ``CancelledElicitation``)
and ``AcceptedUrlElicitation`` for a URL elicitation, each with its ``action``."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from mcpkit.compat.mcp.server.mcpserver.resolve import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
)

__all__ = [
    "AcceptedElicitation",
    "AcceptedUrlElicitation",
    "CancelledElicitation",
    "DeclinedElicitation",
    "ElicitationResult",
    "UrlElicitationResult",
    "outcome",
]


@dataclasses.dataclass
class AcceptedUrlElicitation:
    """The user agreed to open the URL."""

    action: Literal["accept"] = "accept"


ElicitationResult = AcceptedElicitation[Any] | DeclinedElicitation | CancelledElicitation
UrlElicitationResult = AcceptedUrlElicitation | DeclinedElicitation | CancelledElicitation


def outcome(answer: Any) -> Any:
    """The SDK's outcome object for mcpkit's answer to a form elicitation."""
    if answer.action == "accept":
        return AcceptedElicitation(answer.data)
    return DeclinedElicitation() if answer.action == "decline" else CancelledElicitation()
