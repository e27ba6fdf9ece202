"""``mcp.shared.uri_template`` on mcpkit: :class:`UriTemplate` (RFC 6570, parsed once,
expanded and matched), served by mcpkit's own :class:`~mcpkit.server.uri_template.URITemplate`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpkit.server.uri_template import URITemplate, URITemplateError

__all__ = ["DEFAULT_MAX_URI_LENGTH", "InvalidUriTemplate", "UriTemplate", "Variable"]

#: The longest URI :meth:`UriTemplate.match` looks at (a longer one matches nothing).
DEFAULT_MAX_URI_LENGTH = 64 * 1024

_EXPRESSION = re.compile(r"\{([^{}]*)\}")


class InvalidUriTemplate(ValueError):
    """The template is malformed or uses what RFC 6570 does not define."""

    def __init__(self, message: str, *, template: str, position: int | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.position = position


@dataclass(frozen=True)
class Variable:
    """One variable of an expression: its name, operator (``""``, ``+``, ``/``, ``?``, ...)
    and whether it explodes (``*``)."""

    name: str
    operator: str
    explode: bool = False


@dataclass(frozen=True)
class UriTemplate:
    """A parsed RFC 6570 template (:meth:`parse`); equal to another of the same text."""

    template: str
    _native: URITemplate = field(repr=False, compare=False)
    _variables: tuple[Variable, ...] = field(repr=False, compare=False)

    @staticmethod
    def is_template(value: str) -> bool:
        """True when ``value`` holds a ``{...}`` expression (not a validation)."""
        start = value.find("{")
        return start != -1 and value.find("}", start) != -1

    @classmethod
    def parse(cls, template: str, **_limits: Any) -> UriTemplate:
        """Parse ``template``; :class:`InvalidUriTemplate` when it is not one."""
        try:
            native = URITemplate(template)
        except URITemplateError as exc:
            raise InvalidUriTemplate(str(exc), template=template) from None
        variables: list[Variable] = []
        for body in _EXPRESSION.findall(template):
            operator = body[:1] if body[:1] in "+#./;?&" else ""
            for spec in body[len(operator) :].split(","):
                name = spec.split(":", 1)[0].rstrip("*")
                variables.append(Variable(name, operator, spec.endswith("*")))
        return cls(template, native, tuple(variables))

    @property
    def variables(self) -> list[Variable]:
        """Every variable, in order of appearance."""
        return list(self._variables)

    @property
    def variable_names(self) -> list[str]:
        """Every variable's name, in order of appearance."""
        return [v.name for v in self._variables]

    def expand(self, variables: Mapping[str, str | Sequence[str]]) -> str:
        """The URI the template gives for ``variables`` (an absent one is left out)."""
        return self._native.expand(dict(variables))

    def match(
        self, uri: str, *, max_uri_length: int = DEFAULT_MAX_URI_LENGTH
    ) -> dict[str, str | list[str]] | None:
        """The variables ``uri`` was expanded from (decoded; an exploded one as a list, an
        absent query parameter left out), or None when it does not fit."""
        if len(uri) > max_uri_length:
            return None
        found = self._native.match(uri)
        if found is None:
            return None
        for var in self._variables:
            if var.explode and var.operator not in "?&" and var.name not in found:
                found[var.name] = []  # exploded to nothing
        return found

    def __str__(self) -> str:
        return self.template
