"""fastmcp's reading of docstrings: the free text before the first structured section is
the description, and the ``Args:`` (Google), ``Parameters`` (NumPy) or ``:param x:``
(Sphinx) entries become the parameters' descriptions.

The sections are recognised by ``griffe`` (the parser fastmcp uses) when it is installed,
else by a smaller reader of the Google style, the common one.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ParsedDocstring", "parse_docstring"]

_PARSERS: tuple[Literal["google", "numpy", "sphinx"], ...] = ("google", "numpy", "sphinx")
#: Google-style headings that end the description without being parameter lists.
_ADMONITION_SECTIONS = frozenset(
    {
        "attention",
        "caution",
        "danger",
        "error",
        "example",
        "hint",
        "important",
        "note",
        "notes",
        "raise",
        "references",
        "return",
        "see-also",
        "tip",
        "todo",
        "warning",
        "yield",
    }
)


@dataclass(frozen=True)
class ParsedDocstring:
    """A docstring's description and per-parameter descriptions."""

    description: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)


def parse_docstring(fn: Callable[..., Any]) -> ParsedDocstring:
    """The description and parameter descriptions of ``fn``'s docstring (the whole
    docstring as the description when it has no structured section)."""
    doc = inspect.getdoc(fn)
    if not doc:
        return ParsedDocstring()
    try:
        import griffe
    except ImportError:
        return _google(doc)
    import logging

    logging.getLogger("griffe").setLevel(logging.ERROR)
    for parser in _PARSERS:
        sections = griffe.Docstring(doc, lineno=1, parser=parser).parse()
        description: str | None = None
        parameters: dict[str, str] = {}
        structured = False
        for section in sections:
            kind = section.kind
            if kind == griffe.DocstringSectionKind.text and description is None:
                description = section.value
            elif kind == griffe.DocstringSectionKind.parameters:
                for param in section.value:
                    parameters[param.name] = param.description
                structured = True
            elif kind == griffe.DocstringSectionKind.admonition:
                structured = structured or section.value.kind in _ADMONITION_SECTIONS
            elif kind != griffe.DocstringSectionKind.text:
                structured = True
        if parameters or structured:
            return ParsedDocstring(description, parameters)
    return ParsedDocstring(description=doc)


_GOOGLE_HEADING = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns|Return|Yields|Yield|Raises|Raise|Exceptions|Warns|Examples|Example|Attributes|"
    r"Notes|Note|References|See Also|Todo|Warnings|Warning):\s*$"
)
_PARAM_HEADINGS = frozenset(
    {"Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments"}
)
_PARAM_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _google(doc: str) -> ParsedDocstring:
    """The Google style without griffe."""
    lines = doc.splitlines()
    start = next((i for i, line in enumerate(lines) if _GOOGLE_HEADING.match(line)), None)
    if start is None:
        return ParsedDocstring(description=doc)
    description = "\n".join(lines[:start]).strip() or None
    parameters: dict[str, str] = {}
    heading: str | None = None
    current: str | None = None
    indent: int | None = None
    for line in lines[start:]:
        match = _GOOGLE_HEADING.match(line)
        if match:
            heading, current, indent = match.group(1), None, None
            continue
        if heading not in _PARAM_HEADINGS or not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        entry = _PARAM_LINE.match(line.strip()) if depth == indent else None
        if entry:
            current = entry.group(1).lstrip("*")
            parameters[current] = entry.group(2).strip()
        elif current is not None:
            parameters[current] = f"{parameters[current]}\n{line.strip()}".strip()
    return ParsedDocstring(description, parameters)
