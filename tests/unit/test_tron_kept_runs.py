"""A TRON edit read back without parsing the runs of ours' elements it copied (issue 32, M16).

``edit.render_kept`` records the runs of array elements the minimal edit copied from ours'
text; ``edit.read_kept`` reads the written text as a skeleton (each run one nonce string,
its elements put back from ours' data). Its verdict must be the full re-parse's: the same
data (types, key order, the classes that wrote each object), or None, then the text is
parsed in full. An editor that writes a wrong byte anywhere is still caught.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import parse, tron
from git_vcontext.codecs.tron import TronDocument, edit
from git_vcontext.errors import ParseError
from git_vcontext.values import same
from helpers.array_edits import corpus_edits, edited_arrays, merged_like, todo
from helpers.tron_documents import DOCUMENTS, FLAVORS, object_pairs, ordered

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _commented(text: str, every: int) -> str:
    """A comment after every ``every``-th line that ends with a comma (data lines only)."""
    header = len(tron.loads(text).header)
    lines = text[header:].split("\n")
    for n, line in enumerate(lines):
        if n % every == 1 and line.endswith(","):
            lines[n] = f'{line}  # note {n}: "quoted" [bracket'
    return text[:header] + "\n".join(lines)


def _full(text: str) -> TronDocument | None:
    try:
        return tron.loads(text)
    except ParseError:
        return None


def _assert_reads_as_full(doc: TronDocument, new: Any, text: str, kept: edit.Kept) -> bool:
    """read_kept's reading of ``text`` is the full parse's, or None; and the verdict of
    ``_reads_back`` (trusted or not) is the full re-parse's. True when the proof held."""
    proved = edit.read_kept(doc, kept, text, tron.loads)
    full = _full(text)
    if proved is not None:
        assert full is not None
        assert ordered(proved.data) == ordered(full.data)
        assert (proved.text, proved.header, proved.dialect) == (text, full.header, full.dialect)
        assert (proved.newline, proved.final_newline) == (full.newline, full.final_newline)
        classes = [(proved.made_by.get(id(x)), full.made_by.get(id(y))) for x, y in
                   object_pairs(proved.data, full.data)]  # fmt: skip
        assert all(p == f for p, f in classes), classes
    trusted = doc._reads_back(text, new, kept) is not None
    assert trusted == (full is not None and same(full.data, new))
    return proved is not None


