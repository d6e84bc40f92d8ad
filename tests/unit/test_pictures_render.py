"""DOT read by the real Graphviz, mermaid checked by its grammar rules (and its real parser).

On the corpus playbooks, our examples and hostile ids: Graphviz lays out one node per
event, outlines exactly the heads, and draws every label as the text we meant; mermaid
output follows the rules its grammar needs and, where node and the mermaid package are
installed (``MERMAID_JS_DIR``), mermaid's own parser accepts it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError
from git_vcontext.pictures import dot, mermaid
from git_vcontext.pictures.labels import ident, printable
from git_vcontext.pictures.model import Node, Picture
from git_vcontext.pictures.view import playbook_picture
from git_vcontext.playbook.log import find_playbooks, log_kind, log_of
from git_vcontext.playbook.view import view_and_states
from helpers.pictures import (
    HOSTILE_IDS,
    check_mermaid_rules,
    decode_label,
    dot_path,
    drawn_edges,
    drawn_nodes,
    hostile_document,
    mermaid_labels,
    mermaid_parser,
    render_json,
)
from helpers.run import REPO_ROOT, run_cli

EXAMPLES = sorted((REPO_ROOT / "tests" / "examples" / "playbook").glob("*/document.*"))


def _event_logs(paths: list[Path]) -> list[tuple[str, Any]]:
    """(name, data) of every file holding a playbook with an event log."""
    found = []
    for path in paths:
        try:
            data = parse(path.read_bytes(), path=path.name).data
        except ParseError:
            continue
        books = find_playbooks(data)
        if books and log_kind(log_of(books[0][1])[1]) == "events":
            found.append((str(path), data))
    return found


def _corpus(shared: Path) -> list[tuple[str, Any]]:
    corpus = shared / "corpus"
    paths = sorted(p for p in corpus.rglob("*") if p.suffix in (".json", ".tron"))
    found = _event_logs(paths)
    assert len(found) >= 20, "the corpus holds at least 20 playbooks with event logs"
    return found


def _picture(data: Any) -> tuple[Picture, Any]:
    view, states = view_and_states(data)
    return playbook_picture(view, states, view.entries, every=True), view


def _log_events(data: Any) -> list[dict[str, Any]]:
    """The events of the first playbook's log: objects with a string eventId and targetId
    (an event reusing another's eventId included)."""
    _, log = log_of(find_playbooks(data)[0][1])
    return [
        e
        for e in log
        if isinstance(e, dict)
        and isinstance(e.get("eventId"), str)
        and isinstance(e.get("targetId"), str)
    ]


def _check_layout(data: Any) -> None:
    """dot draws one node per event of the log, outlines exactly the heads, each id as meant."""
    picture, view = _picture(data)
    drawn = drawn_nodes(render_json(dot.render_dot(picture)))
    events = [n for n in drawn if "event" in n.classes]
    log = _log_events(data)
    assert len(events) == len(log)
    heads = [n for n in events if "head" in n.classes]
    assert len(heads) == sum(len(e.heads) for e in view.entries)
    assert all(n.penwidth >= 3 for n in heads)
    assert all(n.penwidth <= 1 for n in events if "head" not in n.classes)
    expected = sorted(ident(e["eventId"]) for e in log)
    assert sorted(_drawn_id(n.lines[0]) for n in events) == expected


def _drawn_id(first_line: str) -> str:
    """The id in a node's first line, without the marks around it (+, ★, (wins), (head),
    (ignored))."""
    text = first_line.removeprefix("+ ").removeprefix("★ ")
    return text.removesuffix(" (wins)").removesuffix(" (head)").removesuffix(" (ignored)")


@pytest.mark.corpus
def test_dot_of_every_corpus_playbook_has_a_node_per_event_and_heads_outlined(
    shared_dir: Path,
) -> None:
    for name, data in _corpus(shared_dir):
        try:
            _check_layout(data)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


@pytest.mark.parametrize(
    "data",
    [d for _, d in _event_logs(EXAMPLES)],
    ids=[Path(n).parent.name for n, _ in _event_logs(EXAMPLES)],
)
def test_dot_of_example_playbooks_has_a_node_per_event_and_heads_outlined(data: Any) -> None:
    _check_layout(data)


def test_dot_draws_hostile_ids_exactly_as_their_printable_form() -> None:
    data = hostile_document()
    _check_layout(data)
    picture, _ = _picture(data)
    layout = render_json(dot.render_dot(picture))
    titles = {o["name"]: o.get("_ldraw_", []) for o in layout["objects"] if "nodes" in o}
    drawn_titles = [op["text"] for ops in titles.values() for op in ops if op.get("op") == "T"]
    assert drawn_titles == [g.title for g in reversed(picture.groups)]
    for i, h in enumerate(HOSTILE_IDS):
        assert any(t.startswith(ident(f"T{i}:{h}", 48) + " — ") for t in drawn_titles), h
    missing = [n for n in drawn_nodes(layout) if "missing" in n.classes]
    assert [n.lines for n in missing] == [("missing parent", ident('missing "parent"\n'))]
    assert any("dangling" in e.get("class", "") for e in drawn_edges(layout))


def test_dot_of_the_agent_classes_and_edge_labels_is_valid() -> None:
    nodes = (
        Node("b0", ("main", "base of 2 agents"), ("base",)),
        Node("a0", ('al"ice', "agents/al\\ice", "conflict"), ("agent", "conflict")),
        Node("a1", ("bob", "agents/bob", "refused"), ("agent", "refused")),
    )
    from git_vcontext.pictures.model import Edge

    edges = (
        Edge("b0", "a0", ("fork",), "2 ahead / 1 behind"),
        Edge("b0", "a1", ("refused",), "0 ahead / 0 behind"),
        Edge("a0", "a1", ("conflict",), "conflict: x & y.json"),
    )
    layout = render_json(dot.render_dot(Picture("agents", nodes, edges)))
    assert [n.lines[0] for n in drawn_nodes(layout)] == ["main", 'al"ice', "bob"]
    conflict = [e for e in drawn_edges(layout) if e.get("class") == "conflict"]
    assert [e["color"] for e in conflict] == ["#cf222e"]
    assert conflict[0]["dir"] == "none"
    texts = [op["text"] for op in conflict[0]["_ldraw_"] if op.get("op") == "T"]
    assert texts == ["conflict: x & y.json"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=8))
