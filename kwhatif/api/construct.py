"""Fast constructors for frozen, slotted dataclasses built by the hundred thousand (a dump's pods).

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (its own
``__setattr__`` refuses): for the 48 fields of a Pod that is about 10 µs, a third of converting
a replica. The constructor made here builds the object as an instance of a plain slotted twin
class with the same slots (plain attribute stores, about 1 µs in all) and then makes it an
instance of the dataclass (``__class__`` assignment, which CPython allows between classes of the
same layout). The result is the dataclass's own object, frozen like any other: equal to the one
its ``__init__`` makes from the same arguments, with the same defaults and default factories.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking ``cls.__init__``'s arguments (keywords or positions, the same defaults)
    that returns what ``cls(...)`` returns, faster. ``cls`` must be a frozen dataclass with
    slots and neither ``__post_init__`` nor init-only variables."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__")
    slots: tuple[str, ...] = cls.__dict__["__slots__"]
    fields = [f for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    names = [f.name for f in fields]
    if any(f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__} has keyword-only fields")
    if list(inspect.signature(cls.__init__).parameters)[1:] != names:  # init-only variables, say
        raise TypeError(f"{cls.__name__}: its __init__ takes more than its fields")
    if any(name == "o" or name.startswith("_") for name in names):
        raise TypeError(f"{cls.__name__}: a field name the generated code uses (o, or one starting with _)")
    if names != list(slots):
        raise TypeError(f"{cls.__name__}: its slots are not its init fields in order")
    twin = type(f"_{cls.__name__}Twin", (), {"__slots__": slots, "__module__": cls.__module__})
    env: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls, "_FACTORY": _FACTORY}
    args, body = [], []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            env[f"_d_{f.name}"] = f.default
            args.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            args.append(f"{f.name}=_FACTORY")
            body.append(f"    if {f.name} is _FACTORY:\n        {f.name} = _f_{f.name}()\n")
        else:
            args.append(f.name)
    body.append("    o = _new(_twin)\n")
    body.extend(f"    o.{f.name} = {f.name}\n" for f in fields)
    body.append("    o.__class__ = _cls\n    return o\n")
    src = f"def new_{cls.__name__}({', '.join(args)}):\n" + "".join(body)
    exec(compile(src, f"<fast constructor of {cls.__qualname__}>", "exec"), env)
    fn: Callable[..., T] = env[f"new_{cls.__name__}"]
    fn.__doc__ = f"{cls.__name__}(...), built without the frozen __init__ (kwhatif.api.construct)."
    return fn


class _Factory:
    """The default of a field with a default factory: the factory is called when it is passed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<default factory>"


_FACTORY = _Factory()


def template_constructor(cls: type[T], own: tuple[str, ...]) -> tuple[tuple[str, ...], Callable[..., T]]:
    """For objects that share most of their fields (the replicas of one spec): the names of the
    fields but ``own``, in ``cls``'s order (a template holds their values), and
    ``build(template, *values of own)``, the object with those fields from the template and the
    ``own`` fields given in ``cls``'s order: what ``fast_constructor(cls)`` builds of the same
    values."""
    fields = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if not set(own) <= set(fields) or any(name == "o" or name.startswith("_") for name in fields):
        raise TypeError(f"{cls.__name__}: {own} are not fields the generated code can name")
    rest = tuple(n for n in fields if n not in own)
    ordered_own = [n for n in fields if n in own]
    fast_constructor(cls)  # the same checks of cls (a frozen dataclass with slots, ...)
    twin = type(f"_{cls.__name__}TemplateTwin", (), {"__slots__": cls.__dict__["__slots__"]})
    env: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    targets = "".join(f"o.{n}, " for n in rest)
    src = (
        f"def build_{cls.__name__}(_t, {', '.join(ordered_own)}):\n"
        "    o = _new(_twin)\n"
        f"    {targets}= _t\n"
        + "".join(f"    o.{n} = {n}\n" for n in ordered_own)
        + "    o.__class__ = _cls\n    return o\n"
    )
    exec(compile(src, f"<template constructor of {cls.__qualname__}>", "exec"), env)
    build: Callable[..., T] = env[f"build_{cls.__name__}"]
    build.__doc__ = f"{cls.__name__}(...) of a template and its own fields (kwhatif.api.construct)."
    return rest, build
