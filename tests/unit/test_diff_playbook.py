"""Playbook diffs: new events plus what they do to each entry's view (status, text, counters,
concurrent heads); the view comes from ``git_vcontext.playbook``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from git_vcontext.diffing import diff
from git_vcontext.diffing.render import render_text

pytest.importorskip("git_vcontext.playbook.view")


def _ev(event_id: str, target: str, op: str, at: str, **fields: Any) -> dict[str, Any]:
    return {"eventId": event_id, "targetId": target, "operation": op, **fields, "createdAt": at}


BASE: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "playbook": {"items": [
        _ev("e1", "t", "append", "2025-01-01T00:00:00Z", kind="rule", text="Run it in staging."),
    ]},
}  # fmt: skip


def _with(*events: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["playbook"]["items"] += events
    return doc


def _view(old: Any, new: Any) -> list[tuple[str, str, Any, Any]]:
    return [(c.op, c.anchor, c.old, c.new) for c in diff(old, new).changes if c.view]


def test_a_new_entry_is_an_added_view_with_its_kind_and_text() -> None:
    new = _with(_ev("e2", "u", "append", "2025-01-02T00:00:00Z", kind="warning", text="Careful."))
    changes = [c for c in diff(BASE, new).changes if c.view]
    assert [(c.op, c.anchor, c.kind, c.id) for c in changes] == [
        ("add", "playbook[u]", "entry", "u")
    ]
    assert changes[0].path == "/playbook/items"  # a view lives nowhere else in the document
    assert 'playbook[u]: + new warning "Careful." [active]' in render_text(diff(BASE, new))


def test_status_text_and_counters_of_an_entry_change_with_its_events() -> None:
    new = _with(
        _ev(
            "e2",
            "t",
            "update",
            "2025-01-02T00:00:00Z",
            prevEventId="e1",
            text="Staging first.",
            delta={"helpfulCount": 2},
        ),
        _ev("e3", "t", "deprecate", "2025-01-03T00:00:00Z", prevEventId="e2", status="deprecated"),
    )
    assert _view(BASE, new) == [
        ("change", "playbook[t].status", "active", "deprecated"),
        ("change", "playbook[t].text", "Run it in staging.", "Staging first."),
        ("change", "playbook[t].helpfulCount", 0, 2),
    ]


def test_new_concurrent_heads_are_reported_once_with_the_winner() -> None:
    one = {"helpfulCount": 1}
    new = _with(
        _ev("e2", "t", "update", "2025-01-02T00:00:00Z", prevEventId="e1", delta=one),
        _ev("e3", "t", "update", "2025-01-03T00:00:00Z", prevEventId="e1", delta=one),
    )
    (heads,) = [c for c in diff(BASE, new).changes if c.anchor == "playbook[t].heads"]
    assert (heads.old, heads.new) == (["e1"], ["e2", "e3"])
    assert heads.note == "concurrent updates: 2 heads, e3 shown"
    chain = _with(_ev("e2", "t", "update", "2025-01-02T00:00:00Z", prevEventId="e1"))
    assert not [c for c in diff(BASE, chain).changes if c.anchor.endswith(".heads")]


def test_unchanged_playbooks_and_ace_entries_have_no_view_changes() -> None:
    assert _view(BASE, copy.deepcopy(BASE)) == []
    ace_old = {"playbook": {"entries": [{"id": "a", "text": "x", "helpfulCount": 1}]}}
    ace_new = {"playbook": {"entries": [{"id": "a", "text": "x", "helpfulCount": 2}]}}
    assert _view(ace_old, ace_new) == []  # ACE counters are stored values: the diff shows them
    anchors = [c.anchor for c in diff(ace_old, ace_new).changes]
    assert anchors == ["playbook.entries[a].helpfulCount"]


def test_a_playbook_added_with_the_file_lists_its_entries() -> None:
    changes = diff({"vContextInfo": {"version": "0.4"}}, BASE).changes
    assert [(c.op, c.anchor) for c in changes if c.view] == [("add", "playbook[t]")]


def test_anomalies_brought_by_new_events_are_reported() -> None:
    new = _with(_ev("e2", "t", "update", "2025-01-02T00:00:00Z", prevEventId="nope"))
    (anomaly,) = [c for c in diff(BASE, new).changes if c.kind == "anomaly"]
    assert anomaly.new["kind"] == "dangling-prev"
    assert anomaly.anchor == "playbook.anomalies"


def test_textconv_follows_the_log_with_each_entrys_view() -> None:
    from git_vcontext.diffing.textconv import textconv

    new = _with(
        _ev("e2", "t", "deprecate", "2025-01-02T00:00:00Z", prevEventId="e1", status="deprecated")
    )
    before, after = set(textconv(BASE).splitlines()), set(textconv(new).splitlines())
    assert 'playbook[t].status = "active"' in before
    assert 'playbook[t].status = "deprecated"' in after - before
    assert all(line.startswith(("playbook.items[e2].", "playbook[t].")) for line in after - before)
