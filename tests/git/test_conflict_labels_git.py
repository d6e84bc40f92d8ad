"""Conflict labels name where each value came from (issue 36 point 5; PRODUCT.md M15,
"Resolving conflicts": ``labels`` name the branches). git 2.39 passes the driver no labels
(``%S %X %Y`` exist from 2.44 on), so the driver names the sides itself — for every git
command that stops with conflicts: merge, merge --squash, rebase, cherry-pick, revert,
stash pop, checkout -m, and the autostash of ``pull --rebase``. ``conflicts`` prints the
same labels as the file's markers: with ``resolve --take ours|theirs`` a wrong label is a
wrong choice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers.conflict_repos import TODO, installed, status_of, todo, write
from helpers.run import run_cli, run_git


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def put(repo: Path, status: str) -> None:
    """t1's status in the work tree (everything else as the base)."""
    write(repo, TODO, todo(t1=status))


def marker_labels(repo: Path) -> dict[str, str]:
    """The labels of the markers in the work-tree file."""
    lines = (repo / TODO).read_text().splitlines()
    ours = [line[8:] for line in lines if line.startswith("<<<<<<< ")]
    theirs = [line[8:] for line in lines if line.startswith(">>>>>>> ")]
    assert ours, "\n".join(lines)
    assert theirs, "\n".join(lines)
    return {"ours": ours[0], "theirs": theirs[0]}


