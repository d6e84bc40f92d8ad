"""Issue 26 through real git: what the driver merges, validate and the hook accept (M6, M8,
M13, M19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"


def doc(*items: dict[str, Any], info: dict[str, Any] | None = None, **extra: Any) -> Any:
    head = {"version": "0.4", **(info or {})}
    return {"vContextInfo": head, "todoList": {**extra, "items": list(items)}}


def item(i: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": "pending", **fields}


def write(repo: Path, rel: str, data: Any) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def read(repo: Path, rel: str = TODO) -> Any:
    return json.loads((repo / rel).read_text())


def validate(repo: Path, *paths: str) -> Any:
    proc = run_cli("validate", "--format", "json", *paths, cwd=repo)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def errors(repo: Path, *paths: str) -> list[str]:
    return [e["rule"] for f in validate(repo, *paths)["files"] for e in f["errors"]]


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """A repository with the driver installed (no hook: pushes are tested on their own)."""
    proc = run_cli("install", "--no-hooks", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    return git_repo


def test_m8_info_sequence_both_advanced_through_git_merge(repo: Path) -> None:
    write(repo, TODO, doc(item("a"), item("b"), info={"sequence": 3}))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, TODO, doc(item("a", status="completed"), item("b"), info={"sequence": 4}))
    commit(repo, "alice completes a")
    run_git(repo, "checkout", "-q", "main")
    write(repo, TODO, doc(item("a"), item("b", status="completed"), info={"sequence": 4}))
    commit(repo, "main completes b")
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 0, merge.stderr
    merged = read(repo)
    assert merged["vContextInfo"]["sequence"] == 5
    assert [i["status"] for i in merged["todoList"]["items"]] == ["completed", "completed"]
    assert errors(repo, TODO) == []


PLAYBOOK = "memory/playbook.vcontext.json"


def event(eid: str, day: int, target: str | None = None, **fields: Any) -> dict[str, Any]:
    op = "update" if "prevEventId" in fields else "append"
    out = {"eventId": eid, "targetId": target or eid, "operation": op, "kind": "rule"}
    if op == "append":
        out["text"] = f"rule {eid}"
    return {**out, **fields, "createdAt": f"2025-01-{day:02d}T00:00:00Z"}


def playbook(*events: dict[str, Any]) -> Any:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}


def test_m6_a_branch_merged_again_never_reorders_what_ours_holds_through_git(repo: Path) -> None:
    r0, ra, rb, rc = event("r0", 1), event("ra", 2), event("rb", 3), event("rc", 4)
    write(repo, PLAYBOOK, playbook(r0))
    commit(repo, "r0")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, PLAYBOOK, playbook(r0, ra))
    commit(repo, "alice adds ra")
    run_git(repo, "checkout", "-q", "main")
    write(repo, PLAYBOOK, playbook(r0, rb))
    with_rb = commit(repo, "main adds rb")
    run_git(repo, "checkout", "-q", "-b", "bob", with_rb)
    write(repo, PLAYBOOK, playbook(r0, rb, rc))
    commit(repo, "bob adds rc")
    run_git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--no-edit", "alice", check=False).returncode == 0
    assert [e["eventId"] for e in read(repo, PLAYBOOK)["playbook"]["items"]] == ["r0", "ra", "rb"]
    before = (repo / PLAYBOOK).read_text()
    assert run_git(repo, "merge", "--no-edit", "bob", check=False).returncode == 0
    after = (repo / PLAYBOOK).read_text()
    ids = [e["eventId"] for e in json.loads(after)["playbook"]["items"]]
    assert ids == ["r0", "ra", "rb", "rc"]
    # ours' text is untouched: the merge only inserted theirs' event
    diff = run_git(repo, "diff", "-U0", "HEAD~1", "HEAD", "--", PLAYBOOK).stdout
    removed = [x for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    assert not removed
    assert len(after) > len(before)
    assert errors(repo, PLAYBOOK) == []


# -- M13: a status conflict carries its status fields (point 3) ---------------------------


def _tool_update(repo: Path, item_id: str, status: str, agent: str, now: str) -> None:
    """What an agent's tool writes (the MCP server's todo update): status, Extension 1's
    ``completed`` when it completes, sequence + 1, a changeLog Change."""
    from git_vcontext.edits.stamp import Stamp
    from git_vcontext.edits.todos import update

    out = update(read(repo), item_id, {"status": status}, Stamp(agent, now))
    write(repo, TODO, out.data)


def _completed_vs_cancelled(repo: Path) -> None:
    write(repo, TODO, doc(item("t1"), item("t2"), item("t3"), sequence=1))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    _tool_update(repo, "t3", "completed", "alice", "2026-01-01T10:00:00Z")
    assert read(repo)["todoList"]["items"][2]["completed"] == "2026-01-01T10:00:00Z"
    commit(repo, "alice completes t3")
    run_git(repo, "checkout", "-q", "main")
    _tool_update(repo, "t3", "cancelled", "main", "2026-01-01T11:00:00Z")
    commit(repo, "main cancels t3")
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 1, merge.stdout + merge.stderr


def _t3(repo: Path) -> dict[str, Any]:
    return next(i for i in read(repo)["todoList"]["items"] if i["id"] == "t3")


@pytest.mark.parametrize("how", ["all", "by-id"])
def test_m13_resolve_take_ours_takes_ours_status_fields(repo: Path, how: str) -> None:
    _completed_vs_cancelled(repo)
    listing = json.loads(run_cli("conflicts", "--format", "json", TODO, cwd=repo).stdout)
    [status] = listing["files"][0]["conflicts"]  # one conflict: the status and its field
    assert (status["where"], status["ours"], status["theirs"]) == (
        "todoList.items[t3].status", "cancelled", "completed",
    )  # fmt: skip
    assert status["statusFields"] == {"completed": {"theirs": "2026-01-01T10:00:00Z"}}
    pick = ["--conflict", status["id"]] if how == "by-id" else []
    proc = run_cli("resolve", TODO, *pick, "--take", "ours", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert _t3(repo) == {"id": "t3", "title": "T3", "status": "cancelled"}
    assert errors(repo, TODO) == []
    assert run_git(repo, "commit", "-q", "--no-edit", check=False).returncode == 0


def test_m13_resolve_take_theirs_takes_theirs_status_fields(repo: Path) -> None:
    _completed_vs_cancelled(repo)
    assert run_cli("resolve", TODO, "--take", "theirs", cwd=repo).returncode == 0
    t3 = _t3(repo)
    assert (t3["status"], t3["completed"]) == ("completed", "2026-01-01T10:00:00Z")


def test_m13_a_value_given_for_the_status_takes_the_status_fields_of_its_side(
    repo: Path,
) -> None:
    _completed_vs_cancelled(repo)
    proc = run_cli("resolve", TODO, "--value", '"completed"', cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert _t3(repo)["completed"] == "2026-01-01T10:00:00Z"


def test_m13_favor_ours_takes_ours_status_fields(repo: Path) -> None:
    run_git(repo, "config", "merge.vcontext.favor", "ours")
    write(repo, TODO, doc(item("t1"), item("t2"), item("t3"), sequence=1))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    _tool_update(repo, "t3", "completed", "alice", "2026-01-01T10:00:00Z")
    commit(repo, "alice completes t3")
    run_git(repo, "checkout", "-q", "main")
    _tool_update(repo, "t3", "cancelled", "main", "2026-01-01T11:00:00Z")
    commit(repo, "main cancels t3")
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "completed" not in _t3(repo)
    assert _t3(repo)["status"] == "cancelled"
    assert errors(repo, TODO) == []


def test_m13_structured_conflict_resolved_takes_the_status_fields(repo: Path) -> None:
    run_git(repo, "config", "merge.vcontext.conflictStyle", "structured")
    _completed_vs_cancelled(repo)
    listing = json.loads(run_cli("conflicts", "--format", "json", TODO, cwd=repo).stdout)
    [status] = listing["files"][0]["conflicts"]
    assert status["statusFields"]["completed"]["theirs"] == "2026-01-01T10:00:00Z"
    assert run_cli("resolve", TODO, "--take", "ours", cwd=repo).returncode == 0
    assert "completed" not in _t3(repo)
    assert errors(repo, TODO) == []


def test_m13_mergetool_shows_and_takes_the_status_fields(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_vcontext.commands import mergetool

    _completed_vs_cancelled(repo)
    monkeypatch.chdir(repo)
    said: list[str] = []
    answers = iter(["o"])
    code = mergetool.run(
        base="", local="", remote="", merged=TODO, ask=lambda _p: next(answers), say=said.append
    )
    assert code == 0, said
    assert any("with completed:" in line and "2026-01-01T10:00:00Z" in line for line in said)
    assert "completed" not in _t3(repo)


# -- M13: ACE reactivation (point 4) --------------------------------------------------------

ACE = "memory/ace.vcontext.json"


def ace(status: str, updated: str, **fields: Any) -> Any:
    entry: dict[str, Any] = {"id": "e1", "kind": "rule", "text": "Run migrations in staging first"}
    entry.update({"status": status, "updatedAt": updated, "helpfulCount": 1, "harmfulCount": 0})
    entry.update(fields)
    plan = {"id": "p", "title": "Patterns", "status": "inProgress"}
    return {"vAgendaInfo": {"version": "0.3"}, "plan": {**plan, "playbook": {"entries": [entry]}}}


def test_m13_ace_later_reactivation_wins_through_git_merge(repo: Path) -> None:
    write(repo, ACE, ace("deprecated", "2026-01-01T09:00:00Z", deprecatedReason="flaky"))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, ACE, ace("active", "2026-01-01T12:00:00Z", helpfulCount=2))
    commit(repo, "alice reactivates at 12:00")
    run_git(repo, "checkout", "-q", "main")
    write(repo, ACE, ace("quarantined", "2026-01-01T11:00:00Z", deprecatedReason="harmful"))
    commit(repo, "main quarantines at 11:00")
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    [entry] = read(repo, ACE)["plan"]["playbook"]["entries"]
    assert (entry["status"], entry["updatedAt"]) == ("active", "2026-01-01T12:00:00Z")
    assert "deprecatedReason" not in entry
    assert entry["helpfulCount"] == 2
    assert errors(repo, ACE) == []


# -- M19 and the playbook view: two agents create one target (points 1a, 2) ----------------


@pytest.fixture
def pushed(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The driver and the pre-push hook installed, a playbook on main, pushed to a bare remote."""
    import git_vcontext
    from helpers.pre_push import bare_remote, installed_and_pushed

    # the hook git starts must import the code under test (absolute path: git changes cwd)
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))
    return installed_and_pushed(git_repo, bare_remote(tmp_path))


