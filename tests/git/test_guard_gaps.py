"""The guard's remaining gaps (issue 28, second trial), each pushed with ``--no-verify`` into a
real bare repository with ``install --server``, and judged alike by the guard, ``check`` and
the pre-push hook where the three judge the same thing (PRODUCT.md "Validation": the history
rules; "The remote guards itself"; DEVELOPERS.md "One truth").
"""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest

import git_vcontext
from helpers.guard import clone_with_base, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path)


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone")


def _refused_by_all(repo: Path, remote: Path, rule: str, target: str = "HEAD:main") -> str:
    """The guard refuses the push (rule named, remote untouched), ``check`` over the same
    range finds it, and so does the pre-push hook (a push without ``--no-verify``). The
    guard's lines."""
    before = refs(remote)
    done = sneak(repo, "origin", target)
    assert done.returncode != 0, done.stderr
    assert any(line.endswith(f"[{rule}]") for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1, checked.stdout.decode() + checked.stderr.decode()
    assert f"[{rule}]" in checked.stdout.decode()
    hooked = run_git(repo, "push", "origin", target, check=False)
    assert hooked.returncode != 0
    assert f"[{rule}]" in hooked.stderr
    assert refs(remote) == before
    return done.stderr


def _landed_by_all(repo: Path, remote: Path) -> None:
    """``check`` and the pre-push hook find nothing, and the guard lets the push in."""
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode == 0, done.stderr
    assert refs(remote)["refs/heads/main"] == run_git(repo, "rev-parse", "HEAD").stdout.strip()


# -- 1. a document holding only changeLog entries -------------------------------------------


def test_history_deleting_a_document_with_only_changelog_entries_is_refused_by_all(
    repo: Path, remote: Path
) -> None:
    """The todo list holds a changeLog entry and no event: deleting it removes that entry
    (PRODUCT.md history rules: a pushed commit must not remove a changeLog entry)."""
    (repo / TODO).unlink()
    commit(repo, "delete the todo list")
    out = _refused_by_all(repo, remote, "history-changelog-removed")
    assert "deleted with its 1 changeLog entry" in out
    assert "'Vcontext-Drop: <why>'" in out


def test_history_a_changelog_document_deleted_on_purpose_lands_through_all(
    repo: Path, remote: Path
) -> None:
    """A commit that says it means it (``Vcontext-Drop:``, as the MCP server's deletion of a
    plan writes it) may delete a document that holds only changeLog entries (M19: what the
    tool writes, every check accepts); the refusal above names that line."""
    (repo / TODO).unlink()
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "drop the todo list\n\nVcontext-Drop: done with it")
    hooked = run_git(repo, "push", "--dry-run", "origin", "HEAD:main", check=False)
    assert hooked.returncode == 0, hooked.stderr
    _landed_by_all(repo, remote)


def test_history_a_drop_quoted_in_prose_says_nothing_to_any_check(repo: Path, remote: Path) -> None:
    """A message quoting ``Vcontext-Drop:`` in prose does not say the deletion is meant: the
    hook, the guard (``push --no-verify`` into the guarded bare repository) and ``check``
    refuse the dropped changeLog entry (found in trial9: a match anywhere in the message
    turned the rule off). The same deletion with the line written as git writes a trailer
    (``git commit --amend --trailer``, what the refusals advise) lands through all."""
    (repo / TODO).unlink()
    run_git(repo, "add", "-A")
    prose = "drop the todo list\n\nNo Vcontext-Drop: line needed, I think.\n"
    run_git(repo, "commit", "-q", "-m", prose)
    _refused_by_all(repo, remote, "history-changelog-removed")
    run_git(repo, "commit", "-q", "--amend", "--no-edit", "--trailer", "Vcontext-Drop: done")
    assert run_git(repo, "log", "-1", "--format=%(trailers:key=Vcontext-Drop)").stdout.strip()
    hooked = run_git(repo, "push", "--dry-run", "origin", "HEAD:main", check=False)
    assert hooked.returncode == 0, hooked.stderr
    _landed_by_all(repo, remote)


