"""Diff two file contents: parse both (any format), diff the data, else a plain line diff."""

from __future__ import annotations

from ..codecs import format_from_content, format_from_name, parse
from ..errors import ParseError
from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document
    from .model import DiffResult


@record
class FileDiff:
    """The outcome for one file: a structural result, or why not and a line diff instead."""

    old_path: str | None  # None: the file was added
    new_path: str | None  # None: the file was deleted
    result: DiffResult | None  # None when a side does not parse (or is binary)
    error: str | None = None
    line_diff: str = ""
    same_bytes: bool = False
    renamed: bool = False  # git found a rename (two files given by hand are not one)
    playbooks: tuple[Any, Any] | None = None  # (old, new) data when new holds a playbook

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def status(self) -> str:
        """``added``, ``deleted``, ``renamed`` or ``modified``."""
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "renamed" if self.renamed else "modified"

    @property
    def differs(self) -> bool:
        """Whether there is anything to report (data changes, or bytes for unparsable files)."""
        if self.result is not None:
            return bool(self.result) or self.status != "modified"
        return not self.same_bytes


def compare(
    old: bytes | None,
    new: bytes | None,
    *,
    old_path: str | None,
    new_path: str | None,
    renamed: bool = False,
) -> FileDiff:
    """Diff two contents (None = absent side); names pick the format, else the content does."""
    same_bytes = old == new
    try:
        old_doc = load(old, old_path)
        new_doc = load(new, new_path)
    except ParseError as exc:
        text = unified(old, new, old_path, new_path)
        return FileDiff(old_path, new_path, None, exc.one_line(), text, same_bytes, renamed)
    old_data = skeleton(new_doc.data if new_doc else None) if old_doc is None else old_doc.data
    new_data = skeleton(old_data) if new_doc is None else new_doc.data
    from .core import diff
    from .playbook import may_hold_playbook

    result = diff(old_data, new_data)
    books = (old_data, new_data) if may_hold_playbook(new_data) else None
    return FileDiff(
        old_path, new_path, result, same_bytes=same_bytes, renamed=renamed, playbooks=books
    )


def load(raw: bytes | None, name: str | None) -> Document | None:
    """Parse by name, and by content when the name's format does not fit (None: absent or
    empty, so an emptied file reads like a deleted one)."""
    if raw is None or not raw.strip():
        return None
    try:
        return parse(raw, path=name)
    except ParseError:
        guess = _content_format(raw)
        if guess is None or guess == format_from_name(name):
            raise
        return parse(raw, path=name, format=guess)


def _content_format(raw: bytes) -> Any:
    try:
        return format_from_content(raw.decode("utf-8", "replace"))
    except ValueError:
        return None


def skeleton(value: Any) -> Any:
    """The empty shape of a document: objects kept, arrays and scalars emptied.

    Diffing an added file against its skeleton lists every item and field as
    added (one line each) instead of one line holding the whole document.
    """
    if isinstance(value, dict):
        return {k: skeleton(v) for k, v in value.items() if isinstance(v, (dict, list))}
    if isinstance(value, list):
        return []
    return None


def side_name(prefix: str, path: str | None) -> str:
    """``a/todo.vcontext.json`` as git writes it (``/dev/null`` for an absent side)."""
    return f"{prefix}/{path.lstrip('/')}" if path else "/dev/null"


def unified(
    old: bytes | None, new: bytes | None, old_path: str | None, new_path: str | None
) -> str:
    """A plain unified diff (``Binary files ... differ`` for binary content)."""
    a_name, b_name = side_name("a", old_path), side_name("b", new_path)
    if b"\0" in (old or b"") or b"\0" in (new or b""):
        return "" if old == new else f"Binary files {a_name} and {b_name} differ\n"
    import difflib

    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, a_name, b_name)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
