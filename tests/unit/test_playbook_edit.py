"""Appending events (playbook add/update/deprecate): chaining, ids, times, versions, refusals."""

from __future__ import annotations

import re
from typing import Any

import pytest

from git_vcontext.errors import Refused as EditRefused
from git_vcontext.playbook import NoPlaybookError, playbook_view
from git_vcontext.playbook.edit import Edit, append_event
from helpers.playbook import doc, ev

NOW = "2025-06-01T12:00:00Z"


def _log(data: Any) -> list[dict[str, Any]]:
    return data["playbook"]["items"]  # type: ignore[no-any-return]


def test_add_appends_a_creation_event_without_prev() -> None:
    data = doc([ev("e1", "t", "append")])
    out = append_event(data, Edit("add", "new", {"kind": "rule", "text": "x"}), now=NOW)
    assert out.event["operation"] == "append"
    assert "prevEventId" not in out.event
    assert out.event["createdAt"] == NOW
    assert _log(out.data)[-1] is out.event
    assert re.fullmatch(r"evt-20250601T120000Z-[0-9a-f]{8}", out.event["eventId"])
    assert list(out.event)[:3] == ["eventId", "targetId", "operation"]
    assert out.data["playbook"]["version"] == 2
    assert out.data["playbook"]["updated"] == NOW


def test_update_chains_to_the_winning_head_and_says_so() -> None:
    data = doc(
        [
            ev("e1", "t", "append", at=0),
            ev("e2", "t", prev="e1", at=1),
            ev("e3", "t", prev="e1", at=2),
        ]
    )
    out = append_event(data, Edit("update", "t", {"delta": {"helpfulCount": 1}}), now=NOW)
    assert out.event["prevEventId"] == "e3"
    assert out.notes
    assert "2 heads" in out.notes[0]
    entry = playbook_view(out.data).entry("t")
    assert entry is not None
    assert entry.helpful_count == 1
    assert entry.heads == ("e2", out.event["eventId"])


def test_deprecate_then_the_view_shows_it_deprecated() -> None:
    data = doc([ev("e1", "t", "append", status="active")])
    edit = Edit("deprecate", "t", {"status": "quarantined"}, reason="bad advice")
    out = append_event(data, edit, now=NOW)
    assert out.event["operation"] == "deprecate"
    assert out.event["reason"] == "bad advice"
    entry = playbook_view(out.data).entry("t")
    assert entry is not None
    assert entry.status == "quarantined"


def test_the_new_event_is_never_dated_before_its_predecessor() -> None:
    """With a fixed SOURCE_DATE_EPOCH in the past, a deprecation must still win."""
    later = "2030-01-01T00:00:00+01:00"
    data = doc([ev("e1", "t", "append", at=later, status="active")])
    out = append_event(data, Edit("deprecate", "t", {"status": "deprecated"}), now=NOW)
    assert out.event["createdAt"] == later
    entry = playbook_view(out.data).entry("t")
    assert entry is not None
    assert entry.status == "deprecated"


def test_ids_are_reproducible_without_entropy_and_unique() -> None:
    data = doc([ev("e1", "t", "append")])
    edit = Edit("update", "t", {"text": "y"})
    first = append_event(data, edit, now=NOW).event["eventId"]
    assert append_event(data, edit, now=NOW).event["eventId"] == first
    taken = doc([ev("e1", "t", "append"), ev(first, "u", "append")])
    assert append_event(taken, edit, now=NOW).event["eventId"] != first
    assert append_event(data, edit, now=NOW, entropy="abc").event["eventId"] != first


def test_input_is_not_modified_and_unchanged_events_are_reused() -> None:
    events = [ev("e1", "t", "append")]
    data = doc(events)
    out = append_event(data, Edit("update", "t", {"text": "y"}), now=NOW)
    assert data["playbook"]["items"] == events
    assert len(events) == 1
    assert _log(out.data)[0] is events[0]


def test_embedded_playbook_advances_its_container() -> None:
    data = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "title": "p",
            "sequence": 3,
            "updated": "2025-01-01T00:00:00Z",
            "playbook": {"entries": [ev("e1", "t", "append")], "metrics": {"totalEntries": 1}},
        },
    }
    out = append_event(data, Edit("add", "u", {"kind": "note", "text": "x"}), now=NOW)
    plan = out.data["plan"]
    assert plan["sequence"] == 4
    assert plan["updated"] == NOW
    assert plan["playbook"]["metrics"] == {"totalEntries": 2, "lastUpdated": NOW}
    assert plan["playbook"]["entries"][-1]["targetId"] == "u"


@pytest.mark.parametrize(
    ("data", "edit", "message"),
    [
        (doc([ev("e1", "t", "append")]), Edit("add", "t", {"text": "x"}), "already exists"),
        (doc([ev("e1", "t", "append")]), Edit("update", "u", {"text": "x"}), "no entry"),
        (doc([ev("e1", "t", "append")]), Edit("deprecate", "u"), "no entry"),
        (
            {"plan": {"playbook": {"entries": [{"id": "a", "text": "x"}]}}},
            Edit("add", "b", {"text": "x"}),
            "ace apply",
        ),
        (
            {"playbook": {"items": [{"title": "x", "status": "pending"}]}},
            Edit("add", "b", {"text": "x"}),
            "v0.3 items",
        ),
    ],
)
def test_refusals(data: Any, edit: Edit, message: str) -> None:
    with pytest.raises(EditRefused, match=message) as info:
        append_event(data, edit, now=NOW)
    assert info.value.exit_code == 1


def test_no_playbook() -> None:
    with pytest.raises(NoPlaybookError):
        append_event({"todoList": {"items": []}}, Edit("add", "t", {"text": "x"}), now=NOW)


def test_new_events_follow_the_key_order_of_the_log() -> None:
    """TRON writers reuse the log's class when the order fits (seed 000 A3 puts delta last)."""
    first = {
        "eventId": "e1",
        "targetId": "t",
        "operation": "append",
        "kind": "rule",
        "text": "x",
        "status": "active",
        "createdAt": "2025-01-01T00:00:00Z",
    }
    second = {
        "eventId": "e2",
        "targetId": "t",
        "operation": "update",
        "prevEventId": "e1",
        "createdAt": "2025-01-01T00:01:00Z",
        "reason": "r",
        "delta": {"helpfulCount": 1},
    }
    data = doc([first, second])
    edit = Edit("update", "t", {"delta": {"helpfulCount": 1}, "narrative": {"A": "b"}}, "why")
    event = append_event(data, edit, now=NOW).event
    assert list(event) == [
        "eventId",
        "targetId",
        "operation",
        "prevEventId",
        "narrative",
        "createdAt",
        "reason",
        "delta",
    ]
