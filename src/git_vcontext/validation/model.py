"""What validation reports: findings with a stable rule id, a JSON Pointer and a position."""

from __future__ import annotations

from ..record import record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeVar

    T = TypeVar("T")

Parts = tuple[str | int, ...]
"""A path into a document: object keys and array indexes."""
Issue = tuple[str, Parts, str]
"""What a check yields: (rule id, path parts, message); ``files`` locates it as a Finding."""

SKIPPED = "skipped"
"""The rule of a Finding that is only a note (a file skipped whole): it refuses nothing.
The pre-push hook caches notes with the findings of a blob (``FileReport.as_findings``)."""

CASE_COLLISION = "case-collision"
"""The rule of the note on a path another path of the same tree differs from only in case
(or in Unicode normalization): one file on a case-insensitive file system. A note: git
allows it, a case-sensitive clone works; validate, the hook, the guard and check say it."""

NOTE_RULES = frozenset({SKIPPED, CASE_COLLISION})
"""The rules of findings that are notes in a push's report (they refuse nothing)."""


@record
class Finding:
    """One problem in one file (``line``/``column`` 1-based, from the source text when known)."""

    rule: str
    pointer: str  # RFC 6901
    message: str
    line: int | None = None
    column: int | None = None
    where: str = ""  # id-anchored path, e.g. todoList.items[t2].status ("" = the document)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "pointer": self.pointer, "message": self.message}
        if self.where:
            out["where"] = self.where
        if self.line is not None:
            out["line"] = self.line
            if self.column is not None:
                out["column"] = self.column
        return out


@record
class FileReport:
    """The verdict on one file (or blob): valid when there is no finding."""

    path: str
    findings: tuple[Finding, ...] = ()
    skipped: tuple[str, ...] = ()  # checks that do not apply (legacy versions), said in reports
    checked: bool = True  # False: skipped whole (a config among the documents), see ``skipped``
    notes: tuple[Finding, ...] = ()  # located, but not problems (an event type seed 004 lacks)

    @property
    def valid(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "valid": self.valid,
            "errors": [f.to_json() for f in self.findings],
        }
        if self.skipped:
            out["skipped"] = list(self.skipped)
        if not self.checked:
            out["checked"] = False
        if self.notes:
            out["notes"] = [f.to_json() for f in self.notes]
        return out

    def as_findings(self) -> list[Finding]:
        """The findings, or for a file skipped whole one ``SKIPPED`` note saying why."""
        if self.checked:
            return list(self.findings)
        return [Finding(SKIPPED, "", note) for note in self.skipped]

    def lines(self) -> list[str]:
        """``file:line:col: where: message [rule]``, one per finding, then the notes."""
        return [self._line(f, "") for f in self.findings] + [
            self._line(f, "note: ") for f in self.notes
        ]

    def _line(self, f: Finding, prefix: str) -> str:
        loc = quoted_path(self.path) if self.path else "<input>"
        if f.line is not None:
            loc += f":{f.line}" + (f":{f.column}" if f.column is not None else "")
        where = f"{f.where}: " if f.where else ""
        return f"{loc}: {where}{prefix}{f.message} [{f.rule}]"


SYMLINK = Finding(
    "symlink",
    "",
    "a symbolic link where a vContext document belongs: git merges the link, not the "
    "document (no merge driver runs on a link), and a remote cannot follow it; commit "
    "the document itself here",
    1,
    1,
)
"""A vContext path that is a symbolic link: one finding for ``validate`` (the work tree),
the hook, the guard and ``check`` (a pushed link's blob is its target's name)."""


def symlink_report(path: str) -> FileReport:
    """The verdict on a vContext path that is a symbolic link (``SYMLINK``)."""
    return FileReport(path, (SYMLINK,))


_C_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def case_key(path: str) -> str:
    """What a case-insensitive file system (macOS, Windows) keeps of a name: the same key,
    the same file (case folded, Unicode normalized as macOS compares names)."""
    if path.isascii():
        return path.lower()
    import unicodedata  # only for a name beyond ASCII

    return unicodedata.normalize("NFC", path).casefold()


