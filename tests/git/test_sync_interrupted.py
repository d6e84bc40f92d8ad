"""A ``sync --push`` killed between moving the checked-out branch and updating its work tree.

PRODUCT.md, "Sync at scale": killed there, the next sync (or any command touching the
repository) finishes that update, never advises committing the files it left behind,
and never publishes a commit that drops items the agent did not touch without saying
so (issue 31, point 2). Real git, a real bare remote, real kill -9 (the product's own
kill points: ``git_vcontext.faults``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers import soak
from helpers.faults import kill_env, obey, sync_push
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the bare remote, agent-0's clone, agent-1's clone), hooks installed."""
    remote, (a0, a1) = soak.setup(tmp_path, 2)
    return remote, a0, a1


def _killed_before_following(team: tuple[Path, Path, Path], tmp: Path) -> tuple[Any, Any]:
    """agent-1 lands a round; agent-0's round is killed right after its branches moved,
    before its work tree followed. Returns both agents' logs."""
    _, a0, a1 = team
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    soak.work(a1, "agent-1", 0, log1, playbook=False)
    assert sync_push(a1, "agent-1").returncode == 0
    soak.work(a0, "agent-0", 0, log0, playbook=False)
    killed = sync_push(a0, "agent-0", kill_env(at="git read-tree -m", log=tmp / "steps"))
    assert killed.returncode == -9, killed.stdout + killed.stderr
    staged = soak.git(a0, "diff", "--cached", "--name-only").stdout
    assert soak.TODO in staged  # the old files, staged against the moved branch
    return log0, log1


def _base_items(remote: Path, where: Path) -> list[str]:
    docs = soak.base_documents(remote, where)
    return [i["id"] for i in docs[soak.TODO]["todoList"]["items"]]


def _fsck_clean(*repos: Path) -> None:
    for repo in repos:
        out = soak.git(repo, "fsck", "--no-dangling", check=False)
        assert out.returncode == 0, (repo, out.stderr)
        assert not out.stderr.strip(), (repo, out.stderr)


def test_sync_at_scale_killed_before_the_work_tree_followed_the_next_sync_finishes_it(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    remote, a0, a1 = team
    log0, log1 = _killed_before_following(team, tmp_path)

    again = sync_push(a0, "agent-0")

    said = again.stdout + again.stderr
    assert again.returncode == 0, said
    assert "finished updating the work tree" in said
    assert "commit or stash" not in said
    assert soak.git(a0, "status", "--porcelain").stdout == ""
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items) <= set(items)
    _fsck_clean(a0, a1, remote)


def test_sync_at_scale_status_finishes_an_interrupted_update(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Any command touching the repository: here ``status``."""
    _, a0, _ = team
    _killed_before_following(team, tmp_path)

    out = subprocess.run([*soak.cli(), "status"], cwd=a0, capture_output=True, text=True)

    assert out.returncode == 0, out.stderr
    assert "finished updating the work tree" in out.stderr
    assert soak.git(a0, "status", "--porcelain").stdout == ""
    assert not list((a0 / ".git" / "vcontext" / "follow").glob("*.json"))


def test_sync_at_scale_a_commit_made_on_the_files_left_behind_is_replayed_on_the_merge(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The old advice's outcome (commit the leftovers, with an edit of one's own): the next
    sync replays that commit on top of what the interrupted sync merged."""
    remote, a0, a1 = team
    log0, log1 = _killed_before_following(team, tmp_path)
    soak.work(a0, "agent-0", 1, log0, playbook=False)  # on the old files

    again = sync_push(a0, "agent-0")

    said = again.stdout + again.stderr
    assert again.returncode == 0, said
    assert "replayed on top of what it merged" in said
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items) <= set(items)  # agent-1's round too
    _fsck_clean(a0, a1, remote)


