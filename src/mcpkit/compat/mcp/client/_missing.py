"""What the official client's entry points do on mcpkit: point at :class:`mcpkit.Client`."""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["not_provided"]


def not_provided(name: str) -> NoReturn:
    """Raise the error of an official-client name used on mcpkit."""
    raise NotImplementedError(
        f"{name} (the official MCP client) is not provided by mcpkit's compat layer: "
        "connect with `async with mcpkit.Client(target) as client:` (a command line, a URL "
        "or a server object)"
    )


class Missing:
    """A placeholder class: importable, refusing to be used."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        not_provided(type(self).__name__)
