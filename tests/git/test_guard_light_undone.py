"""The guard's light path on the undone-sync-merge rule (``prepush.undone``; PRODUCT.md "The
remote guards itself", issue 28: "the guard must not slow sync --push down"): a document
the commit made on a sync merge left exactly as the merge made it keeps all the merge
brought, so its records are not read (parsed and walked) to say so; one it changed still
is, and one that drops all the merge brought still goes to the full check. Objects
written by real git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from git_vcontext.branches.commits import TRAILER
from git_vcontext.prepush.cache import VerdictCache
from git_vcontext.prepush.light import Light
from helpers.run import bare_repository, run_git

TODO = "todo.vcontext.json"
PLAN = "plan.vcontext.json"


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path)


def _doc(ids: list[str]) -> str:
    items = [{"id": i, "title": i, "status": "pending"} for i in ids]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}) + "\n"


def _commit(bare: Path, files: dict[str, str], parents: list[str], message: str) -> str:
    lines = []
    for name, text in sorted(files.items()):
        blob = bare.parent / "blob"
        blob.write_text(text)
        oid = run_git(bare, "hash-object", "-w", str(blob)).stdout.strip()
        lines.append(f"100644 blob {oid}\t{name}\n")
    done = subprocess.run(
        ["git", "mktree"], cwd=bare, input="".join(lines), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    args = [a for p in parents for a in ("-p", p)]
    return run_git(bare, "commit-tree", done.stdout.strip(), *args, "-m", message).stdout.strip()


def _on_a_sync_merge(bare: Path, after: dict[str, str]) -> str:
    """A commit with ``after``'s files made on a sync merge that brought t2 into both
    documents."""
    before = _commit(bare, {TODO: _doc(["t1"]), PLAN: _doc(["p1"])}, [], "start")
    other = _commit(bare, {TODO: _doc(["t1", "t2"]), PLAN: _doc(["p1", "t2"])}, [before], "o")
    merged = {TODO: _doc(["t1", "t2"]), PLAN: _doc(["p1", "t2"])}
    message = f"vcontext sync: merge main into agents/a\n\n{TRAILER}: main\n"
    merge = _commit(bare, merged, [before, other], message)
    return _commit(bare, {**merged, **after}, [merge], "round")


def _read(bare: Path, commit: str, monkeypatch: pytest.MonkeyPatch) -> tuple[bool, list[str]]:
    light = Light(str(bare), VerdictCache.open(str(bare)))
    read: list[str] = []
    keys = Light._keys

    def spy(
        self: Light, tree: str, path: str, *, strict: bool = False
    ) -> dict[tuple[str, str | bytes], str]:
        read.append(path)
        return keys(self, tree, path, strict=strict)

    monkeypatch.setattr(Light, "_keys", spy)
    return light._not_undoing(light.objects.commit(commit)), read


def test_a_document_left_as_the_merge_made_it_is_not_read(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _on_a_sync_merge(bare, {TODO: _doc(["t1", "t2", "t3"])})  # the plan untouched

    clean, read = _read(bare, commit, monkeypatch)

    assert clean
    assert PLAN not in read
    assert TODO in read


def test_a_commit_dropping_all_the_merge_brought_still_goes_to_the_full_check(
    bare: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _on_a_sync_merge(bare, {TODO: _doc(["t1"])})  # t2 gone from the todo list

    clean, read = _read(bare, commit, monkeypatch)

    assert not clean
    assert TODO in read
