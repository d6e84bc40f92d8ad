"""Projections derived from events (PRODUCT.md "VerMAS (seed 004) in full"): the fold, the
rebuild that keeps a file's records, order and style, and what counts as drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from git_vcontext.codecs import parse
from git_vcontext.validation.rebuild import plan_rebuild
from git_vcontext.vermas.project import derive, rebuild

WORK = Path(__file__).resolve().parents[1] / "examples" / "vermas" / ".work"


def records(name: str) -> list[Any]:
    return [json.loads(line) for line in (WORK / name).read_text().splitlines()]


def ev(eid: str, etype: str, when: str, **data: Any) -> dict[str, Any]:
    stamp = f"2026-01-06T{when}:00.000Z"
    return {"event_id": eid, "event_type": etype, "timestamp": stamp, "actor": "a", "data": data}


def test_the_seed_projections_are_what_their_events_derive() -> None:
    events = records("events.jsonl")
    for name, kind in (("work_orders.jsonl", "work order"), ("messages.jsonl", "message")):
        mine = records(name)
        new, dropped = rebuild(mine, derive(events, kind), kind)
        assert new == mine
        assert dropped == []


def test_the_fold_applies_each_event_type_in_log_order() -> None:
    events = [
        ev("e1", "work_order.created", "10:00", work_order_id="wo-1", title="T", priority=3),
        ev("e2", "work_order.assigned", "10:01", work_order_id="wo-1", agent="slot0"),
        ev(
            "e3",
            "work_order.status_changed",
            "10:02",
            work_order_id="wo-1",
            to_status="in_progress",
        ),
        ev("e4", "work_order.updated", "10:03", work_order_id="wo-1", changes={"title": "T2"}),
        ev("e5", "work_order.closed", "10:04", work_order_id="wo-1", reason="done"),
        ev("e6", "work_order.status_changed", "10:05", work_order_id="wo-9", to_status="closed"),
        ev("e7", "agent.working", "10:06", work_order_id="wo-1"),
    ]
    (order,) = derive(events, "work order").values()
    assert order.fields == {
        "id": "wo-1", "title": "T2", "priority": 3, "created_by": "a", "status": "closed",
        "created_at": "2026-01-06T10:00:00.000Z", "updated_at": "2026-01-06T10:04:00.000Z",
        "assignee": "slot0",
    }  # fmt: skip
    assert order.setters["status"] == "e5"
    assert order.setters["title"] == "e4"


def test_a_message_is_sent_unread_and_read_when_the_event_says() -> None:
    sent = ev("e1", "mail.sent", "11:00", message_id="m1", to="b", subject="HELP")
    read = ev("e2", "mail.read", "11:05", message_id="m1", reader="b")
    (message,) = derive([sent], "message").values()
    assert message.fields["read_at"] is None
    assert message.fields["timestamp"].endswith("11:00:00.000Z")
    (message,) = derive([sent, read], "message").values()
    assert message.fields["read_at"] == "2026-01-06T11:05:00.000Z"


def test_a_rebuild_keeps_order_unset_fields_and_records_without_id_and_drops_the_rest() -> None:
    events = [
        ev("e1", "work_order.created", "10:00", work_order_id="wo-1", title="One"),
        ev("e2", "work_order.created", "10:01", work_order_id="wo-2", title="Two"),
    ]
    mine = [
        {"id": "wo-2", "title": "old", "labels": ["kept"]},
        {"note": "no id: not ours to judge"},
        {"id": "wo-x", "title": "nobody created me"},
        {"id": "wo-2", "title": "a second wo-2"},
    ]
    new, dropped = rebuild(mine, derive(events, "work order"), "work order")
    assert [r.get("id") for r in new] == ["wo-2", None, "wo-1"]
    assert new[0]["title"] == "Two"
    assert new[0]["labels"] == ["kept"]
    assert list(new[2]) == ["id", "title", "status", "priority", "created_at", "updated_at",
                            "created_by"]  # fmt: skip
    assert dropped == ["wo-x", "wo-2"]


def test_equal_instants_are_not_rewritten() -> None:
    events = [ev("e1", "work_order.created", "10:00", work_order_id="wo-1", title="T")]
    stamps = {"created_at": "2026-01-06T11:00:00+01:00", "updated_at": "2026-01-06T10:00:00Z"}
    mine = [{"id": "wo-1", "title": "T", "status": "open", "created_by": "a", **stamps}]
    new, _ = rebuild(mine, derive(events, "work order"), "work order")
    assert new == mine


def test_a_changed_record_keeps_its_lines_spacing_key_order_and_number_spelling() -> None:
    text = (
        '{"id":"wo-1","title":"T","status":"open","priority":2,"score":1.50,'
        '"created_at":"2026-01-06T10:00:00.000Z","updated_at":"2026-01-06T10:00:00.000Z",'
        '"created_by":"a"}\n'
    )
    events = (
        json.dumps(ev("e1", "work_order.created", "10:00", work_order_id="wo-1", title="T"))
        + "\n"
        + json.dumps(ev("e2", "work_order.closed", "10:30", work_order_id="wo-1"))
        + "\n"
    )
    (planned,) = plan_rebuild("events.jsonl", events.encode(), {"work_orders.jsonl": text.encode()})
    assert planned.output.decode() == text.replace('"open"', '"closed"').replace(
        '"updated_at":"2026-01-06T10:00:00.000Z"', '"updated_at":"2026-01-06T10:30:00.000Z"'
    )
    assert planned.updated == ("wo-1",)
    assert planned.changed
    assert any("[projection-drift]" in line for line in planned.drift_lines())


def test_no_projection_file_is_planned_when_the_events_create_none_of_its_records() -> None:
    events = json.dumps(ev("e1", "agent.idle", "10:00", idle_since="x")) + "\n"
    planned = plan_rebuild("events.jsonl", events.encode(), {"messages.jsonl": None})
    assert planned == []
    assert parse(events.encode(), format="jsonl").data  # (the log itself is fine)
