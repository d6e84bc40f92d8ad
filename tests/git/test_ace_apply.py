"""``git vcontext ace apply`` in real repositories: the base version is found in git history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, run_git

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _plan(sequence: int, helpful: int = 12, text: str = "Validate early") -> dict[str, Any]:
    return {
        "vAgendaInfo": {"version": "0.2"},
        "plan": {
            "id": "plan-003",
            "title": "API development patterns",
            "status": "completed",
            "sequence": sequence,
            "playbook": {
                "version": 1,
                "created": "2024-12-27T09:00:00Z",
                "updated": "2024-12-27T15:00:00Z",
                "entries": [
                    {"id": "entry-1", "kind": "strategy", "text": "Test first",
                     "helpfulCount": helpful, "harmfulCount": 0, "status": "active"},
                    {"id": "entry-2", "kind": "learning", "text": text, "status": "active"},
                ],
            },
        },
    }  # fmt: skip


def _entries(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    return {e["id"]: e for e in data["plan"]["playbook"]["entries"]}


def _commit(repo: Path, path: Path, data: Any, message: str) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")
    run_git(repo, "add", path.name)
    run_git(repo, "commit", "-qm", message)


def _apply(repo: Path, patch: Any, doc: str = "plan.vcontext.json") -> tuple[int, str, str]:
    (repo / "patch.json").write_text(json.dumps(patch))
    proc = run_cli("ace", "apply", "patch.json", doc, cwd=repo, env=EPOCH)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


INCREMENT = {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}}
APPEND = {"op": "appendEntry", "entry": {"id": "entry-3", "kind": "warning", "text": "Avoid it"}}


@pytest.fixture
def moved_on(git_repo: Path) -> Path:
    """A plan committed at sequence 12, then moved on to 13 (entry-1 got 2 more helpful)."""
    path = git_repo / "plan.vcontext.json"
    _commit(git_repo, path, _plan(12), "at 12")
    _commit(git_repo, path, _plan(13, helpful=14), "at 13")
    return path


def test_patch_at_the_current_sequence_applies_and_bumps_it(git_repo: Path) -> None:
    path = git_repo / "plan.vcontext.json"
    _commit(git_repo, path, _plan(12), "at 12")
    code, out, _ = _apply(git_repo, {"baseDocumentSequence": 12, "operations": [INCREMENT, APPEND]})
    assert code == 0 and "sequence 12 -> 13" in out
    entries = _entries(path)
    assert entries["entry-1"]["helpfulCount"] == 13 and "entry-3" in entries
    assert json.loads(path.read_text())["plan"]["sequence"] == 13


def test_patch_without_a_guard_applies(tmp_path: Path) -> None:
    """No baseDocumentSequence: no history needed (not even a repository)."""
    path = tmp_path / "plan.vcontext.json"
    path.write_text(json.dumps(_plan(3), indent=2))
    code, _, err = _apply(tmp_path, {"operations": [INCREMENT]})
    assert code == 0, err
    assert _entries(path)["entry-1"]["helpfulCount"] == 13


def test_m10_concurrent_patch_is_merged_3_way_from_the_base_in_history(moved_on: Path) -> None:
    repo = moved_on.parent
    code, out, err = _apply(repo, {"baseDocumentSequence": 12, "operations": [INCREMENT, APPEND]})
    assert code == 0, err
    assert "merged 3-way from sequence 12 into 13" in out
    entries = _entries(moved_on)
    assert entries["entry-1"]["helpfulCount"] == 15  # 12 + (14 - 12) + (13 - 12)
    assert "entry-3" in entries
    assert json.loads(moved_on.read_text())["plan"]["sequence"] == 14  # M8


def test_a_linked_document_finds_its_base_in_the_history_of_its_target(moved_on: Path) -> None:
    """``work.vcontext.json`` -> ``plan.vcontext.json``: history and the write follow the link."""
    repo = moved_on.parent
    (repo / "work.vcontext.json").symlink_to(moved_on.name)
    patch = {"baseDocumentSequence": 12, "operations": [INCREMENT]}
    code, out, err = _apply(repo, patch, doc="work.vcontext.json")
    assert code == 0, err
    assert "merged 3-way from sequence 12 into 13" in out
    assert (repo / "work.vcontext.json").is_symlink()
    assert _entries(moved_on)["entry-1"]["helpfulCount"] == 15


def test_conflicting_update_lists_the_operation_and_leaves_the_file(git_repo: Path) -> None:
    path = git_repo / "plan.vcontext.json"
    _commit(git_repo, path, _plan(12), "at 12")
    _commit(git_repo, path, _plan(13, text="Validate at the boundary"), "at 13")
    before = path.read_bytes()
    update = {"op": "updateEntry", "entryId": "entry-2", "entry": {"text": "Validate late"}}
    code, _, err = _apply(git_repo, {"baseDocumentSequence": 12, "operations": [INCREMENT, update]})
    assert code == 1 and path.read_bytes() == before
    assert "operations[1] updateEntry entry-2 conflicts at /plan/playbook/entries/1/text" in err
    assert err.count("\n") == 1


def test_unknown_base_sequence_exits_1(moved_on: Path) -> None:
    before = moved_on.read_bytes()
    code, _, err = _apply(moved_on.parent, {"baseDocumentSequence": 7, "operations": [INCREMENT]})
    assert code == 1 and "no committed version has sequence 7" in err
    assert "operations[0] incrementCounter entry-1" in err and moved_on.read_bytes() == before


def test_without_history_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "plan.vcontext.json"
    path.write_text(json.dumps(_plan(13)))
    before = path.read_bytes()
    code, _, err = _apply(tmp_path, {"baseDocumentSequence": 12, "operations": [INCREMENT]})
    assert code == 1 and "no git history" in err and path.read_bytes() == before


def test_uncommitted_file_in_a_repository_has_no_history(git_repo: Path) -> None:
    path = git_repo / "plan.vcontext.json"
    path.write_text(json.dumps(_plan(13)))
    code, _, err = _apply(git_repo, {"baseDocumentSequence": 12, "operations": [INCREMENT]})
    assert code == 1 and "no committed version" in err


def test_history_versions_that_do_not_parse_are_skipped(git_repo: Path) -> None:
    path = git_repo / "plan.vcontext.json"
    _commit(git_repo, path, _plan(12), "at 12")
    path.write_text("{ broken")
    run_git(git_repo, "commit", "-qam", "oops")
    _commit(git_repo, path, _plan(13, helpful=14), "at 13")
    code, _, err = _apply(git_repo, {"baseDocumentSequence": 12, "operations": [INCREMENT]})
    assert code == 0, err
    assert _entries(path)["entry-1"]["helpfulCount"] == 15


@pytest.mark.parametrize(
    ("patch", "words"),
    [
        ({"operations": [{"op": "explode"}]}, "unknown op"),
        ({"operations": [{**INCREMENT, "entryId": "nope"}]}, "no entry nope"),
        ([1, 2], "not an AcePatch"),
    ],
)
def test_bad_patches_exit_1_untouched(git_repo: Path, patch: Any, words: str) -> None:
    path = git_repo / "plan.vcontext.json"
    _commit(git_repo, path, _plan(12), "at 12")
    before = path.read_bytes()
    code, _, err = _apply(git_repo, patch)
    assert code == 1 and words in err and path.read_bytes() == before


def test_event_log_playbooks_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "pb.vcontext.json"
    log = [
        {
            "eventId": "e",
            "targetId": "t",
            "operation": "append",
            "createdAt": "2025-01-01T00:00:00Z",
        }
    ]
    path.write_text(json.dumps({"playbook": {"items": log}}))
    code, _, err = _apply(tmp_path, {"operations": [INCREMENT]}, doc="pb.vcontext.json")
    assert code == 1 and "git vcontext playbook" in err


def test_patch_file_that_does_not_parse(tmp_path: Path) -> None:
    (tmp_path / "plan.vcontext.json").write_text(json.dumps(_plan(1)))
    (tmp_path / "patch.json").write_text("{nope")
    proc = run_cli("ace", "apply", "patch.json", "plan.vcontext.json", cwd=tmp_path)
    assert proc.returncode == 1 and b"patch.json:1:" in proc.stderr
