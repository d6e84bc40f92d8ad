"""PRODUCT.md "Installing never breaks git": partial clones (``--filter=blob:none``) read
objects as git does (a missing blob is fetched on demand), and shallow clones say what they
could not see (the hook, status/sync, log/blame mark the boundary as git does)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers.run import run_cli, run_git

DOC = "todo.vcontext.json"


def _todo(done: int, items: int = 6) -> str:
    rows = [
        {"id": f"t{n}", "title": f"T{n}", "status": "completed" if n < done else "pending"}
        for n in range(items)
    ]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": rows}}, indent=2)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote that serves filters, with 5 versions of a todo list on main and an
    agent branch forked from the third."""
    source = tmp_path / "source"
    source.mkdir()
    run_git(source, "init", "-q", "-b", "main")
    for n in range(5):
        (source / DOC).write_text(_todo(n))
        run_git(source, "add", "-A")
        run_git(source, "commit", "-q", "-m", f"c{n}")
    assert run_cli("install", "--no-hooks", cwd=source).returncode == 0
    run_git(source, "add", ".gitattributes")
    run_git(source, "commit", "-q", "-m", "attributes")
    assert run_cli("fork", "alice", "--from", "main", cwd=source).returncode == 0
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    run_git(bare, "config", "uploadpack.allowFilter", "true")
    return bare


def _missing(repo: Path) -> set[str]:
    """Objects the clone has been promised but not fetched (git does not fetch for this)."""
    out = run_git(repo, "rev-list", "--objects", "--missing=print", "--all").stdout
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def _clone(remote: Path, where: Path, *options: str) -> Path:
    run_git(where.parent, "clone", "-q", *options, f"file://{remote}", str(where))
    done = run_cli("install", cwd=where)
    assert done.returncode == 0, done.stderr
    run_git(where, "config", "vcontext.agent.alice.base", "main")
    run_git(where, "branch", "-q", "agents/alice", "origin/agents/alice")
    return where


def test_installing_never_breaks_git_a_partial_clone_reads_missing_blobs_as_git_does(
    remote: Path, tmp_path: Path
) -> None:
    """Issue 35: diff REV REV, log, blame --rev, status and sync --push exited 3 with
    'internal error: KeyError/NotFoundError' on a blob the clone had not fetched."""
    clone = _clone(remote, tmp_path / "partial", "--filter=blob:none")
    assert len(_missing(clone)) >= 3
    for args in (
        ["diff", "HEAD~4", "HEAD~2"],
        ["log", "--", DOC],
        ["blame", DOC, "--rev", "HEAD~3"],
        ["status"],
    ):
        proc = run_cli(*args, cwd=clone)
        assert proc.returncode == 0, (args, proc.stderr)
        assert b"internal error" not in proc.stderr
    diff = run_cli("diff", "HEAD~4", "HEAD~2", cwd=clone).stdout.decode()
    assert "todoList.items[t1].status: pending → completed" in diff
    blame = run_cli("blame", DOC, "--rev", "HEAD~3", cwd=clone).stdout.decode()
    assert "todoList.items[t1]" in blame

    (clone / DOC).write_text(_todo(5))
    run_git(clone, "commit", "-q", "-am", "all but one done")
    pushed = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=clone, capture_output=True, text=True
    )
    assert pushed.returncode == 0, pushed.stderr
    run_git(clone, "switch", "-q", "agents/alice")
    (clone / DOC).write_text(_todo(2, items=7))
    run_git(clone, "commit", "-q", "-am", "alice adds t6")
    synced = run_cli("sync", "alice", "--push", "origin", cwd=clone)
    assert synced.returncode == 0, synced.stderr
    assert b"internal error" not in synced.stderr