def _plan(plan_id: str, title: str, sequence: int) -> dict[str, object]:
    """A plan as the MCP server writes one: items, a proposal, a changeLog entry per write."""
    return {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": plan_id,
            "title": title,
            "status": "draft",
            "sequence": sequence,
            "narratives": {"proposal": f"Roll out {title} in small steps"},
            "items": [
                {"id": f"i{n}", "title": f"Step {n} of {title}", "status": "pending"}
                for n in range(4)
            ],
            "changeLog": [
                {
                    "sequence": n,
                    "timestamp": f"2026-01-0{n}T00:00:00Z",
                    "agent": {"id": "mcp", "type": "aiAgent"},
                    "operation": "create" if n == 1 else "update",
                    "description": f"write {n}",
                }
                for n in range(1, sequence + 1)
            ],
        },
    }


def _alpha_pushed(repo: Path) -> None:
    write(repo, ".vcontext/plan-alpha.json", _plan("plan-alpha", "Alpha rollout", 3))
    commit(repo, "plan alpha")
    run_git(repo, "push", "-q", "origin", "HEAD:main")


def _replace_plan(repo: Path, message: str) -> None:
    """plan-alpha (three changeLog entries) on the remote; then one commit deletes it and
    adds plan-beta in the same layout, which git's similarity pairs as a rename."""
    _alpha_pushed(repo)
    run_git(repo, "rm", "-q", ".vcontext/plan-alpha.json")
    write(repo, ".vcontext/plan-beta.json", _plan("plan-beta", "Alpha rollout v2", 1))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    # libgit2's rename detection (what the checks read a commit with) pairs the two
    found = pygit2.Repository(str(repo)).diff("HEAD~1", "HEAD")
    found.find_similar()
    assert [d.status_char() for d in found.deltas] == ["R"]


def test_history_drop_a_plan_and_add_another_in_its_layout_is_no_rename_lands_through_all(
    repo: Path, remote: Path
) -> None:
    """PRODUCT.md: a document renamed is one document when its container is the same (the
    same ``uid``, else the same ``id`` and kind with most data equal); two plans of one
    layout are two documents, however alike their bytes: the deleted one goes as the
    ``Vcontext-Drop:`` line says, and the new one has no past to break."""
    _replace_plan(repo, "replace plan alpha\n\nVcontext-Drop: superseded by plan beta")
    _landed_by_all(repo, remote)


def test_history_drop_a_plan_and_add_another_without_saying_so_names_the_deleted_one(
    repo: Path, remote: Path
) -> None:
    _replace_plan(repo, "replace plan alpha")
    out = _refused_by_all(repo, remote, "history-changelog-removed")
    assert "plan-alpha.json" in out
    assert "plan-beta.json" not in out  # no finding on the new plan: it is no edit of alpha


def test_history_a_plan_renamed_and_edited_is_still_one_document(repo: Path, remote: Path) -> None:
    """The same plan id under a new name is a rename: its changeLog still may not shrink."""
    _alpha_pushed(repo)
    run_git(repo, "mv", ".vcontext/plan-alpha.json", ".vcontext/plan-renamed.json")
    write(repo, ".vcontext/plan-renamed.json", _plan("plan-alpha", "Alpha rollout", 2))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "rename\n\nVcontext-Drop: it says so, not for this")
    _refused_by_all(repo, remote, "history-changelog-removed")


def test_history_moving_a_changelog_document_out_of_the_routed_set_is_refused_by_all(
    repo: Path, remote: Path
) -> None:
    (repo / "notes").mkdir()
    run_git(repo, "mv", TODO, "notes/todo.json")
    commit(repo, "move the todo list where no check looks")
    _refused_by_all(repo, remote, "history-changelog-removed")


def test_history_moving_a_changelog_document_within_the_routed_set_is_a_move(
    repo: Path, remote: Path
) -> None:
    """A move git may not pair (the content changes too) keeps every entry: no loss."""
    data = json.loads((repo / TODO).read_text())
    data["todoList"]["items"].append({"id": "t2", "title": "Another", "status": "pending"})
    data["todoList"]["sequence"] = 4
    (repo / TODO).unlink()
    write(repo, "memory/moved/list.vcontext.json", data)
    commit(repo, "move and edit the todo list")
    _landed_by_all(repo, remote)


def test_history_a_playbook_without_a_changelog_is_judged_as_before(
    repo: Path, remote: Path
) -> None:
    """Deleting a document with events still names the events (one finding per log)."""
    (repo / PLAYBOOK).unlink()
    commit(repo, "delete the playbook")
    out = _refused_by_all(repo, remote, "history-event-removed")
    assert "history-changelog-removed" not in out


