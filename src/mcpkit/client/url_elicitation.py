"""The client's bookkeeping of URL elicitations (2025-11-25).

A server announces a URL elicitation in ``elicitation/create`` (mode ``url``) or in a
``-32042`` (``URLElicitationRequiredError``) error, and later sends
``notifications/elicitation/complete`` with its id. :class:`UrlElicitations` remembers the
ids still open (a future each, for :meth:`~UrlElicitations.wait`) and the last
:data:`COMPLETED_KEPT` completed ones, so a wait that starts after the notification
returns at once.
"""

from __future__ import annotations

import asyncio
from typing import Final

import pydantic

from mcpkit.client._util import describe, logger
from mcpkit.client.errors import URLElicitationRequired
from mcpkit.errors import McpError

__all__ = ["COMPLETED_KEPT", "UrlElicitations"]

#: Completed URL elicitation ids remembered for a late wait.
COMPLETED_KEPT: Final = 1000


class UrlElicitations:
    """Open and recently completed URL elicitations of one connection."""

    def __init__(self) -> None:
        self._open: dict[str, asyncio.Future[None]] = {}
        # ids of known URL elicitations already completed, oldest first (bounded)
        self._completed: dict[str, None] = {}

    def track(self, elicitation_id: str) -> asyncio.Future[None]:
        """Note a URL elicitation the server announced (a new one: not yet completed)."""
        self._completed.pop(elicitation_id, None)
        return self._future(elicitation_id)

    def _future(self, elicitation_id: str) -> asyncio.Future[None]:
        fut = self._open.get(elicitation_id)
        if fut is None:
            fut = self._open[elicitation_id] = asyncio.get_running_loop().create_future()
        return fut

    def complete(self, elicitation_id: str) -> bool:
        """``notifications/elicitation/complete`` arrived for ``elicitation_id``: wake its
        waiters. False (nothing happens) for an id this client does not know."""
        fut = self._open.pop(elicitation_id, None)
        if fut is None or fut.done():
            logger.debug("Ignoring completion of unknown elicitation %r", elicitation_id)
            return False
        fut.set_result(None)
        done = self._completed
        done[elicitation_id] = None
        if len(done) > COMPLETED_KEPT:
            del done[next(iter(done))]
        return True

    async def wait(self, elicitation_id: str, timeout: float | None = None) -> None:
        """Return once ``elicitation_id`` is completed (at once if it already is);
        TimeoutError after ``timeout`` seconds."""
        if elicitation_id in self._completed:
            return
        fut = self._future(elicitation_id)
        await asyncio.wait_for(asyncio.shield(fut), timeout)

    def required_error(self, exc: McpError) -> URLElicitationRequired:
        """The :class:`URLElicitationRequired` for a -32042 error; its elicitations are
        tracked (malformed ones are dropped with a warning)."""
        from mcpkit.types import ElicitRequestURLParams

        found: list[ElicitRequestURLParams] = []
        data = exc.data
        items = data.get("elicitations") if isinstance(data, dict) else None
        for item in items if isinstance(items, list) else []:
            try:
                found.append(ElicitRequestURLParams.model_validate(item))
            except pydantic.ValidationError as err:
                logger.warning("Malformed elicitation in a -32042 error: %s", describe(err))
        for e in found:
            self.track(e.elicitation_id)
        return URLElicitationRequired(exc.message, exc.data, found)

    def clear(self) -> None:
        """The connection ended: cancel every wait and forget every id."""
        for fut in self._open.values():
            fut.cancel()
        self._open.clear()
        self._completed.clear()
