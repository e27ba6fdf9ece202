"""Dependencies: parameters a handler receives from functions the server calls for it.

```python
from mcpkit import Context, Depends, Server

async def database(ctx: Context) -> AsyncIterator[Connection]:
    conn = await ctx.lifespan.pool.acquire()     # lifespan state through the Context
    try:
        yield conn                               # the handler runs here
    finally:
        await ctx.lifespan.pool.release(conn)    # clean-up after the call

def settings() -> Settings:
    return Settings()

@app.tool()
async def lookup(sku: str, db: Connection = Depends(database),
                 cfg: Annotated[Settings, Depends(settings)] = None) -> Item: ...
```

- A parameter whose default is ``Depends(fn)`` (or annotated ``Annotated[T, Depends(fn)]``)
  is resolved for each call and left out of the input schema (and of prompt arguments).
- ``fn`` may be async or sync (a sync one runs in the server's worker pool), a generator
  or async generator (its code after ``yield`` runs when the call is over, with the call's
  exception thrown in when it failed), and may itself take a ``Context`` and further
  ``Depends`` parameters (its other parameters need defaults).
- Within one call each dependency runs once, however many parameters ask for it
  (``Depends(fn, use_cache=False)`` runs it for each).
- ``app.dependency_overrides[fn] = fake`` replaces ``fn`` for every later call (tests).

A function with no ``Depends`` parameter is registered as it is: dependencies cost nothing
to handlers that do not use them.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable
from typing import Any

from mcpkit.server.invoke import UserFunction
from mcpkit.server.schema import _is_context, type_hints

__all__ = ["Depends", "with_dependencies"]

_CTX = "_mcpkit_dependency_context"


class Depends:
    """Mark a parameter as resolved by calling ``dependency`` (see the module)."""

    __slots__ = ("dependency", "use_cache")

    def __init__(self, dependency: Callable[..., Any], *, use_cache: bool = True) -> None:
        if not callable(dependency):
            raise TypeError(f"Depends needs a callable, not {dependency!r}")
        self.dependency = dependency
        self.use_cache = use_cache

    def __repr__(self) -> str:
        return f"Depends({getattr(self.dependency, '__name__', self.dependency)!r})"


def _marker(param: inspect.Parameter, hint: Any) -> Depends | None:
    if isinstance(param.default, Depends):
        return param.default
    if typing.get_origin(hint) is typing.Annotated:
        for extra in typing.get_args(hint)[1:]:
            if isinstance(extra, Depends):
                return extra
    return None


class _Plan:
    """How to call one function: its Depends parameters and where its Context goes."""

    __slots__ = ("context_param", "depends", "function", "kind", "simple")

    def __init__(self, fn: Callable[..., Any], context_type: type, handler: bool = False) -> None:
        hints = type_hints(fn, {context_type.__name__: context_type})
        self.depends: list[tuple[str, Depends]] = []
        self.context_param: str | None = None
        for name, param in inspect.signature(fn).parameters.items():
            hint = hints.get(name, Any)
            marker = _marker(param, hint)
            if marker is not None:
                self.depends.append((name, marker))
            elif param.annotation is not inspect.Parameter.empty and _is_context(
                hint, context_type
            ):
                self.context_param = name
            elif (
                not handler
                and param.default is inspect.Parameter.empty
                and param.kind
                not in (
                    inspect.Parameter.VAR_POSITIONAL,
                    inspect.Parameter.VAR_KEYWORD,
                )
            ):
                raise TypeError(
                    f"dependency {getattr(fn, '__name__', fn)!r}: parameter {name!r} must be "
                    "a Depends(...), a Context or have a default"
                )
        if inspect.isasyncgenfunction(fn):
            self.kind = "asyncgen"
        elif inspect.isgeneratorfunction(fn):
            self.kind = "gen"
        else:
            self.kind = "call"
        self.function = UserFunction(fn)
        #: An async function called with nothing: awaited at once.
        self.simple = (
            self.kind == "call"
            and self.function.is_async
            and not self.depends
            and self.context_param is None
        )


class _Resolver:
    """Resolves the dependencies of one call: its cache, and its clean-up stack (made when
    a generator dependency is entered)."""

    __slots__ = ("cache", "context_type", "ctx", "overrides", "plans", "stack", "workers")

    def __init__(
        self,
        ctx: Any,
        owner: Any,
        plans: dict[Callable[..., Any], _Plan],
        context_type: type,
    ) -> None:
        self.ctx = ctx
        self.stack: contextlib.AsyncExitStack | None = None
        self.cache: dict[Callable[..., Any], Any] = {}
        self.overrides: dict[Callable[..., Any], Callable[..., Any]] = owner.dependency_overrides
        self.workers = owner.workers
        self.plans = plans
        self.context_type = context_type

    def plan(self, fn: Callable[..., Any]) -> _Plan:
        plan = self.plans.get(fn)
        if plan is None:
            plan = self.plans[fn] = _Plan(fn, self.context_type)
        return plan

    async def resolve(self, marker: Depends) -> Any:
        original = marker.dependency
        cache = self.cache
        if marker.use_cache and original in cache:
            return cache[original]
        overrides = self.overrides
        fn = overrides.get(original, original) if overrides else original
        plan = self.plans.get(fn) or self.plan(fn)
        if plan.simple:
            value = await fn()
            if marker.use_cache:
                cache[original] = value
            return value
        kwargs = await self.arguments(plan, fn)
        if plan.kind == "call":
            value = await plan.function.call(self.workers, **kwargs)
        else:
            stack = self.stack
            if stack is None:
                stack = self.stack = contextlib.AsyncExitStack()
            if plan.kind == "asyncgen":
                value = await stack.enter_async_context(
                    contextlib.asynccontextmanager(fn)(**kwargs)
                )
            else:
                value = stack.enter_context(contextlib.contextmanager(fn)(**kwargs))
        if marker.use_cache:
            self.cache[original] = value
        return value

    async def arguments(self, plan: _Plan, fn: Callable[..., Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for name, marker in plan.depends:
            kwargs[name] = await self.resolve(marker)
        if plan.context_param is not None:
            if self.ctx is None:
                raise TypeError(
                    f"dependency {getattr(fn, '__name__', fn)!r} takes a Context, which this "
                    "handler's dependencies were registered without (an override added one?): "
                    "give the handler a Context parameter"
                )
            kwargs[plan.context_param] = self.ctx
        return kwargs


def with_dependencies(
    fn: Callable[..., Any], context_type: type, owner: Callable[[], Any] | None = None
) -> Callable[..., Any]:
    """``fn`` itself when it has no ``Depends`` parameter; else an async function with the
    same name, docstring and remaining parameters that resolves them for each call and
    calls ``fn``. ``owner()`` gives the server (its ``workers`` and
    ``dependency_overrides``); without it, or when a dependency takes a ``Context``, the
    function takes a Context (added, hidden, when ``fn`` has none) and the server is its."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if not parameters:
        return fn
    quick = any(isinstance(p.default, Depends) for p in parameters.values())
    hints = type_hints(fn, {context_type.__name__: context_type})
    if not quick and not any(
        typing.get_origin(h) is typing.Annotated
        and any(isinstance(x, Depends) for x in typing.get_args(h)[1:])
        for h in hints.values()
    ):
        return fn
    plans: dict[Callable[..., Any], _Plan] = {}
    plan = _Plan(fn, context_type, handler=True)
    for _, marker in plan.depends:  # the tree is checked now, not at the first call
        _check_tree(marker.dependency, context_type, plans, ())
    hidden = {name for name, _ in plan.depends}
    kept = [p for name, p in parameters.items() if name not in hidden]
    annotations = {name: hint for name, hint in hints.items() if name not in hidden}
    needs_context = owner is None or any(p.context_param is not None for p in plans.values())
    ctx_name = plan.context_param
    hidden_context = ctx_name is None and needs_context
    if hidden_context:
        ctx_name = _CTX
        kept.append(
            inspect.Parameter(_CTX, inspect.Parameter.KEYWORD_ONLY, annotation=context_type)
        )
        annotations[_CTX] = context_type
    # Keyword-only parameters after VAR_KEYWORD are not allowed: keep the order valid.
    kept.sort(key=lambda p: p.kind == inspect.Parameter.VAR_KEYWORD)
    target = UserFunction(fn)

    async def call_with_dependencies(**kwargs: Any) -> Any:
        ctx = None
        if ctx_name is not None:
            ctx = kwargs.pop(ctx_name) if hidden_context else kwargs[ctx_name]
        server = ctx.server if ctx is not None else owner()  # type: ignore[misc]
        resolver = _Resolver(ctx, server, plans, context_type)
        try:
            for name, marker in plan.depends:
                kwargs[name] = await resolver.resolve(marker)
            result = await target.call(resolver.workers, **kwargs)
        except BaseException as exc:
            stack = resolver.stack
            if stack is not None and await stack.__aexit__(type(exc), exc, exc.__traceback__):
                return None  # a generator dependency swallowed the failure
            raise
        if resolver.stack is not None:
            await resolver.stack.aclose()
        return result

    wrapper = call_with_dependencies
    wrapper.__name__ = getattr(fn, "__name__", wrapper.__name__)
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__qualname__)
    wrapper.__doc__ = inspect.getdoc(fn)
    wrapper.__module__ = getattr(fn, "__module__", wrapper.__module__)
    wrapper.__annotations__ = annotations
    wrapper.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        kept, return_annotation=hints.get("return", inspect.Signature.empty)
    )
    # Nothing in it waits when the handler and every dependency are async functions that
    # cannot suspend: the engine may then serve it inline (it goes on in a task should an
    # override wait after all).
    wrapper._mcpkit_never_suspends = target.never_suspends and all(  # type: ignore[attr-defined]
        p.kind == "call" and p.function.never_suspends for p in plans.values()
    )
    return wrapper


def _check_tree(
    fn: Callable[..., Any],
    context_type: type,
    plans: dict[Callable[..., Any], _Plan],
    seen: tuple[Callable[..., Any], ...],
) -> None:
    if fn in seen:
        raise TypeError(f"dependency {getattr(fn, '__name__', fn)!r} depends on itself")
    plan = plans.get(fn)
    if plan is None:
        plan = plans[fn] = _Plan(fn, context_type)
    for _, marker in plan.depends:
        _check_tree(marker.dependency, context_type, plans, (*seen, fn))
