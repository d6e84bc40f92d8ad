"""A base whose upstream has another name (``branch.main.merge=refs/heads/trunk``): one
truth for "the base on the remote" (PRODUCT.md, "The remote guards itself": ``check``'s
default range is ``@{upstream}..HEAD``; "Sync at scale": ``sync --push`` exiting 0 means
the round is on the remote's base; command-line contract: exit 3 with one line).

``@{upstream}`` is ``origin/trunk``: ``check`` checks from it and ``status`` counts against
it, as ``git status`` does. ``sync --push`` works on the remote's branch named as the base,
as ``git push`` does by default (``push.default=simple`` refuses such a branch): it refuses
the base in one line before anything moves (it used to publish a new ``main`` on the
remote, beside the ``trunk`` everyone reads, and exit 0), and its way out works.
Real git with a bare remote.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from helpers.run import cli_path, run_cli, run_git
from helpers.sync_repos import (
    EPOCH,
    alice_ticks_t1,
    commit_all,
    edit,
    fork_by_hand,
    seed,
    show,
    status,
)

TODO = "todo.vcontext.json"


def _heads(remote: Path) -> str:
    return run_git(remote, "for-each-ref", "--format=%(refname) %(objectname)").stdout


def _trunk_remote(git_repo: Path, tmp_path: Path) -> Path:
    """A bare remote whose only branch is trunk, this clone's seeded main pushed there as
    ``origin``'s trunk (no upstream set)."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "trunk", str(remote))
    seed(git_repo)
    run_git(git_repo, "remote", "add", "origin", str(remote))
    run_git(git_repo, "push", "-q", "origin", "main:trunk")
    return remote


