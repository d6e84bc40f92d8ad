"""Algebra of the playbook view: order independence, counters, merges, fast paths vs brute force."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.merging import merge3
from git_vcontext.playbook import playbook_view
from git_vcontext.playbook.graph import TargetGraph
from git_vcontext.playbook.instants import instant, latest
from git_vcontext.playbook.log import EventIndex
from git_vcontext.values import canonical, instant_key
from helpers.playbook import doc, stamp

TARGETS = ("a", "b", "c")
VALUES = ("x", "y", None)


@st.composite
def histories(draw: st.DrawFn, *, valid: bool = False) -> list[dict[str, Any]]:
    """Event logs with branches, ties in time, concurrent edits and (unless ``valid``) bad links."""
    events: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 24))):
        target = draw(st.sampled_from(TARGETS))
        own = [e["eventId"] for e in events if e["targetId"] == target]
        e: dict[str, Any] = {"eventId": f"e{i:02d}{draw(st.sampled_from('pq'))}"}
        e["targetId"] = target
        if not own:
            e["operation"] = "append"
            e["kind"] = "rule"
        else:
            e["operation"] = draw(st.sampled_from(("update", "update", "deprecate")))
            e["prevEventId"] = draw(st.sampled_from(own))
        if not valid and draw(st.integers(0, 9)) == 0:
            e["prevEventId"] = draw(st.sampled_from(["nowhere", *(x["eventId"] for x in events)]))
        for field in ("text", "status", "confidence"):
            value = draw(st.sampled_from(VALUES))
            if value is not None:
                e[field] = {"status": {"x": "active", "y": "quarantined"}}.get(field, {}).get(
                    value, value
                )
        if draw(st.booleans()):
            e["delta"] = {
                draw(st.sampled_from(("helpfulCount", "harmfulCount"))): draw(st.integers(-2, 3))
            }
        e["createdAt"] = stamp(draw(st.integers(0, 6)))  # few instants: many ties
        events.append(e)
    return events


def _view_json(log: list[dict[str, Any]]) -> Any:
    return playbook_view(doc(log)).to_json()


@settings(max_examples=150)
@given(histories(), st.randoms(use_true_random=False))
def test_shuffling_the_log_gives_the_same_view(log: list[dict[str, Any]], rnd: Any) -> None:
    shuffled = list(log)
    rnd.shuffle(shuffled)
    assert _view_json(shuffled) == _view_json(log)


@settings(max_examples=150)
@given(histories())
def test_counters_equal_the_sum_of_all_deltas(log: list[dict[str, Any]]) -> None:
    view = playbook_view(doc(log))
    for entry in view.entries:
        deltas = [e.get("delta", {}) for e in log if e["targetId"] == entry.target_id]
        assert entry.helpful_count == sum(d.get("helpfulCount", 0) for d in deltas)
        assert entry.harmful_count == sum(d.get("harmfulCount", 0) for d in deltas)


@st.composite
def split_histories(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """A history and base/ours/theirs logs that each hold every ancestor of their events."""
    log = draw(histories(valid=True))
    sides = {e["eventId"]: set(draw(st.sampled_from(["OAB", "A", "B", "AB"]))) for e in log}
    by_id = {e["eventId"]: e for e in log}
    for e in reversed(log):  # a parent is wherever its children are
        prev = e.get("prevEventId")
        if prev in by_id:
            sides[prev] |= sides[e["eventId"]]
    pick = [[e for e in log if side in sides[e["eventId"]]] for side in "OAB"]
    return log, pick[0], pick[1], pick[2]


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(split_histories())
def test_merging_two_branches_gives_the_view_of_the_whole_history(
    split: tuple[list[Any], list[Any], list[Any], list[Any]],
) -> None:
    """M6 + view: union of the logs, so the view does not depend on who appended what."""
    log, base, ours, theirs = split
    result = merge3(doc(base), doc(ours), doc(theirs))
    assert result.clean, result.conflicts
    merged = result.data["playbook"]["items"]
    assert sorted(e["eventId"] for e in merged) == sorted(e["eventId"] for e in log)
    assert playbook_view(result.data).entries == playbook_view(doc(log)).entries


# -- fast paths checked against brute force ----------------------------------------------


def _graphs(log: list[dict[str, Any]]) -> list[TargetGraph]:
    index = EventIndex(log)
    return [TargetGraph(t, ids, index) for t, ids in index.targets.items()]


def _ancestor_brute(g: TargetGraph, a: str, b: str) -> bool:
    node: str | None = b
    while node is not None:
        if node == a:
            return True
        node = g.parent.get(node)
    return False


@settings(max_examples=150)
@given(histories())
def test_euler_tour_ancestry_matches_walking_the_parents(log: list[dict[str, Any]]) -> None:
    for g in _graphs(log):
        for a in g.ids:
            for b in g.ids:
                assert g.is_ancestor(a, b) == _ancestor_brute(g, a, b)


@settings(max_examples=150)
@given(histories())
def test_causal_order_is_topological(log: list[dict[str, Any]]) -> None:
    for g in _graphs(log):
        position = {eid: i for i, eid in enumerate(g.order)}
        assert sorted(g.order) == sorted(g.ids)
        assert all(position[p] < position[c] for c, p in g.parent.items())


@settings(max_examples=200)
@given(histories())
def test_field_conflicts_match_the_pairwise_definition(log: list[dict[str, Any]]) -> None:
    view = playbook_view(doc(log))
    for g in _graphs(log):
        entry = view.entry(g.target)
        assert entry is not None
        expected: dict[str, set[str]] = {}
        for field in ("text", "status", "confidence", "kind"):
            setters = [eid for eid in g.order if g.by_id[eid].get(field) is not None]
            for a, b in combinations(setters, 2):
                concurrent = not g.is_ancestor(a, b) and not g.is_ancestor(b, a)
                va, vb = g.by_id[a][field], g.by_id[b][field]
                if concurrent and canonical(va) != canonical(vb):
                    expected.setdefault(field, set()).update((a, b))
        found = {c.field: set(c.event_ids) for c in entry.conflicts}
        # Issue 26: an update after the winner settles the other heads, and with them the
        # concurrent edits they made (PRODUCT.md "Playbook view"): a settled entry lists none
        assert found == (expected if entry.multi_head else {})
        if not entry.settled:
            assert found == expected


_STAMPS = st.one_of(
    st.datetimes(timezones=st.just(__import__("datetime").timezone.utc)).map(
        lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")
    ),
    st.from_regex(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[Zz]\Z"),
    st.text(max_size=22),
)


@settings(max_examples=300)
@given(_STAMPS)
def test_fast_instant_key_equals_the_general_one(value: str) -> None:
    assert instant(value) == instant_key(value)


@settings(max_examples=300)
@given(st.lists(_STAMPS, max_size=6))
def test_latest_equals_the_maximum_instant(values: list[str]) -> None:
    valid = [instant_key(v) for v in values if instant_key(v)[0] == 1]
    assert latest(values) == (max(valid)[2] if valid else None)
