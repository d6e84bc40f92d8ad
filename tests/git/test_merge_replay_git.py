"""Replays through real git (issue 26 point 5; PRODUCT.md M6, M8 "In a replay"): a
cherry-pick brings only what was picked, rebase steps (plain, interactive, ``pull
--rebase``) and reverts apply the commit's own change on top of ours: its sequence change
an advance on ours', its changeLog entries after ours' (renumbered, strictly increasing),
no ``merge`` entry, nothing of a dropped commit."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.edits.stamp import Stamp
from git_vcontext.edits.todos import create, update
from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"


def read(repo: Path) -> Any:
    return json.loads((repo / TODO).read_text())


def write(repo: Path, data: Any) -> None:
    path = repo / TODO
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


_CLOCK = iter(range(10_000))


def tool(repo: Path, agent: str, item_id: str, **fields: Any) -> str:
    """What an agent's tool writes: the item changed, sequence + 1, a changeLog entry."""
    stamp = Stamp(agent, f"2026-01-01T10:{next(_CLOCK) % 60:02d}:00Z")
    write(repo, update(read(repo), item_id, fields, stamp).data)
    return commit(repo, f"{agent}: {item_id} {fields}")


def alice_then_bob(
    repo: Path, alice: list[tuple[str, str]], bob: tuple[str, str]
) -> tuple[list[str], list[tuple[Any, str]]]:
    """alice's tool edits (item, status), one commit each, on a branch from main, then
    bob's on a branch from main (checked out): (alice's commits, bob's log)."""
    run_git(repo, "checkout", "-q", "-b", "alice")
    commits = [tool(repo, "alice", item, status=status) for item, status in alice]
    run_git(repo, "checkout", "-q", "-b", "bob", "main")
    tool(repo, "bob", bob[0], status=bob[1])
    return commits, log_of(repo)


def add(repo: Path, agent: str, item_id: str) -> str:
    stamp = Stamp(agent, f"2026-01-01T11:{next(_CLOCK) % 60:02d}:00Z")
    out = create(read(repo), {"id": item_id, "title": item_id.upper()}, stamp, entropy=item_id)
    write(repo, out.data)
    return commit(repo, f"{agent}: add {item_id}")


def log_of(repo: Path) -> list[tuple[Any, str]]:
    entries = read(repo)["todoList"]["changeLog"]
    return [(e["sequence"], e.get("description", e.get("operation"))) for e in entries]


def merges(repo: Path) -> list[Any]:
    return [e for e in read(repo)["todoList"]["changeLog"] if e.get("operation") == "merge"]


def items(repo: Path) -> dict[str, Any]:
    return {i["id"]: i for i in read(repo)["todoList"]["items"]}


