"""The driver's replay judgement kept for ``resolve`` (gitio/replay.py ``record``):
PRODUCT.md "Resolving conflicts" (resolve merges the index stages again, as the driver
merged them) and M6/M8 (a replay applies the commit's own change; a merge does not)."""

from __future__ import annotations

from pathlib import Path

from git_vcontext.gitio.replay import forget_others, record, recorded


def test_a_judgement_is_read_back_only_for_the_very_sides_it_was_made_of(tmp_path: Path) -> None:
    git_dir = str(tmp_path)
    record(git_dir, "a/todo.json", b"base", b"ours", b"theirs", True)
    record(git_dir, "b.json", None, b"ours", b"theirs", False)
    assert recorded(git_dir, "a/todo.json", b"base", b"ours", b"theirs") is True
    assert recorded(git_dir, "b.json", None, b"ours", b"theirs") is False
    assert recorded(git_dir, "b.json", b"", b"ours", b"theirs") is False  # empty = absent
    # another merge of the same file (an aborted pick redone over new work): no record
    assert recorded(git_dir, "a/todo.json", b"base", b"ours 2", b"theirs") is None
    assert recorded(git_dir, "a/todo.json", b"theirs", b"ours", b"base") is None
    assert recorded(git_dir, "c.json", b"base", b"ours", b"theirs") is None
    record(git_dir, "a/todo.json", b"base", b"ours", b"theirs", False)  # judged again
    assert recorded(git_dir, "a/todo.json", b"base", b"ours", b"theirs") is False


def test_records_of_files_no_longer_conflicted_are_removed(tmp_path: Path) -> None:
    git_dir = str(tmp_path)
    for name in ("a.json", "b.json", "c.json"):
        record(git_dir, name, b"o", b"a", b"b", True)
    forget_others(git_dir, {"b.json"})
    assert recorded(git_dir, "b.json", b"o", b"a", b"b") is True
    assert recorded(git_dir, "a.json", b"o", b"a", b"b") is None
    assert len(list((tmp_path / "vcontext" / "replay").iterdir())) == 1


def test_a_record_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "vcontext"
    blocked.write_text("a file where the folder goes")
    record(str(tmp_path), "a.json", b"o", b"a", b"b", True)
    assert recorded(str(tmp_path), "a.json", b"o", b"a", b"b") is None
