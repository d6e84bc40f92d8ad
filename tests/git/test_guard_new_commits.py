"""The guard's light path reads a push's new commits from the commits themselves (issue 28,
"the guard must not slow sync --push down": no ``git rev-list`` process per push), and must
find every commit git would list (``rev-list TIPS --not --all``): a commit it missed would
be let in unjudged. It may list more (only stricter); where it is not certain (grafts,
refs it cannot read, a long history), git answers. Objects and refs written by real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from git_vcontext.gitio.batch import rev_list
from git_vcontext.prepush import light
from git_vcontext.prepush.cache import VerdictCache
from git_vcontext.prepush.light import REACH_LIMIT, Light
from helpers.run import run_git


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    where = tmp_path / "r.git"
    run_git(tmp_path, "init", "-q", "--bare", str(where))
    run_git(where, "config", "user.name", "T")
    run_git(where, "config", "user.email", "t@example.com")
    return where


def _commit(bare: Path, *parents: str, text: str = "") -> str:
    blob = bare.parent / "blob"
    blob.write_text(f'{{"n": "{text or len(parents)}"}}\n')
    oid = run_git(bare, "hash-object", "-w", str(blob)).stdout.strip()
    listing = f"100644 blob {oid}\ta.vcontext.json\n"
    done = subprocess.run(
        ["git", "mktree"], cwd=bare, input=listing, capture_output=True, text=True, check=True
    )
    tree = done.stdout.strip()
    args = [a for p in parents for a in ("-p", p)]
    return run_git(bare, "commit-tree", tree, *args, "-m", text or "c").stdout.strip()


def _chain(bare: Path, start: str, n: int, label: str) -> str:
    tip = start
    for i in range(n):
        tip = _commit(bare, tip, text=f"{label}{i}")
    return tip


def _walked(bare: Path, tips: list[str]) -> list[list[str]]:
    return Light(str(bare), VerdictCache.open(str(bare)))._new_commits(tips)


def _git(bare: Path, tips: list[str]) -> list[list[str]]:
    return rev_list(str(bare), [*tips, "--not", "--all"])


def _as_set(rows: list[list[str]]) -> set[tuple[str, ...]]:
    return {tuple(row) for row in rows}


@pytest.fixture
def history(bare: Path) -> dict[str, str]:
    """main with an agent branch merged into it and a lease ref, as sync leaves a remote."""
    root = _commit(bare, text="root")
    main = _chain(bare, root, 3, "m")
    agent = _chain(bare, root, 2, "a")
    merged = _commit(bare, main, agent, text="merge agent")
    run_git(bare, "update-ref", "refs/heads/main", merged)
    run_git(bare, "update-ref", "refs/heads/agents/a", agent)
    run_git(bare, "pack-refs", "--all")
    run_git(bare, "update-ref", "refs/vcontext/lease/main", _commit(bare, text="lease"))
    return {"root": root, "main": merged, "agent": agent, "old main": main}


def test_a_sync_push_finds_exactly_the_commits_git_lists(
    bare: Path, history: dict[str, str]
) -> None:
    """An agent's round and its merge of the base (a request published), and the base's
    merge of it (an integration): the same commits, with the same parents, as git's."""
    round_ = _chain(bare, history["agent"], 2, "r")
    merge = _commit(bare, round_, history["main"], text="merge main into agent")
    published = _commit(bare, merge, text="round")
    integrated = _commit(bare, history["main"], published, text="merge agent into main")

    for tips in ([published], [published, published], [integrated, published]):
        walked = _walked(bare, tips)
        assert _as_set(walked) == _as_set(_git(bare, tips))
        assert walked  # (a push with new commits)


def test_a_branch_from_an_old_commit_finds_at_least_what_git_lists(
    bare: Path, history: dict[str, str]
) -> None:
    """A branch started on a commit no ref points at (reachable through main's history
    only): the walk reads on past it, to a ref's tip or the root; every commit git lists is
    among those it judges (more is only stricter)."""
    tip = _chain(bare, history["old main"], 2, "b")

    walked, listed = _as_set(_walked(bare, [tip])), _as_set(_git(bare, [tip]))

    assert listed <= walked
    assert len(listed) == 2
    assert len(walked) > len(listed)


def test_a_commit_only_an_unreferenced_history_holds_is_found(
    bare: Path, history: dict[str, str]
) -> None:
    """A commit no ref reaches (a deleted branch's) under the pushed one: git lists it as
    new, and so does the walk (it stops at refs' tips only)."""
    orphan = _chain(bare, history["main"], 2, "gone")
    tip = _commit(bare, orphan, text="on the deleted branch")

    assert _as_set(_walked(bare, [tip])) == _as_set(_git(bare, [tip]))
    assert len(_git(bare, [tip])) == 3


@pytest.mark.parametrize("why", ["grafts", "too many", "refs not certain"])
def test_where_the_walk_is_not_certain_git_answers(
    bare: Path, history: dict[str, str], why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grafts (git reads other parents than the commits hold), more new commits than
    ``REACH_LIMIT``, a ref the files do not say for certain (a symbolic one): git's list."""
    asked: list[list[str]] = []

    def spy(git_dir: str, args: list[str]) -> list[list[str]]:
        asked.append(args)
        return rev_list(git_dir, args)

    monkeypatch.setattr(light, "rev_list", spy)
    tip = _chain(bare, history["main"], 3, "n")
    if why == "grafts":
        (bare / "info").mkdir(exist_ok=True)
        (bare / "info" / "grafts").write_text(f"{tip}\n")  # git would read no parent
    elif why == "too many":
        tip = _chain(bare, tip, REACH_LIMIT, "long")
    else:
        run_git(bare, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main")

    rows = _walked(bare, [tip])

    assert asked == [[tip, "--not", "--all"]]
    assert rows == rev_list(str(bare), [tip, "--not", "--all"])
