"""fastmcp's ``Choice``: a built-in app showing the user a question with one button per
option; the option picked comes back into the conversation as a user message."""

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
        Text,
    )
    from prefab_ui.components.control_flow import If
    from prefab_ui.rx import STATE
except ImportError as exc:  # pragma: no cover - prefab-ui is installed with the apps
    raise ImportError(missing_prefab("Choice")) from exc

__all__ = ["Choice"]

Variant = Literal["default", "outline", "destructive", "success", "info"]


class Choice(FastMCPApp):
    """An app with one model-facing tool, ``choose``: the user sees the prompt and a
    button per option; the one pressed sends ``"<prompt>" — I selected: <option>`` as the
    user's next message."""

    def __init__(
        self,
        name: str = "Choice",
        *,
        title: str = "Choose an Option",
        variant: Variant = "outline",
    ) -> None:
        super().__init__(name)
        self._title = title
        self._variant = variant
        self.ui()(self._choose_tool())

    def __repr__(self) -> str:
        return f"Choice({self.name!r})"

    def _choose_tool(self) -> Any:
        app = self

        def choose(prompt: str, options: list[str], title: str | None = None) -> PrefabApp:
            """Let the user pick one of several answers by clicking it.

            Prefer this over asking the user to type a choice whenever the possible
            answers are known. Each option becomes a button; the one clicked comes back
            to you as the user's message, reading '"<prompt>" — I selected: <option>'.
            Stop after calling it and wait for that message before doing anything else.

            Args:
                prompt: The question the user answers.
                options: The answers offered, one button each.
                title: The card's heading (the app's own title when omitted).
            """
            return app._card(prompt, options, title or app._title)

        return choose

    def _card(self, prompt: str, options: list[str], title: str) -> PrefabApp:
        with Card(css_class="max-w-lg mx-auto") as view:
            with CardHeader():
                H3(title)
            with CardContent(), Column(gap=3):
                Text(prompt, css_class="font-semibold")
                with If(~STATE.decided), Column(gap=2):
                    for option in options:
                        Button(
                            option,
                            variant=cast(Any, self._variant),
                            css_class="w-full justify-start",
                            on_click=[
                                SendMessage(answer_message(prompt, option)),
                                SetState("decided", True),
                            ],
                        )
            with CardFooter(), If(STATE.decided):
                Muted("Your answer was sent.")
        return PrefabApp(view=view, state={"decided": False})
