"""The guard's light path reads a push's new commits from the commits themselves (issue 28,
"the guard must not slow sync --push down": no ``git rev-list`` process per push), and must
find every commit git would list (``rev-list TIPS --not --all``): a commit it missed would
be let in unjudged. It walks only through commits the push brought (git's quarantine) to
what the refs point at; anything else (a commit already here that no ref's tip is, grafts,
refs it cannot read, a long history, no quarantine) is git's to answer. Objects and refs
written by real git, the push's objects into a quarantine as receive-pack makes it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from git_vcontext.gitio.batch import rev_list
from git_vcontext.prepush import light
from git_vcontext.prepush.cache import VerdictCache
from git_vcontext.prepush.light import REACH_LIMIT, Light
from helpers.run import bare_repository, run_git


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path)


def _commit(bare: Path, *parents: str, text: str = "") -> str:
    blob = bare.parent / "blob"
    blob.write_text(f'{{"n": "{text or len(parents)}"}}\n')
    oid = run_git(bare, "hash-object", "-w", str(blob)).stdout.strip()
    listing = f"100644 blob {oid}\ta.vcontext.json\n"
    done = subprocess.run(
        ["git", "mktree"], cwd=bare, input=listing, capture_output=True, text=True, check=True
    )
    args = [a for p in parents for a in ("-p", p)]
    return run_git(
        bare, "commit-tree", done.stdout.strip(), *args, "-m", text or "c"
    ).stdout.strip()


def _chain(bare: Path, start: str, n: int, label: str) -> str:
    tip = start
    for i in range(n):
        tip = _commit(bare, tip, text=f"{label}{i}")
    return tip


def _incoming(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, objects are written into a quarantine, and read, as in git's
    pre-receive hook."""
    quarantine = bare / "objects" / "tmp_objdir-incoming-test"
    quarantine.mkdir()
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(quarantine))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(quarantine))
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", str(bare / "objects"))


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The light path's calls of ``git rev-list``."""
    calls: list[list[str]] = []

    def spy(git_dir: str, args: list[str]) -> list[list[str]]:
        calls.append(args)
        return rev_list(git_dir, args)

    monkeypatch.setattr(light, "rev_list", spy)
    return calls


def _walked(bare: Path, tips: list[str]) -> list[list[str]]:
    return Light(str(bare), VerdictCache.open(str(bare)))._new_commits(tips)


def _git(bare: Path, tips: list[str]) -> set[tuple[str, ...]]:
    return {tuple(row) for row in rev_list(str(bare), [*tips, "--not", "--all"])}


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


def test_a_sync_push_finds_exactly_the_commits_git_lists_without_git(
    bare: Path, history: dict[str, str], asked: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's round and its merge of the base (a request published), and the base's
    merge of it (an integration): the same commits, with the same parents, as git's, and
    no ``git rev-list`` started."""
    _incoming(bare, monkeypatch)
    round_ = _chain(bare, history["agent"], 2, "r")
    merge = _commit(bare, round_, history["main"], text="merge main into agent")
    published = _commit(bare, merge, text="round")
    integrated = _commit(bare, history["main"], published, text="merge agent into main")

    for tips in ([published], [published, published], [integrated, published]):
        walked = _walked(bare, tips)
        assert {tuple(row) for row in walked} == _git(bare, tips)
        assert walked  # (a push with new commits)
    assert asked == []


def test_the_base_an_agent_merged_before_it_moved_on_is_known_without_git(
    bare: Path, history: dict[str, str], asked: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent merged the base, which has moved on since (another agent's work landed):
    the base it merged is no ref's tip, but one of the default branch's first parents, so
    in ``--all``: the walk stops there, with git's list and no git."""
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    merged = history["main"]
    moved = _commit(bare, merged, _chain(bare, history["agent"], 1, "x"), text="next merge")
    run_git(bare, "update-ref", "refs/heads/main", moved)
    _incoming(bare, monkeypatch)
    merge = _commit(bare, history["agent"], merged, text="merge main into agent")
    tip = _commit(bare, merge, text="round")

    rows = _walked(bare, [tip])

    assert asked == []
    assert {tuple(row) for row in rows} == _git(bare, [tip])
    assert len(rows) == 2


@pytest.mark.parametrize("where", ["a commit no ref points at", "an unreferenced history"])
def test_a_commit_already_here_that_no_ref_points_at_is_left_to_git(
    bare: Path,
    history: dict[str, str],
    asked: list[list[str]],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """A branch started on an old commit of the agent's (reachable through its history
    only, not on the default branch's first parents), or on a deleted branch's commits
    (reachable from no ref: git lists them as new, and they must be judged): whether a ref
    reaches it is git's to say, and git's list is the answer."""
    if where == "a commit no ref points at":
        start = run_git(bare, "rev-parse", history["agent"] + "^").stdout.strip()
    else:
        start = _chain(bare, history["main"], 2, "gone")  # in the store, no ref to it
    _incoming(bare, monkeypatch)
    tip = _chain(bare, start, 2, "b")

    rows = _walked(bare, [tip])

    assert asked == [[tip, "--not", "--all"]]
    assert {tuple(row) for row in rows} == _git(bare, [tip])
    assert len(rows) == (2 if where == "a commit no ref points at" else 4)


@pytest.mark.parametrize("why", ["grafts", "too many", "refs not certain", "no quarantine"])
def test_where_the_walk_is_not_certain_git_answers(
    bare: Path,
    history: dict[str, str],
    why: str,
    asked: list[list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Grafts (git reads other parents than the commits hold), more new commits than
    ``REACH_LIMIT``, a ref the files do not say for certain (a symbolic one), objects not
    read from a quarantine: git's list."""
    if why != "no quarantine":
        _incoming(bare, monkeypatch)
    tip = _chain(bare, history["main"], 3, "n")
    if why == "grafts":
        (bare / "info").mkdir(exist_ok=True)
        (bare / "info" / "grafts").write_text(f"{tip}\n")  # git would read no parent
    elif why == "too many":
        tip = _chain(bare, tip, REACH_LIMIT, "long")
    elif why == "refs not certain":
        run_git(bare, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main")

    rows = _walked(bare, [tip])

    assert asked == [[tip, "--not", "--all"]]
    assert rows == rev_list(str(bare), [tip, "--not", "--all"])
