"""write_atomic with a guard (the MCP server's writes): a file someone renames into place
after the guard's check is never unlinked (issue 37: "a save by anyone between the
server's read and its replace is never lost").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from git_vcontext.fsio import TargetChanged, write_atomic


def _save_by_rename(path: Path, text: str) -> None:
    fresh = path.with_name("editor.tmp")
    fresh.write_text(text)
    os.replace(fresh, path)


def test_a_save_by_rename_after_the_check_stays_and_the_write_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "todo.json"
    target.write_text("read\n")

    def guard() -> bool:
        _save_by_rename(target, "theirs\n")  # lands right after the check
        return True

    with pytest.raises(TargetChanged):
        write_atomic(target, b"ours\n", guard=guard)
    assert target.read_text() == "theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todo.json"]  # no temporary left


def test_a_file_made_after_the_check_for_an_absent_one_is_not_clobbered(tmp_path: Path) -> None:
    target = tmp_path / "todo.json"

    def guard() -> bool:
        fine = not target.exists()
        target.write_text("theirs\n")
        return fine

    with pytest.raises(TargetChanged):
        write_atomic(target, b"ours\n", guard=guard)
    assert target.read_text() == "theirs\n"


def test_a_guarded_write_replaces_the_file_it_checked(tmp_path: Path) -> None:
    target = tmp_path / "todo.json"
    target.write_text("read\n")
    target.chmod(0o640)
    write_atomic(target, b"ours\n", guard=lambda: True)
    assert target.read_text() == "ours\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todo.json"]
    (tmp_path / "new.json").unlink(missing_ok=True)
    write_atomic(tmp_path / "new.json", b"made\n", guard=lambda: True)
    assert (tmp_path / "new.json").read_text() == "made\n"
