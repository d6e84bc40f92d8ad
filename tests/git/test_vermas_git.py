"""A VerMAS ``.work/`` directory kept in git by several agents (PRODUCT.md "VerMAS (seed 004) in
full"): real ``git merge`` of concurrent template and process edits, ``git diff``, the
pre-push hook refusing projection drift, and ``sync`` rebuilding projections."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from helpers.run import REPO_ROOT, cli_path, run_cli, run_git

SEED = REPO_ROOT / "tests" / "examples" / "vermas" / ".work"
TEMPLATE = ".work/templates/worker-execute.toml"
PROCESS = ".work/processes/proc-abc123.json"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hooks and drivers git starts import the code under test."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """git-vcontext installed; the seed's .work directory committed on main."""
    proc = run_cli("install", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    shutil.copytree(SEED, git_repo / ".work")
    commit(git_repo, "seed .work")
    return git_repo


def commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def replace(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))


def on_branch(repo: Path, branch: str, edits: Any, message: str) -> None:
    run_git(repo, "checkout", "-q", "-b", branch, "main")
    edits(repo)
    commit(repo, message)
    run_git(repo, "checkout", "-q", "main")


def append_events(repo: Path, *events: dict[str, Any]) -> None:
    with (repo / ".work" / "events.jsonl").open("a") as fh:
        fh.writelines(json.dumps(e) + "\n" for e in events)


def event(eid: str, etype: str, when: str, actor: str, **data: Any) -> dict[str, Any]:
    stamp = f"2026-01-07T{when}:00.000Z"
    return {"event_id": eid, "event_type": etype, "timestamp": stamp, "actor": actor, "data": data}


def test_install_routes_every_vermas_file_kind_to_the_driver(repo: Path) -> None:
    paths = [
        TEMPLATE,
        PROCESS,
        ".work/evidence/e.json",
        ".work/events.jsonl",
        ".work/.assignment-x",
    ]
    out = run_git(repo, "check-attr", "merge", "diff", "--", *paths).stdout.splitlines()
    assert out[:8] == [f"{p}: {a}: vcontext" for p in paths[:4] for a in ("merge", "diff")]
    assert out[8:] == [
        ".work/.assignment-x: merge: unspecified",
        ".work/.assignment-x: diff: unspecified",
    ]


def test_doctor_counts_every_vermas_file_and_calls_none_of_them_a_config(repo: Path) -> None:
    proc = run_cli("doctor", cwd=repo)
    out = proc.stdout.decode() + proc.stderr.decode()
    assert proc.returncode == 0, out
    assert "ok: 8 vContext file(s) covered by the attributes" in out  # the seed's .work
    assert "configs?" not in out


# -- templates --------------------------------------------------------------------------------

LINT = '''[[steps]]
id = "lint"
title = "Lint the code"
needs = ["implement"]
description = """
Run the linter.
"""

'''


def test_concurrent_template_edits_merge_by_step_with_real_git(repo: Path) -> None:
    def agent_a(r: Path) -> None:  # a new step before "complete", and a need on it
        replace(r, TEMPLATE, '[[steps]]\nid = "complete"', LINT + '[[steps]]\nid = "complete"')
        replace(r, TEMPLATE, 'needs = ["test"]', 'needs = ["test", "lint"]')

    on_branch(repo, "agent-a", agent_a, "add a lint step")
    replace(repo, TEMPLATE, "Follow project conventions and best practices.",
            "Follow project conventions and best practices.\nKeep commits small.")  # fmt: skip
    replace(repo, TEMPLATE, 'title = "Run tests"', 'title = "Run the tests"')
    commit(repo, "main: clearer steps")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = (repo / TEMPLATE).read_text()
    steps = {s["id"]: s for s in tomllib.loads(text)["steps"]}
    assert list(steps) == ["understand", "implement", "test", "lint", "complete"]
    assert steps["complete"]["needs"] == ["test", "lint"]
    assert steps["test"]["title"] == "Run the tests"
    assert "Keep commits small.\n" in steps["implement"]["description"]
    assert text.startswith("# worker-execute.toml\n\ntemplate = ")  # ours' text, edited in place
    assert run_cli("validate", TEMPLATE, cwd=repo).returncode == 0


