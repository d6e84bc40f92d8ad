"""Algebra of the merge (hypothesis): identities, symmetry, no loss, determinism, robustness."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import dumps
from git_vcontext.merging import MergeOptions, merge3
from git_vcontext.values import canonical, same
from helpers.merging import merge_files

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
    # M18 puts a move/move conflict at ours' new place: only their number must agree
    assert sorted(c.path for c in ab.conflicts if c.kind != "move/move") == sorted(
        c.path for c in ba.conflicts if c.kind != "move/move"
    )
    assert sum(c.kind == "move/move" for c in ab.conflicts) == sum(
        c.kind == "move/move" for c in ba.conflicts
    )
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
    for _ in range(draw(st.integers(0, 2))):  # M18: nest an item under another one
        if len(items) < 2:
            break
        moved = items.pop(draw(st.integers(0, len(items) - 1)))
        parent = items[draw(st.integers(0, len(items) - 1))]
        parent.setdefault("subItems", []).append(moved)
    return items


def _all_items(value: Any) -> list[dict[str, Any]]:
    """Every item at any depth (subItems too), and inside conflicts' ours and theirs."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "id" in node and "status" in node:
                out.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


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
    found = _all_items([r.data["todoList"]["items"], [[c.ours, c.theirs] for c in r.conflicts]])
    merged_items: dict[str, list[dict[str, Any]]] = {}
    for it in found:
        merged_items.setdefault(it["id"], []).append(it)
    in_data = [i["id"] for i in _all_items(r.data["todoList"]["items"])]
    if r.clean:
        assert len(in_data) == len(set(in_data))  # a moved item is never there twice
    for side in (ours, theirs):
        for it in _all_items(side["todoList"]["items"]):
            assert it["id"] in merged_items
            for k in it:
                if k.startswith("x-"):
                    assert any(k in m for m in merged_items[it["id"]])
        events = {e["eventId"] for e in r.data["todoList"]["playbook"]["items"]}
        assert {e["eventId"] for e in side["todoList"]["playbook"]["items"]} <= events
    # status conflicts, and where both moved one item: to two places, or each into the other
    kinds = {"status", "move/move", "delete/modify"}
    assert all(c.kind in kinds for c in r.conflicts)
    if not any(_nested(side) for side in (ours, theirs)):
        assert all(c.kind == "status" for c in r.conflicts)


def _nested(doc: dict[str, Any]) -> bool:
    return any("subItems" in i for i in doc["todoList"]["items"])


@SETTINGS
@given(data=st.data(), base_ids=st.lists(ids, unique=True, max_size=6))
def test_m6_merge_order_does_not_change_the_log(data: st.DataObject, base_ids: list[str]) -> None:
    base = [{"eventId": "e0", "targetId": "x", "createdAt": "2025-01-01T00:00:00Z"}]
    a = data.draw(event_edits(base, "a"))
    b = data.draw(event_edits(base, "b"))

    def pb(events: list[dict[str, Any]]) -> dict[str, Any]:
        return {"playbook": {"items": events}}

    # Issue 26 changed M6: ours' elements keep ours' order (a branch merged again never
    # reorders what ours holds), so the two merge orders give the same log as a set, and
    # the same list only where each side's log is in key order (then both are the union
    # in key order). This test used to assert the same list for any order of the sides.
    one = merge3(pb(base), pb(a), pb(b)).data["playbook"]["items"]
    two = merge3(pb(base), pb(b), pb(a)).data["playbook"]["items"]
    assert sorted(map(canonical, one)) == sorted(map(canonical, two))
    assert len(one) == len({e["eventId"] for e in one})

    def key(e: dict[str, Any]) -> tuple[str, str]:
        return e["createdAt"], e["eventId"]

    if all([*map(key, x)] == sorted(map(key, x)) for x in (a, b)):
        assert one == two == sorted(one, key=key)


