"""git-vcontext: merge, diff and validate vContext documents in git (public library API).

    >>> import git_vcontext as gv
    >>> doc = gv.loads('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}')
    >>> doc.data["todoList"]
    {'items': []}

Heavy parts load on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .codecs import Document, Format, TronFlavor

# public name -> (module, attribute); resolved lazily by __getattr__
_LAZY = {
    "merge": ("git_vcontext.merge", "merge"),
    "MergeResult": ("git_vcontext.merge", "MergeResult"),
    "diff": ("git_vcontext.diff", "diff"),
    "validate": ("git_vcontext.validate", "validate"),
    "playbook_view": ("git_vcontext.playbook", "playbook_view"),
    "ParseError": ("git_vcontext.errors", "ParseError"),
}


def loads(text: str | bytes, *, path: str | None = None, format: Format | None = None) -> Document:
    """Parse JSON, TRON or JSONL text (format from ``format``, the name, or the content)."""
    from .codecs import parse

    return parse(text, path=path, format=format)


def load(path: str) -> Document:
    """Parse a file."""
    from .fsio import read_bytes

    return loads(read_bytes(path), path=path)


def dumps(value: Any, format: Format = "json", *, tron_flavor: TronFlavor = "vcontext") -> str:
    """Write any JSON value as JSON, TRON (``vcontext`` or ``standard`` flavour) or JSONL."""
    from .codecs import dumps as _dumps

    return _dumps(value, format, tron_flavor=tron_flavor)


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'git_vcontext' has no attribute {name!r}") from None
    return getattr(importlib.import_module(module), attr)


__all__ = ["__version__", "dumps", "load", "loads", *_LAZY]
