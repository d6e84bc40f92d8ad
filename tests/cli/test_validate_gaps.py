"""Validation gaps a seed audit found (issue 28; PRODUCT.md "The remote guards itself",
VerMAS bullet, and "Validation"):

- ``.work/.assignment-*`` files are in the file set of ``validate`` (no paths), of a
  directory scan and of the pre-push hook (a bad ``task:wo-1`` was pushed);
- ``message_type`` values (seed 004's eight) and the ``evt-…`` event id format are
  checked (``"HELLO"`` and ``"abc"`` were accepted);
- dangling ``supersedes``/``supersededBy``/``duplicateOf`` targets are findings;
- an empty narrative ``{}`` is not content;
- a plan without ``narratives.proposal`` is a finding (seed 000: "proposal: string
  (required)").

And one truth: what the tool's own writers make (the MCP server's ``vbrief_create_plan``,
``playbook add``) is never a document these rules refuse; the seeds' examples and the
project's own VerMAS examples still validate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.pre_push import bare_remote, commit, installed_and_pushed, push, write
from helpers.run import REPO_ROOT, run_cli

ASSIGNMENT = ".work/.assignment-project-a-workers-slot0"
STAMP = "2026-01-06T12:00:00.000Z"


def validate(cwd: Path, *args: str) -> tuple[int, str]:
    done = run_cli("validate", *args, cwd=cwd)
    return done.returncode, done.stdout.decode() + done.stderr.decode()


def rules(report: str) -> list[str]:
    return [
        line.rsplit("[", 1)[1].rstrip("]") for line in report.splitlines() if line.endswith("]")
    ]


def _file(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data)
    elif name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
    else:
        path.write_text(json.dumps(data, indent=2) + "\n")
    return path


# -- .work/.assignment-* in every file set ------------------------------------------------


@pytest.fixture
def vermas_repo(git_repo: Path) -> Path:
    """A repository with git-vcontext installed and a bad assignment committed."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    write(git_repo, ASSIGNMENT, "task:wo-1\n")
    write(git_repo, ".work/.assignment-ceo", "work_order:wo-abc123\n")
    commit(git_repo, "assignments")
    return git_repo


def test_vermas_assignment_files_are_in_the_file_set_of_validate_without_paths(
    vermas_repo: Path,
) -> None:
    code, out = validate(vermas_repo)
    assert code == 1, out
    assert f"{ASSIGNMENT}:1:1:" in out
    assert rules(out) == ["assignment"]  # the good one is checked and valid


def test_vermas_assignment_files_are_in_a_directory_scan(vermas_repo: Path) -> None:
    code, out = validate(vermas_repo, ".work")
    assert code == 1, out
    assert "assignment" in rules(out)


def test_vermas_assignment_files_are_in_the_pre_push_hooks_file_set(
    git_repo: Path, tmp_path: Path
) -> None:
    repo = installed_and_pushed(git_repo, bare_remote(tmp_path))
    write(repo, ASSIGNMENT, "task:wo-1\n")
    commit(repo, "assign a task")

    proc = push(repo, "origin", "main")

    assert proc.returncode == 1, proc.stderr
    assert f"{ASSIGNMENT}:1:1:" in proc.stderr
    assert "[assignment]" in proc.stderr


def test_vermas_a_good_assignment_is_pushed(git_repo: Path, tmp_path: Path) -> None:
    repo = installed_and_pushed(git_repo, bare_remote(tmp_path))
    write(repo, ASSIGNMENT, "work_order:wo-abc123\n")
    commit(repo, "assign a work order")

    proc = push(repo, "origin", "main")

    assert proc.returncode == 0, proc.stderr


# -- message_type and the event id format ---------------------------------------------------


def _mail(event_id: str, message_type: str) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "event_type": "mail.sent",
        "timestamp": STAMP,
        "actor": "project-a/workers/slot0",
        "data": {
            "message_id": "msg-xyz789",
            "from": "project-a/workers/slot0",
            "to": "project-a/supervisor",
            "subject": "done",
            "message_type": message_type,
        },
    }


def test_vermas_message_type_outside_the_seeds_eight_is_a_finding(tmp_path: Path) -> None:
    path = _file(tmp_path, ".work/events.jsonl", [_mail("evt-abc123def456", "HELLO")])

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert "schema" in rules(out)
    assert "HELLO" in out
    assert "WORKER_DONE" in out  # the allowed values are named