def case_twins(
    path: str, root: T, entries: Callable[[T], Iterable[tuple[str, T | None]]]
) -> list[str]:
    """The other paths of a tree naming the file ``path`` names on a case-insensitive file
    system. ``entries(tree)`` gives each entry's name, and its subtree (None: not a folder);
    only the folders on the way are read."""
    keys = [case_key(part) for part in path.split("/")]
    found: list[str] = []

    def walk(tree: T, depth: int, prefix: str) -> None:
        for name, sub in entries(tree):
            if case_key(name) != keys[depth]:
                continue
            if depth == len(keys) - 1:
                if sub is None and prefix + name != path:
                    found.append(prefix + name)
            elif sub is not None:
                walk(sub, depth + 1, f"{prefix}{name}/")

    walk(root, 0, "")
    return sorted(found)


def case_collision(twins: Iterable[str]) -> Finding:
    """The note naming the paths that differ from a file's only in case (``CASE_COLLISION``)."""
    names = sorted(twins)
    shown = ", ".join(quoted_path(t) for t in names)
    one = len(names) == 1
    return Finding(
        CASE_COLLISION,
        "",
        f"{shown} differ{'s' if one else ''} from this path only in case: on a "
        "case-insensitive file system (macOS, Windows) both are one file, which a checkout, "
        f"a merge or an edit writes for both; keep one (git rm --cached -- "
        f"{command_path(names[0]) if one else 'OTHER'})",
    )


def with_case_notes(
    reports: list[FileReport],
    tracked: Iterable[str],
    rel: Callable[[str], str | None],
    shown: Callable[[str], str],
) -> list[FileReport]:
    """``reports`` with a ``case_collision`` note on each file a ``tracked`` path (repo
    paths) differs from only in case: what ``validate`` and the MCP server's
    ``vcontext_validate`` say alike. ``rel``: a report's repo path (None: outside the
    repository); ``shown``: a tracked path as the report names paths."""
    by_key: dict[str, list[str]] = {}
    for path in tracked:
        same = by_key.setdefault(case_key(path), [])
        if path not in same:
            same.append(path)
    out = []
    for report in reports:
        where = rel(report.path)
        same = [] if where is None else by_key.get(case_key(where), [])
        if twins := [shown(t) for t in same if t != where]:
            report = replace(report, notes=(*report.notes, case_collision(twins)))
        out.append(report)
    return out


def command_path(path: str) -> str:
    """``path`` as a word of a command line to copy: shell-quoted, and a name starting with
    '-' as ``./-name``, so the command it goes into does not read it as an option (the
    advice of ``conflicts``, ``sync --checkout`` and ``sync --push`` alike)."""
    return command_word(f"./{path}" if path.startswith("-") else path)


def command_word(text: str) -> str:
    """``text`` as one word of a command line to copy, on one line: shell-quoted, or, when it
    holds a control character (a newline would split the advice over two lines), in the
    ``$'…'`` form of bash, zsh and ksh (POSIX sh since 2024), with C-style escapes."""
    import shlex  # only for advice: the merge driver and the hook never need it

    if not any(ch < " " or ch == "\x7f" for ch in text):
        return shlex.quote(text)
    out = []
    for ch in text:
        if ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif ch == "'":
            out.append("\\'")
        elif ch < " " or ch == "\x7f":
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def quoted_path(path: str) -> str:
    """A file name as git shows it with ``core.quotePath=false``: as it is, unless it holds
    a control character, a double quote or a backslash; then C-quoted (a newline or a tab
    in a name cannot split or misalign a ``file:line:col`` line)."""
    if not any(ch < " " or ch == "\x7f" or ch in '"\\' for ch in path):
        return path
    out = []
    for ch in path:
        if ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append("".join(f"\\{byte:03o}" for byte in ch.encode("utf-8", "surrogateescape")))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
