"""fastmcp's ``FormInput``: a built-in app collecting data the shape of a pydantic model
through a form the user fills in; the submission is validated against the model and handed
to an optional callback."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, cast

import pydantic

from mcpkit.compat.fastmcp.apps._builtin import missing_prefab
from mcpkit.compat.fastmcp.apps.app import FastMCPApp

try:
    from prefab_ui.actions import SetState
    from prefab_ui.actions.mcp import CallTool, SendMessage
    from prefab_ui.app import PrefabApp
    from prefab_ui.components import H3, Card, CardContent, CardFooter, CardHeader, Column, Form
    from prefab_ui.components import Muted as Note
    from prefab_ui.components.control_flow import If
    from prefab_ui.rx import RESULT, STATE
except ImportError as exc:  # pragma: no cover - prefab-ui is installed with the apps
    raise ImportError(missing_prefab("FormInput")) from exc

__all__ = ["FormInput"]

#: Whether this prefab-ui fills a form from values (``defaults``, prefab-ui 0.19.1 on);
#: an older one shows the form empty.
_PREFILLS = "defaults" in inspect.signature(Form.from_model).parameters


def with_unchecked_booleans(
    model: type[pydantic.BaseModel], data: dict[str, Any]
) -> dict[str, Any]:
    """``data`` with the boolean fields a form left out (an unchecked checkbox sends
    nothing) set to their default, or False."""
    for field, info in model.model_fields.items():
        if field not in data and info.annotation is bool:
            data[field] = False if info.is_required() else info.default
    return data


class FormInput(FastMCPApp):
    """An app serving a form for ``model``: the model-facing tool (``collect_<model>``,
    or ``tool_name``) shows it; the form's submission goes to the backend tool
    ``submit_form``, which validates it and answers ``on_submit(instance)`` (a string for
    the model), or the instance as JSON without a callback. ``send_message=True`` also
    posts that answer into the conversation."""

    def __init__(
        self,
        model: type[pydantic.BaseModel],
        *,
        name: str | None = None,
        title: str | None = None,
        submit_text: str = "Submit",
        tool_name: str | None = None,
        on_submit: Callable[..., str] | None = None,
        send_message: bool = False,
    ) -> None:
        super().__init__(name or model.__name__)
        self._model = model
        self._title = title or model.__name__
        self._submit_text = submit_text
        self._tool_name = tool_name or f"collect_{model.__name__.lower()}"
        self._on_submit = on_submit
        self._send_message = send_message
        self.tool()(self._submit_tool())
        kind = model.__name__
        self.ui(
            name=self._tool_name,
            description=(
                f"Show the user a form for a {kind} and let them fill it in. Use it whenever "
                f"you need {kind} details from the user; the entries are checked against "
                f"the {kind} fields. Then stop and wait until the form is submitted."
            ),
        )(self._collect_tool())

    def __repr__(self) -> str:
        return f"FormInput({self._model.__name__!r})"

    def _submit_tool(self) -> Any:
        app = self

        def submit_form(data: dict[str, Any] | None = None) -> str:
            """Check a form submission against the model and hand it on."""
            values = with_unchecked_booleans(app._model, dict(data or {}))
            instance = app._model.model_validate(values)
            if app._on_submit is not None:
                return app._on_submit(instance)
            return json.dumps(instance.model_dump(mode="json"))

        return submit_form

    def _collect_tool(self) -> Any:
        app = self

        def collect_input(
            prompt: str,
            title: str | None = None,
            submit_text: str | None = None,
            default: dict[str, Any] | None = None,
        ) -> PrefabApp:
            """Show the form.

            Args:
                prompt: What you are asking for and why, shown above the form.
                title: The form's heading (the app's own title when omitted).
                submit_text: The submit button's label.
                default: Values to fill the form with (field name to value), for the
                    user to confirm or correct; fields left out start empty.
            """
            return app._card(prompt, title or app._title, submit_text or app._submit_text, default)

        return collect_input

    def _card(
        self, prompt: str, title: str, submit: str, default: dict[str, Any] | None
    ) -> PrefabApp:
        then: list[Any] = [SetState("submitted", True)]
        if self._send_message:
            then = [SendMessage(cast(str, RESULT)), *then]
        options: dict[str, Any] = {
            "submit_label": submit,
            "on_submit": [CallTool("submit_form", on_success=then)],
        }
        if default and _PREFILLS:
            options["defaults"] = default
        with Card(css_class="max-w-lg mx-auto") as view:
            with CardHeader(), Column(gap=1):
                H3(title)
                Note(prompt)
            with CardContent(), If(~STATE.submitted):
                Form.from_model(self._model, **options)
            with CardFooter(), If(STATE.submitted):
                Note("Thank you, the form was sent.")
        return PrefabApp(view=view, state={"submitted": False})
