"""``case_twins``: the paths of a tree that a case-insensitive file system (macOS, Windows)
takes for one file: case folded, Unicode normalized, in any folder on the way."""

from __future__ import annotations

import unicodedata
from typing import Any

from git_vcontext.validation.model import CASE_COLLISION, case_collision, case_twins

Tree = dict[str, Any]


def _entries(tree: Tree) -> list[tuple[str, Tree | None]]:
    return [(name, sub if isinstance(sub, dict) else None) for name, sub in tree.items()]


def test_case_twins_finds_a_copy_differing_only_in_case() -> None:
    tree: Tree = {"todo.vcontext.json": 1, "TODO.vcontext.json": 2, "other.json": 3}
    assert case_twins("todo.vcontext.json", tree, _entries) == ["TODO.vcontext.json"]
    assert case_twins("TODO.vcontext.json", tree, _entries) == ["todo.vcontext.json"]
    assert case_twins("other.json", tree, _entries) == []


def test_case_twins_follows_folders_differing_in_case_and_normalization() -> None:
    nfd = unicodedata.normalize("NFD", "mémoire")
    tree: Tree = {
        "Memory": {"todo.vcontext.json": 1},
        "memory": {"todo.vcontext.json": 2, "plan.vcontext.json": 3},
        nfd: {"a.json": 4},
        "mémoire": {"A.json": 5},
    }
    assert case_twins("memory/todo.vcontext.json", tree, _entries) == ["Memory/todo.vcontext.json"]
    assert case_twins("memory/plan.vcontext.json", tree, _entries) == []
    assert case_twins("mémoire/A.json", tree, _entries) == [f"{nfd}/a.json"]


def test_case_twins_ignores_a_folder_of_the_same_name() -> None:
    tree: Tree = {"todo.json": 1, "TODO.json": {"x": 2}}
    assert case_twins("todo.json", tree, _entries) == []


def test_case_collision_is_a_note_naming_the_twin_with_a_one_line_fix() -> None:
    note = case_collision(["a\nb.json"])
    assert note.rule == CASE_COLLISION
    assert note.message.startswith('"a\\nb.json" differs from this path only in case')
    assert "git rm --cached -- $'a\\nb.json'" in note.message
