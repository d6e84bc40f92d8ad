"""The playbook view (PRODUCT.md "Playbook view"): causal order, fold, counters, heads, status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.playbook import NoPlaybookError, find_playbooks, playbook_view
from helpers.playbook import doc, ev, seed_blocks

SEED_001_EVENTS = ["evt-0100", "evt-0101", "evt-0102", "evt-0200", "evt-0201", "evt-0300"]


def _seed_001_log(shared: Path) -> list[dict[str, Any]]:
    events = [b for b in seed_blocks(shared, "001") if isinstance(b, dict) and "eventId" in b]
    assert [e["eventId"] for e in events[:6]] == SEED_001_EVENTS
    return events


# -- the seeds' own examples ------------------------------------------------------------


def test_seed_001_feedback_counts_after_evt_0101(shared_dir: Path) -> None:
    log = _seed_001_log(shared_dir)[:2]
    entry = playbook_view(doc(log)).entry("entry-test-first")
    assert entry is not None
    assert entry.helpful_count == 1
    assert entry.harmful_count == 0
    assert entry.heads == ("evt-0101",)
    assert entry.winner == "evt-0101"
    assert entry.text is not None
    assert entry.text.startswith("Before changing code")


def test_seed_001_refine_supersede_and_dedup_links(shared_dir: Path) -> None:
    view = playbook_view(doc(_seed_001_log(shared_dir)[:6]))
    first = view.entry("entry-test-first")
    assert first is not None
    assert first.text is not None
    assert first.text.startswith("Write a failing test first; then")
    assert first.helpful_count == 1
    assert first.superseded_by == "entry-tests-before-fix-v2"
    assert first.event_ids == ("evt-0100", "evt-0101", "evt-0102", "evt-0201")
    assert first.duplicates == ("entry-test-first-duplicate",)
    v2 = view.entry("entry-tests-before-fix-v2")
    assert v2 is not None
    assert v2.supersedes == ("entry-test-first",)
    dup = view.entry("entry-test-first-duplicate")
    assert dup is not None
    assert dup.status == "deprecated"
    assert dup.duplicate_of == "entry-test-first"
    assert view.anomalies == ()


def test_seed_001_deprecate_example_points_at_a_missing_event(shared_dir: Path) -> None:
    """The seed's deprecate example chains to evt-0009, which no example defines."""
    view = playbook_view(doc(_seed_001_log(shared_dir)))
    assert [(a.kind, a.event_ids) for a in view.anomalies] == [("dangling-prev", ("evt-0004",))]
    dup = view.entry("entry-test-first-duplicate")
    assert dup is not None
    assert dup.status == "deprecated"
    assert dup.heads == ("evt-0004", "evt-0300")  # two roots, so two heads
    assert dup.winner == "evt-0300"
    task = view.entry("entry-task-first")
    assert task is not None
    assert task.helpful_count == 1
    assert task.status == "active"


def test_seed_000_a3_playbook(shared_dir: Path) -> None:
    blocks = seed_blocks(shared_dir, "000")
    (a3,) = [b for b in blocks if "metrics" in b.get("playbook", {})]
    view = playbook_view(a3)
    triage = view.entry("pb-latency-regression-triage")
    assert triage is not None
    assert triage.helpful_count == 2
    assert triage.kind == "strategy"
    assert triage.narrative is not None
    assert set(triage.narrative) == {"Overview", "Anti-pattern"}
    assert triage.title == "Triage latency regressions with a 3-signal check"
    assert [e.target_id for e in view.entries] == sorted(
        ["pb-latency-regression-triage", "pb-rollback-drill", "pb-scale-first-antipattern"]
    )
    assert all(e.status == "active" and not e.multi_head for e in view.entries)


def test_seed_001_plan_embedded_playbook_uses_entries(shared_dir: Path) -> None:
    (plan,) = [b for b in seed_blocks(shared_dir, "001") if "plan" in b]
    view = playbook_view(plan)
    assert view.path == ("plan", "playbook")
    assert view.log_key == "entries"
    entry = view.entry("entry-task-first")
    assert entry is not None
    assert entry.helpful_count == 1
    assert entry.text is not None


# -- fold ------------------------------------------------------------------------------


