"""``git vcontext merge`` on TRON files writes a minimal edit of ours' text (PRODUCT.md,
Formats: TRON; issue 12): what nobody changed stays byte for byte, comments go with the
element whose line they are on, and theirs' numbers keep their spelling."""

from __future__ import annotations

from pathlib import Path

from helpers.run import run_cli

BASE = """\
# Sprint list; classes by hand
class vContextInfo: version
class TodoList: items
class TodoItem: id, title, status

vContextInfo: vContextInfo("0.4")

todoList: TodoList([
  TodoItem("t1", "Auth", "pending"),  # the big one
  # small things
  TodoItem("t2", "Docs", "pending"),
  TodoItem("t3", "Deploy", "pending")  # last
])
"""
T4 = '"t4", "Demo", "pending"'


def _sides(tmp_path: Path, theirs_adds: str) -> list[str]:
    ours = BASE.replace('"t1", "Auth", "pending"', '"t1", "Auth", "completed"')
    ours = ours.replace('  # small things\n  TodoItem("t2", "Docs", "pending"),\n', "")
    theirs = BASE.replace('"pending")  # last\n', f'"pending"),  # last\n  {theirs_adds}\n')
    names = []
    for name, text in (("base", BASE), ("ours", ours), ("theirs", theirs)):
        (tmp_path / f"{name}.tron").write_text(text)
        names.append(str(tmp_path / f"{name}.tron"))
    return names


def test_m2_merge_of_tron_files_edits_ours_text(tmp_path: Path) -> None:
    """Ours completes t1 and deletes t2 (its comment line goes too); theirs adds t4 with a
    long number: t4 is written like its neighbours (a class row), the number digit for digit."""
    added = '{id: "t4", title: "Demo", status: "pending", estimate: 3.14159265358979323846}'
    out = tmp_path / "merged.tron"
    proc = run_cli("merge", *_sides(tmp_path, added), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = BASE.replace('"t1", "Auth", "pending"', '"t1", "Auth", "completed"')
    expected = expected.replace('  # small things\n  TodoItem("t2", "Docs", "pending"),\n', "")
    # t4 has a field TodoItem lacks: a class of its own, declared after the others (issue 27)
    new = 'TodoItem2("t4", "Demo", "pending", 3.14159265358979323846)'
    expected = expected.replace('"pending")  # last\n', f'"pending"),  # last\n  {new}\n')
    expected = expected.replace(
        "class TodoItem: id, title, status\n",
        "class TodoItem: id, title, status\nclass TodoItem2: id, title, status, estimate\n",
    )
    assert out.read_text() == expected


def test_m2_an_element_theirs_adds_that_fits_ours_class_is_an_instance(tmp_path: Path) -> None:
    proc = run_cli("merge", *_sides(tmp_path, f"TodoItem({T4})"))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    assert text.endswith(f'  TodoItem("t3", "Deploy", "pending"),  # last\n  TodoItem({T4})\n])\n')
    assert "# small things" not in text
    assert "# the big one" in text
