"""git-vcontext: merge, diff and validate vContext documents in git (public library API).

    >>> import git_vcontext as gv
    >>> doc = gv.loads('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}')
    >>> doc.data["todoList"]
    {'items': []}

Heavy parts load on first use, so importing the package stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy (and every type checker) sees the real names and signatures
    from typing import Any

    from .codecs import Document, Format, TronFlavor
    from .diffing import DiffResult, diff
    from .errors import ParseError
    from .merging import MergeResult, merge
    from .playbook import playbook_view
    from .validation import validate
    from .validation.model import FileReport
    from .version import __version__

# at run time: public name -> (module, attribute), resolved on first use by __getattr__. The
# subpackages are named apart from the functions (merging/merge, diffing/diff,
# validation/validate), so importing one never rebinds a function's name.
_LAZY = {
    "merge": ("git_vcontext.merging", "merge"),
    "MergeResult": ("git_vcontext.merging", "MergeResult"),
    "diff": ("git_vcontext.diffing", "diff"),
    "DiffResult": ("git_vcontext.diffing", "DiffResult"),
    "validate": ("git_vcontext.validation", "validate"),
    "FileReport": ("git_vcontext.validation.model", "FileReport"),
    "playbook_view": ("git_vcontext.playbook", "playbook_view"),
    "ParseError": ("git_vcontext.errors", "ParseError"),
    "Document": ("git_vcontext.codecs", "Document"),  # a Protocol to mypy; ``object`` at run time
    "__version__": ("git_vcontext.version", "__version__"),
}


def loads(text: str | bytes, *, path: str | None = None, format: Format | None = None) -> Document:
    """Parse JSON, TRON or JSONL text (format from ``format``, the name, or the content)."""
    # lazy: `import git_vcontext` (every command) stays light
    from .codecs import parse

    return parse(text, path=path, format=format)


def load(path: str) -> Document:
    """Parse a file."""
    # lazy: `import git_vcontext` (every command) stays light
    from .fsio import read_bytes

    return loads(read_bytes(path), path=path)


def dumps(value: Any, format: Format = "json", *, tron_flavor: TronFlavor = "vcontext") -> str:
    """Write any JSON value as JSON, TRON (``vcontext`` or ``standard`` flavour) or JSONL."""
    # lazy: `import git_vcontext` (every command) stays light
    from .codecs import dumps as _dumps

    return _dumps(value, format, tron_flavor=tron_flavor)


if not TYPE_CHECKING:  # a type checker takes the imports above; an unknown name stays an error

    def __getattr__(name: str) -> Any:
        try:
            module, attr = _LAZY[name]
        except KeyError:
            raise AttributeError(f"module 'git_vcontext' has no attribute {name!r}") from None
        # lazy: importlib (with warnings) is not needed by the commands git runs per file
        import importlib

        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value


__all__ = [
    "DiffResult",
    "Document",
    "FileReport",
    "MergeResult",
    "ParseError",
    "__version__",
    "diff",
    "dumps",
    "load",
    "loads",
    "merge",
    "playbook_view",
    "validate",
]