# -- 4. what the refusal counts -------------------------------------------------------------


def test_guard_and_hook_count_commits_forced_updates_and_tagged_trees_as_what_they_are(
    repo: Path, remote: Path
) -> None:
    """One push: a forced update whose own commit drops an event (1 commit, 1 forced update)
    and a tag of a tree holding an invalid document. The refusal says so, not "3 commits"."""
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "drop e2 (and, over the remote's tip, e3)")
    data = json.loads((repo / TODO).read_text())
    data["todoList"]["items"][0]["status"] = "bogus"
    (repo / TODO).write_text(json.dumps(data))
    run_git(repo, "add", "-A")
    tree = run_git(repo, "write-tree").stdout.strip()
    run_git(repo, "reset", "-q", "--hard")
    before = refs(remote)

    done = sneak(repo, "origin", "+HEAD:main", f"{tree}:refs/tags/bad-tree")

    assert done.returncode != 0
    said = remote_lines(done.stderr)
    assert any(
        "in 1 commit, 1 forced update and 1 tagged tree or blob." in line for line in said
    ), said
    assert refs(remote) == before
    hooked = run_git(repo, "push", "origin", "+HEAD:main", check=False)
    assert "in 1 commit and 1 forced update." in hooked.stderr, hooked.stderr


# -- 3. doctor in a clone runs the hook's command as a push does -----------------------------


def _without_pygit2(tmp_path: Path, hook: Path) -> None:
    """Make ``hook`` run its program in an environment where pygit2 cannot be imported (as
    after ``pip uninstall pygit2``)."""
    fake = tmp_path / "no-pygit2" / "pygit2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'pygit2'\")\n")
    here = str(Path(git_vcontext.__file__).resolve().parents[1])
    text = hook.read_text()
    line = next(line for line in text.splitlines() if line.startswith("PROGRAM="))
    real = line.split("=", 1)[1].strip().strip("'\"")
    wrapper = tmp_path / "bin" / "git-vcontext"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{fake.parent}:{here}" exec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    hook.write_text(text.replace(real, str(wrapper)))


def test_doctor_in_a_clone_runs_the_pre_push_check_and_says_it_cannot_import_pygit2(
    repo: Path, tmp_path: Path
) -> None:
    """Its empty-input run imported nothing, so it said "installed and runs" while every
    push was refused."""
    _without_pygit2(tmp_path, repo / ".git" / "hooks" / "pre-push")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    pushed = run_git(repo, "push", "origin", "HEAD:main", check=False)
    assert pushed.returncode != 0
    assert "pygit2" in pushed.stderr, pushed.stderr

    done = run_cli("doctor", cwd=repo)
    said = done.stdout.decode()
    assert done.returncode == 1, said + done.stderr.decode()
    problem = [line for line in said.splitlines() if line.startswith("problem:")]
    assert any("pre-push" in line and "pygit2" in line for line in problem), said
    assert "pre-push hook installed and runs" not in said


def test_doctor_in_a_clone_with_a_working_hook_says_it_runs(repo: Path) -> None:
    done = run_cli("doctor", cwd=repo)
    assert "ok: pre-push hook installed and runs" in done.stdout.decode(), done.stdout.decode()


# -- 2. what the guard relies on under refs/vcontext/ ----------------------------------------

MARK = "refs/vcontext/server"


def _empty_root(repo: Path) -> str:
    """An empty commit without parents (what a lease looks like: the guard's fast path)."""
    tree = run_git(repo, "hash-object", "-t", "tree", "-w", "--stdin").stdout.strip()
    return run_git(repo, "commit-tree", tree, "-m", "looks like a lease").stdout.strip()


def test_guard_refuses_deleting_or_rewriting_the_server_mark_and_names_the_override(
    repo: Path, remote: Path
) -> None:
    before = refs(remote)
    assert MARK in before
    for target in (f":{MARK}", f"+{_empty_root(repo)}:{MARK}", f"+HEAD:{MARK}/x"):
        done = sneak(repo, "origin", target)
        assert done.returncode != 0, (target, done.stderr)
        said = remote_lines(done.stderr)
        assert any(MARK in line and "vcontext.guard.allowServerRef true" in line for line in said)
        assert refs(remote) == before
    assert run_cli("doctor", cwd=remote).returncode == 0