def test_a_template_title_changed_on_both_sides_conflicts_on_that_line_only(repo: Path) -> None:
    on_branch(repo, "agent-a", lambda r: replace(r, TEMPLATE, 'title = "Run tests"',
                                                   'title = "Run all tests"'), "a")  # fmt: skip
    replace(repo, TEMPLATE, 'title = "Run tests"', 'title = "Run unit tests"')
    commit(repo, "main")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 1
    assert "/steps/2/title (modify/modify)" in merge.stderr
    text = (repo / TEMPLATE).read_text()
    block = '\ntitle = "Run unit tests"\n=======\ntitle = "Run all tests"\n>>>>>>> '
    assert 'id = "test"\n<<<<<<< ' in text
    assert block in text  # labels: git >= 2.44 only


@pytest.mark.parametrize("rel", [TEMPLATE, "tpl/worker"], ids=["by-name", "by-content"])
def test_m19_resolve_judges_a_template_as_validate_does_and_refuses_what_it_rejects(
    repo: Path, rel: str
) -> None:
    """One truth (M19): ``resolve`` judged a TOML template as a JSON vContext document, so a
    value breaking the template (a title that is a number) was written and staged, then
    rejected by ``validate`` and the hook. It is refused now, nothing written; a string
    value resolves, is staged and validates. ``by-content``: a template ``.gitattributes``
    routes to the driver under a name that announces no format (``tpl/worker``) is TOML by
    its content for ``validate`` and the merge; ``resolve`` judged it as JSON (the name's
    format, else JSON) until it took the format the document was read in."""
    if rel != TEMPLATE:
        (repo / "tpl").mkdir()
        shutil.copy(repo / TEMPLATE, repo / rel)
        with (repo / ".gitattributes").open("a") as fh:
            fh.write("tpl/* merge=vcontext diff=vcontext\n")
        commit(repo, "a template by hand")
        assert run_cli("validate", rel, cwd=repo).returncode == 0
    on_branch(repo, "agent-a", lambda r: replace(r, rel, 'title = "Run tests"',
                                                   'title = "Run all tests"'), "a")  # fmt: skip
    replace(repo, rel, 'title = "Run tests"', 'title = "Run unit tests"')
    commit(repo, "main")
    assert run_git(repo, "merge", "--no-edit", "agent-a", check=False).returncode == 1
    listing = json.loads(run_cli("conflicts", rel, "--format", "json", cwd=repo).stdout)
    [ident] = [c["id"] for c in listing["files"][0]["conflicts"]]
    marked = (repo / rel).read_bytes()
    bad = run_cli("resolve", rel, "--conflict", ident, "--value", "5", cwd=repo)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert b"must be a string" in bad.stderr
    assert (repo / rel).read_bytes() == marked  # nothing written
    assert run_git(repo, "diff", "--name-only", "--diff-filter=U").stdout.strip() == rel
    good = run_cli("resolve", rel, "--conflict", ident, "--value", '"Run every test"', cwd=repo)
    assert good.returncode == 0, good.stdout + good.stderr
    assert run_cli("validate", rel, cwd=repo).returncode == 0
    assert run_git(repo, "commit", "-q", "--no-edit", check=False).returncode == 0


def test_an_unparsable_template_side_falls_back_to_lines_m16(repo: Path) -> None:
    on_branch(repo, "agent-a", lambda r: replace(r, TEMPLATE, "version = 1", "version = = 1"), "a")
    replace(repo, TEMPLATE, 'title = "Run tests"', 'title = "Run unit tests"')
    commit(repo, "main")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 1
    assert "merged by lines" in merge.stderr
    text = (repo / TEMPLATE).read_text()
    assert "version = = 1" in text
    assert 'title = "Run unit tests"' in text