def listed(repo: Path) -> tuple[dict[str, str], dict[str, str]]:
    """``conflicts --format json``'s labels and the conflict's two values."""
    proc = run_cli("conflicts", "--format", "json", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    [f] = json.loads(proc.stdout)["files"]
    [c] = f["conflicts"]
    return f["labels"], {"ours": c["ours"], "theirs": c["theirs"]}


def text_listing(repo: Path) -> str:
    return run_cli("conflicts", cwd=repo).stdout.decode()


def same_everywhere(repo: Path) -> dict[str, str]:
    """The file's markers and ``conflicts`` (json and text) say the same labels."""
    labels, _values = listed(repo)
    assert labels == marker_labels(repo)
    text = text_listing(repo)
    assert f"ours:   {labels['ours']}" in text
    assert f"theirs: {labels['theirs']}" in text
    return labels


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """The driver installed; t1 pending on main."""
    repo = installed(git_repo)
    put(repo, "pending")
    commit(repo, "base")
    return repo


def branches(repo: Path) -> tuple[str, str]:
    """feat completes t1, main blocks it; back on main."""
    run_git(repo, "switch", "-q", "-c", "feat")
    put(repo, "completed")
    feat = commit(repo, "feat completes t1")
    run_git(repo, "switch", "-q", "main")
    put(repo, "blocked")
    main = commit(repo, "main blocks t1")
    return main, feat


def test_m15_merge_labels_name_the_branches(repo: Path) -> None:
    branches(repo)
    assert run_git(repo, "merge", "feat", check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels == {"ours": "main", "theirs": "feat"}
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "completed"}


def test_m15_merge_squash_labels_name_the_branch_squashed(repo: Path) -> None:
    branches(repo)
    assert run_git(repo, "merge", "--squash", "feat", check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels["ours"].startswith("main")
    assert labels["theirs"].startswith("feat")
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "completed"}


def test_m15_rebase_labels_say_which_is_the_upstream_and_which_the_replayed_commit(
    repo: Path,
) -> None:
    _main, feat = branches(repo)
    run_git(repo, "switch", "-q", "feat")
    assert run_git(repo, "rebase", "main", check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels["ours"].startswith("main (upstream")
    assert labels["theirs"].startswith(feat[:7])
    assert "feat completes t1" in labels["theirs"]
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "completed"}


def test_m15_cherry_pick_labels_name_the_picked_commit(repo: Path) -> None:
    _main, feat = branches(repo)
    assert run_git(repo, "cherry-pick", "feat", check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels["ours"] == "main"
    assert labels["theirs"].startswith(feat[:7])
    assert "feat completes t1" in labels["theirs"]
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "completed"}


def test_m15_revert_labels_name_the_reverted_commit(repo: Path) -> None:
    put(repo, "completed")
    reverted = commit(repo, "complete t1")
    put(repo, "blocked")
    commit(repo, "block t1")
    assert run_git(repo, "revert", "--no-edit", reverted, check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels["ours"] == "main"
    assert reverted[:7] in labels["theirs"]
    assert "parent of" in labels["theirs"]
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "pending"}


def test_m15_stash_pop_labels_name_the_stash(repo: Path) -> None:
    put(repo, "completed")  # uncommitted work, stashed
    run_git(repo, "stash", "-q")
    put(repo, "blocked")
    commit(repo, "main blocks t1")
    assert run_git(repo, "stash", "pop", check=False).returncode == 1
    labels = same_everywhere(repo)
    assert labels["ours"].startswith("main")
    assert "stash" in labels["theirs"]
    assert labels["theirs"] != "theirs"
    assert listed(repo)[1] == {"ours": "blocked", "theirs": "completed"}


def test_m15_checkout_m_labels_the_branch_checked_out_and_the_local_edit(repo: Path) -> None:
    """``git checkout -m cm1`` with local edits: ours is cm1's value, theirs the local edit
    (the issue: cm1's value was marked ``main`` and the local edit ``theirs``)."""
    run_git(repo, "switch", "-q", "-c", "cm1")
    put(repo, "completed")
    commit(repo, "cm1 completes t1")
    run_git(repo, "switch", "-q", "main")
    put(repo, "blocked")  # a local edit, not committed
    run_git(repo, "checkout", "-m", "cm1")  # git exits 0, the file left conflicted
    assert status_of(repo) == "UU"
    labels = same_everywhere(repo)
    assert labels["ours"].startswith("cm1")
    assert "local" in labels["theirs"]
    assert "main" not in labels["ours"]
    assert listed(repo)[1] == {"ours": "completed", "theirs": "blocked"}


def test_m15_pull_rebase_autostash_labels_the_uncommitted_work(repo: Path, tmp_path: Path) -> None:
    """``pull --rebase`` with ``rebase.autoStash=true``: the autostash's conflict is
    uncommitted work, not the replayed local commit."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    run_git(repo, "remote", "add", "origin", str(remote))
    run_git(repo, "push", "-q", "-u", "origin", "main")
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    for key, value in (("user.name", "Other"), ("user.email", "o@example.com")):
        run_git(other, "config", key, value)
    put(other, "completed")
    commit(other, "upstream completes t1")
    run_git(other, "push", "-q", "origin", "main")
    (repo / "notes.txt").write_text("a local commit\n")
    local = commit(repo, "local commit")
    put(repo, "blocked")  # uncommitted
    proc = run_git(repo, "-c", "rebase.autoStash=true", "pull", "--rebase", check=False)
    assert "Applying autostash resulted in conflicts" in proc.stdout + proc.stderr
    labels = same_everywhere(repo)
    assert "replayed" not in labels["theirs"]
    assert local[:7] not in labels["theirs"]
    assert "stash" in labels["theirs"]
    assert labels["ours"].startswith("main")
    assert listed(repo)[1] == {"ours": "completed", "theirs": "blocked"}


def test_m15_resolve_take_follows_the_labels_after_checkout_m(repo: Path) -> None:
    """Taking the side the labels call the local edit keeps the local edit."""
    run_git(repo, "switch", "-q", "-c", "cm1")
    put(repo, "completed")
    commit(repo, "cm1 completes t1")
    run_git(repo, "switch", "-q", "main")
    put(repo, "blocked")
    run_git(repo, "checkout", "-m", "cm1")
    labels = same_everywhere(repo)
    side = "theirs" if "local" in labels["theirs"] else "ours"
    proc = run_cli("resolve", TODO, "--take", side, "--no-add", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((repo / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "blocked"  # the local edit
