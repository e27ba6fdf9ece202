"""What the client learns of an unexpected exception in user code: by default a generic
message naming the tool, resource or prompt and an error id; the exception, its text and
its traceback go to the server log under that id.

``Server(mask_errors=False)`` (or ``MCPKIT_MASK_ERRORS=0`` in the environment, or
``Server(debug=True)`` when neither is set) shows the exception's text instead, for
development. A :class:`~mcpkit.server.errors.ToolError` or an
:class:`~mcpkit.errors.McpError` raised on purpose is never masked.
"""

from __future__ import annotations

import logging
import os
from typing import Final

__all__ = ["MASK_ENV", "error_id", "mask_setting", "report"]

#: The environment variable choosing masking when ``Server(mask_errors=)`` is not given.
MASK_ENV: Final = "MCPKIT_MASK_ERRORS"
_OFF: Final = frozenset({"0", "false", "no", "off"})
_ON: Final = frozenset({"1", "true", "yes", "on"})

logger = logging.getLogger("mcpkit.server")


def mask_setting(explicit: bool | None) -> bool | None:
    """Whether to mask: ``explicit`` when given, else ``MCPKIT_MASK_ERRORS``; None when
    neither says (then ``not debug``). ValueError for a value of the variable that is not
    a boolean."""
    if explicit is not None:
        return explicit
    value = os.environ.get(MASK_ENV, "").strip().lower()
    if not value:
        return None
    if value in _OFF:
        return False
    if value in _ON:
        return True
    raise ValueError(f"{MASK_ENV} must be 1 or 0 (true/false), not {value!r}")


def error_id() -> str:
    """A fresh id naming one failure in the log and in the answer."""
    import secrets  # loaded on the first failure only

    return secrets.token_hex(6)


def report(what: str, exc: BaseException) -> str:
    """Log ``exc`` (with its traceback) as the failure of ``what``; its error id."""
    eid = error_id()
    logger.error("%s failed (error id %s)", what, eid, exc_info=exc)
    return eid
