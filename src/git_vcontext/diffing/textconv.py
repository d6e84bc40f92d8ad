"""Canonical line-per-fact text of a document, for ``diff.vcontext.textconv``.

Every line names its place by identity, so ``git diff`` and ``git log -p`` hunks
read on their own::

    todoList.items[t2].status = "completed"
    todoList.items[t2].tags[] = "docs"
    todoList.items[t2].narrative.Result | first line of a multi-line text

Keys come in a fixed order (identities, title, status, kind, then the rest
alphabetically) and set members sorted, so the same data gives the same text
whatever its encoding (JSON, TRON) or key order. A playbook's event log is
followed by each entry's current view (``playbook[entry-x].status = ...``), so
``git log -p`` shows what an appended event did to the entry.
"""

from __future__ import annotations

import json

from ..document import is_set_like
from ..spelling import dumps as json_dumps
from .identity import identify
from .labels import id_label, key_label, title_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FIRST = (
    "vContextInfo", "vBRIEFInfo", "vAgendaInfo",
    "id", "uid", "eventId", "event_id", "prefix", "event_type", "actor",
    "targetId", "operation", "prevEventId",
    "title", "status", "kind",
)  # fmt: skip
_RANK = {k: n for n, k in enumerate(_FIRST)}
_string = json.encoder.encode_basestring  # the C encoder; keeps non-ASCII as is


class _Writer:
    """Accumulates lines; caches what repeats (key labels, key orders of same-shaped objects)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.labels: dict[str, str] = {}
        self.orders: dict[tuple[str, ...], list[str]] = {}

    def value(self, value: Any, name: str, parts: tuple[str | int, ...]) -> None:
        kind = type(value)
        if kind is dict:
            self.object(value, name, parts)
        elif kind is list:
            self.array(value, name, parts)
        elif kind is str and "\n" in value:
            self.out.extend(f"{name} | {line}".rstrip() for line in value.split("\n"))
        else:
            self.out.append(f"{name or '(root)'} = {_scalar(value)}")

    def object(self, value: dict[str, Any], name: str, parts: tuple[str | int, ...]) -> None:
        if not value:
            self.out.append(f"{name or '(root)'} = {{}}")
            return
        shape = tuple(value)
        order = self.orders.get(shape)
        if order is None:
            order = self.orders[shape] = sorted(shape, key=_rank)
        for key in order:
            self.value(value[key], self.child(name, key), (*parts, key))

    def child(self, name: str, key: str) -> str:
        label = self.labels.get(key)
        if label is None:
            label = self.labels[key] = key_label(key)
        return name + label if name else label.removeprefix(".")

    def array(self, value: list[Any], name: str, parts: tuple[str | int, ...]) -> None:
        if not value:
            self.out.append(f"{name or '(root)'} = []")
        elif is_set_like(parts, [value]):
            self.out.extend(f"{name}[] = {_string(x)}" for x in sorted(set(value)))
        else:
            for label, element in _labelled(value, parts):
                self.value(element, name + label, (*parts, label))


def textconv(data: Any) -> str:
    """The canonical text of parsed data (a final newline after every line)."""
    writer = _Writer()
    writer.value(data, "", ())
    from .playbook import entry_facts  # playbooks: each entry's view, derived from its events

    for anchor, facts in entry_facts(data):
        writer.value(facts, anchor, ("view",))
    writer.out.append("")
    return "\n".join(writer.out)


def _rank(key: str) -> tuple[int, str]:
    return (_RANK.get(key, len(_RANK)), key)


def _labelled(value: list[Any], parts: tuple[str | int, ...]) -> list[tuple[str, Any]]:
    identity = identify(value, [], parts[-1] if parts else None)
    labels = [f"[{i}]" for i in range(len(value))]
    if identity is not None:
        label = title_label if identity.guess else (lambda k: id_label(k, identity.key))
        for ident, i in identity.old.index.items():
            labels[i] = label(ident)
    return list(zip(labels, value, strict=True))


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return str(_string(value))
    if kind is int:
        return str(value)
    return json_dumps(value, ensure_ascii=False)
