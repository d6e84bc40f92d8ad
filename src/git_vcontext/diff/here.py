"""Where the diff walker stands: the path in both documents and its identity-anchored name."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ..values import pointer
from .model import ABSENT

_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$-]*\Z")
_PLAIN_ID = re.compile(r"[\w.:@/+-]+\Z")

Parts = tuple[str | int, ...]


def key_label(key: str) -> str:
    """``.status``, or ``["odd key"]`` for keys that are not plain names."""
    return "." + key if _PLAIN_KEY.match(key) else "[" + json.dumps(key, ensure_ascii=False) + "]"


def id_label(ident: Any, key: str) -> str:
    """``[t2]`` for a plain string id, ``["a b"]`` for others, ``[id=7]`` for numbers."""
    if isinstance(ident, str):
        if _PLAIN_ID.match(ident) and not ident.isdigit():
            return f"[{ident}]"
        return "[" + json.dumps(ident, ensure_ascii=False) + "]"
    return f"[{key}={ident}]"


def title_label(title: str) -> str:
    """Elements matched by title are named by it, always quoted (it is a guess, not an id)."""
    return "[" + json.dumps(title, ensure_ascii=False) + "]"


@dataclass(frozen=True)
class Here:
    """A place in the walk: parts in the old and new document, readable anchor, identity."""

    old: Parts = ()
    new: Parts = ()
    anchor: str = ""
    ident: Any = ABSENT
    guess: bool = False
    depth: int = 0
    item: str = ""  # anchor of the innermost array element around here ("" at the top)
    item_title: str | None = None  # its title, for renderers

    def key(self, key: str, old_key: str | None = None) -> Here:
        """The member ``key`` of the object here (called ``old_key`` in the old one)."""
        return replace(
            self,
            old=(*self.old, key if old_key is None else old_key),
            new=(*self.new, key),
            anchor=(self.anchor + key_label(key)) if self.anchor else _root_key(key),
            depth=self.depth + 1,
        )

    def element(self, i_old: int, i_new: int, label: str, value: Any, *,
                ident: Any = ABSENT, guess: bool = False) -> Here:
        """Element ``i_old`` of the old array, ``i_new`` of the new one, named ``label``."""
        anchor = self.anchor + label
        if not isinstance(value, dict):  # scalars in a list are details of the item around them
            return replace(self, old=(*self.old, i_old), new=(*self.new, i_new), anchor=anchor,
                           depth=self.depth + 1)
        title = value.get("title")
        return Here(
            old=(*self.old, i_old),
            new=(*self.new, i_new),
            anchor=anchor,
            ident=self.ident if ident is ABSENT else ident,
            guess=guess or self.guess,
            depth=self.depth + 1,
            item=anchor,
            item_title=title if isinstance(title, str) else None,
        )

    @property
    def old_pointer(self) -> str:
        return pointer(self.old)

    @property
    def new_pointer(self) -> str:
        return pointer(self.new)

    @property
    def name(self) -> str:
        """The anchor, ``(root)`` for the document itself."""
        return self.anchor or "(root)"

    @property
    def field(self) -> str | int | None:
        """The last key or index (None at the root)."""
        return self.new[-1] if self.new else None


def _root_key(key: str) -> str:
    label = key_label(key)
    return label[1:] if label.startswith(".") else label
