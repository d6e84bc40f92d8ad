"""``git vcontext diff`` on files and ``git vcontext textconv``, as real processes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.errors import ExitCode
from helpers.run import cli_path, run_cli

OLD = {"vContextInfo": {"version": "0.4"},
       "todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"},
                              {"id": "t2", "title": "B", "status": "inProgress"}]}}  # fmt: skip
NEW: dict[str, Any] = {"vContextInfo": {"version": "0.4"},
       "todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"},
                              {"id": "t2", "title": "B", "status": "completed"}]}}  # fmt: skip


def _write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    old = _write(tmp_path, "old file.vcontext.json", OLD)
    return old, _write(tmp_path, "new.vcontext.json", NEW)


def test_two_files_give_one_anchored_line_and_exit_0(pair: tuple[Path, Path]) -> None:
    proc = run_cli("diff", str(pair[0]), str(pair[1]))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0].startswith("diff --vcontext a/")
    assert lines[0].endswith("new.vcontext.json")
    assert lines[1:] == ["todoList.items[t2].status: inProgress → completed"]


def test_exit_code_1_with_differences_0_without(pair: tuple[Path, Path]) -> None:
    assert run_cli("diff", "--exit-code", str(pair[0]), str(pair[1])).returncode == 1
    same = run_cli("diff", "--exit-code", str(pair[0]), str(pair[0]))
    assert same.returncode == 0
    assert same.stdout == b""


def test_json_output_follows_the_product_contract(pair: tuple[Path, Path]) -> None:
    proc = run_cli("diff", "--format", "json", str(pair[0]), str(pair[1]))
    data = json.loads(proc.stdout)
    assert data["version"] == 1
    (change,) = data["changes"]
    assert {k: change[k] for k in ("op", "path", "id", "old", "new")} == {
        "op": "change", "path": "/todoList/items/1/status", "id": "t2",
        "old": "inProgress", "new": "completed",
    }  # fmt: skip
    assert data["files"] == [{"path": str(pair[1]), "status": "modified", "changes": 1}]


def test_markdown_output(pair: tuple[Path, Path]) -> None:
    out = run_cli("diff", "--format", "markdown", str(pair[0]), str(pair[1])).stdout.decode()
    assert "**`todoList.items[t2]`** — B" in out
    assert "`inProgress` → `completed`" in out


def test_colour_always_never_and_no_color(pair: tuple[Path, Path]) -> None:
    args = ("diff", str(pair[0]), str(pair[1]))
    assert b"\x1b[" in run_cli(*args, "--color", "always").stdout
    assert b"\x1b[" not in run_cli(*args, "--color", "never").stdout
    assert b"\x1b[" not in run_cli(*args).stdout  # auto, and stdout is a pipe
    assert b"\x1b[" not in run_cli(*args, env={"NO_COLOR": "1", "GIT_PAGER_IN_USE": "1"}).stdout
    assert b"\x1b[" in run_cli(*args, env={"GIT_PAGER_IN_USE": "true"}).stdout


def test_same_data_in_another_layout_is_no_difference(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.vcontext.json", OLD)
    b = tmp_path / "b.vcontext.json"
    b.write_text(json.dumps(OLD, sort_keys=True, separators=(",", ":")))
    proc = run_cli("diff", "--exit-code", str(a), str(b))
    assert proc.returncode == 0
    assert proc.stdout == b""


def test_a_file_that_does_not_parse_gets_a_line_diff_and_a_note(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.vcontext.json", OLD)
    b = tmp_path / "b.vcontext.json"
    b.write_text('{"vContextInfo": {"version": "0.4"},\n<<<<<<< ours\n')
    proc = run_cli("diff", "--exit-code", str(a), str(b))
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    out = proc.stdout.decode()
    assert "! not a structural diff:" in out
    assert "conflict markers" in out
    assert "\n+<<<<<<< ours\n" in out


def test_missing_file_is_an_operational_error(tmp_path: Path, git_repo: Path) -> None:
    a = _write(tmp_path, "a.vcontext.json", OLD)
    proc = run_cli("diff", str(a), str(tmp_path / "missing.json"), cwd=git_repo)
    assert proc.returncode == ExitCode.OPERATIONAL
    assert proc.stderr.count(b"\n") == 1
    assert b"missing.json: no such file" in proc.stderr


def test_added_file_against_dev_null_lists_every_item(tmp_path: Path) -> None:
    b = _write(tmp_path, "b.vcontext.json", NEW)
    out = run_cli("diff", "/dev/null", str(b)).stdout.decode().splitlines()
    assert out[1] == "new file"
    assert 'todoList.items[t2]: + "B" [completed]' in out


# -- git's external-diff forms, called directly ------------------------------------------


PERSON = {"GIT_PAGER_IN_USE": "true", "NO_COLOR": "1"}  # into git's pager: the structural view


def test_seven_argument_form_always_exits_0(pair: tuple[Path, Path]) -> None:
    old, new = pair
    args = ["t.vcontext.json", str(old), "a" * 40, "100644", str(new), "b" * 40, "100644"]
    proc = run_cli("diff", *args, env=PERSON)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "diff --vcontext a/t.vcontext.json b/t.vcontext.json",
        "todoList.items[t2].status: inProgress → completed",
    ]
    broken = run_cli(
        "diff", "x.vcontext.json", "/nonexistent", ".", ".", str(new), "b" * 40, "100644"
    )
    assert broken.returncode == 0


def test_nine_argument_form_shows_the_rename(pair: tuple[Path, Path]) -> None:
    old, new = pair
    info = "similarity index 90%\nrename from a.vcontext.json\nrename to b.vcontext.json\n"
    proc = run_cli(
        "diff",
        "a.vcontext.json",
        str(old),
        "a" * 40,
        "100644",
        str(new),
        "b" * 40,
        "100644",
        "b.vcontext.json",
        info,
        env=PERSON,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[:3] == [
        "diff --vcontext a/a.vcontext.json b/b.vcontext.json",
        "rename from a.vcontext.json",
        "rename to b.vcontext.json",
    ]


def test_external_form_falls_back_to_a_line_diff_for_other_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one\ntwo\n")
    b.write_text("one\nthree\n")
    proc = run_cli("diff", "notes.txt", str(a), ".", "100644", str(b), ".", "100644")
    assert proc.returncode == 0
    assert "-two\n+three\n" in proc.stdout.decode()


def test_one_argument_unmerged_form(tmp_path: Path) -> None:
    proc = run_cli(
        "diff", "todo.vcontext.json", env={"GIT_DIFF_PATH_COUNTER": "1", "GIT_DIFF_PATH_TOTAL": "1"}
    )
    assert proc.returncode == 0
    assert proc.stdout == b"* Unmerged path todo.vcontext.json\n"


# -- textconv --------------------------------------------------------------------------


def test_textconv_prints_canonical_lines(pair: tuple[Path, Path]) -> None:
    proc = run_cli("textconv", str(pair[1]))
    assert proc.returncode == 0, proc.stderr
    assert 'todoList.items[t2].status = "completed"\n' in proc.stdout.decode()


def test_textconv_of_an_unparsable_file_prints_it_unchanged(tmp_path: Path) -> None:
    raw = b'{"broken": \xff [\n<<<<<<< ours\n'
    path = tmp_path / "x.vcontext.json"
    path.write_bytes(raw)
    proc = run_cli("textconv", str(path))
    assert proc.returncode == 0
    assert proc.stdout == raw
    assert proc.stderr == b""


def test_textconv_of_a_missing_file_is_an_operational_error(tmp_path: Path) -> None:
    proc = run_cli("textconv", str(tmp_path / "nope.json"))
    assert proc.returncode == ExitCode.OPERATIONAL
    assert b"no such file" in proc.stderr


def test_textconv_reads_git_temp_files_without_a_telling_name(tmp_path: Path) -> None:
    path = tmp_path / "XXXXXX_blob"
    path.write_text('{"event_id": "e1", "a": 1}\n{"event_id": "e2", "a": 2}\n')
    assert run_cli("textconv", str(path)).stdout.decode().startswith('[e1].event_id = "e1"\n')


def test_an_emptied_file_reads_like_a_deleted_one(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.vcontext.json", NEW)
    empty = tmp_path / "b.vcontext.json"
    empty.write_text("\n")
    out = run_cli("diff", str(a), str(empty)).stdout.decode().splitlines()
    assert out[0] == f"diff --vcontext a{a} b{empty}"  # absolute paths as git --no-index shows them
    assert 'todoList.items[t2]: − "B" [completed]' in out
    assert run_cli("textconv", str(empty)).stdout == b"\n"


def test_an_empty_file_against_an_empty_object_is_a_difference_validate_agrees_with(
    tmp_path: Path,
) -> None:
    """validate calls an empty file unparsable: diff says the empty side is no document, and
    ``--exit-code`` finds a difference where ``{}`` stands on the other side."""
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    obj = tmp_path / "obj.json"
    obj.write_text("{}\n")
    assert run_cli("validate", str(empty)).returncode == ExitCode.FOUND
    for old, new, side in ((empty, obj, "a"), (obj, empty, "b")):
        proc = run_cli("diff", "--exit-code", str(old), str(new))
        assert proc.returncode == ExitCode.FOUND
        out = proc.stdout.decode().splitlines()
        assert out[1] == (
            f"! {side}{empty} is an empty file: no document "
            "(git vcontext validate: empty document [parse]); diffed as absent"
        )
        report = json.loads(run_cli("diff", "--format", "json", str(old), str(new)).stdout)
        assert "is an empty file: no document" in report["files"][0]["note"]
    assert run_cli("diff", "--exit-code", str(empty), str(empty)).returncode == ExitCode.OK


def test_the_same_data_in_json_and_tron_is_no_difference(tmp_path: Path) -> None:
    pytest.importorskip("git_vcontext.codecs.tron")
    from git_vcontext import dumps

    a = _write(tmp_path, "a.vcontext.json", OLD)
    b = tmp_path / "a.vcontext.tron"
    b.write_text(dumps(OLD, "tron"))
    proc = run_cli("diff", "--exit-code", str(a), str(b))
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert run_cli("textconv", str(a)).stdout == run_cli("textconv", str(b)).stdout
    b.write_text(dumps(NEW, "tron"))
    changed = run_cli("diff", str(a), str(b)).stdout.decode()
    assert "todoList.items[t2].status: inProgress → completed" in changed


def _numbers_doc(tmp_path: Path, name: str, estimate: str) -> Path:
    path = tmp_path / name
    path.write_text(
        '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": '
        f'[{{"id": "t1", "title": "A", "status": "pending", "estimate": {estimate}}}]}}}}\n'
    )
    return path


def test_diff_and_textconv_show_numbers_as_spelled(tmp_path: Path) -> None:
    """PRODUCT.md Formats (number spelling): two decimals one double holds are a change, shown
    digit for digit; 1.5 re-spelled 1.50 is no change."""
    old = _numbers_doc(tmp_path, "old.json", "3.141592653589793")
    new = _numbers_doc(tmp_path, "new.json", "3.141592653589793238462643383279")
    proc = run_cli("diff", str(old), str(new), "--exit-code")
    assert proc.returncode == ExitCode.FOUND, proc.stderr
    assert "3.141592653589793 → 3.141592653589793238462643383279" in proc.stdout.decode()
    report = json.loads(run_cli("diff", "--format", "json", str(old), str(new)).stdout)
    assert [c["new"] for c in report["changes"]] == [3.141592653589793]  # what json.loads reads
    assert (
        b'"new": 3.141592653589793238462643383279'
        in run_cli("diff", "--format", "json", str(old), str(new)).stdout
    )
    assert b"estimate = 3.141592653589793238462643383279" in run_cli("textconv", str(new)).stdout
    same_a = _numbers_doc(tmp_path, "a.json", "1.5")
    same_b = _numbers_doc(tmp_path, "b.json", "1.50")
    assert run_cli("diff", str(same_a), str(same_b), "--exit-code").returncode == 0


def test_stat_of_an_added_or_deleted_file_counts_everything_as_added_or_removed(
    tmp_path: Path,
) -> None:
    """Sets and lists filled from empty counted as "changed": "3 added, 2 changed (added)" here."""
    doc = {**NEW, "vContextInfo": {"version": "0.4", "metadata": {"extensions": ["a", "b"]}}}
    doc["todoList"] = {**NEW["todoList"], "tags": ["x", "y"]}
    path = _write(tmp_path, "doc.vcontext.json", doc)
    added = run_cli("diff", "--stat", "/dev/null", str(path)).stdout.decode()
    assert added.endswith("| 5 changes: 5 added (new file)\n"), added
    gone = run_cli("diff", "--stat", str(path), "/dev/null").stdout.decode()
    assert gone.endswith("| 5 changes: 5 removed (deleted file)\n"), gone


def test_a_missing_file_outside_a_repository_is_named(tmp_path: Path) -> None:
    """It said "not a git repository": with one existing file, the other is a file too."""
    real = _write(tmp_path, "a.vcontext.json", OLD)
    for args in ([str(real), "missing.json"], ["missing.json", str(real)]):
        proc = run_cli("diff", *args, cwd=tmp_path)
        assert proc.returncode == ExitCode.OPERATIONAL
        assert proc.stderr == b"git-vcontext: error: missing.json: no such file\n"


def test_path_names_two_temporary_files_as_git_knows_them(pair: tuple[Path, Path]) -> None:
    proc = run_cli("diff", "--path", "memory/todo.vcontext.json", str(pair[0]), str(pair[1]))
    head = proc.stdout.decode().splitlines()[0]
    assert head == "diff --vcontext a/memory/todo.vcontext.json b/memory/todo.vcontext.json"
    assert run_cli("diff", "--path", "x.json", "HEAD").returncode == ExitCode.USAGE


def test_process_substitution_is_a_file_inside_and_outside_a_repository(
    pair: tuple[Path, Path], git_repo: Path, tmp_path: Path
) -> None:
    """Command-line contract: two arguments that both exist are files. An old version
    read from git, ``git vcontext diff <(git show REV:FILE) FILE``, is a pipe
    (``/dev/fd/N``), not a regular file: it said "no such file"."""
    for cwd in (tmp_path, git_repo):
        proc = subprocess.run(
            ["bash", "-c", 'exec "$@" diff <(cat "$OLD") "$NEW"', "bash", *cli_path()],
            cwd=cwd,
            capture_output=True,
            env={**os.environ, "OLD": str(pair[0]), "NEW": str(pair[1])},
        )
        assert proc.returncode == 0, proc.stderr
        assert "todoList.items[t2].status: inProgress → completed" in proc.stdout.decode()
