"""VerMAS validation (PRODUCT.md "VerMAS (seed 004) in full"): every file kind of a ``.work/``
directory, the seed's own examples valid, each bad input a located finding with a rule id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.validation.files import check_bytes
from git_vcontext.validation.model import FileReport
from git_vcontext.validation.rules import NOTE_RULES, RULES

WORK = Path(__file__).resolve().parents[1] / "examples" / "vermas" / ".work"
SEED_FILES = sorted(
    p for p in WORK.rglob("*") if p.is_file() and (p.suffix or p.name.startswith("."))
)
TEMPLATE = (WORK / "templates" / "worker-execute.toml").read_text()


def beside(folder: Path) -> Any:
    def read(name: str) -> bytes | None:
        path = folder / name
        return path.read_bytes() if path.exists() else None

    return read


def check(path: str, text: str, **siblings: str) -> FileReport:
    def read(name: str) -> bytes | None:
        found = siblings.get(name.replace(".", "_"))
        return None if found is None else found.encode()

    return check_bytes(text.encode(), path, sibling=read if siblings else None)


def found(report: FileReport) -> list[tuple[str, str, int | None, int | None]]:
    return [(f.rule, f.where, f.line, f.column) for f in report.findings]


def jsonl(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# -- the seed's own examples -------------------------------------------------------------


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: str(p.relative_to(WORK)))
def test_every_file_kind_of_the_seed_examples_is_valid(path: Path) -> None:
    rel = ".work/" + str(path.relative_to(WORK))
    report = check_bytes(path.read_bytes(), rel, sibling=beside(path.parent))
    assert report.valid, report.lines()
    assert report.notes == ()
    assert report.skipped == ()


def test_the_seed_examples_hold_every_event_type_the_seed_lists() -> None:
    from git_vcontext.vermas.kinds import EVENT_TYPES

    events = [json.loads(x) for x in (WORK / "events.jsonl").read_text().splitlines()]
    assert {e["event_type"] for e in events} == set(EVENT_TYPES)


def test_every_event_type_has_a_payload_schema_and_every_rule_a_description() -> None:
    from git_vcontext.shipped import schemas_dir
    from git_vcontext.vermas.kinds import EVENT_TYPES

    schema = json.loads(schemas_dir().joinpath("vermas.schema.json").read_text())
    payloads = {k.removeprefix("data.") for k in schema["$defs"] if k.startswith("data.")}
    assert payloads == set(EVENT_TYPES)
    assert {"event-caused-by", "event-type-unknown", "projection-drift", "assignment"} <= set(RULES)
    assert set(RULES) >= NOTE_RULES


# -- templates ---------------------------------------------------------------------------

BAD_TEMPLATE = """template = "w"
description = "d"
version = 1

[[steps]]
id = "a"
title = "A"
description = "first"
needs = ["c", "zz"]

[[steps]]
id = "b"
title = "B"
description = "second"

[[steps]]
id = "a"
title = "A again"
description = "third"