def test_guard_only_refuses_a_pushed_server_mark(tmp_path: Path) -> None:
    """Without the integration, a pushed mark would make every agent's sync --push wait for
    merges that never come (an empty root commit: what the fast path lets in unopened)."""
    remote = guarded_remote(tmp_path, "--guard", name="guard.git")
    repo = clone_with_base(remote, tmp_path / "clone")
    done = sneak(repo, "origin", f"{_empty_root(repo)}:{MARK}")
    assert done.returncode != 0, done.stderr
    assert MARK not in refs(remote)


def test_doctor_says_the_server_mark_was_deleted_or_rewritten_and_install_restores_it(
    repo: Path, remote: Path
) -> None:
    run_git(remote, "config", "vcontext.guard.allowServerRef", "true")
    assert sneak(repo, "origin", f":{MARK}").returncode == 0
    said = run_cli("doctor", cwd=remote)
    assert said.returncode == 1
    assert "note: vcontext.guard.allowServerRef is true" in said.stdout.decode()
    assert any(
        line.startswith(f"problem: {MARK} is missing") for line in said.stdout.decode().splitlines()
    ), said.stdout.decode()
    assert sneak(repo, "origin", f"HEAD:{MARK}").returncode == 0
    said = run_cli("doctor", cwd=remote)
    assert said.returncode == 1
    assert f"problem: {MARK} does not name the mark" in said.stdout.decode()
    assert run_cli("install", "--server", cwd=remote).returncode == 0
    run_git(remote, "config", "--unset", "vcontext.guard.allowServerRef")
    assert run_cli("doctor", cwd=remote).returncode == 0, run_cli("doctor", cwd=remote).stdout


def test_guard_takes_no_remote_tracking_ref_of_a_pusher_for_a_deleted_branchs_old_tip(
    repo: Path, remote: Path
) -> None:
    """A pusher writes ``refs/remotes/(server)/release`` at its own rewritten tip, then
    re-creates the deleted ``release`` there: it is compared with the tip ``release`` had."""
    assert sneak(repo, "origin", "HEAD:release").returncode == 0
    assert sneak(repo, "origin", ":release").returncode == 0
    run_git(repo, "switch", "-q", "--orphan", "fresh")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "start over with one lesson")
    assert sneak(repo, "origin", "HEAD:refs/remotes/(server)/release").returncode == 0
    before = refs(remote)
    done = sneak(repo, "origin", "HEAD:release")
    assert done.returncode != 0, done.stderr
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(done.stderr))
    assert refs(remote) == before


# -- 5. the deletions the guard remembers ---------------------------------------------------


def _record(remote: Path) -> dict[str, str]:
    data = json.loads((remote / "vcontext" / "deleted-refs.json").read_text())
    return dict(data.get("(server)", {}))


