"""Periodic pings that detect a dead peer (spec: basic/utilities/ping).

The session engine answers ``ping`` in both directions by itself; this module adds the
optional other half: ping the peer every ``interval`` seconds and treat unanswered pings as a
lost connection, so every pending request fails with a clear error instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from mcpkit.errors import ConnectionClosed, McpError, RequestTimeout
from mcpkit.session import Session

__all__ = ["keep_alive"]

logger = logging.getLogger("mcpkit.keepalive")


async def keep_alive(
    session: Session, interval: float, timeout: float | None = None, *, max_failures: int = 1
) -> None:
    """Ping the peer every ``interval`` seconds until ``session`` closes.

    A ping not answered within ``timeout`` seconds (default ``interval``) is a failure; after
    ``max_failures`` in a row the connection counts as dead: the session is closed with a
    :class:`~mcpkit.errors.ConnectionClosed` saying so, which every pending request raises.
    An error answer still proves the peer alive. Run it as a task
    (``asyncio.create_task(keep_alive(session, 30))``); it returns once the session closes.
    """
    wait = interval if timeout is None else timeout
    missed = 0
    closed = asyncio.ensure_future(session.wait_closed())
    try:
        while not session.closed:
            done, _ = await asyncio.wait({closed}, timeout=interval)
            if done:
                return
            try:
                await session.ping(timeout=wait)
            except RequestTimeout:
                missed += 1
                logger.warning("Ping not answered within %gs (%d in a row)", wait, missed)
                if missed >= max_failures:
                    error = ConnectionClosed(
                        f"Connection lost: {missed} ping(s) in a row got no answer within {wait:g}s"
                    )
                    session.connection_lost(error)
                    with contextlib.suppress(Exception):
                        await session.transport.close()
                    return
            except ConnectionClosed:
                return
            except McpError as exc:
                logger.warning("Ping answered with an error: %s", exc)
                missed = 0
            else:
                missed = 0
    finally:
        closed.cancel()
