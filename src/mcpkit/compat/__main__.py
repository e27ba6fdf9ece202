"""``python -m mcpkit.compat TARGET [ARGS...]``: see :mod:`mcpkit.compat.run`."""

from __future__ import annotations

import sys

from mcpkit.compat.run import main

sys.exit(main())
