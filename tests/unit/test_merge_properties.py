"""Algebra of the merge (hypothesis): identities, symmetry, no loss, determinism, robustness."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_vcontext.merge import MergeOptions, merge3
from git_vcontext.merge.files import merge_files
from git_vcontext.values import same

keys = st.text(alphabet="abcdefgh", min_size=1, max_size=3)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))
values = st.recursive(
    scalars,
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(keys, c, max_size=3)),
    max_leaves=12,
)
docs = st.dictionaries(keys, values, max_size=5)
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(o=docs, a=docs)
def test_m1_identities_hold_for_any_json(o: dict[str, Any], a: dict[str, Any]) -> None:
    assert same(merge3(o, o, a).data, a)
    assert same(merge3(o, a, o).data, a)
    assert same(merge3(o, a, copy.deepcopy(a)).data, a)


@SETTINGS
@given(o=docs, a=docs, b=docs)
def test_m17_swapping_ours_and_theirs_gives_the_same_conflicts_and_data(
    o: dict[str, Any], a: dict[str, Any], b: dict[str, Any]
) -> None:
    ab, ba = merge3(o, a, b), merge3(o, b, a)
    assert sorted(c.path for c in ab.conflicts) == sorted(c.path for c in ba.conflicts)
    if ab.clean:
        assert _bag(ab.data) == _bag(ba.data)


def _bag(value: Any) -> Any:
    """Data with array order ignored: M17 lets concurrent insertions favour ours."""
    if isinstance(value, dict):
        return {k: _bag(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted(json.dumps(_bag(v), sort_keys=True) for v in value)
    return value


# -- todo lists and playbooks edited by two agents --------------------------------------

ids = st.integers(0, 30).map(lambda n: f"t{n}")


@st.composite
def todo_edits(draw: st.DrawFn, base: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
    """An agent's version of the items: status/title edits, new items, extra fields."""
    items = copy.deepcopy(base)
    for it in items:
        if draw(st.booleans()):
            it["status"] = draw(st.sampled_from(["pending", "inProgress", "completed"]))
        if draw(st.integers(0, 4)) == 0:
            it[f"x-{side}"] = draw(scalars)
    for n in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(items)))
        items.insert(at, {"id": f"{side}-{n}", "title": side, "status": "pending"})
    return items


