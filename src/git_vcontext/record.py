"""Frozen record classes without the import cost of dataclasses (the merge driver runs per file).

``@record`` turns a class with annotated fields into an immutable value type
with ``__init__``, ``__repr__``, ``__eq__`` and ``__hash__``. Type checkers see
it as a frozen dataclass (PEP 681); at run time neither ``dataclasses`` nor
``typing`` (together ~20 ms of imports) is loaded.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_kwargs):
        return lambda f: f


_NO_DEFAULT = object()


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` an immutable record of its annotated fields (in declaration order)."""
    names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063  (no inspect)
    defaults = tuple(cls.__dict__.get(n, _NO_DEFAULT) for n in names)
    for n, d in zip(names, defaults, strict=True):
        if d is not _NO_DEFAULT:
            delattr(cls, n)
    setattr(cls, "_fields", names)  # noqa: B010
    setattr(cls, "__init__", _make_init(names, defaults))  # noqa: B010
    for name, method in _METHODS.items():
        if name not in cls.__dict__:
            setattr(cls, name, method)
    return cls


def replace(value: T, /, **changes: Any) -> T:
    """A copy of the record ``value`` with some fields changed (like ``dataclasses.replace``)."""
    fields = {name: getattr(value, name) for name in value._fields}  # type: ignore[attr-defined]
    return type(value)(**{**fields, **changes})


def _make_init(names: tuple[str, ...], defaults: tuple[Any, ...]) -> Callable[..., None]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} fields")
        for i, name in enumerate(names):
            if i < len(args):
                value = args[i]
                if name in kwargs:
                    raise TypeError(f"{type(self).__name__} got two values for {name!r}")
            elif name in kwargs:
                value = kwargs.pop(name)
            elif defaults[i] is not _NO_DEFAULT:
                value = defaults[i]
            else:
                raise TypeError(f"{type(self).__name__} is missing {name!r}")
            object.__setattr__(self, name, value)
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")

    return __init__


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, n) for n in self._fields)


def _repr(self: Any) -> str:
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
    return f"{type(self).__name__}({inner})"


def _eq(self: Any, other: object) -> bool:
    if type(other) is not type(self):
        return NotImplemented  # type: ignore[no-any-return]
    return bool(_values(self) == _values(other))


def _hash(self: Any) -> int:
    return hash(_values(self))


def _setattr(self: Any, name: str, value: Any) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable")


_METHODS = {
    "__repr__": _repr,
    "__eq__": _eq,
    "__hash__": _hash,
    "__setattr__": _setattr,
    "__delattr__": _setattr,
}


class Sentinel:
    """A "no value" marker distinct from JSON ``null``: one instance per subclass (a copy is
    that instance too), false, shown by the subclass's ``NAME``."""

    NAME = "Sentinel"

    def __new__(cls) -> Any:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            cls._instance = instance
        return instance

    def __repr__(self) -> str:
        return self.NAME

    def __bool__(self) -> bool:
        return False
