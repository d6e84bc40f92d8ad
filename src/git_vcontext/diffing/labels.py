"""Readable names for keys and array elements in identity-anchored paths."""

from __future__ import annotations

from ..jsoncodec import string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# No regular expression: the external diff runs once per file of a git log -p (issue 35).
_KEY_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
_KEY_MORE = frozenset("_$-")
_ID_MORE = frozenset("_.:@/+-")


def _plain_key(key: str) -> bool:
    """``[A-Za-z_$][\\w$-]*\\Z`` (``\\w``: what ``isalnum`` says, and ``_``)."""
    return key[:1] in _KEY_START and all(c.isalnum() or c in _KEY_MORE for c in key[1:])


def _plain_id(ident: str) -> bool:
    """``[\\w.:@/+-]+\\Z``."""
    return bool(ident) and all(c.isalnum() or c in _ID_MORE for c in ident)


def key_label(key: str) -> str:
    """``.status``, or ``["odd key"]`` for keys that are not plain names."""
    return "." + key if _plain_key(key) else "[" + string(key, ensure_ascii=False) + "]"


def id_label(ident: Any, key: str) -> str:
    """``[t2]`` for a plain string id, ``["a b"]`` for others, ``[id=7]`` for numbers."""
    if isinstance(ident, str):
        if _plain_id(ident) and not ident.isdigit():
            return f"[{ident}]"
        return "[" + string(ident, ensure_ascii=False) + "]"
    return f"[{key}={ident}]"


def title_label(title: str) -> str:
    """Elements matched by title are named by it, always quoted (it is a guess, not an id)."""
    return "[" + string(title, ensure_ascii=False) + "]"