def _trunk_team(git_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(the bare remote whose base is trunk, this clone: main tracking origin/trunk, agent
    alice forked from main with t1 ticked)."""
    remote = _trunk_remote(git_repo, tmp_path)
    run_git(git_repo, "fetch", "-q", "origin")
    run_git(git_repo, "branch", "-q", "--set-upstream-to=origin/trunk", "main")
    alice_ticks_t1(git_repo)
    edit(git_repo, TODO, status(("t3", "blocked")))
    commit_all(git_repo, "a person blocks t3 on main")
    return remote, git_repo


def test_check_status_and_sync_agree_on_a_base_whose_upstream_has_another_name(
    git_repo: Path, tmp_path: Path
) -> None:
    remote, repo = _trunk_team(git_repo, tmp_path)
    before = _heads(remote)

    checked = run_cli("check", cwd=repo)
    shown = run_cli("status", "--format", "json", cwd=repo, env=EPOCH)
    text = run_cli("status", cwd=repo, env=EPOCH)
    pushed = run_cli("sync", "alice", "--push", "origin", cwd=repo, env=EPOCH)

    assert checked.returncode == 0, checked.stderr
    assert b"origin/trunk..HEAD" in checked.stdout + checked.stderr
    assert shown.returncode == 0, shown.stderr
    (base,) = json.loads(shown.stdout)["bases"]
    assert (base["base"], base["upstream"], base["ahead"], base["behind"]) == (
        "main",
        "origin/trunk",
        1,
        0,
    )
    assert b"1 commit ahead of origin/trunk" in text.stdout
    assert b"origin/main" not in text.stdout
    assert b"git branch --track trunk origin/trunk" in text.stdout
    # sync --push refuses the base in one line, exit 3, the remote untouched
    assert pushed.returncode == 3, pushed.stdout + pushed.stderr
    assert len(pushed.stderr.splitlines()) == 1, pushed.stderr
    assert b"main tracks origin/trunk" in pushed.stderr
    assert _heads(remote) == before
    assert "refs/heads/main " not in _heads(remote)

    # its way out, as the message gives it, then sync --push lands alice on trunk
    line = pushed.stderr.decode()
    way_out = line[line.index("(git branch") + 1 : line.rindex(")")]
    for command in way_out.split("; "):
        run_git(repo, *command.split()[1:])
    synced = run_cli("sync", "alice", "--push", "origin", cwd=repo, env=EPOCH)

    assert synced.returncode == 0, synced.stdout + synced.stderr
    items = {i["id"]: i["status"] for i in show(remote, "trunk", TODO)["todoList"]["items"]}
    assert items["t1"] == "completed"
    assert "refs/heads/main " not in _heads(remote)
    after = json.loads(run_cli("status", "--format", "json", cwd=repo, env=EPOCH).stdout)
    assert [(b["base"], b["upstream"]) for b in after["bases"]] == [("trunk", "origin/trunk")]


def test_sync_checkout_builds_on_the_upstream_of_another_name(
    git_repo: Path, tmp_path: Path
) -> None:
    """``sync --checkout`` (no ``--push``) fetches the base's ``@{upstream}``, trunk, and
    builds on it when main here is only behind it, as for an upstream of the same name."""
    remote, repo = _trunk_team(git_repo, tmp_path)
    run_git(repo, "push", "-q", "origin", "main:trunk")
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", "-b", "trunk", str(remote), str(other))
    (other / "notes.txt").write_text("someone else\n")
    run_git(other, "add", "-A")
    run_git(other, "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-qm", "other")
    run_git(other, "push", "-q", "origin", "trunk")
    theirs = run_git(other, "rev-parse", "HEAD").stdout.strip()

    proc = run_cli("sync", "alice", "--checkout", cwd=repo, env=EPOCH)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"sync --push" not in proc.stderr  # main was only behind trunk: no warning
    ancestor = run_git(repo, "merge-base", "--is-ancestor", theirs, "main", check=False)
    assert ancestor.returncode == 0
    assert show(repo, "main", TODO)["todoList"]["items"][0]["status"] == "completed"


def test_a_base_tracking_a_path_shows_the_branch_and_the_path_apart(
    git_repo: Path, tmp_path: Path
) -> None:
    """A base whose ``branch.main.remote`` is a repository's path (no remote name, no
    tracking branch): status names ``main of PATH`` (git shows the two apart), never the
    ``PATH/main`` that names nothing, and json gives ``remote`` and ``branch`` as such."""
    remote = tmp_path / "x.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(remote), "main")
    run_git(git_repo, "config", "branch.main.remote", str(remote))
    run_git(git_repo, "config", "branch.main.merge", "refs/heads/main")
    fork_by_hand(git_repo, "alice")

    fetched = run_cli("status", "--fetch", cwd=git_repo, env=EPOCH)
    shown = run_cli("status", "--format", "json", cwd=git_repo, env=EPOCH)

    assert fetched.returncode == 0, fetched.stderr
    assert f"up to date with main of {remote} as of the last fetch".encode() in fetched.stdout
    assert f"{remote}/main".encode() not in fetched.stdout
    (base,) = json.loads(shown.stdout)["bases"]
    assert (base["upstream"], base["remote"], base["branch"]) == (
        f"main of {remote}",
        str(remote),
        "main",
    )
    assert base["fetched"]


def test_a_path_upstream_of_another_name_is_refused_with_a_way_out_that_works(
    git_repo: Path, tmp_path: Path
) -> None:
    """``branch.main.remote`` a repository's path, ``merge`` its trunk: no ``PATH/trunk``
    tracking branch exists to ``git branch --track`` from, so the way out fetches trunk
    itself; followed word for word (through a shell, as a person pastes it), sync --push
    lands alice on the path's trunk."""
    remote = tmp_path / "x y.git"  # a space: the commands quote it
    run_git(tmp_path, "init", "-q", "--bare", "-b", "trunk", str(remote))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(remote), "main:trunk")
    run_git(git_repo, "config", "branch.main.remote", str(remote))
    run_git(git_repo, "config", "branch.main.merge", "refs/heads/trunk")
    alice_ticks_t1(git_repo)

    text = run_cli("status", cwd=git_repo, env=EPOCH).stdout.decode()
    pushed = run_cli("sync", "alice", "--push", str(remote), cwd=git_repo, env=EPOCH)

    assert f"trunk of {remote}" in text
    assert pushed.returncode == 3, pushed.stdout + pushed.stderr
    line = pushed.stderr.decode()
    assert f"main tracks trunk of {remote}" in line
    assert "refs/heads/main " not in _heads(remote)
    way_out = line[line.index("(git fetch") + 1 : line.rindex(")")]
    assert way_out in text  # status gives the same way out
    shell = subprocess.run(["sh", "-c", way_out], cwd=git_repo, capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr
    synced = run_cli("sync", "alice", "--push", str(remote), cwd=git_repo, env=EPOCH)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert show(remote, "trunk", TODO)["todoList"]["items"][0]["status"] == "completed"


def test_the_way_out_of_a_conflict_names_no_push_a_renamed_upstream_refuses(
    git_repo: Path, tmp_path: Path
) -> None:
    """A conflict ``sync --checkout`` leaves stopped, on a base tracking origin/trunk: the
    merge is labelled ``origin/trunk`` and the commands it gives end in a sync that runs
    (``git vcontext sync alice``), not the ``--push origin`` that base is refused
    (command-line contract: advice that leads somewhere)."""
    _, repo = _trunk_team(git_repo, tmp_path)
    run_git(repo, "push", "-q", "origin", "main:trunk")
    edit(repo, TODO, status(("t1", "blocked")))
    commit_all(repo, "a person blocks t1")
    run_git(repo, "push", "-q", "origin", "main:trunk")

    left = run_cli("sync", "alice", "--checkout", cwd=repo, env=EPOCH)

    assert left.returncode == 1, left.stdout + left.stderr
    out = left.stdout.decode()
    assert "(ours: agents/alice, theirs: origin/trunk)" in out
    steps = [s.strip() for s in out[out.index("next:") :].splitlines()[1:]]
    assert steps[0].startswith("cd ")
    assert steps[-1] == "git vcontext sync alice"
    for step in steps[1:]:
        words = shlex.split(step.replace("--take <ours|theirs>", "--take ours"))
        if words[:2] == ["git", "vcontext"]:  # the command under test, as installed
            words = [*cli_path(), *words[2:]]
        done = subprocess.run(words, cwd=repo, capture_output=True, env={**os.environ, **EPOCH})
        if step != "git vcontext conflicts":  # (exit 1: it lists the conflict)
            assert done.returncode == 0, (step, done.stdout, done.stderr)
    assert show(repo, "main", TODO)["todoList"]["items"][0]["status"] == "completed"


def _unusable_team(git_repo: Path, tmp_path: Path, merge: str) -> Path:
    """The bare remote; this clone's main tracks origin with ``branch.main.merge`` set to
    ``merge``; agent alice ticked t1."""
    remote = _trunk_remote(git_repo, tmp_path)
    run_git(git_repo, "config", "branch.main.remote", "origin")
    run_git(git_repo, "config", "branch.main.merge", merge)
    alice_ticks_t1(git_repo)
    return remote


UNUSABLE = ["refs/heads/-x", "refs/heads/a b", "trunk", "refs/tags/v1"]


@pytest.mark.parametrize("merge", UNUSABLE)
def test_a_plain_sync_with_an_unusable_upstream_says_none_not_behind_origin_main(
    git_repo: Path, tmp_path: Path, merge: str
) -> None:
    """A plain sync into a main whose ``branch.main.merge`` names no usable branch (git's
    ``@{upstream}`` is none), while origin/main (as last fetched) has a commit main lacks:
    one truth with status, check and sync --push (``tracking.unusable_upstream``), it says
    main has no upstream git can name, with the way out, never that main is "behind
    origin/main" (origin/main is not its upstream; it used to count against it) nor the
    ``sync --push origin`` that refuses this base (advice that leads somewhere)."""
    _unusable_team(git_repo, tmp_path, merge)
    run_git(git_repo, "switch", "-q", "-c", "later")
    edit(git_repo, TODO, status(("t3", "blocked")))
    later = commit_all(git_repo, "someone blocks t3 on the remote")
    run_git(git_repo, "switch", "-q", "main")
    run_git(git_repo, "update-ref", "refs/remotes/origin/main", later)  # as fetched

    synced = run_cli("sync", "alice", cwd=git_repo, env=EPOCH)
    text = run_cli("status", cwd=git_repo, env=EPOCH)

    assert synced.returncode == 0, synced.stdout + synced.stderr
    named = f"branch.main.merge {merge!r} names no branch".encode()
    said = b"main has no upstream git can name, so this sync merged with main as it is here; "
    assert said + named in synced.stderr
    assert named in text.stdout  # the same judgement
    assert b"behind origin/main" not in synced.stderr
    assert b"--push origin syncs" not in synced.stderr
    assert len(synced.stderr.splitlines()) == 1, synced.stderr
    assert show(git_repo, "main", TODO)["todoList"]["items"][0]["status"] == "completed"


@pytest.mark.parametrize("merge", UNUSABLE)
def test_an_upstream_no_command_line_can_name_is_refused_not_taken_for_the_base(
    git_repo: Path, tmp_path: Path, merge: str
) -> None:
    """``branch.main.merge`` naming a branch no command line can take (``-x`` reads as an
    option, ``a b`` is no branch name) or none at all (``trunk``, ``refs/tags/v1``: no
    ``refs/heads/`` name; git's ``@{upstream}`` is none, "not stored as a remote-tracking
    branch", and ``git push`` refuses it): sync --push used to take the base's own name
    instead and publish a ``main`` beside the upstream git names (exit 0); it refuses in
    one line, exit 3, the remote untouched, and its way out (pasted through a shell)
    lets the next sync --push land."""
    remote = _unusable_team(git_repo, tmp_path, merge)
    before = _heads(remote)

    text = run_cli("status", cwd=git_repo, env=EPOCH)
    fetched = run_cli("status", "--fetch", cwd=git_repo, env=EPOCH)
    pushed = run_cli("sync", "alice", "--push", "origin", cwd=git_repo, env=EPOCH)

    named = f"branch.main.merge {merge!r} names no branch".encode()
    # status says so too (it used to count against origin/main, which git does not)
    assert text.returncode == 0, text.stderr
    assert named in text.stdout
    assert b"origin/main as of the last fetch" not in text.stdout
    assert fetched.returncode == 0, fetched.stderr
    assert b"status --fetch: nothing fetched for main: " + named in fetched.stderr
    assert pushed.returncode == 3, pushed.stdout + pushed.stderr
    assert len(pushed.stderr.splitlines()) == 1, pushed.stderr
    assert named in pushed.stderr
    assert _heads(remote) == before
    line = pushed.stderr.decode()
    way_out = line[line.index("git config branch.main.merge") :]
    shell = subprocess.run(["sh", "-c", way_out], cwd=git_repo, capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr
    synced = run_cli("sync", "alice", "--push", "origin", cwd=git_repo, env=EPOCH)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert show(remote, "main", TODO)["todoList"]["items"][0]["status"] == "completed"


@pytest.mark.parametrize("merge", UNUSABLE)
def test_check_and_sync_checkout_read_an_upstream_git_cannot_name_as_status_does(
    git_repo: Path, tmp_path: Path, merge: str
) -> None:
    """One truth for "the base on the remote" (``@{upstream}``; PRODUCT.md "The remote
    guards itself": check's default range is ``@{upstream}..HEAD``, exit 3 without one;
    command-line contract: exit 3 with one line). ``branch.main.merge`` naming no usable
    branch: check said "origin/trunk is gone" (it is there) and ``sync --checkout``
    fetched and built on the remote's main, which git never reads as main's upstream.
    Both now refuse in one line naming the setting, as status does, nothing moved, and
    each way out works when pasted."""
    remote = _unusable_team(git_repo, tmp_path, merge)
    before = (_heads(remote), _heads(git_repo))
    named = f"branch.main.merge {merge!r} names no branch".encode()

    checked = run_cli("check", cwd=git_repo)
    synced = run_cli("sync", "alice", "--checkout", cwd=git_repo, env=EPOCH)

    for refused in (checked, synced):
        assert refused.returncode == 3, refused.stdout + refused.stderr
        assert len(refused.stderr.splitlines()) == 1, refused.stderr
        assert named in refused.stderr
    assert b"is gone" not in checked.stderr
    assert (_heads(remote), _heads(git_repo)) == before
    assert run_git(git_repo, "status", "--porcelain").stdout == ""

    line = checked.stderr.decode()
    way_out = line[line.rindex("(git vcontext check") + 1 : line.rindex(")")]
    pasted = subprocess.run(
        [*cli_path(), *shlex.split(way_out)[2:]], cwd=git_repo, capture_output=True
    )
    assert pasted.returncode == 0, pasted.stdout + pasted.stderr
    line = synced.stderr.decode()
    shell = subprocess.run(
        ["sh", "-c", line[line.index("git config branch.main.merge") :]],
        cwd=git_repo,
        capture_output=True,
        text=True,
    )
    assert shell.returncode == 0, shell.stderr
    synced = run_cli("sync", "alice", "--checkout", cwd=git_repo, env=EPOCH)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert show(git_repo, "main", TODO)["todoList"]["items"][0]["status"] == "completed"


def _conflicting_trunk_team(git_repo: Path, tmp_path: Path) -> Path:
    """The trunk team, with t1 blocked on origin's trunk while alice completed it."""
    _, repo = _trunk_team(git_repo, tmp_path)
    run_git(repo, "push", "-q", "origin", "main:trunk")
    edit(repo, TODO, status(("t1", "blocked")))
    commit_all(repo, "a person blocks t1")
    run_git(repo, "push", "-q", "origin", "main:trunk")
    return repo


def test_the_next_sync_without_push_says_why_on_the_command_line_and_over_mcp(
    git_repo: Path, tmp_path: Path
) -> None:
    """The sync a conflict's way out names has no push on a base whose upstream has another
    name: the command line and the MCP server's ``next`` (``noPush``) both say why, in one
    text (``sync.tracking.no_push_reason``: the refusal ``sync --push`` gives, with its way
    out), marked as a person's step over MCP. Before, the MCP answer named
    ``vcontext_sync {}`` with no reason, and the command line none either."""
    from git_vcontext.sync.advice import PERSON
    from helpers.mcp_support import in_process, run, text

    repo = _conflicting_trunk_team(git_repo, tmp_path)
    alice = tmp_path / "alice"
    run_git(repo, "worktree", "add", "-q", str(alice), "agents/alice")

    async def call() -> object:
        async with in_process(alice) as client:
            return await client.call_tool("vcontext_sync", {})

    answer = run(call)

    assert answer.is_error, text(answer)  # (stopped on the conflict, here)
    again = answer.structured_content["next"][-1]
    assert again["tool"] == "vcontext_sync"
    assert again["arguments"] == {}
    why = again["noPush"]
    assert why.startswith(f"no push to origin: {PERSON}main tracks origin/trunk, but sync --push")
    assert why in text(answer)
    run_git(alice, "merge", "--abort")

    left = run_cli("sync", "alice", "--checkout", cwd=alice, env=EPOCH)

    out = left.stdout.decode()
    assert left.returncode == 1, out + left.stderr.decode()
    said = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("no push to ")]
    assert said == [why.replace(PERSON, "")]  # the same text
    assert out.strip().splitlines()[-1].strip() == "git vcontext sync alice"


def test_a_way_out_never_makes_a_branch_of_the_upstreams_name_that_exists_here(
    git_repo: Path, tmp_path: Path
) -> None:
    """A clone of a remote whose default branch is trunk has a local trunk; main tracks
    origin/trunk. The way out ``sync --push``, ``status`` and a conflict's ``no push`` line
    give bases the agents on trunk and makes no trunk: ``git branch --track trunk
    origin/trunk`` failed there ("fatal: a branch named 'trunk' already exists").
    Followed word for word (through a shell), sync --push lands alice on origin's trunk."""
    remote, repo = _trunk_team(git_repo, tmp_path)
    run_git(repo, "branch", "-q", "--track", "trunk", "origin/trunk")

    text = run_cli("status", cwd=repo, env=EPOCH).stdout.decode()
    pushed = run_cli("sync", "alice", "--push", "origin", cwd=repo, env=EPOCH)

    assert pushed.returncode == 3, pushed.stdout + pushed.stderr
    line = pushed.stderr.decode()
    assert "main tracks origin/trunk" in line
    assert "git branch --track" not in line + text
    way_out = line[line.rindex("(") + 1 : line.rindex(")")]
    assert way_out == "git config vcontext.agent.alice.base trunk"
    assert way_out in text  # status gives the same way out
    shell = subprocess.run(["sh", "-c", way_out], cwd=repo, capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr
    synced = run_cli("sync", "alice", "--push", "origin", cwd=repo, env=EPOCH)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert show(remote, "trunk", TODO)["todoList"]["items"][0]["status"] == "completed"