[[steps]]
id = "c"
title = "C"
description = "fourth"
needs = [
  "b",
  "a",
]
"""


def test_template_step_ids_are_unique_and_needs_name_steps_without_cycles() -> None:
    report = check(".work/templates/w.toml", BAD_TEMPLATE)
    assert found(report) == [
        ("dependency-cycle", "steps[0].needs", 9, 1),
        ("dependency-missing", "steps[0].needs[1]", 9, 15),
        ("unique-id", "steps[2].id", 17, 1),
    ]
    cycle = report.findings[0].message
    assert "a -> c -> a" in cycle or "c -> a -> c" in cycle
    assert 'step id "a" is used by steps[0] too' in report.findings[2].message  # the same path


def test_a_template_step_without_a_title_and_a_bad_version_are_schema_findings() -> None:
    text = TEMPLATE.replace('title = "Run tests"\n', "").replace("version = 1", 'version = "1"')
    report = check(".work/templates/worker-execute.toml", text)
    assert found(report) == [
        ("schema", "version", 5, 1),
        ("schema", "steps[test]", 30, 1),
    ]
    assert "'title'" in report.findings[1].message


def test_a_toml_syntax_error_is_a_parse_finding_at_its_line_and_column() -> None:
    report = check(".work/templates/w.toml", 'template = "w"\n\n[[steps]\nid = "a"\n')
    assert found(report) == [("parse", "", 3, 8)]


def test_a_toml_file_named_by_hand_is_judged_by_its_content() -> None:
    assert check("anywhere.toml", TEMPLATE).valid
    report = check("pyproject.toml", '[project]\nname = "x"\n')
    assert [f.rule for f in report.findings] == ["not-vcontext"]


# -- processes, evidence, assignments ------------------------------------------------------

PROCESS = (WORK / "processes" / "proc-abc123.json").read_text()


def test_a_process_is_a_vermas_document_not_a_stranger() -> None:
    report = check(".work/processes/proc-abc123.json", PROCESS)
    assert report.valid
    assert report.findings == ()
    bad = PROCESS.replace('"status": "pending"', '"status": "waiting"', 1).replace(
        '"completed_at": "2026-01-06T10:05:00.000Z"', '"completed_at": "2026-01-06 10:05"'
    )
    bad = bad.replace('"id": "test"', '"id": "implement"')
    report = check(".work/processes/proc-abc123.json", bad)
    assert [(f.rule, f.where) for f in report.findings] == [
        ("datetime", "steps[0].completed_at"),
        ("unique-id", "steps[2].id"),
        ("schema", "steps[2].status"),
    ]
    assert all(f.line is not None and f.column is not None for f in report.findings)


def test_a_process_named_by_hand_is_known_by_its_content() -> None:
    assert check("proc.json", PROCESS).valid


def test_evidence_is_an_object_with_typed_verdict_fields() -> None:
    assert check(".work/evidence/e.json", '{"verdict": "PASS", "criteria_passed": 5}').valid
    report = check(".work/evidence/e.json", '{"criteria_failed": -1}')
    assert [(f.rule, f.where) for f in report.findings] == [("schema", "criteria_failed")]
    assert [f.rule for f in check(".work/evidence/e.json", "[1]").findings] == ["schema"]


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("work_order:wo-abc123\n", True),
        ("mail:msg-xyz789", True),
        ("process:proc-verify-def\n\n", True),
        ("", False),
        ("wo-abc123\n", False),
        ("ticket:T-1\n", False),
        ("work_order:wo-1\nmail:msg-2\n", False),
    ],
)
def test_an_assignment_file_holds_one_type_and_reference(text: str, valid: bool) -> None:
    report = check(".work/.assignment-project-a-workers-slot0", text)
    assert report.valid == valid
    assert all(f.rule == "assignment" and (f.line, f.column) == (1, 1) for f in report.findings)


# -- events --------------------------------------------------------------------------------


def event(eid: str, etype: str, data: dict[str, Any], **more: Any) -> dict[str, Any]:
    base = {"event_id": eid, "event_type": etype, "timestamp": "2026-01-06T12:00:00.000Z"}
    return {**base, "actor": "ceo", **more, "data": data}


CREATED = event(
    "evt-1", "work_order.created", {"work_order_id": "wo-1", "title": "T", "issue_type": "task"}
)


def test_each_event_payload_is_checked_against_its_event_type() -> None:
    log = jsonl(
        CREATED,
        event("evt-2", "work_order.status_changed", {"work_order_id": "wo-1", "to_status": "done"}),
        event("evt-3", "mail.sent", {"message_id": "m1", "from": "a", "to": "b"}),
        event("evt-4", "agent.assignment_checked", {"found": "yes", "response_ms": -1}),
    )
    report = check(".work/events.jsonl", log)
    assert [(f.rule, f.where) for f in report.findings] == [
        ("schema", "[evt-2].data.to_status"),
        ("schema", "[evt-3].data"),
        ("schema", "[evt-4].data.found"),
        ("schema", "[evt-4].data.response_ms"),
    ]
    assert "'subject'" in report.findings[1].message


def test_a_created_work_order_needs_its_type_and_changes_are_typed_as_work_order_fields() -> None:
    """The seed's WorkOrder gives issue_type no default: only the creating event can carry it;
    an update's changes become work order fields, so they are checked as such."""
    log = jsonl(
        event("evt-1", "work_order.created", {"work_order_id": "wo-1", "title": "T"}),
        event("evt-2", "work_order.updated", {"work_order_id": "wo-1", "changes": {
            "title": "x" * 101, "priority": 9, "status": "done", "labels": "ui", "own": 1}}),
    )  # fmt: skip
    report = check(".work/events.jsonl", log)
    assert [(f.rule, f.where) for f in report.findings] == [
        ("schema", "[evt-1].data"),
        ("schema", "[evt-2].data.changes.title"),
        ("schema", "[evt-2].data.changes.priority"),
        ("schema", "[evt-2].data.changes.status"),
        ("schema", "[evt-2].data.changes.labels"),
    ]
    assert "'issue_type'" in report.findings[0].message


