"""fastmcp's ``Approval``: a built-in app asking the user to approve or reject what the
model is about to do; the answer comes back into the conversation as a user message."""

from __future__ import annotations

from typing import Any, Literal, cast

from mcpkit.compat.fastmcp.apps._builtin import answer_message, missing_prefab
from mcpkit.compat.fastmcp.apps.app import FastMCPApp

try:
    from prefab_ui.actions import SetState
    from prefab_ui.actions.mcp import SendMessage
    from prefab_ui.app import PrefabApp
    from prefab_ui.components import (
        H3,
        Button,
        Card,
        CardContent,
        CardFooter,
        CardHeader,
        Column,
        Muted,
        Row,
        Text,
    )
    from prefab_ui.components.control_flow import If
    from prefab_ui.rx import STATE
except ImportError as exc:  # pragma: no cover - prefab-ui is the apps extra
    raise ImportError(missing_prefab("Approval")) from exc

__all__ = ["Approval"]

ApproveVariant = Literal["default", "destructive", "success", "info"]
RejectVariant = Literal["default", "outline", "destructive", "success", "info"]


class Approval(FastMCPApp):
    """An app with one model-facing tool, ``request_approval``: the user sees the summary
    (and details) with an approve and a reject button; the button pressed sends
    ``"<summary>" — I selected: <label>`` as the user's next message."""

    def __init__(
        self,
        name: str = "Approval",
        *,
        title: str = "Approval Required",
        approve_text: str = "Approve",
        reject_text: str = "Reject",
        approve_variant: ApproveVariant = "default",
        reject_variant: RejectVariant = "outline",
    ) -> None:
        super().__init__(name)
        self._title = title
        self._approve_text = approve_text
        self._reject_text = reject_text
        self._approve_variant = approve_variant
        self._reject_variant = reject_variant
        self.ui()(self._request_approval_tool())

    def __repr__(self) -> str:
        return f"Approval({self.name!r})"

    def _request_approval_tool(self) -> Any:
        app = self

        def request_approval(
            summary: str,
            details: str | None = None,
            title: str | None = None,
            approve_text: str | None = None,
            reject_text: str | None = None,
            approve_variant: str | None = None,
            reject_variant: str | None = None,
        ) -> PrefabApp:
            """Ask the user to confirm an action before you carry it out.

            Use it on your own initiative before anything consequential or hard to undo.
            The user gets a card showing the summary (and details) with two buttons; the
            one pressed comes back to you as the user's message, reading
            '"<summary>" — I selected: <button label>'. Stop after calling it and wait for
            that message: go ahead when approved, otherwise ask the user what to do.

            Args:
                summary: One line naming the action, shown in bold.
                details: More context on the action and its effects, if useful.
                title: The card's heading (the app's own title when omitted).
                approve_text: The approve button's label.
                reject_text: The reject button's label.
                approve_variant: The approve button's style: default, destructive,
                    success or info.
                reject_variant: The reject button's style: the same, or outline.
            """
            return app._card(
                summary,
                details,
                title or app._title,
                (approve_text or app._approve_text, approve_variant or app._approve_variant),
                (reject_text or app._reject_text, reject_variant or app._reject_variant),
            )

        return request_approval

    def _card(
        self,
        summary: str,
        details: str | None,
        title: str,
        approve: tuple[str, str],
        reject: tuple[str, str],
    ) -> PrefabApp:
        with Card(css_class="max-w-lg mx-auto") as view:
            with CardHeader():
                H3(title)
            with CardContent(), Column(gap=2):
                Text(summary, css_class="font-semibold")
                if details:
                    Muted(details)
            with CardFooter(), Column(gap=2, css_class="w-full"):
                with If(~STATE.decided), Row(gap=2, css_class="justify-end"):
                    for label, variant in (approve, reject):
                        Button(
                            label,
                            variant=cast(Any, variant),
                            on_click=[
                                SendMessage(answer_message(summary, label)),
                                SetState("decided", True),
                            ],
                        )
                with If(STATE.decided):
                    Muted("Your answer was sent.")
        return PrefabApp(view=view, state={"decided": False})
