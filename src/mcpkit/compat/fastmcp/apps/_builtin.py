"""What fastmcp's built-in apps (``Approval``, ``Choice``, ``FormInput``, ``FileUpload``,
``GenerativeUI``) share: the error when prefab-ui is missing and the message a button sends
back into the conversation."""

from __future__ import annotations

__all__ = ["answer_message", "missing_prefab"]


def missing_prefab(what: str) -> str:
    """The ImportError text of a built-in app imported without prefab-ui."""
    return f"{what} renders a Prefab UI and needs prefab-ui: pip install prefab-ui"


def answer_message(question: str, label: str) -> str:
    """The user message a pressed button sends: the question quoted, then the label (the
    form fastmcp's tool descriptions tell the model to wait for)."""
    return f'"{question}" — I selected: {label}'
