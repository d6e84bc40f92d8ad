"""VerMAS from the command line: ``validate`` of a ``.work/`` directory, ``vermas project``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers.run import REPO_ROOT, run_cli

SEED = REPO_ROOT / "tests" / "examples" / "vermas" / ".work"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A copy of the seed's .work directory (in a folder whose name has a space)."""
    target = tmp_path / "my project" / ".work"
    shutil.copytree(SEED, target)
    return target


def _json(out: bytes) -> dict[str, dict[str, object]]:
    return {f["path"]: f for f in json.loads(out)["files"]}


def test_validate_of_a_work_directory_checks_every_vermas_file_kind(work: Path) -> None:
    proc = run_cli("validate", "--format", "json", ".work", cwd=work.parent)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert set(_json(proc.stdout)) == {
        ".work/.assignment-project-a-workers-slot0",  # issue 28: assignments are checked too
        ".work/events.jsonl",
        ".work/feed.jsonl",
        ".work/messages.jsonl",
        ".work/routes.jsonl",
        ".work/work_orders.jsonl",
        ".work/templates/worker-execute.toml",
        ".work/processes/proc-abc123.json",
        ".work/evidence/wo-abc123-verdict.json",
    }


def test_validate_reports_projection_drift_against_the_events_beside_it(work: Path) -> None:
    orders = work / "work_orders.jsonl"
    orders.write_text(orders.read_text().replace('"status": "closed"', '"status": "open"'))
    proc = run_cli("validate", str(orders), cwd=work.parent)
    out = proc.stdout.decode()
    assert proc.returncode == 1
    assert out.startswith(f'{orders}:1:48: [wo-dep456].status: status is "open" but event')
    assert out.rstrip().endswith("[projection-drift]")
    assert len(out.splitlines()) == 1


# -- vermas project ------------------------------------------------------------------------


def _project(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = run_cli("vermas", "project", *args, cwd=cwd)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _append(path: Path, *records: dict[str, object]) -> None:
    with path.open("a") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)


NEW_EVENTS: tuple[dict[str, object], ...] = (
    {"event_id": "evt-new0status", "event_type": "work_order.status_changed",
     "timestamp": "2026-01-07T09:00:00.000Z", "actor": "project-a/workers/slot0",
     "data": {"work_order_id": "wo-abc123", "from_status": "open", "to_status": "in_progress"}},
    {"event_id": "evt-new0create", "event_type": "work_order.created",
     "timestamp": "2026-01-07T09:01:00.000Z", "actor": "ceo",
     "data": {"work_order_id": "wo-new789", "title": "Write the docs", "issue_type": "task"}},
)  # fmt: skip


def test_project_check_is_quiet_and_exit_0_on_the_seed_examples(work: Path) -> None:
    before = {p: p.read_bytes() for p in work.iterdir() if p.is_file()}
    code, out, _ = _project("--check", cwd=work.parent)
    assert code == 0
    assert out.splitlines() == [
        ".work/work_orders.jsonl: up to date",
        ".work/messages.jsonl: up to date",
    ]
    assert {p: p.read_bytes() for p in work.iterdir() if p.is_file()} == before


def test_project_rebuilds_in_the_files_style_and_order_and_check_says_why_first(
    work: Path,
) -> None:
    _append(work / "events.jsonl", *NEW_EVENTS)
    orders = work / "work_orders.jsonl"
    ghost = {"id": "wo-ghost", "title": "Hand-written", "status": "open", "priority": 3,
             "issue_type": "bug", "created_at": "2026-01-06T08:00:00.000Z",
             "updated_at": "2026-01-06T08:00:00.000Z", "created_by": "me"}  # fmt: skip
    orders.write_text(orders.read_text() + json.dumps(ghost, separators=(",", ":")) + "\n")
    before = orders.read_bytes()

    code, out, _ = _project("--check", str(work), cwd=work.parent)
    assert code == 1
    assert orders.read_bytes() == before
    assert (
        f"{work}/work_orders.jsonl: out of date: 1 updated (wo-abc123), 1 added (wo-new789), "
        "1 dropped, no event created them (wo-ghost)" in out
    )
    assert '[wo-abc123].status: status is "open" but event evt-new0status makes it' in out
    assert "[projection-drift]" in out

    code, out, _ = _project(str(work.parent), cwd=work.parent.parent)  # DIR above .work
    assert code == 0
    assert "rebuilt: 1 updated" in out
    lines = orders.read_text().splitlines()
    old = before.decode().splitlines()
    assert lines[0] == old[0]  # wo-dep456: untouched, byte for byte
    assert lines[1] == old[1].replace('"status": "open"', '"status": "in_progress"').replace(
        '"updated_at": "2026-01-06T12:00:00.000Z"', '"updated_at": "2026-01-07T09:00:00.000Z"'
    )
    assert json.loads(lines[2])["id"] == "wo-new789"
    assert len(lines) == 3
    assert json.loads(lines[2])["priority"] == 2  # seed default: the event gave none
    assert _project("--check", cwd=work.parent)[0] == 0
    assert run_cli("validate", ".work", cwd=work.parent).returncode == 0


def test_project_creates_a_missing_projection_and_refuses_unreadable_input(work: Path) -> None:
    (work / "messages.jsonl").unlink()
    assert _project(cwd=work)[0] == 0  # run inside .work
    assert (work / "messages.jsonl").read_text().count("\n") == 2

    orders = work / "work_orders.jsonl"
    broken = orders.read_text() + "<<<<<<< ours\n"
    orders.write_text(broken)
    _append(work / "events.jsonl", *NEW_EVENTS)
    messages = (work / "messages.jsonl").read_bytes()
    code, _, err = _project(cwd=work.parent)
    assert code == 1
    assert "work_orders.jsonl:3:1" in err
    assert "conflict markers" in err
    assert orders.read_text() == broken
    assert (work / "messages.jsonl").read_bytes() == messages
    assert len(err.strip().splitlines()) == 1


def test_project_without_an_event_log_is_an_operational_error(tmp_path: Path) -> None:
    code, _, err = _project(str(tmp_path), cwd=tmp_path)
    assert code == 3
    assert "no events.jsonl" in err
    assert "Traceback" not in err
    (tmp_path / "events.jsonl").write_text('{"event_id": "e1"\n')
    code, _, err = _project(str(tmp_path), cwd=tmp_path)
    assert code == 1
    assert "events.jsonl:1:" in err
    assert "not JSON" in err
