"""Utilities usable by either side: ping, progress and cancellation."""

from typing import Literal

from .base import (
    NotificationBase,
    NotificationParams,
    ProgressToken,
    RequestBase,
    RequestId,
    RequestParams,
)


class PingRequest(RequestBase):
    """Liveness check sent by either side; the receiver must answer promptly."""

    method: Literal["ping"] = "ping"
    params: RequestParams | None = None


class ProgressNotificationParams(NotificationParams):
    """Params of notifications/progress: token, progress so far, optional total and text."""

    progress_token: ProgressToken
    progress: float
    total: float | None = None
    message: str | None = None


class ProgressNotification(NotificationBase):
    """Out-of-band progress update for a long-running request."""

    method: Literal["notifications/progress"] = "notifications/progress"
    params: ProgressNotificationParams


class CancelledNotificationParams(NotificationParams):
    """Params of notifications/cancelled: which request (if any) and an optional reason."""

    request_id: RequestId | None = None
    reason: str | None = None


class CancelledNotification(NotificationBase):
    """Sent by either side to cancel a request it issued earlier."""

    method: Literal["notifications/cancelled"] = "notifications/cancelled"
    params: CancelledNotificationParams