def cli(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = run_cli(*args, cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr.decode() + proc.stdout.decode()
    return proc.stdout.decode()


def view_entry(repo: Path, target: str) -> Any:
    view = json.loads(cli(repo, "view", PLAYBOOK, "--format", "json", "--target", target))
    [entry] = view["entries"]
    return entry


def push_main(repo: Path) -> Any:
    from helpers.pre_push import push

    return push(repo, "origin", "main")


def test_two_agents_create_one_target_merge_validate_push_then_settle(pushed: Path) -> None:
    """The issue's team: alice and bob each add a learning for a new target ``dlq``; main
    merges both (clean); validate notes the concurrent creations (no error); the hook
    takes the merge; the view warns about two heads until one ordinary update after the
    winner settles them, then lists the older head under ``settled``."""
    repo = pushed
    for agent, at in (("alice", "2026-02-01T10:00:00Z"), ("bob", "2026-02-01T10:05:00Z")):
        run_git(repo, "checkout", "-q", "-b", agent, "main")
        text = f"{agent}: retry from the dead-letter queue"
        env = {"SOURCE_DATE_EPOCH": str(_epoch(at))}
        cli(repo, "playbook", "add", PLAYBOOK, "--target", "dlq", "--kind", "rule",
            "--text", text, env=env)  # fmt: skip
        commit(repo, f"{agent} learns dlq")
    run_git(repo, "checkout", "-q", "main")
    for agent in ("alice", "bob"):
        merged = run_git(repo, "merge", "--no-edit", agent, check=False)
        assert merged.returncode == 0, merged.stdout + merged.stderr
    report = validate(repo, PLAYBOOK)
    [f] = report["files"]
    assert f["valid"], f
    assert [n["rule"] for n in f["notes"]] == ["playbook-duplicate-creation"]
    entry = view_entry(repo, "dlq")
    assert len(entry["heads"]) == 2
    assert "settled" not in entry
    assert "! 2 heads" in cli(repo, "view", PLAYBOOK)
    done = push_main(repo)
    assert done.returncode == 0, done.stderr

    older = [h for h in entry["heads"] if h != entry["winner"]]
    cli(repo, "playbook", "update", PLAYBOOK, "--target", "dlq", "--text", "retry, then alert")
    commit(repo, "settle dlq")
    settled = view_entry(repo, "dlq")
    assert settled["settled"] == older
    assert settled["winner"] not in entry["heads"]  # the update is the winner now
    assert settled["text"] == "retry, then alert"
    assert settled["conflicts"] == []
    text = cli(repo, "view", PLAYBOOK)
    assert "heads:" not in text
    assert f"settled: {older[0]}" in text
    assert errors(repo, PLAYBOOK) == []
    done = push_main(repo)
    assert done.returncode == 0, done.stderr
    diff = json.loads(cli(repo, "diff", "HEAD~1", "HEAD", "--format", "json"))
    notes = [c.get("note") for c in diff["changes"]]
    assert any(n and n.startswith("concurrent heads settled by") for n in notes), diff


def test_a_single_commit_adding_a_second_creation_is_refused_at_push(pushed: Path) -> None:
    """The history check refuses only a non-merge commit that creates a target its parent
    had (that agent should have written an update), and says how."""
    from helpers.pre_push import event, playbook, write

    repo = pushed
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "again", target="r-e1")))
    commit(repo, "create r-e1 again")
    assert errors(repo, PLAYBOOK) == []  # a document with two roots is valid
    done = push_main(repo)
    assert done.returncode != 0
    assert "history-duplicate-creation" in done.stderr
    assert "playbook update" in done.stderr


