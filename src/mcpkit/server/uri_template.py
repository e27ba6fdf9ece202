"""RFC 6570 URI templates, levels 1-4: expansion and matching.

``URITemplate("weather://{city}/current").match("weather://oslo/current") == {"city": "oslo"}``
and ``.expand(city="oslo")`` goes the other way. Every operator (``+ # . / ; ? &``) and both
modifiers (prefix ``:n`` and explode ``*``) are supported in both directions. Matching is
necessarily a best effort where the RFC is ambiguous (two adjacent variables, a ``.`` inside
a label value); values come back percent-decoded, as strings, lists (explode) or dicts
(exploded named pairs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from mcpkit.errors import McpkitError
from mcpkit.server import _uri_match

__all__ = ["URITemplate", "URITemplateError"]


class URITemplateError(McpkitError, ValueError):
    """The template is not a valid RFC 6570 template."""


@dataclass(frozen=True, slots=True)
class _Op:
    first: str
    sep: str
    named: bool
    ifemp: str
    reserved: bool


_OPS: dict[str, _Op] = {
    "": _Op("", ",", False, "", False),
    "+": _Op("", ",", False, "", True),
    "#": _Op("#", ",", False, "", True),
    ".": _Op(".", ".", False, "", False),
    "/": _Op("/", "/", False, "", False),
    ";": _Op(";", ";", True, "", False),
    "?": _Op("?", "&", True, "=", False),
    "&": _Op("&", "&", True, "=", False),
}
_RESERVED_OPS = "=,!@|"  # reserved for future extensions by the RFC
_VARNAME = re.compile(r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$")
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="


@dataclass(frozen=True, slots=True)
class _Var:
    name: str
    explode: bool
    prefix: int | None


@dataclass(frozen=True, slots=True)
class _Expr:
    op: _Op
    vars: tuple[_Var, ...]


def _parse(template: str) -> list[str | _Expr]:
    parts: list[str | _Expr] = []
    pos = 0
    while pos < len(template):
        start = template.find("{", pos)
        close = template.find("}", pos)
        if close != -1 and (start == -1 or close < start):
            raise URITemplateError(f"Unmatched '}}' at {close} in {template!r}")
        if start == -1:
            parts.append(template[pos:])
            break
        if start > pos:
            parts.append(template[pos:start])
        end = template.find("}", start)
        if end == -1:
            raise URITemplateError(f"Unclosed expression at {start} in {template!r}")
        body = template[start + 1 : end]
        if "{" in body:
            raise URITemplateError(f"Nested '{{' at {start} in {template!r}")
        op_char = body[:1] if body[:1] in _OPS and body[:1] != "" else ""
        if body[:1] in _RESERVED_OPS:
            raise URITemplateError(f"Operator {body[:1]!r} is reserved (in {template!r})")
        spec = body[len(op_char) :]
        if not spec:
            raise URITemplateError(f"Empty expression at {start} in {template!r}")
        variables: list[_Var] = []
        for item in spec.split(","):
            explode = item.endswith("*")
            name = item[:-1] if explode else item
            prefix: int | None = None
            if ":" in name:
                name, _, digits = name.partition(":")
                if not digits.isdigit() or not 0 < int(digits) < 10000 or explode:
                    raise URITemplateError(f"Bad prefix modifier {item!r} in {template!r}")
                prefix = int(digits)
            if not _VARNAME.match(name):
                raise URITemplateError(f"Bad variable name {name!r} in {template!r}")
            variables.append(_Var(name, explode, prefix))
        parts.append(_Expr(_OPS[op_char], tuple(variables)))
        pos = end + 1
    return parts


def _enc(value: str, reserved: bool) -> str:
    if reserved:
        # keep reserved characters and existing pct-triplets
        return re.sub(
            r"%(?![0-9A-Fa-f]{2})|[^%" + re.escape(_RESERVED + _UNRESERVED) + r"A-Za-z0-9]",
            lambda m: quote(m.group(0), safe=""),
            value,
        )
    return quote(value, safe=_UNRESERVED)


def _str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class URITemplate:
    """A parsed RFC 6570 template (levels 1-4)."""

    __slots__ = ("_deterministic", "_parts", "_steps", "template", "variables")

    def __init__(self, template: str) -> None:
        self.template = template
        self._parts = _parse(template)
        names: list[str] = []
        for p in self._parts:
            if isinstance(p, _Expr):
                names.extend(v.name for v in p.vars if v.name not in names)
        #: Variable names in order of first appearance.
        self.variables: tuple[str, ...] = tuple(names)
        self._steps = self._steps_of()
        self._deterministic = _uri_match.deterministic(self._steps)

    def __repr__(self) -> str:
        return f"URITemplate({self.template!r})"

    @staticmethod
    def is_template(text: str) -> bool:
        """True when ``text`` contains at least one ``{expression}``."""
        return "{" in text

    # -- expansion ----------------------------------------------------------------------------

    def expand(self, values: Mapping[str, Any] | None = None, /, **kwargs: Any) -> str:
        """Expand with ``values`` (str, numbers, lists, dicts; None or missing = undefined)."""
        env = {**(values or {}), **kwargs}
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(self._expand_expr(part, env))
        return "".join(out)

    def _expand_expr(self, expr: _Expr, env: Mapping[str, Any]) -> str:
        op = expr.op
        pieces: list[str] = []
        for var in expr.vars:
            value = env.get(var.name)
            if value is None:
                continue
            if isinstance(value, Mapping):
                items = [(_str(k), _str(v)) for k, v in value.items() if v is not None]
                if not items:
                    continue
                if var.explode:
                    pieces.append(
                        op.sep.join(
                            f"{_enc(k, op.reserved)}={_enc(v, op.reserved)}" for k, v in items
                        )
                    )
                else:
                    joined = ",".join(
                        f"{_enc(k, op.reserved)},{_enc(v, op.reserved)}" for k, v in items
                    )
                    pieces.append(f"{var.name}={joined}" if op.named else joined)
            elif isinstance(value, (list, tuple)):
                elems = [_str(v) for v in value if v is not None]
                if not elems:
                    continue
                if var.explode:
                    if op.named:
                        pieces.append(
                            op.sep.join(
                                f"{var.name}={_enc(e, op.reserved)}" if e or op.ifemp else var.name
                                for e in elems
                            )
                        )
                    else:
                        pieces.append(op.sep.join(_enc(e, op.reserved) for e in elems))
                else:
                    joined = ",".join(_enc(e, op.reserved) for e in elems)
                    pieces.append(f"{var.name}={joined}" if op.named else joined)
            else:
                text = _str(value)
                if var.prefix is not None:
                    text = text[: var.prefix]
                enc = _enc(text, op.reserved)
                if op.named:
                    pieces.append(f"{var.name}={enc}" if enc else f"{var.name}{op.ifemp}")
                else:
                    pieces.append(enc)
        if not pieces:
            return ""
        return op.first + op.sep.join(pieces)

    # -- matching -----------------------------------------------------------------------------

    def _steps_of(self) -> tuple[_uri_match.Step, ...]:
        steps: list[_uri_match.Step] = []
        for index, part in enumerate(self._parts):
            if isinstance(part, str):
                steps.append(_uri_match.Step(part, None, False, -1))
                continue
            op = part.op
            single = len(part.vars) == 1 and not part.vars[0].explode
            if op.first == "" and op.reserved:  # {+var}
                excluded = "?#"
            elif op.first == "#":
                excluded = ""
            elif op.first == "":
                excluded = "/?#&"
            elif op.first in "?&":
                excluded = "#"
            elif op.first == "/":
                # one segment, or (list / several variables) segments joined by "/"
                excluded = "/?#" if single else "?#"
            else:  # "." and ";"
                excluded = "/?#"
            steps.append(_uri_match.Step(op.first, excluded, op.first != "", index))
        return tuple(steps)

    def match(self, uri: str) -> dict[str, Any] | None:
        """The variables ``uri`` was expanded from, or None when it does not fit the template.

        Where the template is ambiguous (``{a}.{b}``, ``{+path}{.ext}``) the earlier
        expression takes as much as still lets the rest match (``a.b.c`` -> ``a.b`` and
        ``c``). Time is linear in ``len(uri)`` whatever the template."""
        if self._deterministic:
            spans = _uri_match.scan(self._steps, uri)
        else:
            spans = _uri_match.solve(self._steps, uri)
        if spans is None:
            return None
        result: dict[str, Any] = {}
        for index, text in spans:
            if text is None:  # an operator expression that expanded to nothing
                continue
            part = self._parts[index]
            assert isinstance(part, _Expr)
            if not self._assign(part, text, result):
                return None
        return result

    @staticmethod
    def _assign(expr: _Expr, text: str, out: dict[str, Any]) -> bool:
        op = expr.op
        variables = expr.vars
        if op.named:
            pairs = text.split(op.sep) if text else []
            by_name = {v.name: v for v in variables}
            exploded = next((v for v in variables if v.explode), None)
            for pair in pairs:
                name, _eq, raw = pair.partition("=")
                name = unquote(name)
                value = unquote(raw)
                var = by_name.get(name)
                if var is not None and not var.explode:
                    out[name] = value
                elif exploded is not None:
                    if name == exploded.name:
                        prev = out.get(name)
                        out[name] = [*prev, value] if isinstance(prev, list) else [value]
                    else:
                        bucket = out.setdefault(exploded.name, {})
                        if isinstance(bucket, dict):
                            bucket[name] = value
                # unknown names (extra query parameters) are ignored
            return True
        if len(variables) == 1:
            var = variables[0]
            if var.explode:
                items = text.split(op.sep)
                if all("=" in i for i in items) and items:
                    out[var.name] = {
                        unquote(k): unquote(v) for k, _, v in (i.partition("=") for i in items)
                    }
                else:
                    out[var.name] = [unquote(i) for i in items]
            else:
                out[var.name] = unquote(text)
            return True
        items = text.split(op.sep)
        for i, var in enumerate(variables):
            if var.explode:
                out[var.name] = [unquote(x) for x in items[i:]]
                return True
            if i < len(items):
                out[var.name] = unquote(items[i])
        return len(items) <= len(variables)
