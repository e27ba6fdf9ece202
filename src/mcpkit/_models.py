"""Pydantic-free checks for pydantic values, so that modules need not import pydantic.

A value can only be a pydantic model once pydantic has been imported, so these look the
module up in :data:`sys.modules` instead of importing it: a server whose tools, prompts and
resources have simple signatures never loads pydantic (about 7 MB and 30 ms).
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["is_model", "is_model_class", "to_camel", "to_jsonable"]


def is_model(value: Any) -> bool:
    """True when ``value`` is a pydantic model instance."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, main.BaseModel)


def is_model_class(value: Any) -> bool:
    """True when ``value`` is a pydantic model class."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, type) and issubclass(value, main.BaseModel)


_CAMEL_ALREADY = re.compile(r"^[a-z]+[A-Za-z0-9]*$")
_DIGIT_LOWER = re.compile(r"\d[a-z]")
_PASCAL = re.compile(r"([0-9A-Za-z])_(?=[0-9A-Z])")
_LEADING_UPPER = re.compile(r"(^_*[A-Z])")


def to_camel(snake: str) -> str:
    """snake_case -> camelCase, exactly as ``pydantic.alias_generators.to_camel``."""
    if _CAMEL_ALREADY.match(snake) and not _DIGIT_LOWER.search(snake):
        return snake
    camel = snake.title()
    camel = _PASCAL.sub(lambda m: m.group(1), camel)
    return _LEADING_UPPER.sub(lambda m: m.group(1).lower(), camel)


def to_jsonable(value: Any) -> Any:
    """A JSON-ready copy of ``value`` (``pydantic_core.to_jsonable_python`` for the rest)."""
    tp = type(value)
    if tp is str or tp is int or tp is float or tp is bool or value is None:
        return value
    if tp is list or tp is tuple:
        return [to_jsonable(v) for v in value]
    if tp is dict and all(type(k) is str for k in value):
        return {k: to_jsonable(v) for k, v in value.items()}
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)
