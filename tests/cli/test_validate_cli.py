"""``git vcontext validate`` as a process: tracked files, paths, directories, formats, exits."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers.run import cli_path, run_cli, run_git
from helpers.seed_examples import seed_example

VALID = '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}\n'
INVALID = """{
  "vContextInfo": {"version": "0.4"},
  "todoList": {"items": [{"id": "t1", "title": "A", "status": "done"}]}
}
"""
TRON_INVALID = 'vContextInfo: {version: "0.3"}\ntodoList: {items: []}\n'
EVENT = {"event_id": "evt-e1", "event_type": "mail.sent", "timestamp": "2026-01-06T12:00:00.000Z"}
MAIL = {"message_id": "m1", "from": "a", "to": "b", "subject": "HELP"}
EVENTS = json.dumps({**EVENT, "actor": "a", "data": MAIL}) + "\n"


def _validate(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = run_cli("validate", *args, cwd=cwd)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _repo(git_repo: Path) -> Path:
    files = {
        "docs/good.vcontext.json": VALID,
        "docs/bad.vcontext.json": INVALID,
        "notes/old.vcontext.tron": TRON_INVALID,
        ".work/events.jsonl": EVENTS + EVENTS,
        "sniffed/plain.json": VALID,  # no telling name: found by its root key
        "package.json": '{"name": "x"}\n',  # not vContext: ignored without paths
        "untracked.vcontext.json": INVALID,  # not tracked: ignored without paths
    }
    for name, text in files.items():
        path = git_repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    run_git(git_repo, "add", "--", *[n for n in files if not n.startswith("untracked")])
    return git_repo


def test_no_paths_validates_every_tracked_vcontext_file(git_repo: Path) -> None:
    """The tracked files of the vContext file set (PRODUCT.md "Validation": install's patterns
    plus .gitattributes, the same set as the hook's). A tracked document outside the set
    is named in a note, not checked: the hook would not check it either (it was checked,
    found by its root key, before the contract named one set)."""
    repo = _repo(git_repo)
    code, out, err = _validate("--format", "json", cwd=repo)
    assert code == 1
    files = {f["path"]: f for f in json.loads(out)["files"]}
    assert set(files) == {
        ".work/events.jsonl",
        "docs/bad.vcontext.json",
        "docs/good.vcontext.json",
        "notes/old.vcontext.tron",
    }
    assert files["docs/good.vcontext.json"] == {
        "path": "docs/good.vcontext.json",
        "valid": True,
        "errors": [],
    }
    (error,) = files["docs/bad.vcontext.json"]["errors"]
    assert error["rule"] == "schema"
    assert error["pointer"] == "/todoList/items/0/status"
    assert [e["rule"] for e in files[".work/events.jsonl"]["errors"]] == ["unique-event-id"]
    assert [e["rule"] for e in files["notes/old.vcontext.tron"]["errors"]] == ["version"]
    assert "3 of 4 file(s) invalid" in err
    assert "1 tracked file(s) look like vContext documents" in err
    assert "sniffed/plain.json" in err
    assert "1 untracked vContext file(s) not checked: untracked.vcontext.json" in err


def test_files_gitattributes_routes_to_the_driver_are_validated(git_repo: Path) -> None:
    """PRODUCT.md "Validation": a user's own pattern (vbrief/**/*.json merge=vcontext) counts."""
    repo = _repo(git_repo)
    (repo / ".gitattributes").write_text(
        "vbrief/**/*.json merge=vcontext\nsniffed/* merge=vcontext\n"
    )
    (repo / "vbrief" / "deep").mkdir(parents=True)
    (repo / "vbrief" / "deep" / "plan.json").write_text(INVALID)
    run_git(repo, "add", "-A")
    code, out, err = _validate("--format", "json", cwd=repo)
    files = {f["path"]: f["valid"] for f in json.loads(out)["files"]}
    assert files["vbrief/deep/plan.json"] is False
    assert files["sniffed/plain.json"] is True
    assert code == 1
    assert "look like vContext documents" not in err
    code, out, _ = _validate("vbrief", cwd=repo)  # a directory: the set's files under it
    assert code == 1
    assert out.startswith("vbrief/deep/plan.json:3:53: ")


def test_untracked_documents_are_counted_or_checked_with_untracked(git_repo: Path) -> None:
    repo = _repo(git_repo)
    (repo / "docs" / "bad.vcontext.json").write_text(VALID)
    (repo / ".work" / "events.jsonl").write_text(EVENTS)
    (repo / "notes" / "old.vcontext.tron").write_text(VALID)
    code, out, err = _validate(cwd=repo)
    assert (code, out) == (0, "")
    assert "untracked vContext file(s) not checked: untracked.vcontext.json" in err
    assert "validate --untracked" in err
    code, out, err = _validate("--untracked", cwd=repo)
    assert code == 1
    assert out.startswith("untracked.vcontext.json:3:53: ")
    assert "untracked" not in err
    code, _, err = _validate("--untracked", "docs", cwd=repo)
    assert code == 2
    assert "--untracked" in err


def test_a_config_among_the_documents_is_skipped_with_a_note(git_repo: Path) -> None:
    """PRODUCT.md "Validation": a JSON file inside the patterns that is not a vContext
    document (.vcontext/config.json) is skipped with a note, not refused."""
    repo = _repo(git_repo)
    (repo / ".vcontext").mkdir()
    (repo / ".vcontext" / "config.json").write_text('{"agents": ["a", "b"], "theme": "dark"}\n')
    (repo / ".vcontext" / "broken.json").write_text('{"todoList": {"items": []}}\n')
    run_git(repo, "add", "-A")
    code, out, _ = _validate(".vcontext/config.json", ".vcontext/broken.json", cwd=repo)
    assert code == 1
    assert ".vcontext/config.json: skipped: not a vContext document (" in out
    assert ".vcontext/broken.json:1:1: no vContextInfo at the top" in out  # a document
    code, out, _ = _validate(".vcontext/config.json", "--format", "json", cwd=repo)
    (report,) = json.loads(out)["files"]
    assert code == 0
    assert report["valid"]
    assert report["checked"] is False
    assert report["skipped"]
    code, out, _ = _validate("package.json", cwd=repo)  # named, outside the set: judged
    assert code == 1
    assert "[not-vcontext]" in out


def test_text_format_is_file_line_col_where_message_rule(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, _ = _validate("docs/bad.vcontext.json", cwd=repo)
    assert code == 1
    assert out.startswith("docs/bad.vcontext.json:3:53: todoList.items[t1].status: ")
    assert out.rstrip().endswith("[schema]")


def test_paths_are_shown_relative_to_the_current_directory(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, _ = _validate(cwd=repo / "docs")
    assert code == 1
    assert "../.work/events.jsonl:2:" in out
    assert "bad.vcontext.json:3:53:" in out


def test_all_valid_exits_0_and_prints_nothing(git_repo: Path) -> None:
    repo = _repo(git_repo)
    assert _validate("docs/good.vcontext.json", "sniffed/plain.json", cwd=repo) == (0, "", "")


def test_a_directory_means_its_vcontext_files(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, _ = _validate("docs", "notes", "--format", "json", cwd=repo)
    paths = [f["path"] for f in json.loads(out)["files"]]
    assert paths == ["docs/bad.vcontext.json", "docs/good.vcontext.json", "notes/old.vcontext.tron"]
    assert code == 1


def test_an_explicit_non_vcontext_file_is_said_so(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, err = _validate("package.json", cwd=repo)
    assert code == 1
    assert "not a vContext document" in out
    assert "[not-vcontext]" in out
    assert "Traceback" not in err


def test_missing_file_exits_3_after_checking_the_others(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, err = _validate("nope.vcontext.json", "docs/good.vcontext.json", cwd=repo)
    assert code == 3
    assert out == ""
    assert "nope.vcontext.json: no such file" in err


def test_a_lone_missing_file_is_one_error_line(git_repo: Path) -> None:
    repo = _repo(git_repo)
    code, out, err = _validate("nope.vcontext.json", cwd=repo)
    assert (code, out) == (3, "")
    assert err == "git-vcontext: error: nope.vcontext.json: no such file\n"


def test_no_paths_outside_a_repository_is_an_operational_error(tmp_path: Path) -> None:
    code, out, err = _validate(cwd=tmp_path)
    assert code == 3
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_broken_files_are_findings_not_tracebacks(tmp_path: Path) -> None:
    (tmp_path / "with space.vcontext.json").write_text('{"vContextInfo": ')
    (tmp_path / "empty.vcontext.tron").write_text("")
    markers = "{\n<<<<<<< ours\n}\n=======\n}\n>>>>>>> theirs\n"
    (tmp_path / "markers.vcontext.json").write_text(markers)
    code, out, err = _validate(".", cwd=tmp_path)
    assert code == 1
    assert "Traceback" not in err
    assert "./with space.vcontext.json:1:18: " in out
    assert "[parse]" in out
    assert "./empty.vcontext.tron:1:1: empty document [parse]" in out
    assert "./markers.vcontext.json:2:1: " in out
    assert "[conflict-markers]" in out


def test_stdin(tmp_path: Path) -> None:
    proc = run_cli("validate", "-", cwd=tmp_path, input=INVALID.encode())
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("-:3:53: ")


def test_skipped_checks_are_reported(tmp_path: Path) -> None:
    doc = {"vBRIEFInfo": {"version": "0.6"}, "plan": {"title": "P", "status": "s", "items": []}}
    (tmp_path / "p.vbrief.json").write_text(json.dumps(doc))
    code, out, _ = _validate("p.vbrief.json", cwd=tmp_path)
    assert code == 0
    assert "p.vbrief.json: skipped: schema: no bundled schema for vBRIEF 0.6" in out
    code, out, _ = _validate("p.vbrief.json", "--format", "json", cwd=tmp_path)
    assert json.loads(out)["files"][0]["skipped"]


def test_a_directory_holding_a_fifo_named_like_a_document_does_not_block(tmp_path: Path) -> None:
    """Walking a directory reads regular files only: a FIFO would block the read forever."""
    (tmp_path / "bad.vcontext.json").write_text(INVALID)
    os.mkfifo(tmp_path / "pipe.vcontext.json")
    proc = subprocess.run(
        [*cli_path(), "validate", str(tmp_path)], capture_output=True, timeout=30, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert b"bad.vcontext.json" in proc.stdout
    assert b"pipe" not in proc.stdout + proc.stderr


def test_tracked_files_whose_names_are_not_utf8_are_validated_and_named_as_bytes(
    git_repo: Path,
) -> None:
    name = os.fsdecode(b"bad-\xff.vcontext.json")
    (git_repo / name).write_text(INVALID)
    run_git(git_repo, "add", "--", name)
    proc = run_cli("validate", cwd=git_repo, env={"PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(b"bad-\xff.vcontext.json:")
    assert b"[" in proc.stdout


@pytest.mark.parametrize(
    ("heading", "lang"),
    [("JSON: playbook embedded in a Plan", "json"), ("TRON: playbook embedded in a Plan", "tron")],
    ids=["json", "tron"],
)
def test_seed_001s_plan_example_validates_with_a_narrative_object_note(
    tmp_path: Path, shared_dir: Path, heading: str, lang: str
) -> None:
    """Issue 26, point 9; PRODUCT.md "Validation": seed 001's own plan example writes
    narratives.proposal as {title, content}: accepted, with a note suggesting the string."""
    name = f"plan.vcontext.{lang}"
    (tmp_path / name).write_text(seed_example(shared_dir, "001", heading, lang))

    code, out, err = _validate(name, "--format", "json", cwd=tmp_path)

    assert code == 0, out + err
    (report,) = json.loads(out)["files"]
    assert report["valid"] is True
    assert [(n["rule"], n["pointer"]) for n in report["notes"]] == [
        ("narrative-object", "/plan/narratives/proposal")
    ]
    assert "string form" in report["notes"][0]["message"]


@pytest.mark.parametrize(
    "value",
    [{"title": "Only a title"}, {"title": "T", "content": 3}, 42, ["a"]],
    ids=["no-content", "content-not-text", "number", "array"],
)
def test_a_narrative_that_is_neither_text_nor_title_and_content_is_refused(
    tmp_path: Path, value: object
) -> None:
    data = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"title": "p", "status": "draft", "narratives": {"proposal": value}},
    }
    (tmp_path / "p.vcontext.json").write_text(json.dumps(data, indent=2))
    code, out, _ = _validate("p.vcontext.json", cwd=tmp_path)
    assert code == 1
    assert "plan.narratives.proposal" in out
    assert "[schema]" in out
