"""git's history rewrites keep the documents right (issue 36 points 1-3; PRODUCT.md M6, M8
"In a replay"): after ``rebase -i`` (drop, reorder, squash), a ``pull --rebase`` of 50
commits and a revert, each document is what applying the kept commits in order gives —
nothing of a dropped commit, no per-step ``merge`` entry, sequences strictly increasing —
and the pre-push hook accepts the result. A revert is written as new changes
(``git vcontext revert``): the sequence goes up, a changeLog entry names the reverted
commit, and a playbook entry it created is deprecated, never removed.

The oracle: every commit here is one write of the tool's own edit functions with a fixed
stamp, so "the kept commits applied in order" is computed by applying the same writes to
the base document in memory."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.edits.stamp import Stamp
from git_vcontext.edits.todos import create, update
from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"
BOOK = "memory/playbook.vcontext.json"
BASE_STAMP = Stamp("seed", "2026-01-01T09:00:00Z")


@dataclass(frozen=True)
class Write:
    """One commit's change: a todo item created or updated by an agent, at a fixed time."""

    item: str
    fields: dict[str, Any] = field(default_factory=dict)
    create: bool = False
    agent: str = "ann"
    minute: int = 0

    @property
    def stamp(self) -> Stamp:
        hour, minute = divmod(self.minute, 60)
        return Stamp(self.agent, f"2026-01-02T{10 + hour:02d}:{minute:02d}:00Z")

    def apply(self, data: Any) -> Any:
        if self.create:
            fields = {"id": self.item, "title": self.item.upper(), **self.fields}
            return create(data, fields, self.stamp, entropy=self.item).data
        return update(data, self.item, self.fields, self.stamp).data

    @property
    def subject(self) -> str:
        return f"{self.agent}: {'add' if self.create else 'edit'} {self.item}"


def base_document() -> Any:
    data: Any = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}
    for ident in ("t1", "t2", "t3", "t4"):
        data = create(data, {"id": ident, "title": ident.upper()}, BASE_STAMP, entropy=ident).data
    return data


def applied(writes: list[Write]) -> Any:
    """The oracle: the base document with ``writes`` applied in order."""
    data = base_document()
    for w in writes:
        data = w.apply(data)
    return data


def comparable(data: Any) -> Any:
    """A todo document as the oracle can predict it after a replay: ``updated`` and
    ``lastModifiedBy`` keep the latest write's (M9: the later instant wins, so a reordered
    history keeps its newest time), and a changeLog entry's ``path`` is where its author's
    tool wrote it (a replay carries the entry as written)."""
    out = json.loads(json.dumps(data))
    container = out["todoList"]
    container.pop("updated", None)
    container.pop("lastModifiedBy", None)
    for entry in container.get("changeLog", []):
        entry.pop("path", None)
    return out


def read(repo: Path, rel: str = TODO) -> Any:
    return json.loads((repo / rel).read_text())


def write_doc(repo: Path, data: Any, rel: str = TODO) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def do(repo: Path, w: Write) -> str:
    write_doc(repo, w.apply(read(repo)))
    return commit(repo, w.subject)


def log_of(repo: Path, rel: str = TODO) -> list[tuple[Any, str]]:
    entries = read(repo, rel)["todoList"].get("changeLog", [])
    return [(e["sequence"], e.get("description", e.get("operation"))) for e in entries]


def no_merge_entries(repo: Path) -> None:
    entries = read(repo)["todoList"]["changeLog"]
    assert [e for e in entries if e.get("operation") == "merge"] == []


def strictly_increasing(repo: Path) -> None:
    seqs = [s for s, _ in log_of(repo)]
    assert seqs == sorted(set(seqs)), seqs
    assert read(repo)["todoList"]["sequence"] == seqs[-1]


