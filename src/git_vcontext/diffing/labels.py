"""Readable names for keys and array elements in identity-anchored paths."""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$-]*\Z")
_PLAIN_ID = re.compile(r"[\w.:@/+-]+\Z")


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