def valid(repo: Path) -> None:
    proc = run_cli("validate", TODO, cwd=repo)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def history_clean(repo: Path, ref: str) -> None:
    """The replayed commits pass the installed pre-push hook (pushed to the bare remote
    that holds main as it was before the replay)."""
    proc = run_git(repo, "push", "-q", "origin", f"{ref}:refs/heads/checked", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def strictly_increasing(repo: Path) -> None:
    seqs = [s for s, _ in log_of(repo)]
    assert seqs == sorted(set(seqs)), seqs
    assert read(repo)["todoList"]["sequence"] == seqs[-1]


@pytest.fixture
def repo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The driver and the pre-push hook installed, a todo list on main, a bare ``origin``."""
    import git_vcontext

    # the hook git starts must import the code under test (absolute path: git changes cwd)
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))
    proc = run_cli("install", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    run_git(git_repo, "remote", "add", "origin", str(remote))
    stamp = Stamp("seed", "2026-01-01T09:00:00Z")
    data: Any = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}
    for i in ("t1", "t2", "t3", "t4"):
        data = create(data, {"id": i, "title": i.upper()}, stamp, entropy=i).data
    write(git_repo, data)
    commit(git_repo, "base")
    run_git(git_repo, "push", "-q", "origin", "main")
    return git_repo


def test_m6_cherry_pick_brings_only_what_was_picked(repo: Path) -> None:
    """The issue: picking alice's second commit onto bob added the changeLog entry of her
    first commit (not picked) and a merge entry."""
    (_, second), before = alice_then_bob(
        repo, [("t1", "inProgress"), ("t2", "completed")], ("t3", "blocked")
    )
    pick = run_git(repo, "cherry-pick", second, check=False)
    assert pick.returncode == 0, pick.stdout + pick.stderr
    now = items(repo)
    assert (now["t1"]["status"], now["t2"]["status"], now["t3"]["status"]) == (
        "pending", "completed", "blocked",
    )  # fmt: skip
    log = log_of(repo)
    assert log[: len(before)] == before  # ours' entries kept, in ours' order
    assert [d for _, d in log[len(before) :]] == ["updated t2: status pending → completed"]
    assert not merges(repo)
    assert read(repo)["todoList"]["sequence"] == before[-1][0] + 1
    strictly_increasing(repo)
    valid(repo)
    history_clean(repo, "bob")


def test_m8_cherry_pick_whose_parent_is_an_ancestor_of_ours_is_a_replay(repo: Path) -> None:
    """M8 "In a replay — … a cherry-pick": picking alice's first commit (its parent, the
    base, is an ancestor of bob: the file's history alone cannot tell it from a merge)
    applies its own change on top of bob's: its changeLog entry after bob's with the
    sequence continuing, the sequence advanced by one, no ``merge`` entry, no sequence
    conflict. It was merged as a merge: a ``merge`` entry and max + 1."""
    (first,), before = alice_then_bob(repo, [("t1", "inProgress")], ("t3", "blocked"))
    pick = run_git(repo, "cherry-pick", first, check=False)
    assert pick.returncode == 0, pick.stdout + pick.stderr
    log = log_of(repo)
    assert log[: len(before)] == before
    assert [d for _, d in log[len(before) :]] == ["updated t1: status pending → inProgress"]
    assert not merges(repo)
    assert read(repo)["todoList"]["sequence"] == before[-1][0] + 1
    strictly_increasing(repo)
    assert (items(repo)["t1"]["status"], items(repo)["t3"]["status"]) == ("inProgress", "blocked")
    valid(repo)


def test_m8_rebase_replays_each_commit_on_ours_without_merge_entries(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    tool(repo, "ann", "t2", status="inProgress")
    tool(repo, "ann", "t3", status="completed")
    run_git(repo, "checkout", "-q", "main")
    tool(repo, "main", "t1", status="blocked")
    upstream = log_of(repo)
    run_git(repo, "checkout", "-q", "feature")
    rebase = run_git(repo, "rebase", "main", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    log = log_of(repo)
    assert log[: len(upstream)] == upstream
    assert [d for _, d in log[len(upstream) :]] == [
        "updated t2: status pending → inProgress",
        "updated t3: status pending → completed",
    ]
    assert not merges(repo)
    strictly_increasing(repo)
    assert read(repo)["todoList"]["sequence"] == upstream[-1][0] + 2
    assert [items(repo)[i]["status"] for i in ("t1", "t2", "t3")] == [
        "blocked", "inProgress", "completed",
    ]  # fmt: skip
    valid(repo)
    history_clean(repo, "feature")


def _editor(tmp_path: Path, script: str) -> str:
    path = tmp_path / "sequence-editor.py"
    path.write_text(
        f"import sys\npath = sys.argv[1]\nlines = open(path).read().splitlines()\n{script}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return f"python3 {path}"


def test_m6_rebase_i_drop_and_reorder_keep_no_dropped_content(repo: Path, tmp_path: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "feature")
    add(repo, "ann", "x1")
    add(repo, "ann", "x2")  # dropped below
    add(repo, "ann", "x3")  # moved before x1 below
    run_git(repo, "checkout", "-q", "main")
    tool(repo, "main", "t1", title="Upstream")
    run_git(repo, "checkout", "-q", "feature")
    script = (
        "picks = [l for l in lines if l.startswith('pick ')]\n"
        "open(path, 'w').write('\\n'.join([picks[2], picks[0]]) + '\\n')"
    )
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": _editor(tmp_path, script)}
    proc = subprocess.run(
        ["git", "rebase", "-i", "main"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [i for i in items(repo) if i.startswith("x")] == ["x3", "x1"]
    descriptions = [d for _, d in log_of(repo)]
    assert not [d for d in descriptions if "x2" in d]  # nothing of the dropped commit
    assert [d for d in descriptions if d.startswith("created x")] == [
        "created x3: X3", "created x1: X1",
    ]  # fmt: skip
    assert not merges(repo)
    strictly_increasing(repo)
    valid(repo)
    history_clean(repo, "feature")


def test_m8_pull_rebase_of_many_commits_adds_no_entry_of_its_own(
    repo: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    for key, value in (("user.name", "Other"), ("user.email", "o@example.com")):
        run_git(other, "config", key, value)
    tool(other, "other", "t4", status="cancelled")
    run_git(other, "push", "-q", "origin", "main")
    ids = [f"n{k}" for k in range(50)]
    for ident in ids:
        add(repo, "ann", ident)
    mine = log_of(repo)[-len(ids) :]
    pull = run_git(repo, "pull", "-q", "--rebase", "origin", "main", check=False)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    log = log_of(repo)
    assert not merges(repo)
    assert [d for _, d in log[-len(ids) :]] == [d for _, d in mine]
    assert items(repo)["t4"]["status"] == "cancelled"
    strictly_increasing(repo)
    valid(repo)
    history_clean(repo, "main")


def test_m8_revert_advances_the_sequence_and_keeps_the_log(repo: Path) -> None:
    first = tool(repo, "ann", "t1", status="completed")
    tool(repo, "ann", "t2", title="Renamed")
    before = read(repo)["todoList"]
    revert = run_git(repo, "revert", "--no-edit", first, check=False)
    assert revert.returncode == 0, revert.stdout + revert.stderr
    after = read(repo)["todoList"]
    t1 = items(repo)["t1"]
    assert t1["status"] == "pending"
    assert "completed" not in t1
    assert items(repo)["t2"]["title"] == "Renamed"
    assert after["sequence"] == before["sequence"] + 1  # a revert advances too
    # append-only: nothing removed; one entry names the revert (issue 36)
    assert after["changeLog"][:-1] == before["changeLog"]
    assert after["changeLog"][-1]["sequence"] == after["sequence"]
    assert first[:7] in after["changeLog"][-1]["reason"]
    valid(repo)
    history_clean(repo, "main")


def test_m6_resolving_a_stopped_cherry_pick_merges_as_the_driver_did(repo: Path) -> None:
    """``resolve`` merges the index stages again: during a cherry-pick it replays as the
    driver did, so the entry of the commit not picked stays out there too."""
    (_, second), before = alice_then_bob(
        repo, [("t1", "inProgress"), ("t2", "completed")], ("t2", "blocked")
    )
    pick = run_git(repo, "cherry-pick", second, check=False)
    assert pick.returncode != 0, pick.stdout + pick.stderr  # t2: blocked vs completed
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert items(repo)["t2"]["status"] == "completed"
    assert items(repo)["t1"]["status"] == "pending"
    descriptions = [d for _, d in log_of(repo)]
    assert descriptions[: len(before)] == [d for _, d in before]
    assert "updated t1: status pending → inProgress" not in descriptions  # not picked
    strictly_increasing(repo)
    valid(repo)
    done = run_git(repo, "-c", "core.editor=true", "cherry-pick", "--continue", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    history_clean(repo, "bob")


def test_pull_rebase_over_the_same_new_target_chains_the_replayed_creation(
    repo: Path, tmp_path: Path
) -> None:
    """Two agents create ``dlq``; one pushes first, the other runs ``git pull --rebase``:
    replayed on a parent that has ``dlq``, its creation becomes an update after the winner
    (else the hook refuses the rebased commit: a second creation), and it pushes."""
    book = "memory/playbook.vcontext.json"
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    (repo / book).write_text(json.dumps(seed, indent=2) + "\n")
    commit(repo, "a playbook")
    run_git(repo, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    for key, value in (("user.name", "Other"), ("user.email", "o@example.com")):
        run_git(other, "config", key, value)
    for where, who in ((other, "bob"), (repo, "ann")):
        proc = run_cli("playbook", "add", book, "--target", "dlq", "--kind", "rule",
                       "--text", f"{who}: retry from the dead-letter queue", cwd=where)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        commit(where, f"{who} learns dlq")
    run_git(other, "push", "-q", "origin", "main")
    pull = run_git(repo, "pull", "-q", "--rebase", "origin", "main", check=False)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    events = json.loads((repo / book).read_text())["playbook"]["items"]
    [creation] = [e for e in events if e["operation"] == "append"]
    [update] = [e for e in events if e["operation"] == "update"]
    assert "bob" in creation["text"]
    assert "ann" in update["text"]
    assert update["prevEventId"] == creation["eventId"]
    view = json.loads(run_cli("view", book, "--format", "json", cwd=repo).stdout)
    [entry] = view["entries"]
    assert entry["heads"] == [update["eventId"]]
    assert view.get("notes", []) == []
    done = run_git(repo, "push", "-q", "origin", "main", check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_m8_info_sequence_in_a_rebase_step_advances_by_the_commits_own_change(
    repo: Path,
) -> None:
    """M8 on the info object (``vContextInfo.sequence``, seed 003's optimistic lock) in a
    replay: the replayed commit's change is an advance on ours' (A + |B − O| = 5 + 2),
    not a merge's max(A, B) + 1 (6), through a real ``git rebase``."""

    def info(seq: int) -> None:
        data = read(repo)
        data["vContextInfo"]["sequence"] = seq
        write(repo, data)

    info(1)
    commit(repo, "info at 1")
    run_git(repo, "checkout", "-q", "-b", "feature")
    info(3)
    tool(repo, "ann", "t2", status="completed")  # O 1 -> B 3 (and a todo change)
    run_git(repo, "checkout", "-q", "main")
    info(5)
    commit(repo, "main moves the lock to 5")
    run_git(repo, "checkout", "-q", "feature")
    rebase = run_git(repo, "rebase", "main", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    assert read(repo)["vContextInfo"]["sequence"] == 5 + (3 - 1)
    assert not merges(repo)
    valid(repo)
    history_clean(repo, "feature")


def _conflicting_pick(repo: Path) -> tuple[str, list[tuple[Any, str]]]:
    """alice's first commit (its parent, main, is an ancestor of bob: ours' history alone
    calls picking it a merge) and bob's edit of the same value: (alice's commit, bob's
    log). Conflicts are written structured, so the driver's file is a document to read."""
    run_git(repo, "config", "merge.vcontext.conflictStyle", "structured")
    (first,), before = alice_then_bob(repo, [("t1", "inProgress")], ("t1", "blocked"))
    return first, before


def _driver_then_resolve(repo: Path, *pick: str) -> tuple[list[Any], list[Any]]:
    """The changeLog the driver wrote when the pick (a command line) stopped, and the one
    ``resolve --take theirs`` wrote from the index stages."""
    stopped = subprocess.run(pick, cwd=repo, capture_output=True, text=True, check=False)
    assert stopped.returncode != 0, stopped.stdout + stopped.stderr  # t1: inProgress/blocked
    assert (repo / ".git" / "CHERRY_PICK_HEAD").is_file()
    driver = read(repo)["todoList"]["changeLog"]
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert items(repo)["t1"]["status"] == "inProgress"
    valid(repo)
    return driver, read(repo)["todoList"]["changeLog"]


def test_m8_an_alias_cherry_pick_is_a_replay_for_the_driver_and_for_resolve(repo: Path) -> None:
    """M8 "In a replay — … a cherry-pick", M6 (a pick's entries after ours', sequences
    continuing) and "Resolving conflicts" (resolve merges the stages again, as the driver
    did): ``git cp X`` with ``alias.cp = cherry-pick -x`` is a cherry-pick for both. git
    runs the command an alias names as a child ``git cherry-pick -x X``, which the driver
    reads; had it read only ``cp`` it would judge from ours' history: a merge (alice's
    entry kept at sequence 5, before bob's), where resolve replays (alice's at 6)."""
    first, before = _conflicting_pick(repo)
    run_git(repo, "config", "alias.cp", "cherry-pick -x")
    driver, resolved = _driver_then_resolve(repo, "git", "cp", first)
    for log in (driver, resolved):
        picked = [(e["sequence"], e.get("description", e["operation"])) for e in log]
        assert picked[: len(before)] == before  # ours' entries first, unchanged
        assert picked[len(before) :] == [
            (before[-1][0] + 1, "updated t1: status pending → inProgress"),
            (before[-1][0] + 2, "merge"),  # the step met a concurrent edit of t1's status
        ]
    assert resolved == driver
    strictly_increasing(repo)


def test_m8_a_driver_that_cannot_tell_its_invoker_and_resolve_judge_alike(
    repo: Path, tmp_path: Path
) -> None:
    """ "Resolving conflicts" (resolve merges the stages again, as the driver did) and M6/M8:
    a driver that cannot read the git command running it (no ``/proc`` nor ``ps``; here a
    git whose name is not ``git``) judges this pick from ours' history: a merge. resolve
    said "replay" for every stopped cherry-pick and wrote another changeLog; it now merges
    as the driver recorded it did."""
    first, before = _conflicting_pick(repo)
    unnamed = tmp_path / "bin" / "vcs"
    unnamed.parent.mkdir()
    git = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True)
    unnamed.symlink_to(Path(git.stdout.strip()) / "git")
    driver, resolved = _driver_then_resolve(repo, str(unnamed), "cherry-pick", first)
    merged = [(e["sequence"], e.get("description", e["operation"])) for e in driver]
    assert merged[len(before) - 1 :] == [  # alice's entry by its key, before bob's: a merge
        (before[-1][0], "updated t1: status pending → inProgress"),
        before[-1],
        (before[-1][0] + 1, "merge"),
    ]
    assert resolved == driver