@pytest.mark.parametrize(
    "kind",
    [
        "WORKER_DONE",
        "READY_FOR_QA",
        "MERGED",
        "REWORK_REQUEST",
        "NUDGE",
        "HELP",
        "HANDOFF",
        "ESCALATION",
    ],
)
def test_vermas_every_message_type_of_the_seed_is_valid(tmp_path: Path, kind: str) -> None:
    path = _file(tmp_path, ".work/events.jsonl", [_mail("evt-abc123def456", kind)])
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


def test_vermas_message_type_in_messages_jsonl_is_checked_too(tmp_path: Path) -> None:
    message = {
        "id": "msg-xyz789",
        "from": "a",
        "to": "b",
        "subject": "s",
        "body": "b",
        "message_type": "HELLO",
        "timestamp": STAMP,
    }
    path = _file(tmp_path, ".work/messages.jsonl", [message])

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert "HELLO" in out


@pytest.mark.parametrize("bad", ["abc", "evt-", "EVT-abc123", "evt abc", "evt-abc/123"])
def test_vermas_event_id_must_be_evt_followed_by_its_random_part(tmp_path: Path, bad: str) -> None:
    path = _file(tmp_path, ".work/events.jsonl", [_mail(bad, "HELP")])

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert rules(out) == ["event-id"], out
    assert "evt-" in out


@pytest.mark.parametrize("good", ["evt-abc123def456", "evt-0001", "evt-previous123"])
def test_vermas_event_ids_in_the_seeds_form_are_valid(tmp_path: Path, good: str) -> None:
    path = _file(tmp_path, ".work/events.jsonl", [_mail(good, "HELP")])
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


def test_vermas_the_projects_own_examples_still_validate() -> None:
    work = REPO_ROOT / "tests" / "examples" / "vermas"
    code, out = validate(work, ".work")
    assert code == 0, out


# -- playbook links and content ------------------------------------------------------------


def _event(eid: str, target: str, **more: Any) -> dict[str, Any]:
    base = {"eventId": eid, "targetId": target, "operation": "append", "kind": "rule"}
    return {**base, "text": f"lesson {eid}", "createdAt": "2026-01-01T00:00:00Z", **more}


def _playbook(*events: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}


@pytest.mark.parametrize(
    "link",
    [{"supersedes": ["r-gone"]}, {"supersededBy": "r-gone"}, {"duplicateOf": "r-gone"}],
    ids=["supersedes", "supersededBy", "duplicateOf"],
)
def test_playbook_dangling_links_are_findings(tmp_path: Path, link: dict[str, Any]) -> None:
    doc = _playbook(_event("e1", "r1"), _event("e2", "r2", **link))
    path = _file(tmp_path, "pb.vcontext.json", doc)

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert rules(out) == ["playbook-dangling-link"], out
    assert "r-gone" in out
    assert next(iter(link)) in out
    assert "pb.vcontext.json:" in out


def test_playbook_links_to_existing_targets_are_valid(tmp_path: Path) -> None:
    """Seed 001's own supersede and dedup examples, in one log."""
    doc = _playbook(
        _event("evt-0001", "entry-test-first"),
        _event("evt-0200", "entry-tests-before-fix-v2", supersedes=["entry-test-first"]),
        {
            "eventId": "evt-0201",
            "targetId": "entry-test-first",
            "operation": "update",
            "prevEventId": "evt-0001",
            "supersededBy": "entry-tests-before-fix-v2",
            "createdAt": "2026-01-01T00:00:00Z",
        },
        _event("evt-0300", "entry-dup", duplicateOf="entry-test-first", status="deprecated"),
    )
    path = _file(tmp_path, "pb.vcontext.json", doc)
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


@pytest.mark.parametrize("empty", [{}, {"Overview": ""}, {"Overview": "   "}])
def test_playbook_an_empty_narrative_is_not_content(tmp_path: Path, empty: dict[str, str]) -> None:
    event = _event("e1", "r1")
    del event["text"]
    event["narrative"] = empty
    path = _file(tmp_path, "pb.vcontext.json", _playbook(event))

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert rules(out) == ["playbook-content"], out


