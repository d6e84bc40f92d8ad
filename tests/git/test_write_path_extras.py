"""The smaller points of issue 27, on real git: ``log --full-history``, ``status --format
dot`` as a pipeline's first step, the agent map's conflict label, and ``mergetool``'s
backup following git's own ``mergetool.keepBackup``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.pictures import drawn_edges, render_json
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

# -- log --full-history ----------------------------------------------------------------------


def test_log_full_history_shows_a_change_a_merge_dropped(git_repo: Path) -> None:
    """A side branch completes t1; the merge keeps main's t1 (``-s ours``). Plain ``log``
    simplifies the history as git does (the merge equals main: the side is not walked);
    ``--full-history`` walks every parent and shows the side's change and the merge that
    dropped it."""
    repo = git_repo
    seed(repo)
    run_git(repo, "checkout", "-q", "-b", "side")
    edit(repo, "todo.vcontext.json", status(("t1", "completed")))
    side = commit_all(repo, "side completes t1")
    run_git(repo, "checkout", "-q", "main")
    edit(repo, "todo.vcontext.json", status(("t2", "blocked")))
    commit_all(repo, "main blocks t2")
    run_git(repo, "merge", "-q", "-s", "ours", "--no-edit", "side")
    merge = run_git(repo, "rev-parse", "HEAD").stdout.strip()

    def commits(*extra: str) -> list[str]:
        proc = run_cli(
            "log", *extra, "--format", "json", "--", "todo.vcontext.json#t1", cwd=repo, env=EPOCH
        )
        assert proc.returncode == 0, proc.stderr.decode()
        return [c["commit"] for c in json.loads(proc.stdout)["commits"]]

    plain = commits()
    assert side not in plain
    full = commits("--full-history")
    assert side in full
    assert merge in full
    assert full.index(merge) < full.index(side)  # newest first


def test_log_full_history_is_in_the_help() -> None:
    proc = run_cli("log", "--help")
    assert b"--full-history" in proc.stdout


# -- status --format dot|mermaid ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_status_picture_exits_0_when_it_draws_1_only_with_exit_code(
    git_repo: Path, fmt: str
) -> None:
    """``status --format dot | dot -Tpng`` pipelines: a picture printed is a success, even
    with a predicted conflict drawn in it; ``--exit-code`` keeps 1 for scripts."""
    conflicting_agents(git_repo)
    drawn = run_cli("status", "--format", fmt, cwd=git_repo, env=EPOCH)
    assert drawn.returncode == 0, drawn.stderr.decode()
    assert b"conflict: todo.vcontext.json" in drawn.stdout
    strict = run_cli("status", "--format", fmt, "--exit-code", cwd=git_repo, env=EPOCH)
    assert strict.returncode == 1
    assert strict.stdout == drawn.stdout
    text = run_cli("status", cwd=git_repo, env=EPOCH)
    assert text.returncode == 1  # the table keeps saying "found something"


# -- the agent map's conflict label ---------------------------------------------------------


def _points(draw: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """Points along the spline(s) of an edge's ``_draw_`` (cubic Béziers sampled)."""
    out: list[tuple[float, float]] = []
    for op in draw:
        if op.get("op") not in ("b", "B"):
            continue
        pts = [tuple(p) for p in op["points"]]
        for i in range(0, len(pts) - 3, 3):
            p0, p1, p2, p3 = pts[i : i + 4]
            for k in range(21):
                t = k / 20
                u = 1 - t
                out.append(
                    (
                        u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                        u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
                    )
                )
    return out


def _label_boxes(edge: dict[str, Any]) -> list[tuple[float, float, float, float]]:
    """The boxes of an edge's label texts (label or xlabel): x0, y0, x1, y1."""
    boxes = []
    for key in ("_ldraw_", "_xldraw_", "_hldraw_", "_tldraw_"):
        size = 9.0
        for op in edge.get(key, []):
            if op.get("op") == "F":
                size = float(op["size"])
            if op.get("op") != "T":
                continue
            x, y = op["pt"]
            width = float(op["width"])
            left = {"l": x, "c": x - width / 2, "r": x - width}[op.get("align", "c")]
            # the ink of the text: its advance width less the side bearings, baseline to cap
            boxes.append((left + 2, y - 0.2 * size, left + width - 2, y + 0.7 * size))
    return boxes


def _node_boxes(layout: dict[str, Any]) -> dict[str, tuple[float, float, float, float]]:
    out = {}
    for obj in layout.get("objects", []):
        if "pos" not in obj or "nodes" in obj:
            continue
        x, y = (float(v) for v in obj["pos"].split(","))
        w, h = float(obj["width"]) * 72 / 2, float(obj["height"]) * 72 / 2
        out[obj["name"]] = (x - w, y - h, x + w, y + h)
    return out


def _inside(p: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("case", ["agents", "three-agents", "agent-and-base"])
def test_status_dot_conflict_label_overlaps_no_edge_and_no_node(git_repo: Path, case: str) -> None:
    """The red conflict labels are drawn clear of every edge (their own included) and node:
    two agents, three agents that all conflict, an agent and its base."""
    if case == "agent-and-base":
        agent_against_main(git_repo)
    else:
        conflicting_agents(git_repo)
    if case == "three-agents":
        fork_by_hand(git_repo, "carol")
        change = {"todo.vcontext.json": status(("t1", "cancelled"))}
        commit_on(git_repo, "agents/carol", change, "carol cancels t1")
    drawn = run_cli("status", "--format", "dot", cwd=git_repo, env=EPOCH)
    layout = render_json(drawn.stdout.decode())
    edges = drawn_edges(layout)
    conflicts = [e for e in edges if e.get("class") == "conflict"]
    assert conflicts
    nodes = _node_boxes(layout)
    for red in conflicts:
        boxes = _label_boxes(red)
        assert boxes, red
        for box in boxes:
            for other in edges:
                hits = [p for p in _points(other.get("_draw_", [])) if _inside(p, box)]
                assert not hits, (other.get("class"), box, hits[:3])
            for name, node in nodes.items():
                assert not _overlaps(box, node), (name, box, node)


# -- mergetool's backup -----------------------------------------------------------------------


def _stopped(repo: Path) -> Path:
    from helpers.conflict_repos import diverge, installed, pretty, todo

    repo = installed(repo)
    ours = todo(t1="blocked")
    theirs = todo(t1="completed")
    diverge(repo, pretty(todo()), pretty(ours), pretty(theirs))
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    return repo


@pytest.mark.parametrize("keep", ["false", "true"])
def test_mergetool_backup_follows_git_mergetool_keep_backup(git_repo: Path, keep: str) -> None:
    """``git mergetool -t vcontext`` (taking theirs, no terminal needed for one conflict
    answered on stdin): the ``*.orig`` backup exists exactly when ``mergetool.keepBackup``
    is true, and no stray backup is left in the work tree either way."""
    import subprocess

    repo = _stopped(git_repo)
    run_git(repo, "config", "mergetool.keepBackup", keep)
    done = subprocess.run(
        ["git", "mergetool", "-t", "vcontext"],
        cwd=repo,
        input="t\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    names = sorted(p.name for p in repo.iterdir() if p.name != ".git")
    backup = "todo.vcontext.json.orig"
    assert (backup in names) == (keep == "true"), names
    assert not [n for n in names if "_BACKUP_" in n or "_LOCAL_" in n or "_REMOTE_" in n], names
    if keep == "true":
        assert "<<<<<<<" in (repo / backup).read_text()
