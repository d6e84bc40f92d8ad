"""Event graphs as data (PRODUCT.md, view --format dot|mermaid): what is drawn, before any syntax.

One node per event, a ``prevEventId`` edge per valid link, heads and the winner marked,
deprecations and every anomaly drawn apart; a large playbook draws its interesting
targets; a diff's picture keeps the branch and elides the common trunk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from git_vcontext.pictures.changes import around, changed_heads
from git_vcontext.pictures.labels import ident, printable, prose, shorten
from git_vcontext.pictures.model import Picture
from git_vcontext.pictures.view import LARGE, MOST, playbook_picture
from git_vcontext.playbook.view import view_and_states
from helpers.playbook import doc, ev
from helpers.run import REPO_ROOT

EXAMPLES = REPO_ROOT / "tests" / "examples" / "playbook"


def _load(name: str) -> Any:
    return json.loads((EXAMPLES / name / "document.vcontext.json").read_text())


def _picture(data: Any, *, every: bool = False, targets: set[str] | None = None) -> Picture:
    view, states = view_and_states(data)
    shown = [e for e in view.entries if targets is None or e.target_id in targets]
    return playbook_picture(view, states, shown, every=every)


def _events(picture: Picture) -> dict[str, Any]:
    """Event nodes by eventId (the tooltip holds the whole id), less the ignored copies of
    a reused eventId."""
    return {
        n.tooltip: n for n in picture.nodes if "event" in n.classes and "ignored" not in n.classes
    }


def _edges(picture: Picture, kind: str) -> list[tuple[str, str]]:
    tip = {n.key: n.tooltip for n in picture.nodes}
    return [(tip[e.tail], tip[e.head]) for e in picture.edges if kind in e.classes]


def test_view_picture_has_one_node_per_event_and_an_edge_per_prev_link() -> None:
    data = _load("concurrent-agents")
    picture = _picture(data)
    ids = [e["eventId"] for e in data["playbook"]["items"]]
    assert sorted(_events(picture)) == sorted(ids)
    assert sorted(_edges(picture, "chain")) == sorted(
        (e["prevEventId"], e["eventId"]) for e in data["playbook"]["items"] if "prevEventId" in e
    )
    assert len(picture.groups) == 3  # one per target
    assert picture.groups[0].title.startswith("lock-before-migrate — rule · active · 2 heads")


def test_view_picture_marks_heads_winner_and_deprecations() -> None:
    view, _ = view_and_states(_load("concurrent-agents"))
    nodes = _events(_picture(_load("concurrent-agents")))
    heads = {h for e in view.entries for h in e.heads}
    winners = {e.winner for e in view.entries}
    assert {eid for eid, n in nodes.items() if "head" in n.classes} == heads
    assert {eid for eid, n in nodes.items() if "winner" in n.classes} == winners
    assert {eid for eid, n in nodes.items() if "deprecation" in n.classes} == {"evt-011"}
    assert nodes["evt-002"].lines[0] == "★ evt-002 (wins)"  # several heads: the winner says so
    assert nodes["evt-003"].lines[0] == "evt-003 (head)"
    assert nodes["evt-020"].lines[0] == "evt-020"  # the only head of its target
    assert "≠ concurrent text" in nodes["evt-003"].lines


def test_view_picture_draws_every_anomaly_apart() -> None:
    picture = _picture(_load("every-anomaly"))
    nodes = _events(picture)
    flagged = {eid for eid, n in nodes.items() if "anomaly" in n.classes}
    # d1 and d2 both create one target: concurrency, a note of the view (issue 26), no anomaly
    assert flagged == {"a2", "b2", "c1", "c2", "d2", "e2", "f1"}
    assert "a1" not in flagged
    assert "b1" not in flagged
    assert "e1" not in flagged
    [missing] = [n for n in picture.nodes if "missing" in n.classes]
    assert missing.lines == ("missing parent", "gone")
    assert _edges(picture, "dangling") == [("gone", "a2")]
    assert _edges(picture, "cross-target") == [("a1", "b2")]  # both targets drawn
    assert len(_edges(picture, "cycle")) == 1  # the cut link of c1 <-> c2, drawn red
    assert any("2 log elements are not events" in note for note in picture.notes)
    assert "⚠ eventId used by several events" in nodes["f1"].lines
    assert "⚠ no prevEventId" in nodes["e2"].lines


def test_view_picture_draws_every_event_of_a_reused_event_id() -> None:
    """PRODUCT.md anomalies: duplicate eventId. The view folds one of the events; the
    picture still draws each event of the log, the ignored one apart and linked."""
    data = doc(
        [
            ev("a", "t", "append", at=0, text="first"),
            ev("b", "t", "update", "a", at=1, text="kept"),
            ev("b", "u", "update", "zz", at=5, text='the "copy"'),
            ev("b", "t", "deprecate", "a", at=9),
        ]
    )
    picture = _picture(data, every=True)
    assert len([n for n in picture.nodes if "event" in n.classes]) == 4
    kept = _events(picture)["b"]
    assert kept.lines[:3] == ("b", "update · 2025-01-01T00:01:00Z", "kept")
    copies = [n for n in picture.nodes if "ignored" in n.classes]
    assert [n.lines for n in copies] == [
        (
            "b (ignored)",
            "update · 2025-01-01T00:05:00Z",
            'the "copy"',
            "in target u",
            "prevEventId zz",
            "⚠ eventId used by several events: the view keeps another",
        ),
        (
            "b (ignored)",
            "deprecate · 2025-01-01T00:09:00Z",
            "prevEventId a",
            "⚠ eventId used by several events: the view keeps another",
        ),
    ]
    assert all({"event", "anomaly"} <= set(n.classes) for n in copies)
    assert all("head" not in n.classes for n in copies)
    assert _edges(picture, "same-id") == [("b", "b"), ("b", "b")]
    [same] = {e.label for e in picture.edges if "same-id" in e.classes}
    assert same == "same eventId"
    [group] = [g for g in picture.groups if g.title.startswith("t ")]
    assert {n.key for n in copies} <= set(group.members)  # beside the event kept
    assert "2 events reuse others' eventIds (drawn apart: the view ignores them)" in (picture.notes)
    view, _ = view_and_states(data)
    entry = view.entry("t")
    assert entry is not None
    assert entry.status == "active"  # the ignored deprecation changes nothing


def test_cross_target_parent_of_a_target_not_drawn_is_a_placeholder() -> None:
    picture = _picture(_load("every-anomaly"), targets={"cross"})
    [external] = [n for n in picture.nodes if "external" in n.classes]
    assert external.lines == ("a1", "in target dangling")
    assert _edges(picture, "cross-target") == [("a1", "b2")]
    assert set(_events(picture)) == {"b1", "b2"}


def _big_playbook(targets: int) -> dict[str, Any]:
    events = []
    for i in range(targets):
        events.append(ev(f"t{i}-1", f"t{i:02d}", "append", at=i))
        events.append(ev(f"t{i}-2", f"t{i:02d}", "update", f"t{i}-1", at=i + 1))
    events.append(ev("t3-3", "t03", "update", "t3-1", at=50))  # a second head
    events.append(ev("t7-3", "t07", "update", "nowhere", at=50))  # a dangling parent
    return doc(events)


def test_large_playbook_draws_targets_with_several_heads_or_anomalies_unless_all() -> None:
    data = _big_playbook(LARGE + 8)
    picture = _picture(data)
    assert [g.title.split(" ")[0] for g in picture.groups] == ["t03", "t07"]
    assert picture.notes[0].startswith(f"2 of {LARGE + 8} targets drawn")
    everything = _picture(data, every=True)
    assert len(everything.groups) == LARGE + 8
    assert len(_events(everything)) == 2 * (LARGE + 8) + 2
    small = _picture(_big_playbook(LARGE))
    assert len(small.groups) == LARGE  # not large: every target


def test_large_playbook_draws_at_most_the_first_50_interesting_targets() -> None:
    events = []
    for i in range(MOST + 10):
        events += [
            ev(f"a{i}", f"t{i:03d}", "append", at=i),
            ev(f"b{i}", f"t{i:03d}", "update", at=i),
        ]
    picture = _picture(doc(events))  # every target has an update without prevEventId
    assert len(picture.groups) == MOST
    assert picture.notes[0].startswith(f"the first {MOST} of {MOST + 10} targets with several")
    assert len(_picture(doc(events), every=True).groups) == MOST + 10


def _chain(n: int, target: str = "t") -> list[dict[str, Any]]:
    events = [ev("c0", target, "append", at=0)]
    events += [ev(f"c{i}", target, "update", f"c{i - 1}", at=i) for i in range(1, n)]
    return events


def test_diff_picture_keeps_the_branch_from_where_it_meets_the_trunk() -> None:
    old = doc(_chain(50))
    new = doc([*_chain(50), ev("x1", "t", "update", "c45", at=60), ev("x2", "t", "update", "x1")])
    [(path, entry, picture)] = list(changed_heads(old, new))
    assert path == ("playbook",)
    assert entry.heads == ("c49", "x2")
    nodes = _events(picture)
    assert set(nodes) == {"c45", "c46", "c47", "c48", "c49", "x1", "x2"}
    assert {eid for eid, n in nodes.items() if "new" in n.classes} == {"x1", "x2"}
    assert nodes["x1"].lines[0] == "+ x1"
    [elided] = [n for n in picture.nodes if "elided" in n.classes]
    assert elided.lines == ("… 45 more events",)
    assert _edges(picture, "elided") == [("", "c45")]  # the box leads to where the branch starts


def test_diff_picture_only_when_concurrency_comes_or_goes() -> None:
    base = [ev("a", "t", "append", at=0), ev("b", "t", "update", "a", at=1)]
    moved_along = doc([*base, ev("c", "t", "update", "b", at=2)])
    assert list(changed_heads(doc(base), moved_along)) == []
    # a dangling link repaired: the missing parent arrives and the two heads are one chain
    split = doc([base[0], ev("c", "t", "update", "b", at=2)])
    [(_, entry, picture)] = list(changed_heads(split, doc([*base, ev("c", "t", "update", "b", 2)])))
    assert entry.heads == ("c",)
    assert {eid for eid, n in _events(picture).items() if "new" in n.classes} == {"b"}
    # a target added with two heads at once is drawn too
    fresh = doc([*base, ev("d", "t", "update", "a", at=3)])
    assert [e.heads for _, e, _ in changed_heads(None, fresh)] == [("b", "d")]


def test_around_keeps_every_path_when_relevant_events_share_no_root() -> None:
    data = doc([ev("a", "t", "append"), ev("b", "t", "update", "a", 1), ev("z", "t", "update")])
    _, [state] = view_and_states(data)
    assert around(state, {"b", "z"}) == {"a", "b", "z"}
    assert around(state, {"b"}) == {"b"}  # a single relevant event: nothing above it


def test_labels_are_printable_one_line_and_shortened_with_a_mark() -> None:
    assert printable("a\nb\tc\u202e\udc80") == "a\\nb\\tc\\u202e\\udc80"
    assert printable("é 漢字 🙂") == "é 漢字 🙂"
    assert shorten("abcdef", 4) == "abc…"
    assert shorten("abcd", 4) == "abcd"
    assert ident("x" * 5000) == "x" * 39 + "…"
    assert ident(7) == "7"
    assert ident(None) == "None"
    assert prose("  two\n\n lines\tand  spaces ") == "two lines and spaces"
    assert prose("y" * 100, 10) == "y" * 9 + "…"


def test_hostile_ids_are_drawn_printable_and_whole_ids_kept_in_tooltips() -> None:
    from helpers.pictures import hostile_document

    data = hostile_document()
    picture = _picture(data, every=True)
    tips = [n.tooltip for n in picture.nodes if "event" in n.classes]
    ids = [e["eventId"] for e in data["playbook"]["items"]]
    assert sorted(tips) == sorted(printable(shorten(i, 300)) for i in ids)
    for node in picture.nodes:
        assert all(line.isprintable() for line in node.lines), node
    keys = [n.key for n in picture.nodes]
    assert len(keys) == len(set(keys))
    assert all(k[0] in "ep" and k[1:].isdigit() for k in keys)


def test_view_of_a_tron_playbook_draws_the_same_as_its_json_twin(tmp_path: Path) -> None:
    from git_vcontext.codecs import dumps, parse

    data = _load("concurrent-agents")
    tron = parse(dumps(data, "tron").encode(), path="x.vcontext.tron").data
    assert _picture(tron) == _picture(data)


def test_event_labels_of_odd_values_stay_short_and_say_what_is_missing() -> None:
    big = 123456789012345678901234567890
    data = doc(
        [
            ev("a", "t", "append", at=0),
            {"eventId": "b", "targetId": "t", "prevEventId": "a", "delta": {"helpfulCount": big}},
            ev("c", "t", "update", "a", at=2, delta={"helpfulCount": 0.5, "harmfulCount": True}),
        ]
    )
    nodes = _events(_picture(data))
    assert nodes["b"].lines[1] == "no operation · no createdAt"
    assert nodes["b"].lines[2] == "helpfulCount +1234567890…"
    assert "helpfulCount +0.5" in nodes["c"].lines  # a boolean is no count
    picture = _picture(doc([ev("a", "t", "append")]))
    assert picture.title == "playbook /playbook: 1 target, 1 event"


def test_readme_shows_a_small_png_of_the_example_and_the_commands() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    png = REPO_ROOT / "docs" / "playbook-graph.png"
    assert "](docs/playbook-graph.png)" in readme
    assert "concurrent-agents/document.vcontext.json\n--format dot | dot -Tpng" in readme
    raw = png.read_bytes()
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(raw) < 60_000
    width, height = int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    assert 500 <= width <= 1200
    assert 300 <= height <= 1000
