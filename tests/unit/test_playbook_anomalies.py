"""Every anomaly of PRODUCT.md's playbook view is reported with its events, never raised."""

from __future__ import annotations

import json
from typing import Any

import pytest

from git_vcontext.playbook import ANOMALY_KINDS, playbook_view
from helpers.playbook import doc, ev


def _anomalies(log: list[Any]) -> list[tuple[str, tuple[str, ...], str | None]]:
    view = playbook_view(doc(log))
    return [(a.kind, a.event_ids, a.target_id) for a in view.anomalies]


def test_dangling_prev_is_a_root() -> None:
    log = [ev("e1", "t", "append", at=0), ev("e2", "t", prev="nowhere", at=1, text="x")]
    assert _anomalies(log) == [("dangling-prev", ("e2",), "t")]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.heads == ("e1", "e2")
    assert entry.text == "x"


def test_cross_target_prev_is_a_root() -> None:
    log = [ev("a1", "a", "append", at=0), ev("b1", "b", prev="a1", at=1)]
    assert _anomalies(log) == [("cross-target-prev", ("b1", "a1"), "b")]
    a = playbook_view(doc(log)).entry("a")
    assert a is not None
    assert a.heads == ("a1",)


def test_cycle_is_broken_by_tie_order() -> None:
    log = [
        ev("e1", "t", prev="e3", at=1, text="one"),
        ev("e2", "t", prev="e1", at=2, text="two"),
        ev("e3", "t", prev="e2", at=3, text="three"),
    ]
    assert _anomalies(log) == [("cycle", ("e1", "e2", "e3"), "t")]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.event_ids == ("e1", "e2", "e3")
    assert entry.text == "three"
    assert entry.heads == ("e3",)


def test_self_loop_is_a_cycle() -> None:
    log = [ev("e1", "t", "append", at=0), ev("e2", "t", prev="e2", at=1)]
    kinds = _anomalies(log)
    assert ("cycle", ("e2",), "t") in kinds


def test_cycle_hanging_off_a_chain() -> None:
    log = [
        ev("r", "t", "append", at=0),
        ev("x", "t", prev="y", at=2),
        ev("y", "t", prev="x", at=3),
        ev("z", "t", prev="x", at=4),
    ]
    assert _anomalies(log) == [("cycle", ("x", "y"), "t")]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert set(entry.event_ids) == {"r", "x", "y", "z"}


def _notes(log: list[Any]) -> list[tuple[str, tuple[str, ...], str | None]]:
    view = playbook_view(doc(log))
    return [(a.kind, a.event_ids, a.target_id) for a in view.notes]


def test_append_with_prev() -> None:
    log = [ev("e1", "t", "append", at=0), ev("e2", "t", "append", prev="e1", at=1)]
    assert _anomalies(log) == [("append-with-prev", ("e2",), "t")]
    # issue 26: two creations are concurrency (several roots), a note, no longer an anomaly
    assert _notes(log) == [("duplicate-creation", ("e1", "e2"), "t")]


def test_update_and_deprecate_without_prev() -> None:
    log = [
        ev("e1", "t", "append", at=0),
        ev("e2", "t", at=1, text="u"),
        ev("e3", "t", "deprecate", at=2),
    ]
    assert _anomalies(log) == [
        ("update-without-prev", ("e2",), "t"),
        ("update-without-prev", ("e3",), "t"),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.status == "deprecated"
    assert len(entry.heads) == 3


def test_concurrent_creations_are_a_note_and_several_roots_of_one_entry() -> None:
    """Issue 26 (PRODUCT.md "Playbook view"): two creations of one target are concurrency,
    not an anomaly: a note, and each creation starts a chain of the one entry."""
    log = [ev("e2", "t", "initial", at=1), ev("e1", "t", "append", at=0)]
    assert _anomalies(log) == []
    assert _notes(log) == [("duplicate-creation", ("e1", "e2"), "t")]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert (entry.heads, entry.winner, entry.settled) == (("e1", "e2"), "e2", ())
    assert entry.multi_head
    as_json = playbook_view(doc(log)).to_json()
    assert as_json["anomalies"] == []
    assert as_json["notes"][0]["kind"] == "duplicate-creation"


def test_duplicate_event_id_keeps_the_earliest_whatever_the_file_order() -> None:
    late = ev("e1", "t", "append", at=5, text="late")
    early = ev("e1", "t", "append", at=1, text="early")
    for log in ([late, early], [early, late]):
        assert _anomalies(log) == [("duplicate-event-id", ("e1",), "t")]
        entry = playbook_view(doc(log)).entry("t")
        assert entry is not None
        assert entry.text == "early"


def test_duplicate_event_id_across_targets() -> None:
    log = [ev("e1", "a", "append", at=0), ev("e1", "b", "append", at=1)]
    view = playbook_view(doc(log))
    (anomaly,) = view.anomalies
    assert anomaly.kind == "duplicate-event-id"
    assert anomaly.target_id is None
    assert "a, b" in anomaly.message
    assert [e.target_id for e in view.entries] == ["a"]


@pytest.mark.parametrize(
    "element",
    [
        "a string",
        None,
        ["a", "list"],
        {"targetId": "t", "operation": "append"},
        {"eventId": 7, "targetId": "t"},
        {"eventId": "e9", "operation": "append"},
        {"eventId": "e9", "targetId": ["t"]},
    ],
)
def test_elements_that_are_no_events_are_reported(element: Any) -> None:
    log = [ev("e1", "t", "append", at=0), element]
    (anomaly,) = playbook_view(doc(log)).anomalies
    assert anomaly.kind == "malformed-event"
    assert "element 1" in anomaly.message


def test_nasty_field_values_never_crash() -> None:
    log = [
        ev("e1", "t", "append", at="not a time", narrative="not a map", title=3, supersedes="x"),
        ev("e2", "t", prev=["e1"], at=None, delta=[1], status=7, operation=None),
        ev("e3", "t", prev="e1", at=1, duplicateOf={"x": 1}, kind=["rule"]),
    ]
    view = playbook_view(doc(log))
    entry = view.entry("t")
    assert entry is not None
    assert entry.narrative is None
    assert entry.title is None
    assert entry.supersedes == ()
    assert entry.kind is None
    assert entry.duplicate_of is None
    assert [a.kind for a in view.anomalies] == ["dangling-prev"]
    assert json.loads(json.dumps(view.to_json()))["entries"][0]["targetId"] == "t"


def test_every_kind_is_known() -> None:
    assert set(ANOMALY_KINDS) >= {
        "dangling-prev",
        "cross-target-prev",
        "cycle",
        "append-with-prev",
        "update-without-prev",
        "duplicate-creation",
        "duplicate-event-id",
    }


def test_anomaly_order_does_not_depend_on_the_file() -> None:
    log = [
        ev("e1", "t", "append", at=0),
        ev("e2", "t", prev="x", at=1),
        ev("e3", "u", at=2),
        ev("e4", "u", "append", prev="e3", at=3),
    ]
    assert playbook_view(doc(log)).anomalies == playbook_view(doc(log[::-1])).anomalies
