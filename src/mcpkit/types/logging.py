"""Logging: the client sets a level, the server sends log messages."""

from typing import Any, ClassVar, Literal, TypeAlias

from .base import (
    NotificationBase,
    NotificationParams,
    NullPreservingModel,
    RequestBase,
    RequestParams,
)

LoggingLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
"""Severity of a log message (the syslog severities of RFC 5424)."""


class SetLevelRequestParams(RequestParams):
    """Params of logging/setLevel: the minimum level the client wants to receive."""

    level: LoggingLevel


class SetLevelRequest(RequestBase):
    """Asks the server to enable or adjust logging."""

    method: Literal["logging/setLevel"] = "logging/setLevel"
    params: SetLevelRequestParams


class LoggingMessageNotificationParams(NotificationParams, NullPreservingModel):
    """Params of notifications/message: level, optional logger name and any JSON data."""

    _wire_nullable: ClassVar[tuple[str, ...]] = ("data",)

    level: LoggingLevel
    logger: str | None = None
    data: Any


class LoggingMessageNotification(NotificationBase):
    """A log message sent from server to client."""

    method: Literal["notifications/message"] = "notifications/message"
    params: LoggingMessageNotificationParams