@SETTINGS
@given(o=docs, a=docs, b=docs)
def test_m17_determinism_under_a_fixed_clock(o: Any, a: Any, b: Any) -> None:
    raw = [json.dumps(x, indent=2).encode() for x in (o, a, b)]
    opts = MergeOptions(now="2026-01-01T00:00:00Z")
    first = merge_files(*raw, path="d.vcontext.json", options=opts)
    again = merge_files(*raw, path="d.vcontext.json", options=opts)
    assert first.output == again.output
    assert first.status == again.status


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
    _assert_fields_from_their_title(by_title, sides)
    for title in sides[0]:
        _assert_twin_merged(title, sides, by_title, conflicted)
    for side in sides[1:]:  # items a side added are all there
        for title in side:
            assert title in by_title or title in sides[0]


Items = dict[str, dict[str, Any]]  # elements by title


def _assert_fields_from_their_title(by_title: Items, sides: list[Items]) -> None:
    """Every field of a merged element comes from an element of that title."""
    for title, element in by_title.items():
        for key, value in element.items():
            assert any(s.get(title, {}).get(key, MISSING_) == value for s in sides)


def _assert_twin_merged(
    title: str, sides: list[Items], by_title: Items, conflicted: set[str]
) -> None:
    """A base element is kept with both sides' edits, a status edited two ways conflicts."""
    b, o, t = (side.get(title) for side in sides)
    assert b is not None
    if o is None or t is None:
        _assert_deleted_or_kept(title, b, o, t, by_title, conflicted)
        return
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


def _assert_deleted_or_kept(
    title: str,
    b: dict[str, Any],
    o: dict[str, Any] | None,
    t: dict[str, Any] | None,
    by_title: Items,
    conflicted: set[str],
) -> None:
    """A base element a side deleted: gone, unless the other side edited it (then kept or
    conflicted)."""
    kept = o if t is None else t
    if kept is not None and kept != b:  # deleted on one side, edited on the other
        assert title in conflicted or by_title.get(title) == kept
    else:
        assert title not in by_title


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


# -- an engine crash is covered for users and fails the suite (issue 18) -----------------


def _crash(*_args: object) -> None:
    raise ValueError("injected")


def test_m16_an_engine_crash_falls_back_to_lines_and_says_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from git_vcontext.merging import core, files

    monkeypatch.setattr(core, "merge_values", _crash)
    keys = "abcdef"
    base, ours, theirs = ({k: 0 for k in keys} for _ in range(3))
    ours["a"], theirs["f"] = 1, 1
    raw = [json.dumps(x, indent=2).encode() for x in (base, ours, theirs)]
    out = files.merge_files(*raw, path="d.vcontext.json")
    assert out.status == "fallback"
    assert json.loads(out.output) == {**ours, "f": 1}  # the line merge kept both edits
    assert out.internal_error
    assert out.reasons == ("internal error ValueError: injected",)


def test_an_injected_engine_crash_fails_the_never_crash_property_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from git_vcontext.merging import core

    monkeypatch.setattr(core, "merge_values", _crash)
    with pytest.raises(AssertionError, match="the merge engine crashed"):
        test_m17_determinism_under_a_fixed_clock()


def test_bad_input_is_not_an_internal_error() -> None:
    out = merge_files(b'{"a": 1}', b'{"a": 2}', b'{"a": ', path="d.vcontext.json")
    assert out.status == "fallback"
    assert not out.internal_error


def test_an_internal_error_is_what_the_engine_says_not_what_a_reason_reads() -> None:
    """A fallback's reason that reads like one (a message quoting the input) is no crash:
    only the merge's own catch of an exception marks it (issue 29)."""
    from git_vcontext.merging.files import FileMerge

    quoted = FileMerge(b"x", "fallback", False, None, ("internal error in the input's words",))
    assert not quoted.internal_error


# -- M18: two agents that move, edit and delete items, against a model ------------------

PARENTS = ("p0", "p1", "p2")
MOVABLE = ("m0", "m1", "m2", "m3")
OPS = st.one_of(
    st.just(("keep",)),
    st.sampled_from(PARENTS).map(lambda p: ("move", p)),
    st.just(("delete",)),
)


