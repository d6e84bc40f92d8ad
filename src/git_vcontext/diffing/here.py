"""Where the diff walker stands: the path in both documents and its identity-anchored name."""

from __future__ import annotations

from ..record import record
from ..values import pointer
from .labels import key_label
from .model import ABSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Parts = tuple[str | int, ...]


@record
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
        label = key_label(key)
        return Here(
            (*self.old, key if old_key is None else old_key),
            (*self.new, key),
            self.anchor + label if self.anchor else label.removeprefix("."),
            self.ident,
            self.guess,
            self.depth + 1,
            self.item,
            self.item_title,
        )

    def element(
        self,
        i_old: int,
        i_new: int,
        label: str,
        value: Any,
        *,
        ident: Any = ABSENT,
        guess: bool = False,
    ) -> Here:
        """Element ``i_old`` of the old array, ``i_new`` of the new one, named ``label``."""
        anchor = self.anchor + label
        item, title = self.item, self.item_title
        if isinstance(value, dict):  # scalars in a list are details of the item around them
            item, title = anchor, value.get("title")
        return Here(
            (*self.old, i_old),
            (*self.new, i_new),
            anchor,
            self.ident if ident is ABSENT else ident,
            guess or self.guess,
            self.depth + 1,
            item,
            title if isinstance(title, str) else None,
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
