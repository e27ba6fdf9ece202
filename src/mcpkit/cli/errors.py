"""The one exception the CLI shows as ``error: ...`` plus a ``hint: ...`` line."""

from __future__ import annotations

from mcpkit.errors import CommandLineError

__all__ = ["EXIT_ERROR", "EXIT_TOOL_ERROR", "EXIT_USAGE", "INSTALL_HINT", "CliError", "Declined"]

from mcpkit._extras import INSTALL_HINT

#: Exit codes: 1 for a failure (connection, protocol error, bad input), 2 for bad usage,
#: 3 when the call worked but the tool reported an error (``isError``).
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_TOOL_ERROR = 3


class CliError(CommandLineError):
    """A failure worth one line to the user, with an optional hint and exit code (a
    :class:`mcpkit.errors.CommandLineError`)."""

    def __init__(self, message: str, hint: str | None = None, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


class Declined(CliError):
    """The server gave up on the request because the user declined what it asked (a
    sampling request): the user's answer, not a failure, so the exit code is 0."""

    def __init__(self, message: str) -> None:
        super().__init__(message, None, 0)
