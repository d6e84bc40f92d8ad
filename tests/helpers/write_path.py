"""Reading an agent's write as a reviewer does: ``git diff --no-textconv`` line by line.

PRODUCT.md, "The write path, as an agent and a reviewer see it": one status change is a
one-line diff of the item's row, besides the container's bookkeeping (``sequence``,
``updated``, ``lastModifiedBy`` and its new ``changeLog`` entry). These helpers cut a
diff into the lines it removes and adds, and say which of them lie among the items.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from helpers.run import run_git

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

WHEN = "2026-03-04T05:06:07Z"
EPOCH = "1772600767"  # SOURCE_DATE_EPOCH of WHEN: what the server writes as the time
AGENT = "alice"
PLAN = {
    "id": "release",
    "title": "Release 1.0",
    "status": "inProgress",
    "narratives": {"Proposal": "Ship it"},
    "items": [{"id": "p1", "title": "Parser", "status": "pending"}],
}
"""A plan's body the write-path tests write into (each copies it before changing it)."""


@dataclass(frozen=True)
class Diff:
    """The lines a change removed (old line numbers) and added (new line numbers)."""

    removed: list[tuple[int, str]]
    added: list[tuple[int, str]]

    @property
    def size(self) -> int:
        return len(self.removed) + len(self.added)


def raw_diff(repo: Path, rel: str) -> Diff:
    """``git diff --no-textconv -U0 -- rel`` (work tree against the index), cut into lines:
    the raw file as a reviewer reads it, whatever diff driver is installed."""
    out = run_git(repo, "diff", "--no-textconv", "--no-ext-diff", "-U0", "--", rel).stdout
    return parse_diff(out)


def committed_diff(repo: Path, rel: str, rev: str = "HEAD") -> Diff:
    """The raw diff of ``rel`` made by commit ``rev`` (against its first parent)."""
    out = run_git(
        repo, "diff", "--no-textconv", "--no-ext-diff", "-U0", f"{rev}~1", rev, "--", rel
    ).stdout
    return parse_diff(out)


def parse_diff(out: str) -> Diff:
    removed: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []
    old = new = 0
    for line in out.splitlines():
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append((old, line[1:]))
            old += 1
        elif line.startswith("+"):
            added.append((new, line[1:]))
            new += 1
    return Diff(removed, added)


def lines_with(text: str, needle: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` that contain ``needle``."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]


def items_span(text: str, markers: list[str]) -> tuple[int, int]:
    """The lines from the first to the last line holding one of ``markers`` (the items'
    titles: each occurs once in the document)."""
    found = [n for marker in markers for n in lines_with(text, marker)]
    assert found, f"none of {markers} in the text"
    return min(found), max(found)


def assert_one_row_changed(
    before: str, after: str, diff: Diff, markers: list[str], target: str
) -> None:
    """Among the items (the lines from the first item's marker to the last one's), exactly
    one line was removed and one added, both the row of the item marked ``target``; no
    other row changed."""
    first, last = items_span(before, markers)
    inside_old = [(n, line) for n, line in diff.removed if first <= n <= last]
    first, last = items_span(after, markers)
    inside_new = [(n, line) for n, line in diff.added if first <= n <= last]
    assert len(inside_old) == 1, f"rows removed: {inside_old}\n{after}"
    assert len(inside_new) == 1, f"rows added: {inside_new}\n{after}"
    assert target in inside_old[0][1], inside_old
    assert target in inside_new[0][1], inside_new


def assert_only_the_item_changed(
    before: str, diff: Diff, markers: list[str], target: str, *, most: int
) -> None:
    """Every line removed among the items lies inside the item marked ``target`` (after the
    previous item's marker line, before the next one's), and there are at most ``most``:
    for items laid out over several lines (one field a line)."""
    index = markers.index(target)
    assert index + 1 < len(markers), "choose an item that is not the last one"
    first, last = items_span(before, markers)
    low = lines_with(before, markers[index - 1])[0] if index else first - 1
    high = lines_with(before, markers[index + 1])[0]
    inside = [(n, line) for n, line in diff.removed if first <= n <= last]
    strays = [(n, line) for n, line in inside if not low < n < high]
    assert not strays, f"other items changed: {strays}"
    assert 0 < len(inside) <= most, inside


def copy_corpus_file(shared: Path, rel: str, dest: Path) -> Path:
    """A corpus file copied into a work tree (writable: the corpus is read-only)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shared / "corpus" / rel, dest)
    dest.chmod(0o644)
    return dest


def commit_all(repo: Path, message: str = "documents") -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


MINIMAL_TRON = "spec-embedded/v0.4-final-ce9510c/README__Core-Examples-Minimal-TodoList.tron"
"""The spec's minimal TRON todo list: class rows, no ids, no bookkeeping yet."""
MINIMAL_PLAN_TRON = "spec-embedded/v0.4-final-ce9510c/README__Core-Examples-Minimal-Plan.tron"
A1_TRON = (
    "spec-embedded/v0.4-final-ce9510c/"
    "README__Appendix-A-Complete-Examples-All-Extensions-A1-TodoList-Oper.tron"
)
"""The spec's complete TRON todo list: one argument a line, a class ``changeLog``."""
A2_JSON = (
    "spec-embedded/v0.4-final-ce9510c/"
    "README__Appendix-A-Complete-Examples-All-Extensions-A2-Plan-Coordina.json"
)
A3_TRON = (
    "spec-embedded/v0.4-final-ce9510c/"
    "README__Appendix-A-Complete-Examples-All-Extensions-A3-Playbook-Long.tron"
)
"""The spec's TRON playbook with ``text`` entries (class ``PlaybookItem``)."""
MINIMAL_PLAYBOOK_TRON = (
    "spec-embedded/v0.4-final-ce9510c/README__Core-Examples-Minimal-Playbook.tron"
)
COMPACT_JSON = (
    "external/deftai+directive/latest/vbrief/active/2026-04-16-411-upgrading-quickstart-bridge"
    ".vbrief.json"
)
"""A hand-laid-out plan: one item a line, references likewise."""
BOM_JSON = (
    "external/deftai+directive/latest/history/archive/2026-03-20-agent-auto-alignment/"
    "tasks.vbrief.json"
)
"""PowerShell's ConvertTo-Json: a BOM, aligned indentation, ``"key":  value``."""

COMPACT_PLAN = (
    '{"vContextInfo": {"version": "0.4"},\n'
    ' "plan": {"id": "release", "title": "Release 1.0", "status": "inProgress", "sequence": 4,\n'
    '  "narratives": {"proposal": "Ship the parser and its docs."},\n'
    '  "items": [\n'
    '   {"id": "p1", "title": "Parser", "status": "completed"},\n'
    '   {"id": "p2", "title": "Docs", "status": "pending"}]}}\n'
)
"""A plan laid out by hand: members several to a line, brackets closed on the last row
(with the proposal a plan must have: a write into a document validate rejects is refused)."""

COMPACT_PLAN_TRON = (
    "class vContextInfo: version\n"
    "class PlanItem: id, title, status\n"
    "\n"
    'vContextInfo: vContextInfo("0.4")\n'
    'plan: {id: "release", title: "Release 1.0", status: "inProgress", sequence: 4,\n'
    '  narratives: {proposal: "Ship the parser and its docs."},\n'
    "  items: [\n"
    '   PlanItem("p1", "Parser", "completed"),\n'
    '   PlanItem("p2", "Docs", "pending")]}\n'
)
"""Its TRON twin (with the proposal a plan must have: it is validated after the edit)."""