def test_git_diff_of_a_template_names_each_step_by_id(repo: Path) -> None:
    replace(repo, TEMPLATE, 'needs = ["implement"]', 'needs = ["implement", "understand"]')
    assert '+needs = ["implement", "understand"]' in run_git(repo, "diff").stdout  # git's patch
    textconv = " ".join(shlex.quote(part) for part in cli_path())
    run_git(repo, "config", "diff.vcontext.textconv", f"{textconv} textconv")  # opted in
    out = run_git(repo, "diff", "--no-ext-diff").stdout
    assert '+steps[test].needs[] = "understand"' in out
    diff = run_cli("diff", cwd=repo).stdout.decode()
    assert "steps[test].needs: +understand" in diff


# -- processes --------------------------------------------------------------------------------


def _finish_implement(r: Path) -> None:
    started = '"started_at": "2026-01-06T10:05:00.000Z",\n'
    before = f'"status": "in_progress",\n      {started}      "completed_at": null'
    after = f'"status": "completed",\n      {started}      "completed_at": "{DONE}"'
    replace(r, PROCESS, before, after)


DONE = "2026-01-06T11:00:00.000Z"


def test_concurrent_process_edits_merge_step_by_step(repo: Path) -> None:
    on_branch(repo, "agent-a", _finish_implement, "implement done")
    replace(repo, PROCESS, '"state": "active"', '"state": "ready"')
    replace(repo, PROCESS, '"started_at": "2026-01-06T10:05:00.000Z"',
            '"started_at": "2026-01-06T10:04:00.000Z"')  # fmt: skip
    commit(repo, "main: earlier start seen")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    proc = json.loads((repo / PROCESS).read_text())
    assert proc["state"] == "ready"
    step = proc["steps"][1]
    start = "2026-01-06T10:04:00.000Z"  # the earlier start (main's), the completion (agent's)
    assert step == {
        "id": "implement",
        "status": "completed",
        "started_at": start,
        "completed_at": DONE,
    }


def test_a_step_status_changed_differently_on_both_sides_conflicts_m13(repo: Path) -> None:
    on_branch(repo, "agent-a", _finish_implement, "implement done")
    replace(repo, PROCESS, '"status": "in_progress"', '"status": "failed"')
    commit(repo, "main: implement failed")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 1
    assert "/steps/1/status (status)" in merge.stderr


# -- projections --------------------------------------------------------------------------------