@pytest.mark.parametrize("given_by", ["git -c", "GIT_CONFIG_GLOBAL"])
def test_a_clone_is_partial_by_the_settings_git_reads_not_only_its_own_file(
    remote: Path, tmp_path: Path, given_by: str
) -> None:
    """README: every setting is read as git reads it (``configread``). A partial clone whose
    own config names no promisor remote (no ``remote.origin.promisor``,
    ``partialclonefilter``, ``extensions.partialclone``), made one by ``git -c
    remote.origin.promisor=true`` or by the user's global settings: git fetches a missing
    blob there; so does diff (libgit2's reading of the settings saw no promisor)."""
    clone = _clone(remote, tmp_path / "partial", "--filter=blob:none")
    for key in ("remote.origin.promisor", "remote.origin.partialclonefilter"):
        run_git(clone, "config", "--unset", key)
    assert run_git(clone, "config", "extensions.partialClone", check=False).returncode == 1
    old = f"HEAD~4:{DOC}"
    assert run_git(clone, "cat-file", "-e", old, check=False).returncode != 0  # git: missing
    if given_by == "git -c":
        env = {"GIT_CONFIG_PARAMETERS": "'remote.origin.promisor'='true'"}
    else:
        settings = tmp_path / "global.gitconfig"
        settings.write_text('[remote "origin"]\n\tpromisor = true\n')
        env = {"GIT_CONFIG_GLOBAL": str(settings)}
    cat = subprocess.run(
        ["git", "cat-file", "-p", old], cwd=clone, env={**os.environ, **env}, capture_output=True
    )
    assert cat.returncode == 0, cat.stderr  # git fetches it
    proc = run_cli("diff", "HEAD~4", "HEAD~2", cwd=clone, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "todoList.items[t1].status: pending → completed" in proc.stdout.decode()


def test_installing_never_breaks_git_the_hook_fetches_a_blob_a_partial_clone_lacks(
    remote: Path, tmp_path: Path
) -> None:
    """A pushed commit whose file is an old version never checked out here (its blob not
    fetched): the hook refused ('cannot read object'); git pushes it, and so do we."""
    clone = _clone(remote, tmp_path / "partial", "--filter=blob:none")
    old_tree = run_git(clone, "rev-parse", "HEAD~3^{tree}").stdout.strip()
    blob = run_git(clone, "rev-parse", f"HEAD~3:{DOC}").stdout.strip()
    assert blob in _missing(clone)
    commit = run_git(clone, "commit-tree", old_tree, "-p", "HEAD", "-m", "back").stdout.strip()
    pushed = subprocess.run(
        ["git", "push", "origin", f"{commit}:refs/heads/back"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "could not run" not in pushed.stderr


def test_installing_never_breaks_git_a_shallow_clones_hook_says_what_it_could_not_check(
    remote: Path, tmp_path: Path
) -> None:
    """Issue 35: a depth-1 clone's hook said 'checked the whole history of HEAD' and passed
    a boundary commit whose parent it never saw."""
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(clone))
    assert run_cli("install", cwd=clone).returncode == 0
    for ref in ("refs/remotes/origin/main", "refs/remotes/origin/HEAD"):
        run_git(clone, "update-ref", "-d", ref)
    (clone / DOC).write_text(_todo(5))
    run_git(clone, "commit", "-q", "-am", "five done")
    pushed = subprocess.run(
        ["git", "push", "origin", "HEAD:refs/heads/shallow-work"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "checked the whole history" not in pushed.stderr
    assert "as far as this shallow clone has it" in pushed.stderr
    boundary = run_git(clone, "rev-parse", "HEAD~1").stdout.strip()
    assert f"shallow clone: the parents of {boundary[:12]} were not fetched" in pushed.stderr
    assert "NOT checked" in pushed.stderr


def test_installing_never_breaks_git_shallow_history_is_told_from_unrelated_history(
    remote: Path, tmp_path: Path
) -> None:
    clone = _clone(remote, tmp_path / "shallow", "--depth", "1", "--no-single-branch")
    status = run_cli("status", cwd=clone).stdout.decode()
    assert "share no history in this shallow clone" in status
    assert "git fetch --unshallow" in status
    synced = run_cli("sync", "alice", cwd=clone)
    assert synced.returncode != 0
    assert b"share no history in this shallow clone" in synced.stdout + synced.stderr
    run_git(clone, "fetch", "-q", "--unshallow")
    assert run_cli("sync", "alice", cwd=clone).returncode == 0


def test_a_shallow_clones_diff_of_a_symmetric_range_says_which_fetch_finds_the_base(
    remote: Path, tmp_path: Path
) -> None:
    """``diff A...B`` where the merge base is past a shallow clone's boundary: not a bare
    "no merge base" (as if the branches shared no history), but that the clone is shallow
    and the fetch that finds it; doing what it says, the same diff works."""
    clone = _clone(remote, tmp_path / "shallow", "--depth", "1", "--no-single-branch")
    spec = "origin/main...origin/agents/alice"
    proc = run_cli("diff", spec, cwd=clone)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert err.count("\n") == 1, err
    assert "shallow clone" in err
    assert "git fetch --deepen=" in err
    assert "git fetch --unshallow" in err
    run_git(clone, "fetch", "-q", "--deepen=100")
    assert run_cli("diff", spec, cwd=clone).returncode == 0


def test_installing_never_breaks_git_log_and_blame_mark_a_shallow_boundary(
    remote: Path, tmp_path: Path
) -> None:
    """git marks a commit whose parents a shallow clone lacks: ``^`` in blame, ``grafted``
    in log; it showed as the commit that added every item, with nothing said."""
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "2", f"file://{remote}", str(clone))
    boundary = run_git(clone, "rev-parse", "HEAD~1").stdout.strip()
    blame = run_cli("blame", DOC, cwd=clone).stdout.decode().splitlines()
    assert blame
    assert all(line.startswith(f"^{boundary[:8]} ") for line in blame), blame
    assert b'"boundary": true' in run_cli("blame", DOC, "--format", "json", cwd=clone).stdout
    log = run_cli("log", "--", DOC, cwd=clone).stdout.decode()
    assert f"commit {boundary} (grafted)" in log
    assert "shallow clone: the history before this commit was not fetched" in log
    full = tmp_path / "full"
    run_git(tmp_path, "clone", "-q", f"file://{remote}", str(full))
    assert "^" not in run_cli("blame", DOC, cwd=full).stdout.decode()
    assert "(grafted)" not in run_cli("log", "--", DOC, cwd=full).stdout.decode()


_SAME = {"GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z"}


def _seen(where: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli(*args, cwd=where)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _pushed(where: Path, ref: str) -> tuple[int, str]:
    """The hook's verdict on one new commit (made alike in both worktrees: the same id)."""
    (where / DOC).write_text(_todo(5))
    same = {**os.environ, **_SAME}
    subprocess.run(["git", "commit", "-q", "-am", "five done"], cwd=where, env=same, check=True)
    done = subprocess.run(
        ["git", "push", "origin", f"HEAD:refs/heads/{ref}"], cwd=where, capture_output=True
    )
    run_git(where, "update-ref", "-d", f"refs/remotes/origin/{ref}")
    run_git(where, "reset", "-q", "--hard", "HEAD~1")
    return done.returncode, done.stderr.decode().replace(ref, "REF")


@pytest.mark.parametrize("depth", ["1", "2"])
def test_installing_never_breaks_git_a_linked_worktree_of_a_shallow_clone_sees_its_boundary(
    remote: Path, tmp_path: Path, depth: str
) -> None:
    """git reads ``shallow`` from the common directory, libgit2 from the worktree's own git
    directory: in a linked worktree every walk met the boundary's unfetched parents (status
    and sync: internal error KeyError; check, log: NotFoundError). Every command says there
    what it says in the main worktree of the same clone."""
    clone = _clone(remote, tmp_path / "shallow", "--depth", depth, "--no-single-branch")
    run_git(clone, "checkout", "-q", "--detach")
    linked = tmp_path / "linked"
    run_git(clone, "worktree", "add", "-q", "--detach", str(linked))
    tip = run_git(clone, "rev-parse", "HEAD").stdout.strip()
    commands = [
        ("status",),
        ("check", "HEAD"),
        ("check", "main..agents/alice"),
        ("log", "--", DOC),
        ("blame", DOC),
        ("diff", "agents/alice", "--", DOC),
        ("diff", "HEAD~1", "--", DOC) if depth == "2" else ("diff", tip, "--", DOC),
        ("sync", "alice"),
    ]
    for args in commands:
        ours, theirs = _seen(clone, *args), _seen(linked, *args)
        assert "internal error" not in ours[2] + theirs[2], (args, ours, theirs)
        assert theirs == ours, args
    pushed = _pushed(linked, "from-linked")
    assert pushed == _pushed(clone, "from-main")
    assert pushed[0] == 0, pushed
    assert "internal error" not in pushed[1]
    for ref in run_git(clone, "for-each-ref", "--format=%(refname)", "refs/remotes").stdout.split():
        run_git(clone, "update-ref", "-d", ref)  # the hook then checks all the clone holds
    pushed = _pushed(linked, "whole-from-linked")
    assert pushed == _pushed(clone, "whole-from-main")
    assert pushed[0] == 0, pushed
    assert "was NOT checked" in pushed[1]


def test_the_walk_past_a_blind_boundary_orders_and_answers_as_libgit2(tmp_path: Path) -> None:
    """Where libgit2 sees the whole history, the Python walk (used where it cannot see a
    shallow boundary) gives its order, its merge base and its ancestry: one truth."""
    import pygit2

    from git_vcontext.gitio.cutwalk import Walk, cut, parent_ids

    repo_dir = tmp_path / "r"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo_dir))
    env = dict(os.environ)

    def commit(message: str, n: int) -> None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"2026-01-01T00:{n:02d}:00Z"
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", message],
            cwd=repo_dir,
            env=env,
            check=True,
        )

    commit("root", 0)
    run_git(repo_dir, "branch", "side")
    for n in range(1, 4):
        commit(f"main{n}", n)
    run_git(repo_dir, "switch", "-q", "side")
    for n in range(4, 7):
        commit(f"side{n}", n)
    env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = "2026-01-01T00:07:00Z"
    subprocess.run(
        ["git", "merge", "-q", "--no-ff", "-m", "m", "main"], cwd=repo_dir, env=env, check=True
    )
    commit("after", 8)
    repo = pygit2.Repository(str(repo_dir))
    tip, main = repo.revparse_single("side").id, repo.revparse_single("main").id
    order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
    ours = Walk(repo)
    ours.push(tip)
    assert [c.id for c in ours] == [c.id for c in repo.walk(tip, order)]
    hidden = Walk(repo, reverse=True)
    hidden.push(tip)
    hidden.hide(main)
    theirs = repo.walk(tip, order | pygit2.enums.SortMode.REVERSE)
    theirs.hide(main)
    assert [c.id for c in hidden] == [c.id for c in theirs]
    first = Walk(repo)
    first.push(tip)
    first.simplify_first_parent()
    theirs = repo.walk(tip, order)
    theirs.simplify_first_parent()
    assert [c.id for c in first] == [c.id for c in theirs]
    assert Walk(repo).merge_base(tip, main) == repo.merge_base(tip, main) == main
    side = repo.revparse_single("side~2").id
    assert Walk(repo).merge_base(side, main) == repo.merge_base(side, main)
    assert Walk(repo).descends(tip, main)
    assert not Walk(repo).descends(main, tip)
    assert not Walk(repo).descends(tip, tip)
    assert cut(repo) == frozenset()
    merge = repo.revparse_single("side~1").peel(pygit2.Commit)
    assert parent_ids(repo, merge, frozenset({str(merge.id)})) == []
