"""The README and docs/*.md render: every table row has its header's number of cells, and
the README's links into docs/performance-history.md name headings that exist there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HISTORY = ROOT / "docs" / "performance-history.md"


def cells(line: str) -> int:
    """The cells of a table row as GitHub counts them: split at each ``|`` not escaped."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return len(re.split(r"(?<!\\)\|", inner))


def tables(text: str) -> list[list[tuple[int, str]]]:
    """Each table outside fenced code: its lines (number, text), the header first."""
    found: list[list[tuple[int, str]]] = []
    fenced = False
    current: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.lstrip().startswith("|"):
            current.append((number, line))
            continue
        if current:
            found.append(current)
        current = []
    if current:
        found.append(current)
    return found


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_table_row_has_its_headers_number_of_cells(path: Path) -> None:
    found = tables(path.read_text(encoding="utf-8"))
    for table in found:
        (first, header), *rows = table
        assert len(rows) >= 1, f"{path.name}:{first}: a table without its delimiter row"
        width = cells(header)
        assert re.fullmatch(r"\|?( *:?-+:? *\|)+ *:?-*:? *\|?", rows[0][1].strip()), (
            f"{path.name}:{rows[0][0]}: the line after a header is its delimiter row"
        )
        wrong = [(n, cells(line)) for n, line in rows if cells(line) != width]
        assert wrong == [], f"{path.name}: rows with other than {width} cells: {wrong}"


def test_the_counter_counts_as_github_does() -> None:
    assert cells("| a | b `x \\| y` | c |") == 3
    assert cells("| a | b `x | y` | c |") == 4  # a bare pipe in a code span splits a cell
    assert slug("Merge driver, 200-item todo list") == "merge-driver-200-item-todo-list"


def test_the_readme_links_the_performance_history_by_existing_headings() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    history = HISTORY.read_text(encoding="utf-8")
    anchors = {slug(h) for h in re.findall(r"^#+ (.+)$", history, re.M)}
    links = re.findall(r"\]\(docs/performance-history\.md(?:#([\w-]+))?\)", readme)
    assert links, "the README's Performance section links docs/performance-history.md"
    assert sorted({a for a in links if a and a not in anchors}) == []
