"""Component control: tags on tools, resources, templates and prompts, a server-wide tag
filter, and enabling or disabling components while the server runs.

```python
app = Server("ops", exclude_tags={"admin"})

@app.tool(tags={"admin"})            # registered, not served (the filter excludes it)
def drop_table(name: str) -> str: ...

app.disable_tool("deploy")           # hidden now: clients get tools/list_changed
app.enable_tool("deploy")
app.enable(tags={"admin"})           # the filter changes: admin tools are served
```

A component is served when it is not disabled by name and its tags pass the filter: with
``include_tags`` it needs one of them, with ``exclude_tags`` none of those. A hidden
component is held here, out of its registry, so serving costs nothing more: a list has
only what is served, a call of a hidden tool is an unknown tool (-32602), a read of a hidden
resource is not found. Every change reaches connected clients as a list-changed
notification (2025 sessions and 2026-07-28 ``subscriptions/listen`` streams alike), and the
feature stays declared while any of its components is hidden.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from mcpkit.server.registration import Kind, normalize_tags
from mcpkit.server.registries import Registries

__all__ = ["ComponentControl", "ComponentServer", "Kind", "normalize_tags"]

_FEATURE = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "templates": "resources",
}


class ComponentServer(Registries, Protocol):
    """What component control reads and refreshes of a server (a
    :class:`~mcpkit.server.app.Server` is one): its three registries and the features it
    declares."""

    @property
    def declared(self) -> frozenset[str]: ...

    @declared.setter
    def declared(self, features: frozenset[str]) -> None: ...


class ComponentControl:
    """Which of a server's components are served (see the module)."""

    def __init__(
        self,
        server: ComponentServer,
        include: Iterable[str] | str | None = None,
        exclude: Iterable[str] | str | None = None,
    ) -> None:
        self.server = server
        #: Only components with one of these tags are served (None: no such rule).
        self.include: frozenset[str] | None = None if include is None else normalize_tags(include)
        #: Components with one of these tags are not served.
        self.exclude = normalize_tags(exclude)
        self.tags: dict[tuple[Kind, str], frozenset[str]] = {}
        self.disabled: set[tuple[Kind, str]] = set()
        self.hidden: dict[tuple[Kind, str], Any] = {}
        #: Registration order of every component (what is registered before control
        #: exists is in its registry's order then, as nothing is hidden yet).
        self.order: dict[tuple[Kind, str], int] = {}
        for kind in ("tools", "prompts", "resources", "templates"):
            for name in self._table(kind):
                self.order[(kind, name)] = len(self.order)

    def _table(self, kind: Kind) -> dict[str, Any]:
        server = self.server
        if kind == "tools":
            return server.tools.tools
        if kind == "prompts":
            return server.prompts.prompts
        if kind == "resources":
            return server.resources.resources
        return server.resources.templates

    def _refresh(self, kind: Kind) -> None:
        server = self.server
        feature = _FEATURE[kind]
        if feature not in server.declared:  # keep declaring what is only hidden
            server.declared = server.declared | {feature}
        if kind == "tools":
            server.tools._changed()
        elif kind == "prompts":
            server.prompts.paginator.invalidate()
            server.prompts._on_change()
        else:
            server.resources._changed()

    def served(self, key: tuple[Kind, str]) -> bool:
        """Whether the component ``key`` should be served now."""
        if key in self.disabled:
            return False
        tags = self.tags.get(key, frozenset())
        if self.include is not None and not tags & self.include:
            return False
        return not tags & self.exclude

    def registered(self, kind: Kind, name: str, tags: frozenset[str]) -> None:
        """A component was just registered (it is in its registry): hide it if it must be."""
        key = (kind, name)
        self.order.setdefault(key, len(self.order))
        if tags:
            self.tags[key] = tags
        if not self.served(key):
            self._apply(key)

    def forget(self, kind: Kind, name: str) -> bool:
        """A component is unregistered: True when it was hidden (then it is gone)."""
        key = (kind, name)
        self.tags.pop(key, None)
        self.order.pop(key, None)
        self.disabled.discard(key)
        return self.hidden.pop(key, None) is not None

    def set_enabled(self, kind: Kind, name: str, enabled: bool) -> None:
        """Enable or disable one component by name (KeyError when none is registered)."""
        key = (kind, name)
        if key not in self.hidden and name not in self._table(kind):
            raise KeyError(f"no {kind[:-1]} {name!r} is registered")
        if enabled:
            self.disabled.discard(key)
        else:
            self.disabled.add(key)
        self._apply(key)

    def set_filter(self, *, enable: frozenset[str], disable: frozenset[str]) -> None:
        """Change the tag filter: ``disable`` tags join ``exclude``; ``enable`` tags leave it
        (and join ``include`` when there is one). Every component is looked at again."""
        self.exclude = (self.exclude - enable) | disable
        if self.include is not None:
            self.include = (self.include | enable) - disable
        for key in [*self.tags, *self.hidden]:
            self._apply(key)

    def _apply(self, key: tuple[Kind, str]) -> None:
        kind, name = key
        table = self._table(kind)
        if self.served(key):
            entry = self.hidden.pop(key, None)
            if entry is not None and name not in table:
                table[name] = entry
                self._reorder(kind, table)
                self._refresh(kind)
        elif name in table:
            self.hidden[key] = table.pop(name)
            self._refresh(kind)

    def _reorder(self, kind: Kind, table: dict[str, Any]) -> None:
        """Put ``table`` (in place) back in registration order after a component returned
        to its end; names of unknown order keep their place after the known ones."""
        order = self.order
        end = len(order)
        names = list(table)
        ranks = [order.get((kind, n), end) for n in names]
        if ranks == sorted(ranks):
            return
        items = sorted(table.items(), key=lambda item: order.get((kind, item[0]), end))
        table.clear()
        table.update(items)

    def in_order(self, kind: Kind, items: list[Any], key: str, extra: list[Any]) -> list[Any]:
        """``items`` (definitions in registration order, ``key`` naming them) with ``extra``
        merged in at their registration places; items of unknown order (a mounted
        server's) stay where they are."""
        order = self.order
        end = len(order)
        rest = sorted(extra, key=lambda d: order.get((kind, str(d.get(key, ""))), end))
        out: list[Any] = []
        i = 0
        for item in items:
            rank = order.get((kind, str(item.get(key, "")))) if type(item) is dict else None
            if rank is not None:
                while i < len(rest) and order.get((kind, str(rest[i].get(key, ""))), end) < rank:
                    out.append(rest[i])
                    i += 1
            out.append(item)
        out.extend(rest[i:])
        return out

    def is_enabled(self, kind: Kind, name: str) -> bool:
        """True when the component is served now."""
        return (kind, name) not in self.hidden and name in self._table(kind)