def _task(ident: str) -> dict[str, Any]:
    return {"id": ident, "title": ident, "status": "pending"}


@st.composite
def agent_plan(draw: st.DrawFn) -> dict[str, Any]:
    """What one agent does: per movable item keep/move/delete and whether it edits it;
    per parent whether it edits it."""
    return {
        "ops": {m: draw(OPS) for m in MOVABLE},
        "edits": {i: draw(st.booleans()) for i in (*PARENTS, *MOVABLE)},
    }


def _agent_doc(plan: dict[str, Any], side: str) -> dict[str, Any]:
    def item(ident: str) -> dict[str, Any]:
        it = _task(ident)
        if plan["edits"][ident]:
            it[f"x-{side}"] = ident
        return it

    parents = {p: item(p) for p in PARENTS}
    top = list(parents.values())
    for m in MOVABLE:
        op = plan["ops"][m]
        if op[0] == "keep":
            top.append(item(m))
        elif op[0] == "move":
            parents[op[1]].setdefault("subItems", []).append(item(m))
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": top}}


def _expected(o: dict[str, Any], t: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The merged items by id (placement, fields) and how many conflicts M18 predicts."""
    conflicts = 0
    where: dict[str, Any] = {}
    for m in MOVABLE:
        (oo, *o_to), (to, *t_to) = o["ops"][m], t["ops"][m]
        if oo == "delete" or to == "delete":
            other_edit = (to != "delete" and t["edits"][m]) or (oo != "delete" and o["edits"][m])
            conflicts += bool(other_edit)
            continue
        if oo == to == "move" and o_to != t_to:
            conflicts += 1
            continue
        where[m] = o_to[0] if oo == "move" else (t_to[0] if to == "move" else None)
    fields = {
        i: {**_task(i), **{f"x-{s}": i for s, p in (("ours", o), ("theirs", t)) if p["edits"][i]}}
        for i in (*PARENTS, *MOVABLE)
    }
    return {"where": where, "fields": fields}, conflicts


@SETTINGS
@given(o=agent_plan(), t=agent_plan())
def test_m18_two_agents_moving_editing_and_deleting_items_merge_as_the_model_says(
    o: dict[str, Any], t: dict[str, Any]
) -> None:
    base = _agent_doc(
        {
            "ops": {m: ("keep",) for m in MOVABLE},
            "edits": dict.fromkeys((*PARENTS, *MOVABLE), False),
        },
        "base",
    )
    ours, theirs = _agent_doc(o, "ours"), _agent_doc(t, "theirs")
    model, conflicts = _expected(o, t)
    for a, b in ((ours, theirs), (theirs, ours)):  # M17: either order, the same merge
        r = merge3(base, a, b)
        assert len(r.conflicts) == conflicts, r.conflicts
        assert all(c.kind in ("move/move", "delete/modify") for c in r.conflicts)
        if conflicts:
            continue
        top = r.data["todoList"]["items"]
        placed = {i["id"]: None for i in top}
        for parent in top:
            for child in parent.get("subItems", []):
                placed[child["id"]] = parent["id"]
                assert child == model["fields"][child["id"]]
        assert placed == {**dict.fromkeys(PARENTS), **model["where"]}
        for it in top:
            assert {k: v for k, v in it.items() if k != "subItems"} == model["fields"][it["id"]]
    opts = MergeOptions(now="2026-01-01T00:00:00Z")
    for fmt in ("json", "tron"):
        raw = [
            (json.dumps(x, indent=2) if fmt == "json" else dumps(x, "tron")).encode()
            for x in (base, ours, theirs)
        ]
        out = merge_files(*raw, path=f"m.vcontext.{fmt}", options=opts)
        assert out.status == ("clean" if not conflicts else "conflict"), out.report()
        again = merge_files(*raw, path=f"m.vcontext.{fmt}", options=opts)  # M17
        assert (again.output, again.report()) == (out.output, out.report())