@pytest.fixture
def remote(repo: Path, tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    run_git(repo, "remote", "add", "origin", str(path))
    assert run_git(repo, "push", "-q", "origin", "main", check=False).returncode == 0
    return path


def test_the_pre_push_hook_refuses_events_whose_projection_was_not_rebuilt(
    repo: Path, remote: Path
) -> None:
    append_events(
        repo, event("evt-close", "work_order.closed", "09:00", "qa", work_order_id="wo-abc123")
    )
    commit(repo, "close wo-abc123 (projection forgotten)")
    push = run_git(repo, "push", "origin", "main", check=False)
    assert push.returncode != 0
    assert ".work/work_orders.jsonl:2:" in push.stderr
    assert "[projection-drift]" in push.stderr
    assert "[wo-abc123].status" in push.stderr
    assert "evt-close" in push.stderr

    assert run_cli("vermas", "project", cwd=repo).returncode == 0
    commit(repo, "rebuild the projections")
    run_git(repo, "reset", "-q", "--soft", "HEAD~2")  # one commit with both: nothing drifts
    commit(repo, "close wo-abc123")
    push = run_git(repo, "push", "origin", "main", check=False)
    assert push.returncode == 0, push.stderr


def _agent(repo: Path, name: str, *events: dict[str, Any]) -> None:
    """agents/NAME from main: events appended, projections rebuilt as the agent's tool does."""
    run_git(repo, "branch", f"agents/{name}", "main")
    run_git(repo, "config", f"vcontext.agent.{name}.base", "main")
    wt = repo.parent / f"wt-{name}"
    run_git(repo, "worktree", "add", "-q", str(wt), f"agents/{name}")
    append_events(wt, *events)
    assert run_cli("vermas", "project", cwd=wt).returncode == 0
    commit(wt, f"{name} works")
    run_git(repo, "worktree", "remove", "--force", str(wt))


TWO_AGENTS = (
    ("alice", (event("evt-a1", "work_order.status_changed", "09:00", "alice",
                     work_order_id="wo-abc123", from_status="open", to_status="in_progress"),)),
    ("bob", (event("evt-b1", "work_order.created", "09:30", "ceo", work_order_id="wo-b1",
                   title="Docs", issue_type="task"),
             event("evt-b2", "work_order.closed", "10:00", "bob", work_order_id="wo-abc123"))),
)  # fmt: skip


def test_sync_rebuilds_the_projections_after_merging_the_event_log(repo: Path) -> None:
    for name, events in TWO_AGENTS:
        _agent(repo, name, *events)
    proc = run_cli("sync", "alice", "bob", cwd=repo, env=EPOCH)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    orders = {
        r["id"]: r
        for r in map(json.loads, (repo / ".work/work_orders.jsonl").read_text().splitlines())
    }
    assert orders["wo-abc123"]["status"] == "closed"  # alice's move, then bob's close: log order
    assert orders["wo-abc123"]["updated_at"] == "2026-01-07T10:00:00.000Z"
    assert orders["wo-b1"]["title"] == "Docs"
    assert run_cli("validate", ".work", cwd=repo).returncode == 0
    assert run_cli("vermas", "project", "--check", cwd=repo).returncode == 0


def test_after_a_plain_git_merge_project_settles_the_projection(repo: Path) -> None:
    for name, events in TWO_AGENTS:
        _agent(repo, name, *events)
    assert run_git(repo, "merge", "-q", "--no-edit", "agents/alice", check=False).returncode == 0
    merge = run_git(repo, "merge", "--no-edit", "agents/bob", check=False)
    assert merge.returncode == 1  # both moved wo-abc123's status: M13 in the projection
    assert "CONFLICT (content): Merge conflict in .work/work_orders.jsonl" in merge.stdout
    assert "conflict in .work/events.jsonl" not in merge.stdout  # the log unions (M6)
    run_git(repo, "checkout", "--ours", ".work/work_orders.jsonl")
    assert run_cli("vermas", "project", cwd=repo).returncode == 0
    assert run_cli("validate", ".work", cwd=repo).returncode == 0


def test_the_pre_push_hook_checks_processes_and_templates_as_what_they_are(
    repo: Path, remote: Path
) -> None:
    replace(repo, PROCESS, '"status": "pending"', '"status": "waiting"')
    replace(repo, TEMPLATE, 'needs = ["test"]', 'needs = ["tests"]')
    commit(repo, "a bad step status and a need for no step")
    push = run_git(repo, "push", "origin", "main", check=False)
    assert push.returncode != 0
    assert f"{PROCESS}:" in push.stderr
    assert "[schema]" in push.stderr
    assert f"{TEMPLATE}:47:" in push.stderr
    assert "[dependency-missing]" in push.stderr


def test_an_assignment_routed_to_the_driver_by_hand_merges_by_lines(repo: Path) -> None:
    with (repo / ".gitattributes").open("a") as fh:
        fh.write(".work/.assignment-* merge=vcontext\n")
    rel = ".work/.assignment-project-a-workers-slot0"
    (repo / rel).write_text("work_order:wo-abc123\n\n# handoff notes\nnone yet\n")
    commit(repo, "route assignments")
    on_branch(repo, "agent-a", lambda r: replace(r, rel, "none yet", "see msg-xyz789"), "notes")
    replace(repo, rel, "work_order:wo-abc123", "process:proc-abc123")
    commit(repo, "main reassigns")
    merge = run_git(repo, "merge", "--no-edit", "agent-a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert (repo / rel).read_text() == "process:proc-abc123\n\n# handoff notes\nsee msg-xyz789\n"
