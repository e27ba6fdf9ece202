"""Copies of a never-started session: how :meth:`mcpkit.session.Session.cloner` makes them.

A server making one session per request (stateless HTTP) or many alike (each new session of
the handshake era) builds one *prototype* session and copies it: the prototype's instance
dict copied, a fresh container in place of each one the session mutates, the lifecycle
copied (:meth:`~mcpkit.lifecycle.Lifecycle.copy`), the handlers bound to the prototype
bound to the copy. The copy is the session the constructor would have made on the other
transport, for a fraction of the cost.

What to copy is found once per prototype and written out as one function (no loop, no
method call for the empty containers: it runs for every request). A session class says
which containers its copies share (:attr:`~mcpkit.session.Session.clone_shares`: the ones
that belong to what made it, e.g. its server's); a handler table that is a
:class:`~mcpkit.session.SharedTable` is shared too (copied by a session before it changes
it).
"""

from __future__ import annotations

import functools
import types
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from mcpkit.session import Session
    from mcpkit.transports.base import Transport

__all__ = ["HANDLER_TABLES", "bound_to", "make_cloner", "rebinder", "unbound"]

S = TypeVar("S", bound="Session")

#: The types of the containers a copy gets its own of (exact types: a SharedTable is not).
CONTAINERS: Final = (dict, set, list, deque)
#: The session's handler tables, whose handlers bound to the prototype are rebound.
HANDLER_TABLES: Final = ("_handlers", "_notification_handlers")


def rebinder(handler: Any, session: Session) -> Callable[[Any], Any] | None:
    """How to remake ``handler`` for another session when it is bound to ``session`` (a
    bound method, or a partial taking it); None when it does not refer to it."""
    if isinstance(handler, types.MethodType) and handler.__self__ is session:
        return handler.__func__.__get__
    if isinstance(handler, functools.partial) and any(a is session for a in handler.args):
        inner, args, keywords = handler.func, handler.args, handler.keywords
        if args == (session,) and not keywords:  # partial(fn, session): the usual one
            return lambda other: functools.partial(inner, other)
        return lambda other: functools.partial(
            inner, *[other if a is session else a for a in args], **keywords
        )
    return None


def bound_to(handler: Any, session: Session) -> bool:
    """Whether ``handler`` refers to ``session`` (see :func:`rebinder`)."""
    return rebinder(handler, session) is not None


def unbound(table: Mapping[str, Any], session: Session) -> Iterable[tuple[str, Any]]:
    """The entries of ``table`` whose handlers do not refer to ``session``."""
    return ((k, h) for k, h in table.items() if rebinder(h, session) is None)


def _slots(cls: type) -> list[str]:
    """The slots the classes of ``cls`` declare (its own attributes out of its dict)."""
    names: list[str] = []
    for klass in cls.__mro__:
        declared = klass.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def make_cloner(source: S) -> Callable[[Transport], S]:
    """A function ``clone(transport)`` returning a copy of ``source`` (a session never
    started) on ``transport``; see the module docstring. The copy reads ``source``'s state
    as it is at each call; what is copied is fixed by its state now (remake the cloner
    when that changes)."""
    cls = type(source)
    shared = cls.clone_shares
    # A combined dict, not the split (key-sharing) one vars() makes of the instance's inline
    # attributes: CPython specializes attribute reads on a combined dict (by position) but
    # not on a split one, and the copies below are copies of this one.
    state = source.__dict__ = dict(vars(source))
    lines = [
        "def clone(transport):",
        "    state = src_state.copy()",
        "    state['lifecycle'] = state['lifecycle'].copy()",
        "    state['transport'] = transport",
        "    dst = new(cls)",
        "    dst.__dict__ = state",
    ]
    empty: dict[type, str] = {dict: "{}", set: "set()", list: "[]"}
    for name, value in state.items():
        if type(value) in CONTAINERS and name not in shared:
            expr = empty.get(type(value)) if not value else None
            lines.append(f"    state[{name!r}] = {expr or f'state[{name!r}].copy()'}")
    for name in _slots(cls):
        if not hasattr(source, name):  # a slot never set stays unset
            continue
        value = getattr(source, name)
        fresh = type(value) in CONTAINERS and name not in shared
        lines.append(f"    dst.{name} = src.{name}{'.copy()' if fresh else ''}")
    namespace: dict[str, Any] = {"src": source, "src_state": state, "new": object.__new__}
    namespace["cls"] = cls
    i = 0
    for attr in HANDLER_TABLES:
        for key, handler in state[attr].items():
            rebuild = rebinder(handler, source)
            if rebuild is not None:
                namespace[f"rebuild{i}"] = rebuild
                lines.append(f"    state[{attr!r}][{key!r}] = rebuild{i}(dst)")
                i += 1
    lines.append("    return dst")
    # Names are the session's own attribute names and method names, repr'd.
    exec("\n".join(lines), namespace)
    clone: Callable[[Transport], S] = namespace["clone"]
    return clone