def _epoch(stamp: str) -> int:
    import datetime as dt

    return int(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())


# -- M19: delete/reference through git (point 1b) -------------------------------------------


def _deleted_vs_referenced(repo: Path) -> None:
    write(repo, TODO, doc(item("t1"), item("t2"), item("t3")))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, TODO, doc(item("t1"), item("t2", dependencies=["t3"]), item("t3")))
    commit(repo, "alice: t2 waits for t3")
    run_git(repo, "checkout", "-q", "main")
    write(repo, TODO, doc(item("t1"), item("t2")))
    commit(repo, "main drops t3")


def test_m19_delete_reference_stops_the_merge_and_resolves_like_delete_modify(
    repo: Path,
) -> None:
    _deleted_vs_referenced(repo)
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 1, merge.stdout + merge.stderr
    assert "delete/reference" in merge.stderr
    listing = json.loads(run_cli("conflicts", "--format", "json", TODO, cwd=repo).stdout)
    [c] = listing["files"][0]["conflicts"]
    assert (c["kind"], c["absent"], c["theirs"]["id"]) == ("delete/reference", ["ours"], "t3")
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert [i["id"] for i in read(repo)["todoList"]["items"]] == ["t1", "t2", "t3"]
    assert errors(repo, TODO) == []
    assert run_git(repo, "commit", "-q", "--no-edit", check=False).returncode == 0


def test_m19_delete_reference_taken_the_deleting_way_is_warned_about(repo: Path) -> None:
    _deleted_vs_referenced(repo)
    assert run_git(repo, "merge", "--no-edit", "alice", check=False).returncode == 1
    proc = run_cli("resolve", TODO, "--take", "ours", cwd=repo)
    said = proc.stdout.decode() + proc.stderr.decode()
    assert "dependency-missing" in said, said  # the dangling reference is named, not hidden
    assert [i["id"] for i in read(repo)["todoList"]["items"]] == ["t1", "t2"]


def test_m19_delete_reference_with_favor_keeps_a_side_whole(repo: Path) -> None:
    run_git(repo, "config", "merge.vcontext.favor", "theirs")
    _deleted_vs_referenced(repo)
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert [i["id"] for i in read(repo)["todoList"]["items"]] == ["t1", "t2", "t3"]
    assert errors(repo, TODO) == []