def test_playbook_an_empty_narrative_beside_text_is_content_enough(tmp_path: Path) -> None:
    path = _file(tmp_path, "pb.vcontext.json", _playbook(_event("e1", "r1", narrative={})))
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


# -- a plan's proposal ---------------------------------------------------------------------


def _plan(**plan: Any) -> dict[str, Any]:
    base = {"title": "Release", "status": "draft", "items": []}
    return {"vContextInfo": {"version": "0.4"}, "plan": {**base, **plan}}


@pytest.mark.parametrize(
    "narratives",
    [None, {}, {"problem": "It is slow."}, {"proposal": ""}],
    ids=["no narratives", "empty", "no proposal", "empty proposal"],
)
def test_plan_without_a_proposal_is_a_finding(tmp_path: Path, narratives: Any) -> None:
    doc = _plan() if narratives is None else _plan(narratives=narratives)
    path = _file(tmp_path, "plan.vcontext.json", doc)

    code, out = validate(tmp_path, str(path))

    assert code == 1, out
    assert rules(out) == ["plan-proposal"], out
    assert "proposal" in out


@pytest.mark.parametrize(
    "narratives",
    [
        {"proposal": "Ship it."},
        {"Proposal": "Ship it."},  # the Title Case key seed 000 lists among its standard keys
        {"proposal": {"title": "Overview", "content": "Ship it."}},  # seed 002's older form
    ],
    ids=["lower case", "Title Case", "older object form"],
)
def test_plan_with_a_proposal_is_valid(tmp_path: Path, narratives: dict[str, Any]) -> None:
    path = _file(tmp_path, "plan.vcontext.json", _plan(narratives=narratives))
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


def test_plan_the_seeds_minimal_plan_still_validates(tmp_path: Path) -> None:
    doc = _plan(
        title="Add user authentication",
        narratives={"proposal": "Implement JWT-based authentication with refresh tokens"},
        items=[
            {"title": "Database schema", "status": "completed"},
            {"title": "JWT implementation", "status": "pending"},
        ],
    )
    path = _file(tmp_path, "plan.vcontext.json", doc)
    code, out = validate(tmp_path, str(path))
    assert code == 0, out


# -- one truth: what the tool's writers make, these rules accept ------------------------------


def test_one_truth_mcp_create_plan_asks_for_a_proposal_and_what_it_writes_validates(
    git_repo: Path,
) -> None:
    from git_vcontext.mcp_server import startup
    from git_vcontext.mcp_server.service import Options
    from git_vcontext.mcp_server.tools.dispatch import call

    where, git = startup.find_root(str(git_repo))
    svc = startup.service(Options(root=where), git)

    refused = call(svc, "vbrief_create_plan", {"title": "Fresh"})

    assert refused.error
    assert "proposal" in refused.text
    assert "\n" not in refused.text
    assert not (git_repo / ".vcontext").exists()  # nothing written

    made = call(
        svc, "vbrief_create_plan", {"title": "Fresh", "narratives": {"proposal": "Ship it."}}
    )
    assert not made.error, made.text
    (path,) = (git_repo / ".vcontext").iterdir()
    code, out = validate(git_repo, str(path))
    assert code == 0, out


def test_one_truth_playbook_add_refuses_a_link_to_nothing_and_empty_content(
    tmp_path: Path,
) -> None:
    path = _file(tmp_path, "pb.vcontext.json", _playbook(_event("e1", "r1")))
    before = path.read_bytes()

    dangling = run_cli(
        "playbook", "add", str(path), "--target", "r2", "--kind", "rule",
        "--text", "Prefer r1's rule.", "--supersedes", "r-gone",
    )  # fmt: skip
    empty = run_cli(
        "playbook", "add", str(path), "--target", "r2", "--kind", "rule",
        "--narrative", "Overview=",
    )  # fmt: skip

    assert dangling.returncode != 0
    assert b"r-gone" in dangling.stderr
    assert empty.returncode == 2
    assert path.read_bytes() == before
    linked = run_cli(
        "playbook", "add", str(path), "--target", "r2", "--kind", "rule",
        "--text", "Prefer this.", "--supersedes", "r1",
    )  # fmt: skip
    assert linked.returncode == 0, linked.stderr
    code, out = validate(tmp_path, str(path))
    assert code == 0, out