def test_caused_by_must_name_an_event_of_the_log_except_in_the_feed() -> None:
    log = jsonl(
        CREATED, event("evt-2", "work_order.closed", {"work_order_id": "wo-1"}, caused_by="evt-0")
    )
    report = check(".work/events.jsonl", log)
    assert found(report) == [("event-caused-by", "[evt-2].caused_by", 2, 115)]
    assert check(".work/feed.jsonl", log).valid  # a window of recent changes


def test_timestamps_carry_milliseconds_and_an_offset() -> None:
    late = {**CREATED, "event_id": "evt-2", "timestamp": "2026-01-06T12:00:00Z"}
    naive = {**CREATED, "event_id": "evt-3", "timestamp": "2026-01-06T12:00:00.000"}
    report = check(".work/events.jsonl", jsonl(CREATED, late, naive))
    assert [(f.rule, f.where) for f in report.findings] == [
        ("datetime", "[evt-2].timestamp"),
        ("datetime", "[evt-3].timestamp"),
    ]
    assert "milliseconds" in report.findings[0].message
    assert "offset" in report.findings[1].message


def test_an_unknown_event_type_is_a_located_note_and_the_log_stays_valid() -> None:
    log = jsonl(CREATED, event("evt-2", "robot.danced", {"moves": 3}))
    report = check(".work/events.jsonl", log)
    assert report.valid
    assert report.findings == ()
    (note,) = report.notes
    assert (note.rule, note.where, note.line) == ("event-type-unknown", "[evt-2].event_type", 2)
    assert report.lines() == [
        f".work/events.jsonl:2:{note.column}: [evt-2].event_type: note: {note.message} "
        "[event-type-unknown]"
    ]
    assert report.to_json()["valid"] is True
    assert report.to_json()["notes"]


# -- projections -------------------------------------------------------------------------


def test_a_projection_that_agrees_with_its_events_is_valid() -> None:
    events = (WORK / "events.jsonl").read_text()
    orders = (WORK / "work_orders.jsonl").read_text()
    assert check(".work/work_orders.jsonl", orders, events_jsonl=events).valid


def test_projection_drift_names_the_record_and_field_where_they_are() -> None:
    events = jsonl(
        CREATED,
        event(
            "evt-2",
            "work_order.status_changed",
            {"work_order_id": "wo-1", "to_status": "in_progress"},
        ),
        event("evt-3", "work_order.created", {"work_order_id": "wo-2", "title": "Second"}),
    )
    orders = jsonl(
        {"id": "wo-1", "title": "T", "status": "open", "priority": 2, "issue_type": "task",
         "created_at": "2026-01-06T12:00:00Z", "updated_at": "2026-01-06T12:00:00.000Z",
         "created_by": "ceo", "labels": ["set", "by", "people"]},
        {"id": "wo-ghost", "title": "G", "status": "open", "priority": 2, "issue_type": "bug",
         "created_at": "2026-01-06T12:00:00.000Z", "updated_at": "2026-01-06T12:00:00.000Z",
         "created_by": "ceo"},
    )  # fmt: skip
    report = check(".work/work_orders.jsonl", orders, events_jsonl=events)
    assert found(report) == [
        ("projection-drift", "[wo-1].status", 1, 30),
        ("projection-drift", "[wo-ghost].id", 2, 2),
        ("projection-drift", "[2]", 3, 1),  # where the missing record belongs
    ]
    status, ghost, missing = (f.message for f in report.findings)
    assert '"open"' in status
    assert '"in_progress"' in status
    assert "evt-2" in status
    assert "no event created" in ghost
    assert "wo-ghost" in ghost
    assert "wo-2" in missing
    assert "evt-3" in missing


def test_a_message_read_without_a_mail_read_event_drifts() -> None:
    sent = {"message_id": "m1", "from": "a", "to": "b", "subject": "HELP"}
    events = jsonl(event("evt-1", "mail.sent", sent))
    message = {**sent, "id": "m1", "body": "?", "timestamp": "2026-01-06T12:00:00.000Z"}
    messages = jsonl({**message, "read_at": "2026-01-06T13:00:00Z"})
    report = check(".work/messages.jsonl", messages, events_jsonl=events)
    assert [(f.rule, f.where) for f in report.findings] == [("projection-drift", "[m1].read_at")]


def test_without_an_event_log_beside_it_drift_is_skipped_and_said() -> None:
    orders = (WORK / "work_orders.jsonl").read_text()
    report = check_bytes(orders.encode(), ".work/work_orders.jsonl", sibling=lambda name: None)
    assert report.valid
    assert report.skipped == (
        "projection-drift: no events.jsonl next to this file to derive it from",
    )
