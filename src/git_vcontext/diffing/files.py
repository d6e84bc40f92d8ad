"""Diff two file contents: parse both (any format), diff the data, else a plain line diff."""

from __future__ import annotations

from ..codecs import format_from_content, format_from_name, parse
from ..errors import ParseError
from ..record import record
from ..validation.model import quoted_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document
    from ..filechange import FileChange
    from .model import DiffResult


@record
class FileDiff:
    """The outcome for one changed file: a structural result, or why not and a line diff."""

    file: FileChange
    result: DiffResult | None  # None when a side does not parse (or is binary)
    error: str | None = None
    line_diff: str = ""
    playbooks: tuple[Any, Any] | None = None  # (old, new) data when new holds a playbook
    empty: str = ""  # a side that is an empty file: no document (validate: [parse]), said

    @property
    def differs(self) -> bool:
        """Whether there is anything to report (data changes, or bytes for unparsable files;
        an empty side against a non-empty one is a difference even when the other holds
        ``{}``: validate refuses the empty file, not the other)."""
        if self.empty and self.file.old != self.file.new:
            return True
        if self.result is not None:
            return bool(self.result) or self.file.status != "modified"
        return self.file.old != self.file.new


def compare(file: FileChange) -> FileDiff:
    """Diff the two contents of a changed file (None = absent side); names pick the format,
    else the content does."""
    try:
        old_doc = load(file.old, file.old_path)
        new_doc = load(file.new, file.new_path)
    except ParseError as exc:
        return FileDiff(file, None, exc.one_line(), unified(file))
    old_data = skeleton(new_doc.data if new_doc else None) if old_doc is None else old_doc.data
    new_data = skeleton(old_data) if new_doc is None else new_doc.data
    # lazy: textconv loads files without the diff engine
    from .core import diff
    from .playbook import may_hold_playbook

    result = diff(old_data, new_data)
    books = (old_data, new_data) if may_hold_playbook(new_data) else None
    return FileDiff(file, result, playbooks=books, empty=_empty_sides(file))


def _empty_sides(file: FileChange) -> str:
    """What to say of the sides that are empty files (present, blank): read as absent, but no
    document — ``validate`` calls such a file unparsable (``empty document [parse]``)."""
    names = [
        side_name(prefix, path)
        for prefix, raw, path in (("a", file.old, file.old_path), ("b", file.new, file.new_path))
        if raw is not None and not raw.strip()
    ]
    if not names or file.old == file.new:
        return ""
    return (
        f"{' and '.join(names)} {'is an empty file' if len(names) == 1 else 'are empty files'}: "
        "no document (git vcontext validate: empty document [parse]); diffed as absent"
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
    return quoted_path(f"{prefix}/{path.lstrip('/')}") if path else "/dev/null"


def unified(file: FileChange) -> str:
    """A plain unified diff (``Binary files ... differ`` for binary content)."""
    old, new = file.old, file.new
    a_name, b_name = side_name("a", file.old_path), side_name("b", file.new_path)
    if b"\0" in (old or b"") or b"\0" in (new or b""):
        return "" if old == new else f"Binary files {a_name} and {b_name} differ\n"
    # lazy: difflib only for files that do not parse
    import difflib

    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, a_name, b_name)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
