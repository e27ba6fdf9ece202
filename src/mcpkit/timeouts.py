"""How long a request may wait for its response: the :class:`Timeout` value object.

```python
from mcpkit import Client, Timeout

Client(target, timeout=30)                                   # 30 s, restarted by progress
Client(target, timeout=Timeout(30, max_total=300))           # ... but 5 minutes at most
await c.call_tool("slow", timeout=Timeout(None, max_total=60))   # 60 s, progress or not
```

``Client(timeout=...)``, each call's ``timeout=...`` and
:meth:`mcpkit.session.Session.request` take a :class:`Timeout` or a plain number of seconds
(or None: no limit). A plain number given to a call replaces only the per-wait seconds and
keeps the client's other settings (:func:`resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeAlias

__all__ = ["Timeout", "TimeoutTypes", "resolve"]


def _seconds(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Timeout {name} must be a number of seconds or None, not {value!r}")
    if value < 0:
        raise ValueError(f"Timeout {name} must not be negative, got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Timeout:
    """The time limits of a request.

    ``timeout``: seconds to wait for the response (None: no limit); with
    ``reset_on_progress`` each progress notification the server sends for the request
    restarts it. ``max_total``: seconds the whole request may take, progress or not (None:
    no cap). A request that runs out raises :class:`~mcpkit.errors.RequestTimeout` and is
    cancelled at the peer.
    """

    timeout: float | None
    max_total: float | None = None
    reset_on_progress: bool = True

    def __init__(
        self,
        timeout: float | None,
        *,
        max_total: float | None = None,
        reset_on_progress: bool = True,
    ) -> None:
        object.__setattr__(self, "timeout", _seconds("timeout", timeout))
        object.__setattr__(self, "max_total", _seconds("max_total", max_total))
        object.__setattr__(self, "reset_on_progress", bool(reset_on_progress))

    def __repr__(self) -> str:
        extra = "" if self.max_total is None else f", max_total={self.max_total:g}"
        if not self.reset_on_progress:
            extra += ", reset_on_progress=False"
        seconds = "None" if self.timeout is None else f"{self.timeout:g}"
        return f"Timeout({seconds}{extra})"


TimeoutTypes: TypeAlias = Timeout | float | None
"""What a ``timeout=`` parameter takes: a :class:`Timeout`, seconds, or None (no limit)."""


def resolve(value: TimeoutTypes, default: Timeout) -> Timeout:
    """``value`` as a :class:`Timeout`: itself, or ``default`` with its per-wait seconds
    replaced by the number (or None) given."""
    if isinstance(value, Timeout):
        return value
    return replace(default, timeout=_seconds("timeout", value))