@pytest.mark.parametrize("own_change", [False, True], ids=["as-told", "with-an-edit"])
def test_sync_at_scale_never_publishes_a_commit_that_drops_what_a_sync_merge_brought(
    team: tuple[Path, Path, Path], tmp_path: Path, own_change: bool
) -> None:
    """Without the journal (an older version was killed): the commit of the leftovers is
    refused before anything is published, naming what it drops; doing what the message
    says lands the round with everything."""
    remote, a0, a1 = team
    log0, log1 = _killed_before_following(team, tmp_path)
    shutil.rmtree(a0 / ".git" / "vcontext" / "follow")
    if own_change:
        soak.work(a0, "agent-0", 1, log0, playbook=False)
    else:
        soak.git(a0, "commit", "-qm", "commit them, as told")
    before = soak.git(remote, "rev-parse", "main").stdout

    refused = sync_push(a0, "agent-0")

    said = refused.stdout + refused.stderr
    assert refused.returncode == 1, said
    assert "nothing was published" in said
    assert "item agent-1-t0" in said
    assert soak.git(remote, "rev-parse", "main").stdout == before
    assert obey(a0, said)
    landed = sync_push(a0, "agent-0")
    assert landed.returncode == 0, landed.stdout + landed.stderr
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items) <= set(items)
    _fsck_clean(a0, a1, remote)