def test_fold_last_write_in_causal_order_wins_per_field() -> None:
    log = [
        ev("e1", "t", "append", at=0, title="old", text="first", tags=["a"]),
        ev("e2", "t", prev="e1", at=1, text="second"),
        ev("e3", "t", prev="e2", at=2, tags=["b"], confidence=0.5),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert (entry.title, entry.text) == ("old", "second")
    assert entry.fields["tags"] == ["b"]
    assert entry.fields["confidence"] == 0.5


def test_fold_follows_causal_order_not_file_order_or_clock() -> None:
    """A child whose createdAt is earlier than its parent's (clock skew) still folds last."""
    log = [
        ev("e2", "t", prev="e1", at=1, text="child"),
        ev("e1", "t", "append", at=5, text="parent"),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.text == "child"
    assert entry.event_ids == ("e1", "e2")


def test_narrative_is_replaced_wholesale_and_never_converted_to_text() -> None:
    log = [
        ev("e1", "t", "append", narrative={"Overview": "a", "Detail": "b"}),
        ev("e2", "t", prev="e1", at=1, narrative={"Overview": "c"}),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.narrative == {"Overview": "c"}
    assert entry.text is None


def test_null_sets_nothing() -> None:
    log = [ev("e1", "t", "append", title="kept"), ev("e2", "t", prev="e1", at=1, title=None)]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.title == "kept"


# -- counters --------------------------------------------------------------------------


def test_counters_sum_deltas_of_all_events_including_losing_branches() -> None:
    log = [
        ev("e1", "t", "append", at=0),
        ev("e2", "t", prev="e1", at=1, delta={"helpfulCount": 2}),
        ev("e3", "t", prev="e1", at=2, delta={"helpfulCount": 1, "harmfulCount": 1}),
        ev("e4", "t", prev="e3", at=3, delta={"harmfulCount": 2.0}),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert (entry.helpful_count, entry.harmful_count) == (3, 3)
    assert entry.heads == ("e2", "e4")
    assert entry.winner == "e4"


def test_non_integer_deltas_are_ignored() -> None:
    log = [ev("e1", "t", "append", delta={"helpfulCount": "1", "harmfulCount": True})]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert (entry.helpful_count, entry.harmful_count) == (0, 0)


# -- heads, winner, conflicts -------------------------------------------------------------


def test_winner_is_the_head_with_the_latest_instant_then_greatest_event_id() -> None:
    log = [
        ev("e1", "t", "append", at=0),
        ev("b", "t", prev="e1", at="2025-01-01T01:00:00+01:00"),  # = 00:00Z
        ev("a", "t", prev="e1", at="2025-01-01T00:00:00Z"),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.winner == "b"  # same instant: greatest eventId
    log[1]["eventId"], log[2]["eventId"] = "a", "b"  # whatever the spelling of the instant
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert entry.winner == "b"


def test_concurrent_updates_of_one_field_are_conflicts_sequential_ones_are_not() -> None:
    log = [
        ev("e1", "t", "append", at=0, text="base"),
        ev("e2", "t", prev="e1", at=1, text="mine", reason="x"),
        ev("e3", "t", prev="e1", at=2, text="theirs", reason="y"),
        ev("e4", "t", prev="e2", at=3, confidence=0.9),
        ev("e5", "t", prev="e3", at=4, confidence=0.9),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    assert [(c.field, c.event_ids, c.values) for c in entry.conflicts] == [
        ("text", ("e2", "e3"), ("mine", "theirs"))
    ]  # same confidence on both sides and per-event reasons are no conflict


def test_only_events_with_a_concurrent_different_value_are_listed() -> None:
    log = [
        ev("e1", "t", "append", at=0, text="a"),
        ev("e2", "t", prev="e1", at=1, text="b"),
        ev("e3", "t", prev="e2", at=2, text="c"),  # same value as the other branch
        ev("e4", "t", prev="e1", at=3, text="c"),
    ]
    entry = playbook_view(doc(log)).entry("t")
    assert entry is not None
    (conflict,) = entry.conflicts
    assert conflict.event_ids == ("e2", "e4")  # e1 is an ancestor; e3 agrees with e4


# -- status ----------------------------------------------------------------------------


def _status(*events: dict[str, Any]) -> str:
    entry = playbook_view(doc(list(events))).entry("t")
    assert entry is not None
    return entry.status


def test_status_defaults_to_active() -> None:
    assert _status(ev("e1", "t", "append")) == "active"


def test_deprecation_wins_over_a_concurrent_earlier_active() -> None:
    assert (
        _status(
            ev("e1", "t", "append", at=0, status="active"),
            ev("e2", "t", "deprecate", prev="e1", at=5),
            ev("e3", "t", prev="e1", at=3, status="active"),
        )
        == "deprecated"
    )


def test_deprecation_wins_at_the_same_instant_unless_it_is_extended() -> None:
    base = [ev("e1", "t", "append", at=0), ev("e2", "t", "deprecate", prev="e1", at=5)]
    assert _status(*base, ev("e3", "t", prev="e1", at=5, status="active")) == "deprecated"
    assert _status(*base, ev("e3", "t", prev="e2", at=5, status="active")) == "active"


def test_a_later_event_reactivates() -> None:
    assert (
        _status(
            ev("e1", "t", "append", at=0),
            ev("e2", "t", "deprecate", prev="e1", at=1),
            ev("e3", "t", prev="e1", at=2, status="active"),
        )
        == "active"
    )


def test_between_deprecated_and_quarantined_the_later_wins() -> None:
    first = ev("e1", "t", "append", at=0)
    quarantine = ev("e2", "t", prev="e1", at=2, status="quarantined")
    deprecate = ev("e3", "t", "deprecate", prev="e1", at=1)
    assert _status(first, quarantine, deprecate) == "quarantined"
    deprecate["createdAt"] = "2025-01-01T00:03:00Z"
    assert _status(first, quarantine, deprecate) == "deprecated"


def test_status_set_on_the_append_event_counts() -> None:
    assert _status(ev("e1", "t", "append", status="deprecated")) == "deprecated"


# -- where playbooks are -------------------------------------------------------------------


def test_find_playbooks_root_and_embedded() -> None:
    data: dict[str, Any] = {
        "plan": {"playbook": {"items": []}},
        "todoList": {"playbook": {"entries": []}},
    }
    assert [p for p, _ in find_playbooks(data)] == [("todoList", "playbook"), ("plan", "playbook")]
    assert find_playbooks({"playbook": {}}) == [(("playbook",), {})]
    assert find_playbooks([1, 2]) == []


def test_a_playbook_object_can_be_viewed_directly() -> None:
    view = playbook_view({"items": [ev("e1", "t", "append")]}, path=("x",))
    assert view.path == ("x",)
    assert [e.target_id for e in view.entries] == ["t"]


def test_no_playbook_is_an_error_with_exit_1() -> None:
    with pytest.raises(NoPlaybookError) as info:
        playbook_view({"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}})
    assert info.value.exit_code == 1


# -- ACE and v0.3 items --------------------------------------------------------------------


def test_ace_entries_give_one_entry_per_id_with_stored_counters() -> None:
    data = {
        "vAgendaInfo": {"version": "0.2"},
        "plan": {
            "playbook": {
                "entries": [
                    {"id": "entry-1", "kind": "strategy", "text": "x", "helpfulCount": 12},
                    {
                        "id": "entry-2",
                        "kind": "learning",
                        "text": "y",
                        "status": "deprecated",
                        "duplicateOf": "entry-1",
                    },
                ]
            }
        },
    }
    view = playbook_view(data)
    assert view.kind == "ace"
    assert view.log_key == "entries"
    one, two = view.entries
    assert (one.target_id, one.helpful_count, one.harmful_count, one.heads) == (
        "entry-1",
        12,
        0,
        ("entry-1",),
    )
    assert two.status == "deprecated"
    assert one.duplicates == ("entry-2",)


def test_v03_items_without_ids_are_entries_by_position() -> None:
    data = {
        "playbook": {
            "items": [{"title": "Capture preferences", "status": "completed", "content": "c"}]
        }
    }
    view = playbook_view(data)
    assert view.kind == "items"
    (entry,) = view.entries
    assert entry.target_id == "#0"
    assert entry.status == "completed"


# -- JSON --------------------------------------------------------------------------------


def test_json_form_follows_product_md() -> None:
    log = [
        ev("e1", "t", "append", at=0, title="T", tags=["x"], metadata={"k": 1}),
        ev("e2", "t", prev="e1", at=1, delta={"helpfulCount": 1}),
        ev("e3", "t", prev="e9", at=2),
    ]
    out = json.loads(json.dumps(playbook_view(doc(log)).to_json()))
    (entry,) = out["entries"]
    for key in (
        "targetId",
        "status",
        "kind",
        "title",
        "text",
        "helpfulCount",
        "harmfulCount",
        "heads",
        "winner",
        "conflicts",
    ):
        assert key in entry
    assert entry["heads"] == ["e2", "e3"]
    assert entry["winner"] == "e3"
    assert entry["tags"] == ["x"]
    assert entry["metadata"] == {"k": 1}
    assert out["anomalies"] == [
        {
            "kind": "dangling-prev",
            "eventId": "e3",
            "eventIds": ["e3"],
            "targetId": "t",
            "message": "e3: prevEventId 'e9' matches no event",
        }
    ]
    assert out["path"] == "/playbook"
    assert out["eventCount"] == 3


def test_library_api_takes_a_loaded_document() -> None:
    import git_vcontext as gv

    document = gv.loads(json.dumps(doc([ev("e1", "t", "append")])))
    assert gv.playbook_view(document).entry("t") is not None