@SETTINGS
@given(old=DOCUMENTS, flavor=FLAVORS, every=st.integers(2, 4), data=st.data())
def test_m16_a_read_that_keeps_ours_runs_is_the_full_re_parse(
    old: Any, flavor: Any, every: int, data: st.DataObject
) -> None:
    doc = tron.loads(_commented(tron.dumps(old, flavor), every))
    new = edited_arrays(doc.data, data) if data.draw(st.booleans()) else data.draw(DOCUMENTS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(edit, "KEPT_RUN", 1)  # every run, however short
        text, kept = edit.render_kept(doc, new)
        if text is not None and kept is not None:
            _assert_reads_as_full(doc, new, text, kept)


def test_m16_a_merge_s_write_reads_back_without_parsing_ours_runs_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benchmark's merge (a 200-item list, 21 items changed or added): the text read
    back is the changed items' text and one nonce a run, not the whole document."""
    doc = tron.loads(tron.dumps(todo(200)))
    new = merged_like(doc.data)
    parsed: list[int] = []
    loads = tron.loads

    def spy(raw: Any, **kw: Any) -> TronDocument:
        parsed.append(len(raw))
        return loads(raw, **kw)

    monkeypatch.setattr(tron, "loads", spy)
    text = doc.render(new)
    again = doc.read_back(text)  # the reading render verified the text with
    assert isinstance(again, TronDocument)
    assert same(again.data, new)
    assert parsed
    assert max(parsed) < len(text) // 3, (parsed, len(text))  # never in full
    old_items = doc.data["todoList"]["items"]
    assert sum(any(x is y for y in old_items) for x in again.data["todoList"]["items"]) > 150
    monkeypatch.setattr(tron, "loads", loads)
    assert again.made_by_later  # the classes of ours' runs: looked up when asked, below
    full = tron.loads(text)
    assert ordered(again.data) == ordered(full.data)
    pairs = object_pairs(again.data, full.data)
    classes = [(again.made_by.get(id(x)), full.made_by.get(id(y))) for x, y in pairs]
    assert all(a == f for a, f in classes), classes
    # its next edit writes the classes the full parse's would
    newer = merged_like(again.data)
    assert again.render(newer) == full.render(newer)


def _corrupting(monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """An editor that writes one wrong byte: in a run it copied (``run``), or in a piece it
    wrote itself (``own``)."""
    resolve = edit._Editor.resolve

    def corrupt(self: Any, plan: Any) -> str:
        resolve(self, plan)
        runs = {i for i, *_ in self.runs}
        if where == "run":
            i = next(iter(sorted(runs)))
            self.out[i] = self.out[i].replace('"pending"', '"pendinG"', 1)
        else:
            i = next(i for i, p in enumerate(self.out) if i not in runs and '"completed"' in p)
            self.out[i] = self.out[i].replace('"completed"', '"complete"', 1)
        return "".join(self.out)

    monkeypatch.setattr(edit._Editor, "resolve", corrupt)


@pytest.mark.parametrize("where", ["run", "own"])
def test_m16_an_edit_that_writes_a_wrong_byte_is_caught(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    doc = tron.loads(tron.dumps(todo(60)))
    new = merged_like(doc.data)
    _corrupting(monkeypatch, where)
    text, kept = edit.render_kept(doc, new)
    assert text is not None
    assert kept is not None
    full = tron.loads(text)
    assert not same(full.data, new)  # the edit is wrong
    proved = edit.read_kept(doc, kept, text, tron.loads)
    if where == "run":
        assert proved is None  # a run that is not ours' text: no proof
    else:  # the wrong byte is in what the skeleton parses: read as the full parse reads it
        assert proved is not None
        assert ordered(proved.data) == ordered(full.data)
    assert doc._reads_back(text, new, kept) is None  # not trusted
    written = doc.render(new)  # written afresh instead (the writer), and right
    assert same(tron.loads(written).data, new)


def test_m16_a_run_next_to_a_token_it_would_run_into_is_parsed_in_full() -> None:
    """A number written right before a run of numbers would read as one number with the
    run's first: the proof declines (the full parse is the judge)."""
    doc = tron.loads("values: [1, 2, 3, 4, 5, 6]\n")
    new = {"values": [9, 1, 2, 3, 4, 5, 6]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(edit, "KEPT_RUN", 1)
        text, kept = edit.render_kept(doc, new)
        assert text is not None
        assert kept is not None
        ((i, *_),) = kept.runs
        bad = edit.Kept(text, list(kept.out), kept.runs)
        bad.out[i - 1] = bad.out[i - 1].rstrip(", ") + "7"  # "[9, 7" then "1, 2, ..."
        bad.text = bad_text = doc.header + "".join(bad.out)
        assert edit.read_kept(doc, bad, bad_text, tron.loads) is None
        assert tron.loads(bad_text).data == {"values": [9, 71, 2, 3, 4, 5, 6]}


def _corpus_tron(shared: Path) -> list[tuple[Path, TronDocument]]:
    found = []
    for path in sorted((shared / "corpus").rglob("*.tron")):
        try:
            doc = parse(path.read_bytes(), path=str(path))
        except ParseError:
            continue  # the corpus keeps a few broken files on purpose
        if isinstance(doc, TronDocument):
            found.append((path, doc))
    return found


@pytest.mark.corpus
def test_m16_every_corpus_tron_edit_reads_back_as_its_full_re_parse(shared_dir: Path) -> None:
    proved = checked = 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(edit, "KEPT_RUN", 1)
        for _, doc in _corpus_tron(shared_dir):
            for new in corpus_edits(doc.data):
                text, kept = edit.render_kept(doc, new)
                if text is None or kept is None:
                    continue
                checked += 1
                proved += _assert_reads_as_full(doc, new, text, kept)
    assert checked >= 200, checked
    assert proved >= checked // 2, (proved, checked)