def test_pre_push_hook_refuses_a_commit_that_undoes_a_sync_merge_unless_it_says_so(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, a0, _ = team
    _killed_before_following(team, tmp_path)
    shutil.rmtree(a0 / ".git" / "vcontext" / "follow")
    soak.git(a0, "commit", "-qm", "commit them")

    pushed = soak.git(a0, "push", "origin", "agents/agent-0", check=False)

    assert pushed.returncode != 0
    assert "[sync-undone]" in pushed.stderr
    assert "agent-1-t0" in pushed.stderr
    soak.git(a0, "commit", "--amend", "-qm", "drop them\n\nVcontext-Drop: cleaning up")
    said = soak.git(a0, "push", "origin", "agents/agent-0", check=False).stderr
    assert "[sync-undone]" not in said  # said so; (the changeLog entries it drops are still
    assert "changeLog" in said  # refused by the history rules: a log is append-only)


def test_sync_at_scale_a_file_edited_after_the_kill_keeps_the_edit_on_top_of_the_merge(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    remote, a0, _ = team
    log0, log1 = _killed_before_following(team, tmp_path)
    log_edit = soak.AgentLog("agent-0")
    soak._edit_todo(a0, "agent-0", 1, log_edit)  # edits the old file, not committed

    again = sync_push(a0, "agent-0")

    said = again.stdout + again.stderr
    assert "finished updating the work tree" in said, said
    todo = json.loads((a0 / soak.TODO).read_text())
    ids = [i["id"] for i in todo["todoList"]["items"]]
    assert "agent-1-t0" in ids
    assert "agent-0-t1" in ids
    changed = soak.git(a0, "diff", "HEAD", "--", soak.TODO).stdout
    assert "agent-0-t1" in changed
    assert "-" + '        "id": "agent-1-t0"' not in changed
    soak.git(a0, "commit", "-qam", "my edit")
    assert sync_push(a0, "agent-0").returncode == 0
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items + log_edit.items) <= set(items)


def test_sync_at_scale_an_edit_that_conflicts_with_the_merge_is_left_alone_with_what_to_do(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, a0, a1 = team
    log0 = soak.AgentLog("agent-0")
    _retitle(a1, "t0", "agent-1's title")
    soak.git(a1, "commit", "-qam", "a1 retitles t0")
    assert sync_push(a1, "agent-1").returncode == 0
    soak.work(a0, "agent-0", 0, log0, playbook=False)
    killed = sync_push(a0, "agent-0", kill_env(at="git read-tree -m", log=tmp_path / "steps"))
    assert killed.returncode == -9
    _retitle(a0, "t0", "agent-0's title")  # on the old file
    mine = (a0 / soak.TODO).read_bytes()

    status = subprocess.run([*soak.cli(), "status"], cwd=a0, capture_output=True, text=True)

    assert status.returncode == 3
    assert "conflict with what it merged" in status.stderr
    assert "nothing was changed" in status.stderr
    assert len(status.stderr.strip().splitlines()) == 1
    assert (a0 / soak.TODO).read_bytes() == mine
    command = status.stderr.split("run: ", 1)[1].split(";", 1)[0]
    subprocess.run(["sh", "-c", command], cwd=a0, check=True)
    again = subprocess.run([*soak.cli(), "status"], cwd=a0, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert soak.git(a0, "status", "--porcelain").stdout == ""


def _retitle(clone: Path, item: str, title: str) -> None:
    path = clone / soak.TODO
    data = json.loads(path.read_text())
    for it in data["todoList"]["items"]:
        if it["id"] == item:
            it["title"] = title
    data["todoList"]["sequence"] += 1
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_mcp_write_after_an_interrupted_sync_edits_the_merged_document(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The MCP server's write finishes the update first: its commit holds only the
    agent's change on the merge, never a revert of it."""
    remote, a0, _ = team
    log0, log1 = _killed_before_following(team, tmp_path)

    async def main() -> None:
        async with in_process(a0) as client:
            made = await client.call_tool(
                "vbrief_create_todo", {"title": "after the kill", "todoListId": "soak-todo"}
            )
            assert not made.is_error, text(made)

    run(main)
    parent = soak.git(a0, "show", "HEAD~1:" + soak.TODO).stdout
    assert "agent-1-t0" in parent
    diff = soak.git(a0, "diff", "HEAD~1", "HEAD", "--", soak.TODO).stdout
    removed = [ln for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    assert not [ln for ln in removed if '"id"' in ln], diff
    assert sync_push(a0, "agent-0").returncode == 0
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items) <= set(items)


def test_playbook_add_after_an_interrupted_sync_edits_the_merged_document(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, a0, _ = team
    _killed_before_following(team, tmp_path)

    out = subprocess.run(
        [*soak.cli(), "playbook", "add", soak.PLAYBOOK, "--target", "x", "--kind", "learning",
         "--title", "after the kill", "--text", "learned"],
        cwd=a0, capture_output=True, text=True,
    )  # fmt: skip

    assert out.returncode == 0, out.stderr
    assert "finished updating the work tree" in out.stderr
    assert soak.git(a0, "diff", "--cached", "--name-only").stdout == ""
    assert "agent-1-t0" in (a0 / soak.TODO).read_text()


def test_sync_at_scale_files_the_killed_update_was_writing_are_written_whole(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Killed inside ``read-tree -u``: one document already removed, another cut short (a
    beginning of the merged content), the rest not written yet. The issue's random kills
    left such a work tree with the document deleted; the next sync writes them whole."""
    remote, a0, a1 = team
    log0, log1 = _killed_before_following(team, tmp_path)
    (a0 / soak.TODO).unlink()
    merged_plan = soak.git(a0, "show", f"HEAD:{soak.PLAN}").stdout.encode()
    (a0 / soak.PLAN).write_bytes(merged_plan[: len(merged_plan) // 2])

    again = sync_push(a0, "agent-0")

    said = again.stdout + again.stderr
    assert again.returncode == 0, said
    assert "commit or stash" not in said
    assert soak.git(a0, "status", "--porcelain").stdout == ""
    assert (a0 / soak.PLAN).read_bytes() == merged_plan
    items = _base_items(remote, tmp_path / "check")
    assert set(log0.items + log1.items) <= set(items)
    _fsck_clean(a0, a1, remote)


def test_a_commit_that_deletes_one_item_a_sync_merge_brought_or_converts_the_file_is_no_undo(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The backstop judges a whole undo only: deleting one of the items a sync merge brought,
    or converting the document to TRON (its records live on under the new name), is work,
    and the pre-push hook lets it through (one truth: the person's everyday commits)."""
    _, a0, a1 = team
    soak.work(a1, "agent-1", 0, soak.AgentLog("agent-1"))
    soak.work(a1, "agent-1", 1, soak.AgentLog("agent-1"))
    assert sync_push(a1, "agent-1").returncode == 0
    synced = sync_push(a0, "agent-0")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    todo = json.loads((a0 / soak.TODO).read_text())
    arrived = [i["id"] for i in todo["todoList"]["items"] if i["id"].startswith("agent-1-")]
    assert len(arrived) >= 2
    todo["todoList"]["items"] = [i for i in todo["todoList"]["items"] if i["id"] != arrived[0]]
    (a0 / soak.TODO).write_text(json.dumps(todo, indent=2) + "\n")
    soak.git(a0, "commit", "-qam", "delete one task that arrived")
    pushed = soak.git(a0, "push", "origin", "agents/agent-0", check=False)
    assert "[sync-undone]" not in pushed.stderr, pushed.stderr

    tron = (a0 / soak.TODO).with_suffix(".tron")
    converted = run_cli("convert", str(a0 / soak.TODO), "--to", "tron", "-o", str(tron))
    assert converted.returncode == 0, converted.stderr
    soak.git(a0, "rm", "-q", soak.TODO)
    soak.git(a0, "add", str(tron.relative_to(a0)))
    soak.git(a0, "commit", "-qm", "convert the todo list to TRON")
    pushed = soak.git(a0, "push", "origin", "agents/agent-0", check=False)
    assert "[sync-undone]" not in pushed.stderr, pushed.stderr
