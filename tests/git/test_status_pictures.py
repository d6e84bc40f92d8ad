"""``git vcontext status --format dot|mermaid``: the agents around their base, in real repositories.

The base and its agents as nodes, ahead/behind on the edges, and predicted conflicts
as red links between the agents that would conflict (or an agent and its base), read
back from Graphviz's own layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.pictures import (
    check_mermaid_rules,
    drawn_edges,
    drawn_nodes,
    mermaid_labels,
    mermaid_parser,
    render_json,
)
from helpers.run import run_cli, run_git
from helpers.sync_repos import (
    EPOCH,
    agent_against_main,
    commit_all,
    commit_on,
    conflicting_agents,
    edit,
    fork_by_hand,
    seed,
    status,
)


def _status(repo: Path, fmt: str = "dot") -> tuple[int, str, str]:
    proc = run_cli("status", "--format", fmt, cwd=repo, env=EPOCH)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _layout(repo: Path) -> tuple[int, dict[str, Any]]:
    code, out, err = _status(repo)
    assert err == ""
    return code, render_json(out)


def _names(layout: dict[str, Any]) -> dict[int, str]:
    """Node index in the layout -> the first line drawn (agent or branch name)."""
    objects = layout["objects"]
    return {o["_gvid"]: d.lines[0] for o, d in zip(objects, drawn_nodes(layout), strict=True)}


def _links(layout: dict[str, Any], kind: str) -> list[tuple[str, str, str]]:
    names = _names(layout)
    out = []
    for e in drawn_edges(layout):
        if e.get("class") == kind:
            text = [op["text"] for op in e.get("_ldraw_", []) if op.get("op") == "T"]
            out.append((names[e["tail"]], names[e["head"]], " ".join(text)))
    return out


def test_status_dot_links_agents_that_would_conflict_in_red(git_repo: Path) -> None:
    repo = git_repo
    conflicting_agents(repo)  # alice and bob set t1 differently
    fork_by_hand(repo, "carol")
    commit_on(repo, "agents/carol", {"docs/plan.vcontext.json": _retitle}, "c")
    commit_on(repo, "agents/carol", {"todo.vcontext.json": status(("t3", "completed"))}, "c2")

    code, layout = _layout(repo)

    assert code == 0  # a picture printed is a success, conflict or not (1 with --exit-code)
    nodes = drawn_nodes(layout)
    assert [(n.lines[0], sorted(n.classes)) for n in nodes] == [
        ("main", ["base"]),
        ("alice", ["agent", "needs-sync"]),
        ("bob", ["agent", "needs-sync"]),  # alone, each syncs (issue 36 point 7) ...
        ("carol", ["agent", "needs-sync"]),
    ]
    assert _links(layout, "fork") == [
        ("main", "alice", "2 ahead / 0 behind"),
        ("main", "bob", "2 ahead / 0 behind"),
        ("main", "carol", "3 ahead / 0 behind"),
    ]
    # carol changed todo.vcontext.json too, but another item: her trial merges are clean
    # ... not both: the red link
    assert _links(layout, "conflict") == [("alice", "bob", "conflict: todo.vcontext.json")]
    [red] = [e for e in drawn_edges(layout) if e.get("class") == "conflict"]
    assert red["color"] == "#cf222e"
    assert red["dir"] == "none"


def _bump_submodule(wt: Path, commit: str) -> None:
    """Point the submodule ``sub`` (a gitlink to a commit this repository lacks) at ``commit``."""
    run_git(wt, "update-index", "--add", "--cacheinfo", f"160000,{commit},sub")
    run_git(wt, "commit", "-q", "-m", f"sub at {commit[:7]}")


def test_status_dot_predicts_clashes_past_a_submodule_bump(git_repo: Path) -> None:
    """An agent that moved a submodule changed no document there: the clash prediction
    reads only blobs (it used to look the submodule's commit up, a KeyError)."""
    repo = git_repo
    seed(repo)
    (repo / "sub").mkdir()  # a submodule not checked out: an empty folder
    _bump_submodule(repo, "1" * 40)
    fork_by_hand(repo, "alice")
    fork_by_hand(repo, "bob")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    commit_on(repo, "agents/bob", {"todo.vcontext.json": status(("t1", "blocked"))}, "b")
    wt = repo.parent / "alice-sub"
    run_git(repo, "worktree", "add", "-q", str(wt), "agents/alice")
    _bump_submodule(wt, "2" * 40)
    run_git(repo, "worktree", "remove", "--force", str(wt))

    code, out, err = _status(repo)

    assert (code, err) == (0, "")  # a picture printed is a success
    assert "conflict: todo.vcontext.json" in out


def _retitle(data: Any) -> None:
    data["plan"]["title"] = "A better plan"


def test_status_dot_links_an_agent_that_conflicts_with_its_base(git_repo: Path) -> None:
    repo = git_repo
    agent_against_main(repo)

    code, layout = _layout(repo)

    assert code == 0  # drawn: a success (--exit-code: 1)
    assert _links(layout, "fork") == [("main", "alice", "2 ahead / 1 behind")]
    assert _links(layout, "conflict") == [("alice", "main", "conflict: todo.vcontext.json")]


def test_status_dot_shows_a_refused_agent_with_the_reason(git_repo: Path) -> None:
    repo = git_repo
    seed(repo)
    run_git(repo, "branch", "release")
    fork_by_hand(repo, "alice", base="release")
    run_git(repo, "branch", "-D", "release")

    code, layout = _layout(repo)

    assert code == 0
    [agent] = [n for n in drawn_nodes(layout) if "agent" in n.classes]
    assert "refused" in agent.classes
    assert agent.lines[:3] == ("alice", "agents/alice", "refused")
    assert any("release" in line for line in agent.lines[3:])
    [(base, name, _)] = _links(layout, "refused")
    assert (base, name) == ("release", "alice")


def test_status_picture_without_agents_says_so(git_repo: Path) -> None:
    seed(git_repo)
    code, layout = _layout(git_repo)
    assert code == 0
    assert drawn_nodes(layout) == []
    assert "no agent branches" in layout["label"]
    code, out, _ = _status(git_repo, "mermaid")
    assert code == 0
    check_mermaid_rules(out)


BASE = 'ma#in;"q"<b>%%$`|'  # a valid branch name, every character of it means something


def test_status_mermaid_follows_the_rules_and_parses(git_repo: Path) -> None:
    repo = git_repo
    conflicting_agents(repo)
    run_git(repo, "branch", "-m", "main", BASE)
    for agent in ("alice", "bob"):
        run_git(repo, "config", f"vcontext.agent.{agent}.base", BASE)
    code, out, err = _status(repo, "mermaid")
    assert (code, err) == (0, "")  # a picture printed is a success
    check_mermaid_rules(out)
    assert [BASE, "base of 2 agents"] in mermaid_labels(out)
    assert out.count(" ---|") == 1  # one conflict link, without an arrow
    [result] = mermaid_parser()([out])
    assert result["ok"], result
    code, out, err = _status(repo, "dot")
    assert [n.lines[0] for n in drawn_nodes(render_json(out))] == [BASE, "alice", "bob"]


_T3 = {"id": "t3", "title": "T3", "status": "pending"}  # valid: status predicts no stop


def test_status_picture_of_criss_crossed_agents_merges_them_from_a_virtual_base(
    git_repo: Path,
) -> None:
    """x and y both carry main's and x's first commits (two merge bases): from either
    base alone, x reopening t1 and y reopening t2 would look like a conflict."""
    from helpers.criss_cross import DOC, crossed

    crossed(git_repo)
    run_git(git_repo, "checkout", "-q", "-b", "agents/y", "main")
    edit(git_repo, DOC, lambda d: d["todoList"]["items"].append(_T3))
    commit_all(git_repo, "y adds t3")
    run_git(git_repo, "config", "vcontext.agent.y.base", "main")
    run_git(git_repo, "checkout", "-q", "main")

    code, layout = _layout(git_repo)

    assert code == 0
    assert [n.lines[0] for n in drawn_nodes(layout)] == ["main", "x", "y"]
    assert _links(layout, "conflict") == []


def test_status_picture_finds_conflicts_in_ordinary_files_and_deleted_documents(
    git_repo: Path,
) -> None:
    repo = git_repo
    seed(repo)
    for agent in ("alice", "bob", "carol"):
        fork_by_hand(repo, agent)
    commit_on(repo, "agents/alice", {"notes.txt": "line 1\nalice\nline 3\n"}, "a")
    commit_on(repo, "agents/bob", {"notes.txt": "line 1\nbob\nline 3\n"}, "b")
    commit_on(repo, "agents/bob", {"docs/plan.vcontext.json": _retitle}, "b2")
    run_git(repo, "worktree", "add", "-q", str(repo.parent / "c"), "agents/carol")
    run_git(repo.parent / "c", "rm", "-q", "docs/plan.vcontext.json")
    run_git(repo.parent / "c", "commit", "-qm", "carol drops the plan")

    code, layout = _layout(repo)

    assert code == 0  # drawn: a success (--exit-code: 1)
    assert sorted(_links(layout, "conflict")) == [
        ("alice", "bob", "conflict: notes.txt"),
        ("bob", "carol", "conflict: docs/plan.vcontext.json"),
    ]


def test_status_picture_draws_no_conflict_a_favoured_side_settles(git_repo: Path) -> None:
    """merge.vcontext.favor settles every document conflict in sync: none to predict."""
    conflicting_agents(git_repo)
    run_git(git_repo, "config", "merge.vcontext.favor", "ours")
    code, layout = _layout(git_repo)
    text = run_cli("status", cwd=git_repo, env=EPOCH)
    assert code == text.returncode == 0
    assert _links(layout, "conflict") == []
