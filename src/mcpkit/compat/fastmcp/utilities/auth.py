"""``fastmcp.utilities.auth`` on mcpkit: :func:`parse_scopes`."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_scopes"]


def parse_scopes(value: Any) -> list[str] | None:
    """Scopes given as a list, a JSON array text, or a comma/space separated text (None
    stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                data = json.loads(text)
            except ValueError:
                data = None
            if isinstance(data, list):
                return [str(v).strip() for v in data if str(v).strip()]
        return [s.strip() for s in text.replace(",", " ").split() if s.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return list(value)