@st.composite
def event_edits(draw: st.DrawFn, base: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
    events = copy.deepcopy(base)
    for n in range(draw(st.integers(0, 4))):
        day = draw(st.integers(1, 28))
        events.append(
            {
                "eventId": f"{side}-e{n}",
                "targetId": draw(st.sampled_from(["x", "y"])),
                "operation": "update",
                "createdAt": f"2025-01-{day:02d}T00:00:00Z",
            }
        )
    return events


def _doc(items: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {"items": items, "playbook": {"items": events}},
    }


@SETTINGS
@given(data=st.data(), base_ids=st.lists(ids, unique=True, max_size=6))
def test_no_item_event_or_unknown_field_added_by_either_side_is_lost(
    data: st.DataObject, base_ids: list[str]
) -> None:
    base_items = [{"id": i, "title": i, "status": "pending"} for i in base_ids]
    base_events = [
        {
            "eventId": "e0",
            "targetId": "x",
            "operation": "append",
            "createdAt": "2025-01-01T00:00:00Z",
        }
    ]
    ours = _doc(data.draw(todo_edits(base_items, "ours")), data.draw(event_edits(base_events, "o")))
    theirs = _doc(
        data.draw(todo_edits(base_items, "theirs")), data.draw(event_edits(base_events, "t"))
    )
    r = merge3(_doc(base_items, base_events), ours, theirs)
    merged_items = {i["id"]: i for i in r.data["todoList"]["items"]}
    for side in (ours, theirs):
        for it in side["todoList"]["items"]:
            assert it["id"] in merged_items
            for k in it:
                if k.startswith("x-"):
                    assert k in merged_items[it["id"]]
        events = {e["eventId"] for e in r.data["todoList"]["playbook"]["items"]}
        assert {e["eventId"] for e in side["todoList"]["playbook"]["items"]} <= events
    # status conflicts are the only conflicts possible here
    assert all(c.kind == "status" for c in r.conflicts)


@SETTINGS
@given(data=st.data(), base_ids=st.lists(ids, unique=True, max_size=6))
def test_m6_merge_order_does_not_change_the_log(data: st.DataObject, base_ids: list[str]) -> None:
    base = [{"eventId": "e0", "targetId": "x", "createdAt": "2025-01-01T00:00:00Z"}]
    a = data.draw(event_edits(base, "a"))
    b = data.draw(event_edits(base, "b"))

    def pb(events: list[dict[str, Any]]) -> dict[str, Any]:
        return {"playbook": {"items": events}}

    assert merge3(pb(base), pb(a), pb(b)).data == merge3(pb(base), pb(b), pb(a)).data


@SETTINGS
@given(o=docs, a=docs, b=docs)
def test_m17_determinism_under_a_fixed_clock(o: Any, a: Any, b: Any) -> None:
    raw = [json.dumps(x, indent=2).encode() for x in (o, a, b)]
    opts = MergeOptions(now="2026-01-01T00:00:00Z")
    first = merge_files(*raw, path="d.vcontext.json", options=opts)
    again = merge_files(*raw, path="d.vcontext.json", options=opts)
    assert first.output == again.output and first.status == again.status


@SETTINGS
@given(
    base=st.binary(max_size=60),
    ours=st.binary(min_size=1, max_size=60),
    theirs=st.binary(max_size=60),
)
def test_m16_random_bytes_never_crash_and_never_empty_ours(
    base: bytes, ours: bytes, theirs: bytes
) -> None:
    out = merge_files(base, ours, theirs, path="x.vcontext.json")
    assert out.output or not ours.strip()


@SETTINGS
@given(o=docs, a=docs, b=docs, cut=st.integers(1, 40))
def test_m16_truncated_json_never_crashes_and_is_never_clean_unless_it_parses(
    o: Any, a: Any, b: Any, cut: int
) -> None:
    raw_b = json.dumps(b, indent=2).encode()
    assume(len(raw_b) > cut)
    out = merge_files(
        json.dumps(o, indent=2).encode(),
        json.dumps(a, indent=2).encode(),
        raw_b[:-cut],
        path="d.vcontext.json",
    )
    if out.clean:
        json.loads(out.output)


# -- repeated ids (M3: not keyed, merged by M4; never into the wrong twin) ---------------


@st.composite
def twin_items(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Base items in which some id repeats; titles tell the twins apart (for the checks)."""
    ids = draw(st.lists(st.sampled_from(["t1", "t2", "t3"]), min_size=1, max_size=6))
    ids.insert(draw(st.integers(0, len(ids))), ids[0])
    return [{"id": i, "title": f"{i}#{n}", "status": "pending"} for n, i in enumerate(ids)]


@st.composite
def twin_edits(draw: st.DrawFn, base: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
    """An agent's version: deletions, status edits, fields of its own, new items."""
    out = []
    for element in copy.deepcopy(base):
        if draw(st.integers(0, 4)) == 0:
            continue
        if draw(st.booleans()):
            element["status"] = draw(st.sampled_from(["pending", "inProgress", "completed"]))
        if draw(st.integers(0, 2)) == 0:
            element[f"x-{side}"] = draw(st.integers(0, 9))
        out.append(element)
    for n in range(draw(st.integers(0, 2))):  # new items: a fresh id, or a twin's id
        at = draw(st.integers(0, len(out)))
        ident = draw(st.sampled_from([base[0]["id"], f"new-{side}{n}"]))
        out.insert(at, {"id": ident, "title": f"new-{side}{n}"})
    return out


@SETTINGS
@given(data=st.data(), base=twin_items())
def test_m3_repeated_ids_never_merge_an_edit_into_the_wrong_twin(
    data: st.DataObject, base: list[dict[str, Any]]
) -> None:
    ours, theirs = data.draw(twin_edits(base, "o")), data.draw(twin_edits(base, "t"))
    r = merge3(_doc(base, []), _doc(ours, []), _doc(theirs, []))
    merged = r.data["todoList"]["items"]
    by_title = {e["title"]: e for e in merged}
    assert len(by_title) == len(merged)  # no element doubled
    sides = [{e["title"]: e for e in x} for x in (base, ours, theirs)]
    conflicted = _titles_in_conflicts(r)
    for title, element in by_title.items():  # every field comes from that title's elements
        for key, value in element.items():
            assert any(s.get(title, {}).get(key, MISSING_) == value for s in sides)
    for title, b in sides[0].items():
        o, t = sides[1].get(title), sides[2].get(title)
        if o is None or t is None:
            kept = o if t is None else t
            if kept is not None and kept != b:  # deleted on one side, edited on the other
                assert title in conflicted or by_title.get(title) == kept
            else:
                assert title not in by_title
            continue
        got = by_title[title]
        for side in (o, t):
            for key in side:
                if key.startswith("x-"):
                    assert got[key] == side[key]
        if o["status"] != b["status"] and t["status"] != b["status"] != o["status"] != t["status"]:
            assert title in conflicted
        else:
            changed = o["status"] if o["status"] != b["status"] else t["status"]
            assert got["status"] == changed
    for side in sides[1:]:  # items a side added are all there
        for title in side:
            assert title in by_title or title in sides[0]


MISSING_ = object()


def _titles_in_conflicts(r: Any) -> set[str]:
    found = set()
    for c in r.conflicts:
        for value in (c.base, c.ours, c.theirs):
            if isinstance(value, dict) and "title" in value:
                found.add(value["title"])
        parts = c.path.split("/")  # /todoList/items/N/status, N in the merged data (ours')
        if len(parts) == 5 and parts[-1] == "status":
            found.add(r.data["todoList"]["items"][int(parts[3])]["title"])
    return found


@SETTINGS
@given(data=st.data(), twins=st.integers(2, 3))
def test_m6_a_log_with_a_repeated_event_id_loses_no_event_of_either_side(
    data: st.DataObject, twins: int
) -> None:
    base = [
        {"eventId": "e0", "targetId": t, "operation": "append", "createdAt": "2025-01-01T00:00:00Z"}
        for t in "xyz"[:twins]
    ]
    a, b = data.draw(event_edits(base, "a")), data.draw(event_edits(base, "b"))

    def pb(events: list[dict[str, Any]]) -> dict[str, Any]:
        return {"playbook": {"items": events}}

    r = merge3(pb(base), pb(a), pb(b))
    assert r.clean
    log = [json.dumps(e, sort_keys=True) for e in r.data["playbook"]["items"]]
    for side in (a, b):
        assert all(json.dumps(e, sort_keys=True) in log for e in side)
    assert len(log) == len(set(log))