def test_dot_draws_any_text_as_its_printable_form(texts: list[str]) -> None:
    nodes = tuple(Node(f"e{i}", (printable(t),), ("event",)) for i, t in enumerate(texts))
    drawn = drawn_nodes(render_json(dot.render_dot(Picture("", nodes, ()))))
    assert sorted(n.lines[0] if n.lines else "" for n in drawn) == sorted(
        printable(t) for t in texts
    )


# -- mermaid ----------------------------------------------------------------------------


def _mermaid_of(data: Any) -> tuple[str, Any]:
    picture, view = _picture(data)
    return mermaid.render_mermaid(picture), view


def _check_mermaid(data: Any) -> str:
    text, view = _mermaid_of(data)
    check_mermaid_rules(text)
    labels = mermaid_labels(text)
    node_lines = [lines[0] for lines in labels]
    for entry in view.entries:
        for eid in entry.event_ids:
            assert any(_drawn_id(line) == ident(eid) for line in node_lines), eid
    return text


@pytest.mark.corpus
def test_mermaid_of_every_corpus_playbook_follows_the_grammar_rules(shared_dir: Path) -> None:
    for _, data in _corpus(shared_dir):
        _check_mermaid(data)


def test_mermaid_of_hostile_ids_follows_the_grammar_rules() -> None:
    text = _check_mermaid(hostile_document())
    assert "%%" not in text
    assert "<script" not in text
    assert "$$" not in text
    assert "#35;" in text
    assert "#34;" in text  # '#' and '"' written as entities


@settings(max_examples=200)
@given(st.text())
def test_mermaid_text_is_plain_or_entities_and_decodes_back(value: str) -> None:
    written = mermaid.text(printable(value))
    assert '"' not in written
    assert "%" not in written
    assert "<" not in written
    assert decode_label(f'"{written}"') == [printable(value)]


def test_mermaid_refuses_nothing_it_can_draw_and_says_when_it_cannot() -> None:
    events = [Node(f"e{i}", (f"event {i}",), ("event",)) for i in range(600)]
    from git_vcontext.pictures.model import Edge

    edges = tuple(Edge(f"e{i}", f"e{i + 1}", ("chain",)) for i in range(599))
    picture = Picture("", tuple(events), edges)
    text = mermaid.render_mermaid(picture)
    assert mermaid.too_big(text, picture) == "599 edges (mermaid draws at most 500)"
    small = Picture("", tuple(events[:3]), edges[:2])
    assert mermaid.too_big(mermaid.render_mermaid(small), small) is None


def _parse_all(texts: list[str]) -> None:
    results = mermaid_parser()(texts)
    bad = [(t, r) for t, r in zip(texts, results, strict=True) if not r["ok"]]
    assert not bad, bad[0]
    assert {r["type"] for r in results} == {"flowchart-v2"}


def test_real_mermaid_parser_accepts_example_and_hostile_pictures() -> None:
    datas = [d for _, d in _event_logs(EXAMPLES)] + [hostile_document()]
    _parse_all([_mermaid_of(d)[0] for d in datas])
    # and the parser is no pushover: a quote inside a label, a link style of no link
    broken = mermaid_parser()(
        ['flowchart LR\n  e0["a"b"] --> e1', "flowchart LR\n  e0 --> e1\n  linkStyle 1 stroke:red"]
    )
    assert [r["ok"] for r in broken] == [False, False]


@pytest.mark.corpus
def test_real_mermaid_parser_accepts_corpus_pictures(shared_dir: Path) -> None:
    _parse_all([_mermaid_of(d)[0] for _, d in _corpus(shared_dir)])


# -- the README's picture -----------------------------------------------------------------

README_EXAMPLE = "tests/examples/playbook/concurrent-agents/document.vcontext.json"
REMAKE = (
    f"remake it: git vcontext view {README_EXAMPLE} --format dot > docs/playbook-graph.dot "
    "&& dot -Tpng:cairo:gd docs/playbook-graph.dot > docs/playbook-graph.png"
)


def test_readme_picture_is_drawn_from_what_view_writes_today() -> None:
    """docs/playbook-graph.png shows the example as view draws it now: its DOT source,
    committed beside it, is view's output, and dot lays that out at the PNG's size."""
    proc = run_cli("view", README_EXAMPLE, "--format", "dot", cwd=REPO_ROOT)
    assert proc.returncode == 0
    source = REPO_ROOT / "docs" / "playbook-graph.dot"
    assert proc.stdout.decode() == source.read_text(encoding="utf-8"), REMAKE
    png = subprocess.run(
        [dot_path(), "-Tpng"], input=proc.stdout, capture_output=True, check=True
    ).stdout
    committed = (REPO_ROOT / "docs" / "playbook-graph.png").read_bytes()
    (width, height), (was_width, was_height) = _png_size(png), _png_size(committed)
    # fonts may differ a little from one machine to another: a changed picture differs more
    assert abs(width - was_width) <= 0.03 * width, (width, was_width, REMAKE)
    assert abs(height - was_height) <= 0.03 * height, (height, was_height, REMAKE)


def _png_size(raw: bytes) -> tuple[int, int]:
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
