"""``fastmcp.settings`` on mcpkit: fastmcp's global settings object. Its values are
accepted and kept (a server reading or changing them still loads); mcpkit's own
behaviour does not depend on them."""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "settings"]


class Settings:
    """Attributes with fastmcp's defaults; any other attribute may be set."""

    def __init__(self, **values: Any) -> None:
        defaults: dict[str, Any] = {
            "log_level": "INFO",
            "host": "127.0.0.1",
            "port": 8000,
            "streamable_http_path": "/mcp",
            "sse_path": "/sse",
            "message_path": "/messages/",
            "json_response": False,
            "stateless_http": False,
            "mask_error_details": False,
            "strict_input_validation": False,
            "show_cli_banner": True,
            "check_for_updates": "off",
            "include_tags": None,
            "exclude_tags": None,
        }
        self.__dict__.update({**defaults, **values})

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


settings = Settings()
