"""``python -m mcpkit`` and the ``mcpkit`` command (see :mod:`mcpkit.cli`)."""

from __future__ import annotations

import sys


def main() -> int:
    """Entry point of the ``mcpkit`` command."""
    from mcpkit.cli.app import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
