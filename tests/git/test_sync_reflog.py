"""The reflog entries ``sync --push`` writes: each ref's names what happened to that ref
(PRODUCT.md: every message leads somewhere; git's own ``switch``/``pull`` entries say what
moved a branch and from where). Before, one message served every ref of a move: a ``main``
brought along from ``origin/main`` got ``vcontext sync: origin/agents/agent-0``, and a
merge's entry named only the agent (``vcontext sync: a0``)."""

from __future__ import annotations

from pathlib import Path

from helpers.team import TASKS, edit, git, setup, vcx


def _entry(clone: Path, ref: str) -> str:
    return git(clone, "reflog", "show", "--format=%gs", "-1", ref).stdout.strip()


def _work(clone: Path, index: int, status: str) -> None:
    edit(clone, TASKS, lambda d: d["todoList"]["items"][index].update(status=status))
    git(clone, "commit", "-qam", f"t{index + 1} {status}")


def _sync(clone: Path, agent: str) -> str:
    done = vcx(clone, "sync", agent, "--push", "origin")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_each_ref_sync_moves_has_a_reflog_entry_naming_what_moved_it(tmp_path: Path) -> None:
    team = setup(tmp_path, ["a0", "a1"])
    a0, a1 = team.agents["a0"], team.agents["a1"]
    _work(a0, 1, "inProgress")
    _sync(a0, "a0")  # a0 holds the lease: it merges both ways
    assert _entry(a0, "main") == "vcontext sync: merge agents/a0 into main"
    assert _entry(a0, "agents/a0") == "vcontext sync: merge main into agents/a0"

    _work(a1, 0, "completed")
    _sync(a1, "a1")
    said = _sync(a0, "a0")  # nothing new: main is brought along, the base merged into a0
    assert "brought along from origin: main" in said
    assert _entry(a0, "main") == "vcontext sync: brought along from origin/main"
    assert _entry(a0, "agents/a0") == "vcontext sync: merge main into agents/a0"

    other = tmp_path / "a0-second-clone"  # a second clone of a0 lands a round
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    git(other, "config", "user.name", "a0")
    git(other, "config", "user.email", "a0@example.com")
    assert vcx(other, "install").returncode == 0
    git(other, "switch", "-q", "agents/a0")
    _work(other, 1, "completed")
    _sync(other, "a0")
    said = _sync(a0, "a0")
    assert "brought along from origin: main, agents/a0" in said
    assert _entry(a0, "main") == "vcontext sync: brought along from origin/main"
    assert _entry(a0, "agents/a0") == "vcontext sync: brought along from origin/agents/a0"