def valid(repo: Path, *paths: str) -> None:
    proc = run_cli("validate", *(paths or (TODO,)), cwd=repo)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def pushed(repo: Path, ref: str = "HEAD", to: str = "checked") -> subprocess.CompletedProcess[str]:
    """Push ``ref`` to a new branch of the bare remote: the installed pre-push hook checks
    every commit the remote lacks (the remote holds main as it was before the rewrite)."""
    return run_git(repo, "push", "-q", "origin", f"{ref}:refs/heads/{to}", check=False)


def hook_accepts(repo: Path, ref: str = "HEAD") -> None:
    proc = pushed(repo, ref)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def sequence_editor(tmp_path: Path, script: str) -> dict[str, str]:
    """An environment whose GIT_SEQUENCE_EDITOR rewrites the todo list with ``script``
    (``picks``: the todo's pick lines; it writes ``out``)."""
    path = tmp_path / "sequence-editor.py"
    path.write_text(
        "import sys\n"
        "todo = sys.argv[1]\n"
        "picks = [l for l in open(todo).read().splitlines() if l.startswith('pick ')]\n"
        f"{script}\n"
        "open(todo, 'w').write('\\n'.join(out) + '\\n')\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return {**os.environ, "GIT_SEQUENCE_EDITOR": f"python3 {path}", "GIT_EDITOR": "true"}


def rebase_i(repo: Path, onto: str, env: dict[str, str]) -> None:
    proc = subprocess.run(
        ["git", "rebase", "-i", onto], cwd=repo, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def repo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The driver and the pre-push hook installed, the base todo list on main, pushed to a
    bare ``origin``."""
    import git_vcontext

    # the hook git starts must import the code under test (absolute path: git changes cwd)
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))
    proc = run_cli("install", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    run_git(git_repo, "remote", "add", "origin", str(remote))
    write_doc(git_repo, base_document())
    (git_repo / "notes.txt").write_text("one\ntwo\nthree\n")
    commit(git_repo, "base")
    run_git(git_repo, "push", "-q", "origin", "main")
    return git_repo


# --- point 1: rebase -i ------------------------------------------------------------------


def test_m6_rebase_i_drop_keeps_nothing_of_the_dropped_playbook_entry(repo: Path) -> None:
    """The issue's own command: c1 adds ``secret-rule``, c2 ``good-rule``;
    ``GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/drop/" git rebase -i HEAD~2``."""
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    write_doc(repo, seed, BOOK)
    commit(repo, "a playbook")
    for target in ("secret-rule", "good-rule"):
        proc = run_cli("playbook", "add", BOOK, "--target", target, "--kind", "rule",
                       "--text", f"{target} text", cwd=repo)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        commit(repo, f"learn {target}")
    good_event = read(repo, BOOK)["playbook"]["items"][-1]
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/drop/"}
    rebased = subprocess.run(
        ["git", "rebase", "-i", "HEAD~2"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    book = read(repo, BOOK)["playbook"]
    assert book["items"] == [good_event]  # c2's event, as c2 wrote it; nothing of c1
    assert book["version"] == 2  # c2's one step on the playbook it now follows
    view = json.loads(run_cli("view", BOOK, "--format", "json", cwd=repo).stdout)
    assert [e["targetId"] for e in view["entries"]] == ["good-rule"]
    valid(repo, BOOK)
    hook_accepts(repo)


def test_m8_rebase_i_reorder_and_squash_equal_the_kept_commits_applied_in_order(
    repo: Path, tmp_path: Path
) -> None:
    """c1, c2, c3 -> c3, c1+c2 squashed: c3' holds c3's entry alone, the result equals the
    three writes applied in that order (no extra ``merge`` entries, the same sequence)."""
    writes = [
        Write("t7", create=True, minute=1),
        Write("t8", create=True, minute=2),
        Write("t1", {"status": "completed"}, minute=3),
    ]
    for w in writes:
        do(repo, w)
    before = read(repo)
    env = sequence_editor(tmp_path, "out = [picks[2], picks[0], 'squash ' + picks[1][5:]]")
    rebase_i(repo, "HEAD~3", env)
    kept = [writes[2], writes[0], writes[1]]
    assert comparable(read(repo)) == comparable(applied(kept))
    first = json.loads(run_git(repo, "show", f"HEAD~1:{TODO}").stdout)
    assert comparable(first) == comparable(applied(kept[:1]))  # c3' alone: no t7 entries
    assert read(repo)["todoList"]["sequence"] == before["todoList"]["sequence"]
    no_merge_entries(repo)
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo)


def test_m6_rebase_i_onto_a_moved_upstream_with_a_drop_and_a_reorder(
    repo: Path, tmp_path: Path
) -> None:
    """Upstream moved meanwhile; x2 is dropped and x3 moved before x1: the result is
    upstream's write, then x3, then x1 — the same at every step of the rebased branch."""
    run_git(repo, "switch", "-q", "-c", "feature")
    writes = [
        Write("x1", create=True, minute=11),
        Write("x2", create=True, minute=12),
        Write("x3", {"title": "third"}, create=True, minute=13),
        Write("t2", {"status": "inProgress"}, minute=14),
    ]
    for w in writes:
        do(repo, w)
    run_git(repo, "switch", "-q", "main")
    upstream = Write("t1", {"title": "Upstream"}, agent="bob", minute=5)
    do(repo, upstream)
    run_git(repo, "switch", "-q", "feature")
    env = sequence_editor(tmp_path, "out = [picks[2], picks[0], picks[3]]")
    rebase_i(repo, "main", env)
    kept = [upstream, writes[2], writes[0], writes[3]]
    assert comparable(read(repo)) == comparable(applied(kept))
    for back, upto in ((2, 2), (1, 3)):
        step = json.loads(run_git(repo, "show", f"HEAD~{back}:{TODO}").stdout)
        assert comparable(step) == comparable(applied(kept[:upto]))
    assert "x2" not in json.dumps(read(repo))
    no_merge_entries(repo)
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo)


# --- point 2: pull --rebase ------------------------------------------------------------------


def test_m8_pull_rebase_of_50_commits_equals_them_applied_after_upstream(
    repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    for key, value in (("user.name", "Other"), ("user.email", "o@example.com")):
        run_git(other, "config", key, value)
    upstream = Write("t4", {"status": "cancelled"}, agent="bob", minute=1)
    do(other, upstream)
    run_git(other, "push", "-q", "origin", "main")
    mine = [
        Write(f"n{k}", create=True, minute=10 + k) if k % 2 == 0
        else Write(f"n{k - 1}", {"status": "completed"}, minute=10 + k)
        for k in range(50)
    ]  # fmt: skip
    for w in mine:
        do(repo, w)
    pull = run_git(repo, "pull", "-q", "--rebase", "origin", "main", check=False)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    assert comparable(read(repo)) == comparable(applied([upstream, *mine]))
    log = log_of(repo)
    assert len(log) == 4 + 1 + 50  # the base's, upstream's, the 50: nothing of its own
    no_merge_entries(repo)
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo, "main")


# --- point 3: revert ------------------------------------------------------------------------


def test_m8_git_revert_of_a_todo_write_the_file_touched_since_keeps_the_log(repo: Path) -> None:
    first = Write("t1", {"status": "completed"}, minute=1)
    reverted = do(repo, first)
    do(repo, Write("t2", {"title": "Renamed"}, minute=2))
    before = read(repo)["todoList"]
    proc = run_git(repo, "revert", "--no-edit", reverted, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = read(repo)["todoList"]
    items = {i["id"]: i for i in after["items"]}
    assert items["t1"] == {"id": "t1", "title": "T1", "status": "pending"}
    assert items["t2"]["title"] == "Renamed"
    assert after["sequence"] == before["sequence"] + 1
    assert after["changeLog"][:-1] == before["changeLog"]
    assert reverted[:7] in json.dumps(after["changeLog"][-1])  # an entry names the revert
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo)


def test_hook_refuses_a_git_revert_git_made_without_the_driver_naming_vcontext_revert(
    repo: Path,
) -> None:
    """The file is unchanged since the reverted commit: git takes the old blob without
    calling the driver, the sequence goes down and the entry vanishes. The hook says so
    (removed, not "modified") and names the command that reverts right."""
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    proc = run_git(repo, "revert", "--no-edit", reverted, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    refused = pushed(repo)
    assert refused.returncode != 0
    said = refused.stderr
    assert "was removed" in said
    assert "modified" not in said
    assert f"git vcontext revert {reverted[:7]}" in said, said


def test_hook_summary_for_a_refused_git_revert_agrees_with_its_line_and_leads_somewhere(
    repo: Path,
) -> None:
    """One truth: the last line of a refused push says what the revert's own line says
    (drop it, then ``git vcontext revert``), not the ``--amend`` meant for other commits;
    doing what it says, as it says, gets the push through."""
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    run_git(repo, "revert", "--no-edit", reverted)
    refused = pushed(repo)
    assert refused.returncode != 0
    [summary] = [ln for ln in refused.stderr.splitlines() if "push refused" in ln]
    assert "--amend" not in summary, summary
    assert "Drop the git revert (git reset --keep HEAD~1 when it is the last commit" in summary
    assert summary.endswith(f"and run git vcontext revert {reverted[:7]}, then push again.")
    run_git(repo, "reset", "--keep", "HEAD~1")
    _reverts(repo, reverted[:7])
    hook_accepts(repo)
    assert read(repo)["todoList"]["items"][0]["status"] == "pending"


def test_hook_summary_names_both_fixes_for_a_revert_and_another_commit(repo: Path) -> None:
    """A refused git revert and another commit with problems: the summary names the rewrite
    for the other commit (--amend: it is the last one) and the revert's own fix."""
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    run_git(repo, "revert", "--no-edit", reverted)
    (repo / "broken.vcontext.json").write_text("{not json")
    commit(repo, "a broken document")
    [summary] = [ln for ln in pushed(repo).stderr.splitlines() if "push refused" in ln]
    assert "in 2 commits" in summary, summary
    assert "Fix those commits (git commit --amend when it is your last commit" in summary
    assert "drop the git revert (git reset --keep HEAD~1 when it is the last commit" in summary
    assert f"run git vcontext revert {reverted[:7]}, then push again." in summary


def _reverts(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    proc = run_cli("revert", *args, cwd=repo)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    return proc


def test_vcontext_revert_writes_the_inverse_as_new_changes_and_other_files_as_git_would(
    repo: Path,
) -> None:
    """The case git gets wrong (file untouched since): ``git vcontext revert C`` writes the
    item back as a new change — sequence up, the log kept, one entry naming C — and
    reverts the commit's other files as ``git revert`` does, in a commit of git's own
    message."""
    w = Write("t1", {"status": "completed"}, minute=1)
    write_doc(repo, w.apply(read(repo)))
    (repo / "notes.txt").write_text("one\nTWO\nthree\n")
    reverted = commit(repo, "complete t1, and a note")
    before = read(repo)["todoList"]
    _reverts(repo, reverted)
    after = read(repo)["todoList"]
    assert after["items"] == base_document()["todoList"]["items"]
    assert after["sequence"] == before["sequence"] + 1
    assert after["changeLog"][:-1] == before["changeLog"]
    entry = after["changeLog"][-1]
    assert entry["sequence"] == after["sequence"]
    assert reverted[:7] in json.dumps(entry)  # names the reverted commit
    assert (repo / "notes.txt").read_text() == "one\ntwo\nthree\n"
    message = run_git(repo, "log", "-1", "--format=%B").stdout
    assert message.startswith('Revert "complete t1, and a note"')
    assert f"This reverts commit {reverted}." in message
    assert run_git(repo, "status", "--porcelain").stdout == ""
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo)


def test_vcontext_revert_of_a_playbook_add_deprecates_the_entry(repo: Path) -> None:
    """Events are append-only: the revert of an ``append`` is a ``deprecate`` event chained
    to the entry's head, the entry stays (deprecated), the other entries are untouched."""
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    write_doc(repo, seed, BOOK)
    commit(repo, "a playbook")
    shas = {}
    for target in ("r1", "r2"):
        proc = run_cli("playbook", "add", BOOK, "--target", target, "--kind", "rule",
                       "--text", f"{target} text", cwd=repo)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        shas[target] = commit(repo, f"learn {target}")
    before = read(repo, BOOK)["playbook"]
    proc = _reverts(repo, shas["r1"])
    book = read(repo, BOOK)["playbook"]
    assert book["items"][: len(before["items"])] == before["items"]  # nothing removed
    [deprecation] = book["items"][len(before["items"]) :]
    assert deprecation["operation"] == "deprecate"
    assert deprecation["targetId"] == "r1"
    assert deprecation["prevEventId"] == before["items"][0]["eventId"]
    assert shas["r1"][:7] in json.dumps(deprecation)
    assert book["version"] == before["version"] + 1
    view = json.loads(run_cli("view", BOOK, "--format", "json", "--status", "all", cwd=repo).stdout)
    states = {e["targetId"]: e["status"] for e in view["entries"]}
    assert states == {"r1": "deprecated", "r2": "active"}
    assert "deprecat" in proc.stdout.decode()  # it says what it wrote
    valid(repo, BOOK)
    hook_accepts(repo)


def test_git_revert_of_a_playbook_add_deprecates_the_entry_too(repo: Path) -> None:
    """``git revert`` itself, the file touched since (git calls the driver): not a silent
    commit that changes nothing but the version: the entry is deprecated."""
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    write_doc(repo, seed, BOOK)
    commit(repo, "a playbook")
    shas = {}
    for target in ("r1", "r2"):
        proc = run_cli("playbook", "add", BOOK, "--target", target, "--kind", "rule",
                       "--text", f"{target} text", cwd=repo)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        shas[target] = commit(repo, f"learn {target}")
    reverted = run_git(repo, "revert", "--no-edit", shas["r1"], check=False)
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    view = json.loads(run_cli("view", BOOK, "--format", "json", "--status", "all", cwd=repo).stdout)
    states = {e["targetId"]: e["status"] for e in view["entries"]}
    assert states == {"r1": "deprecated", "r2": "active"}
    valid(repo, BOOK)
    hook_accepts(repo)


def test_vcontext_revert_of_several_commits_makes_one_commit_each_in_the_order_given(
    repo: Path,
) -> None:
    a = do(repo, Write("t1", {"status": "completed"}, minute=1))
    b = do(repo, Write("t2", {"status": "blocked"}, minute=2))
    do(repo, Write("t3", {"title": "kept"}, minute=3))
    start = read(repo)["todoList"]["sequence"]
    _reverts(repo, a, b)
    subjects = run_git(repo, "log", "-2", "--format=%s").stdout.splitlines()
    assert subjects == ['Revert "ann: edit t2"', 'Revert "ann: edit t1"']  # a first, as git
    items = {i["id"]: i for i in read(repo)["todoList"]["items"]}
    assert (items["t1"]["status"], items["t2"]["status"]) == ("pending", "pending")
    assert items["t3"]["title"] == "kept"
    assert read(repo)["todoList"]["sequence"] == start + 2
    strictly_increasing(repo)
    valid(repo)
    hook_accepts(repo)


def test_vcontext_revert_no_commit_leaves_the_revert_staged(repo: Path) -> None:
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    head = run_git(repo, "rev-parse", "HEAD").stdout
    _reverts(repo, "--no-commit", reverted)
    assert run_git(repo, "rev-parse", "HEAD").stdout == head
    assert run_git(repo, "diff", "--cached", "--name-only").stdout.split() == [TODO]
    assert run_git(repo, "diff", "--name-only").stdout == ""
    items = {i["id"]: i for i in read(repo)["todoList"]["items"]}
    assert items["t1"]["status"] == "pending"
    valid(repo)


def test_vcontext_revert_refuses_what_is_no_commit_and_changes_nothing(repo: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD").stdout
    for bad in ("no-such-rev", "--upload-pack=touch /tmp/x", "HEAD:notes.txt"):
        proc = run_cli("revert", "--", bad, cwd=repo)
        assert proc.returncode in (2, 3), proc.stderr
        assert proc.stderr.decode().count("\n") == 1
        assert b"Traceback" not in proc.stderr
    assert run_git(repo, "rev-parse", "HEAD").stdout == head
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_vcontext_revert_checks_git_vcontext_agent_as_every_command_does(repo: Path) -> None:
    """``GIT_VCONTEXT_AGENT`` names who reverts (the changeLog entry's agent); one that is no
    agent name is a usage error (exit 2, one line naming it) before git reverts anything,
    as ``--agent`` and the variable are everywhere else (it was written as given)."""
    w = Write("t1", {"status": "completed"}, minute=1)
    write_doc(repo, w.apply(read(repo)))
    reverted = commit(repo, "complete t1")
    head = run_git(repo, "rev-parse", "HEAD").stdout
    for bad in ("-x", "two words", "a..b"):
        proc = run_cli("revert", reverted, cwd=repo, env={"GIT_VCONTEXT_AGENT": bad})
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.decode().count("\n") == 1, proc.stderr
        assert b"GIT_VCONTEXT_AGENT" in proc.stderr
        assert run_git(repo, "rev-parse", "HEAD").stdout == head
        assert run_git(repo, "status", "--porcelain").stdout == ""
    done = run_cli("revert", reverted, cwd=repo, env={"GIT_VCONTEXT_AGENT": "alice"})
    assert done.returncode == 0, done.stderr
    assert read(repo)["todoList"]["changeLog"][-1]["agent"]["id"] == "alice"


def test_vcontext_revert_of_a_commit_that_only_logged_says_what_a_revert_keeps(
    repo: Path,
) -> None:
    """A commit that only added a changeLog entry (and moved the sequence): a revert keeps
    both (append-only, never down), so there is nothing to revert, and the one line says
    why instead of only "already undone" (nothing undid it)."""
    data = read(repo)
    todo = data["todoList"]
    todo["sequence"] += 1
    todo["changeLog"].append(
        {
            "sequence": todo["sequence"],
            "timestamp": "2026-01-02T10:00:00Z",
            "agent": {"id": "ann", "type": "aiAgent"},
            "operation": "update",
            "path": "$.todoList.items[0].status",
            "description": "noted",
        }
    )
    write_doc(repo, data)
    logged = commit(repo, "ann: a note in the log")
    proc = run_cli("revert", logged, cwd=repo)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert err.count("\n") == 1, err
    assert "only what a revert keeps" in err, err
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_vcontext_revert_of_a_commit_already_undone_writes_nothing_as_git_revert(
    repo: Path,
) -> None:
    """A commit whose changes are already undone (reverted once): ``git revert`` has
    nothing to commit; ``git vcontext revert`` writes no changeLog entry that reverts
    nothing, says so in one line (exit 3), and leaves no revert in progress."""
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    _reverts(repo, reverted)
    head = run_git(repo, "rev-parse", "HEAD").stdout
    document = read(repo)
    proc = run_cli("revert", reverted, cwd=repo)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert err.count("\n") == 1, err
    assert "already undone" in err, err
    assert run_git(repo, "rev-parse", "HEAD").stdout == head
    assert read(repo) == document
    assert run_git(repo, "status", "--porcelain").stdout == ""
    assert not (repo / ".git" / "REVERT_HEAD").exists()  # the next revert is not refused
    _reverts(repo, head.strip())


def test_vcontext_revert_stopped_in_a_range_names_the_commits_left_to_revert(
    repo: Path,
) -> None:
    """Advice that leads nowhere is a defect: a revert of ``A..B`` that stops on conflicts
    at its first commit names the range's other commits as what to revert next (by id:
    HEAD has moved, so the revisions as given would name other commits)."""
    (repo / "other.txt").write_text("x\n")
    older = commit(repo, "other file")
    (repo / "notes.txt").write_text("one\n2\nthree\n")
    newer = commit(repo, "two as a digit")
    (repo / "notes.txt").write_text("one\nzwei\nthree\n")
    commit(repo, "two in German")
    proc = run_cli("revert", "HEAD~3..HEAD~1", cwd=repo)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert newer[:7] in err, err
    [advice] = [
        ln.strip() for ln in err.splitlines() if ln.strip().startswith("git vcontext revert ")
    ]
    assert advice.split()[3:] == [older], advice
    run_git(repo, "revert", "--abort")
    proc = run_cli("revert", "--no-commit", "HEAD~3..HEAD~1", cwd=repo)  # the same options
    [advice] = [
        ln.strip() for ln in proc.stderr.decode().splitlines() if "git vcontext revert " in ln
    ]
    assert advice.split()[3:] == ["--no-commit", older], advice


def test_vcontext_revert_of_a_playbook_add_already_undone_writes_nothing(repo: Path) -> None:
    """The playbook too: its entry already deprecated by a first revert, a second one bumps
    no ``version`` and appends nothing."""
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    write_doc(repo, seed, BOOK)
    commit(repo, "a playbook")
    proc = run_cli("playbook", "add", BOOK, "--target", "r1", "--kind", "rule",
                   "--text", "r1 text", cwd=repo)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    reverted = commit(repo, "learn r1")
    _reverts(repo, reverted)
    book = read(repo, BOOK)
    proc = run_cli("revert", reverted, cwd=repo)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert read(repo, BOOK) == book
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_vcontext_revert_of_a_plain_file_change_already_undone_says_so(repo: Path) -> None:
    """Bad input never misleads: not "git commit: exit status 1 (the revert is left
    staged)" when nothing is staged, and no revert left in progress."""
    (repo / "notes.txt").write_text("one\nTWO\nthree\n")
    reverted = commit(repo, "a note")
    _reverts(repo, reverted)
    proc = run_cli("revert", reverted, cwd=repo)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert "already undone" in err, err
    assert "left staged" not in err, err
    assert err.count("\n") == 1, err
    assert run_git(repo, "status", "--porcelain").stdout == ""
    assert not (repo / ".git" / "REVERT_HEAD").exists()


def test_vcontext_revert_of_a_playbook_add_untouched_since_and_of_that_revert(
    repo: Path,
) -> None:
    """Nothing changed the playbook since: git alone would take the old version (the event
    gone, the version down). Reverting the revert gives the entry its status back."""
    seed = {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": []}}
    write_doc(repo, seed, BOOK)
    commit(repo, "a playbook")
    proc = run_cli("playbook", "add", BOOK, "--target", "r1", "--kind", "rule",
                   "--text", "r1 text", cwd=repo)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    learned = commit(repo, "learn r1")
    before = read(repo, BOOK)["playbook"]
    _reverts(repo, learned)
    book = read(repo, BOOK)["playbook"]
    assert book["items"][:1] == before["items"]
    assert [e["operation"] for e in book["items"]] == ["append", "deprecate"]
    assert book["version"] == before["version"] + 1
    _reverts(repo, "HEAD")
    book = read(repo, BOOK)["playbook"]
    assert [e["operation"] for e in book["items"]] == ["append", "deprecate", "update"]
    view = json.loads(run_cli("view", BOOK, "--format", "json", cwd=repo).stdout)
    assert [(e["targetId"], e["status"]) for e in view["entries"]] == [("r1", "active")]
    valid(repo, BOOK)
    hook_accepts(repo)


def test_resolve_of_a_stopped_git_revert_writes_it_as_new_changes_too(repo: Path) -> None:
    """``git revert`` stops (t1 completed by the commit, blocked since): ``resolve`` merges
    the stages again as the driver did — the revert's changeLog entry included, no false
    "changed since" — and ``git revert --continue`` makes a commit the hook accepts."""
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    do(repo, Write("t1", {"status": "blocked"}, minute=2))
    before = read(repo)["todoList"]
    stopped = run_git(repo, "revert", "--no-edit", reverted, check=False)
    assert stopped.returncode != 0
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since" not in proc.stderr
    after = read(repo)["todoList"]
    assert {i["id"]: i["status"] for i in after["items"]}["t1"] == "pending"
    kept = len(before["changeLog"])
    assert after["changeLog"][:kept] == before["changeLog"]
    # the step met a concurrent edit of t1's status: M8's merge entry, then the revert's
    assert [e["operation"] for e in after["changeLog"][kept:]] == ["merge", "update"]
    assert reverted[:7] in json.dumps(after["changeLog"][-1])
    strictly_increasing(repo)
    done = run_git(repo, "-c", "core.editor=true", "revert", "--continue", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    valid(repo)
    hook_accepts(repo)


def test_refused_git_revert_on_a_forked_agent_branch_names_the_rebase_that_reaches_it(
    repo: Path, tmp_path: Path
) -> None:
    """A forked agent branch has no upstream, so a bare ``git rebase -i`` fails there ("There
    is no tracking information"). The refusal of a git revert names the rebase that reaches
    the revert; doing exactly what it says (that rebase, its line dropped, then ``git
    vcontext revert``) lets the push in."""
    proc = run_cli("fork", "alice", cwd=repo)
    assert proc.returncode == 0, proc.stderr.decode()
    run_git(repo, "switch", "-q", "agents/alice")
    reverted = do(repo, Write("t1", {"status": "completed"}, minute=1))
    run_git(repo, "revert", "--no-edit", reverted)
    revert = run_git(repo, "rev-parse", "--short=12", "HEAD").stdout.strip()
    (repo / "notes.txt").write_text("later work\n")
    commit(repo, "later work")  # the revert is not the last commit: the rebase is the way
    refused = run_git(repo, "push", "origin", "agents/alice", check=False)
    assert refused.returncode != 0
    said = re.search(r"else (git rebase -i \S+) and drop its line", refused.stderr)
    assert said is not None, refused.stderr
    assert said.group(1) == f"git rebase -i {revert}~1", refused.stderr
    assert "git rebase -i;" not in refused.stderr
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/drop/"}  # its line: the first
    done = subprocess.run(
        said.group(1).split(), cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    _reverts(repo, reverted[:7])
    assert read(repo)["todoList"]["items"][0]["status"] != "completed"
    proc2 = run_git(repo, "push", "origin", "agents/alice", check=False)
    assert proc2.returncode == 0, proc2.stdout + proc2.stderr


def test_a_refused_forced_push_of_a_forked_agent_branch_names_the_pull_that_works(
    repo: Path,
) -> None:
    """A forked agent branch has no upstream, so a bare ``git pull --rebase`` fails there
    ("There is no tracking information"). The refusal of a forced update that drops the
    remote's changeLog entries names the pull from the remote and branch pushed to; doing
    that, then pushing, lands."""
    proc = run_cli("fork", "alice", cwd=repo)
    assert proc.returncode == 0, proc.stderr.decode()
    run_git(repo, "switch", "-q", "agents/alice")
    do(repo, Write("t1", {"status": "completed"}, minute=1))
    run_git(repo, "push", "-q", "origin", "agents/alice")
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")  # drops the pushed commit's entry
    do(repo, Write("t2", {"status": "completed"}, minute=2))
    refused = run_git(repo, "push", "--force", "origin", "agents/alice", check=False)
    assert refused.returncode != 0
    said = re.search(r"instead \((git pull --rebase [^,]+), or git merge\)", refused.stderr)
    assert said is not None, refused.stderr
    assert said.group(1) == "git pull --rebase origin agents/alice", refused.stderr
    pulled = subprocess.run(
        said.group(1).split(), cwd=repo, capture_output=True, text=True, check=False
    )
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    pushed_ = run_git(repo, "push", "origin", "agents/alice", check=False)
    assert pushed_.returncode == 0, pushed_.stdout + pushed_.stderr
