"""Structural diff of vContext (and any JSON) data: changes anchored by identity, renderers.

``diff(old, new)`` walks two parsed values side by side and returns a
``DiffResult`` whose ``changes`` say what was added, removed, changed or moved:

- array elements are matched by identity (``id``, else ``uid``; playbook events
  by ``eventId``; JSONL records by ``event_id``/``id``), never by position when
  they carry ids, so one id is never reported as an edit of another;
- items without any id but with unique titles are matched by title, and every
  change under them is flagged ``guess``;
- a moved element is reported once (the fewest moves that explain the new order);
  one moved to another array of its container (M18: nested under another item, moved
  between lists) is one ``move`` whose ``path`` is its old pointer and ``to`` its new
  one, then its edits at the new place;
- set-like fields (``tags``, ``dependencies``, ...) as added/removed members;
- multi-line strings as ``kind: "text"`` (renderers show a line diff);
- ``sequence`` changes (a decrease is flagged), ``fork`` blocks, ``changeLog``
  entries (the log is append-only: removals are flagged).

The same function is the library's ``git_vcontext.diff``.

JSON format, version 1 (``git vcontext diff --format json``)::

    {"version": 1,
     "changes": [{"op": "change", "path": "/todoList/items/1/status",
                  "anchor": "todoList.items[t2].status", "id": "t2",
                  "old": "inProgress", "new": "completed", "kind": "value",
                  "itemTitle": "Review", "file": "todo.vcontext.json"}],
     "files": [{"path": "todo.vcontext.json", "status": "modified", "changes": 1}]}

Each change has ``op`` (``add`` | ``remove`` | ``change`` | ``move``), ``path``
(RFC 6901 JSON Pointer; indexes of the new document, of the old one for
``remove``), ``anchor`` (the same place named by identities), ``kind``
(``value``, ``item``, ``event``, ``set``, ``text``, ``sequence``, ``fork``,
``changeLog``, ``rename``), and as applicable: ``id`` (of the innermost element
with one), ``old``/``new`` (left out when absent; ``null`` is a value),
``from`` (moves: old pointer), ``after`` (moves: id now before it, ``null`` =
first), ``to`` (moves to another array: new pointer; ``path`` is then the old one),
``added``/``removed`` (sets), ``guess: true`` (matched by title),
``note`` (e.g. an append-only log entry removed, a sequence decreased),
``itemTitle``, ``file``. ``files`` lists each file (``status``: added, deleted,
modified, renamed with ``oldPath``; ``error`` instead of ``changes`` when a side
does not parse). New fields may be added; ``version`` changes when a field
changes meaning.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import diff
    from .model import ABSENT, FORMAT_VERSION, Change, DiffResult

__all__ = ["ABSENT", "FORMAT_VERSION", "Change", "DiffResult", "diff"]

# loaded on first use, so ``textconv`` (same package) does not pay for the diff engine
_LAZY = {
    "diff": ".core",
    "ABSENT": ".model",
    "FORMAT_VERSION": ".model",
    "Change": ".model",
    "DiffResult": ".model",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # lazy: importlib (with warnings) only when a name is first asked for
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