def test_guard_a_flood_of_deletions_does_not_push_out_a_deleted_branchs_old_tip(
    repo: Path, remote: Path
) -> None:
    """``release`` is deleted; a pusher then deletes 250 refs of its own (more than any fixed
    record holds) and re-creates ``release`` rewritten: still compared with its old tip."""
    assert sneak(repo, "origin", "HEAD:release").returncode == 0
    assert sneak(repo, "origin", ":release").returncode == 0
    flood = [f"refs/heads/flood/{n}" for n in range(250)]
    assert sneak(repo, "origin", *(f"HEAD:{ref}" for ref in flood)).returncode == 0
    assert sneak(repo, "origin", *(f":{ref}" for ref in flood)).returncode == 0
    run_git(repo, "switch", "-q", "--orphan", "fresh")
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(repo, "start over with one lesson")
    before = refs(remote)
    done = sneak(repo, "origin", "HEAD:release")
    assert done.returncode != 0, done.stderr
    assert any("forced update from" in line for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before


def test_guard_keeps_no_record_of_a_deletion_git_refused(repo: Path, remote: Path) -> None:
    """git refuses the deletions after the guard let them in (receive.denyDeletes): what the
    guard wrote then is gone at its next write, and it never counts for a ref still there."""
    kept = [f"refs/heads/kept/{n}" for n in range(3)]
    assert sneak(repo, "origin", *(f"HEAD:{ref}" for ref in kept)).returncode == 0
    run_git(remote, "config", "receive.denyDeletes", "true")
    refused = sneak(repo, "origin", *(f":{ref}" for ref in kept))
    assert refused.returncode != 0
    assert set(kept) <= set(refs(remote))
    run_git(remote, "config", "--unset", "receive.denyDeletes")
    assert sneak(repo, "origin", "HEAD:other").returncode == 0
    assert sneak(repo, "origin", ":other").returncode == 0  # the next write
    record = _record(remote)
    assert "refs/heads/other" in record
    assert not set(kept) & set(record), record


def test_m19_a_plan_with_a_changelog_deleted_by_the_mcp_server_passes_hook_guard_and_check(
    git_repo: Path, tmp_path: Path
) -> None:
    """One truth: the MCP server records its writes in the plan's changeLog, and its
    deletion of that plan is a commit that says it means it: the pre-push hook, the guard
    and ``check`` all accept it."""
    from helpers.mcp_platform import stdio
    from helpers.mcp_support import documents_repo, run, text
    from helpers.mcp_tour import agent_worktree

    repo = documents_repo(git_repo)
    assert run_cli("install", cwd=repo).returncode == 0
    remote = guarded_remote(tmp_path, name="team.git")
    run_git(repo, "remote", "add", "origin", str(remote))
    assert sneak(repo, "origin", "main").returncode == 0
    alice = agent_worktree(repo, tmp_path / "alice")

    async def main() -> None:
        async with stdio(alice) as client:
            updated = await client.call_tool(
                "vbrief_update_plan", {"id": "release", "status": "approved"}
            )
            assert not updated.is_error, text(updated)
            deleted = await client.call_tool("vbrief_delete_plan", {"id": "release"})
            assert not deleted.is_error, text(deleted)

    run(main)
    had = run_git(alice, "show", "HEAD~1:plans/release.vcontext.tron").stdout
    assert "changeLog" in had
    hooked = run_git(alice, "push", "origin", "agents/alice", check=False)
    assert hooked.returncode == 0, hooked.stderr
    checked = run_cli("check", "main..agents/alice", cwd=alice)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    run_git(alice, "commit", "-q", "--allow-empty", "-m", "nothing")
    assert sneak(alice, "origin", "agents/alice").returncode == 0


def test_doctor_notes_the_unpack_limit_and_keeps_its_exit_code(remote: Path) -> None:
    """doctor in the bare repository: git's default receive.unpackLimit (100) stores each
    of sync's small pushes loose, for every fetch to pack again; a note (the owner's
    setting, nothing wrong), never a problem: the exit code stays 0 (PRODUCT.md, the command
    table: doctor exits 1 if anything is wrong)."""

    def said() -> tuple[int, list[str]]:
        done = run_cli("doctor", cwd=remote)
        lines = done.stdout.decode().splitlines()
        return done.returncode, [ln for ln in lines if "unpackLimit" in ln]

    code, lines = said()
    assert code == 0
    assert lines == [lines[0]]
    assert lines[0].startswith("note: receive.unpackLimit is 100:")
    assert "git config receive.unpackLimit 1" in lines[0]
    run_git(remote, "config", "transfer.unpackLimit", "1")
    assert said() == (0, [])
    run_git(remote, "config", "receive.unpackLimit", "5")  # receive's own comes first
    code, lines = said()
    assert code == 0
    assert lines[0].startswith("note: receive.unpackLimit is 5:")
    run_git(remote, "config", "receive.unpackLimit", "-1")  # negative: unset, as receive-pack
    assert said() == (0, [])


def test_doctor_names_the_unpack_limit_setting_that_holds_the_number(remote: Path) -> None:
    """The note says which setting holds the limit: ``transfer.unpackLimit`` when
    ``receive.unpackLimit`` is unset or negative (receive-pack reads it then). It said
    "receive.unpackLimit is 50" of a ``transfer.unpackLimit`` of 50, a setting the owner
    then finds unset (PRODUCT.md, the command table: doctor says what it checks)."""
    run_git(remote, "config", "transfer.unpackLimit", "50")
    for receive in (None, "-1"):
        if receive is not None:
            run_git(remote, "config", "receive.unpackLimit", receive)
        done = run_cli("doctor", cwd=remote)
        lines = [ln for ln in done.stdout.decode().splitlines() if "unpackLimit" in ln]
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
        assert len(lines) == 1, lines
        assert lines[0].startswith("note: transfer.unpackLimit is 50:"), lines[0]
        assert "git config receive.unpackLimit 1" in lines[0]  # receive's own comes first
