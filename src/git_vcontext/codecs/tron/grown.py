"""A TRON write on a long log that only grows: the editor works on a stub (issue 37).

A write on a todo list with 1,000 ``changeLog`` entries changes a few items and appends
an entry. The minimal edit (``edit``) keeps the log's old elements as one verbatim
stretch and writes the new ones from what the log's first two elements, its last one,
and a few facts about all of them (each starting a line and on one line; each a class
instance) and about the whole document (its style, its line ending, how many instances
each class has, the class that wrote the first object at a place) tell it. So the
editor runs on a stub: the document with the log's middle elements (from the third to
the one before the last) cut out where a line starts, those facts those of the whole
document; the middle's text goes back in at the cut of what the editor wrote. That is
the whole document's edit byte for byte (tests/unit/test_tron_grown.py compares both
on generated histories and on the corpus), and it reads back as the new data by
``codecs.kept``'s argument: whole elements with their separators, under the same header,
read the same wherever they stand in an array; the stub's edit itself is parsed and
compared with what it was given. The stub takes the log's new elements; once it holds
more than ``REBASE`` elements, the older ones join the middle.

Anything else (no such log, a write that changes or removes one of its old elements, a
header that gains a class, facts that differ between stub and whole) answers None: the
editor runs on the whole document.
"""

from __future__ import annotations

from ...errors import ParseError
from ...values import same
from ..kept import SMALLEST, at_chain
from ..text import newline_of
from .names import made_by_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from . import TronDocument
    from .spans import Container, Member, Spans

REBASE = 16
"""Elements a stub's log holds before its older ones join the middle."""
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


class Grown:
    """A document seen as its stub: the stub (a TronDocument whose memo holds what the
    editor would work out on the whole document), the chain of keys and indexes to the
    log, where the middle goes in the stub's text, and the middle: its elements (the
    whole document's very objects), their text, tokens, instances per class, whether
    each starts a line on one line (``rows``) and is a class instance (``classed``), and
    the classes that wrote its objects."""

    __slots__ = (
        "body",
        "chain",
        "classed",
        "counts",
        "cut",
        "made_by",
        "middle",
        "rows",
        "stub",
        "tokens",
    )

    def __init__(self, stub: TronDocument, chain: list[Any], cut: int) -> None:
        self.stub = stub
        self.chain = chain
        self.cut = cut
        self.middle: list[Any] = []
        self.body = ""
        self.tokens: list[str] = []
        self.counts: dict[str, int] = {}
        self.rows = self.classed = True
        self.made_by: dict[int, str] = {}


def render(
    doc: TronDocument, new: Any, loads: Callable[[str], TronDocument]
) -> tuple[str, TronDocument] | None:
    """``new`` as the editor's edit of ``doc``'s text, worked out on ``doc``'s stub, with
    the document that text parses to (``loads``: the package's, which imports this
    module); None: let the editor work on the whole document."""
    if "grown" not in doc.memo and not _keeps_old_elements(doc, new):
        return None  # no stub made for nothing (a merge's data are new objects: issue 32)
    g = _grown(doc)
    if g is None:
        return None
    stub_new = _stub_data(doc, g, new)
    if stub_new is None:
        return None
    # lazy: as TronDocument.render's own imports
    from .edit import render as edit
    from .spans import Spans

    stub = g.stub
    text = edit(stub, stub_new)
    if text is None:
        return None
    again = _read_back(text, stub, stub_new, loads)
    if again is None:
        return None
    spans = Spans(text, len(again.header))
    found = _log(again, spans, g.chain)
    if found is None:
        return None
    log, parsed = found
    cut = log.members[2].lead_start
    if text[cut - 1 : cut] != "\n":
        return None
    # the elements the stub had are their very objects again (their text is kept, and
    # they read the same under the same header): a next write pairs them by identity
    old = at_chain(stub.data, g.chain)
    for stale in made_by_in(parsed[: len(old)], again.made_by):
        del again.made_by[stale]
    again.made_by.update(made_by_in(old, stub.made_by))
    parsed[: len(old)] = old
    whole_text = text[:cut] + g.body + text[cut:]
    whole_log = [parsed[0], parsed[1], *g.middle, *parsed[2:]]
    whole = _derived(again, whole_text, again.data, g.chain, whole_log, g.made_by)
    if whole is None:
        return None
    _next(g, whole, again, spans, log, parsed, cut)
    return whole_text, whole


def _read_back(
    text: str, stub: TronDocument, expected: Any, loads: Callable[[str], TronDocument]
) -> TronDocument | None:
    """The stub's edit parsed, when it reads as ``expected`` under the stub's header (the
    middle's text reads the same under the same classes only)."""
    try:
        again = loads(text)
    except ParseError:
        return None
    if again.header != stub.header or again.dialect != stub.dialect:
        return None
    return again if same(again.data, expected) else None


def _stub_data(doc: TronDocument, g: Grown, new: Any) -> Any:
    """``new`` as the stub's data (its log without the middle), when the write keeps the
    log's old elements as they are and the stub's elements are laid out as the whole
    log's; None otherwise."""
    old_log, new_log = at_chain(doc.data, g.chain), at_chain(new, g.chain)
    if not isinstance(new_log, list) or len(new_log) < len(old_log):
        return None
    if not _same_objects(old_log, new_log):
        return None  # an old element changed, moved or went: the whole document's edit
    stub = g.stub
    members = stub.memo["log"].members
    if (_rows(stub.text, members) and not g.rows) or (
        _classed(stub.memo["spans"].tokens, members) and not g.classed
    ):
        return None  # the whole log is not laid out as the stub's elements are
    held = 2 + len(g.middle)
    return _replaced(new, g.chain, [new_log[0], new_log[1], *new_log[held:]])


def _keeps_old_elements(doc: TronDocument, new: Any) -> bool:
    """Whether ``new`` holds the very old elements of ``doc``'s log (what ``_stub_data``
    asks first), told before a stub is made: False answers None as ``render`` would."""
    if doc.keeps_duplicates or len(doc.header) >= len(doc.text):
        return False
    # lazy: as TronDocument.render's own imports
    from .edit import log_in

    found = log_in(doc, _spans(doc))
    if found is None:
        return False
    old_log, new_log = at_chain(doc.data, found[0]), at_chain(new, found[0])
    if not isinstance(new_log, list) or len(new_log) < len(old_log):
        return False
    return _same_objects(old_log, new_log)


def _spans(doc: TronDocument) -> Spans:
    """The document's tokens after its header, and its style (kept in its memo, as the
    whole-document editor keeps them)."""
    # lazy: as TronDocument.render's own imports
    from .edit import style_of
    from .spans import Spans

    memo = doc.memo
    if "spans" not in memo:
        memo["spans"] = Spans(doc.text, len(doc.header), memo.pop("words", None))
        memo["style"] = style_of(doc.text, memo["spans"].tokens, len(doc.header))
    spans: Spans = memo["spans"]
    return spans


def _grown(doc: TronDocument) -> Grown | None:
    """``doc``'s stub, made on its first write (None: it has no long log that allows one)."""
    memo = doc.memo
    if "grown" not in memo:
        memo["grown"] = _made(doc)
    found: Grown | None = memo["grown"]
    return found


def _made(doc: TronDocument) -> Grown | None:
    if doc.keeps_duplicates or len(doc.header) >= len(doc.text):
        return None
    # lazy: as TronDocument.render's own imports
    from bisect import bisect_left

    from .edit import instance_counts, log_in
    from .spans import Spans

    spans = _spans(doc)
    found = log_in(doc, spans)
    if found is None:
        return None
    chain, log, node = found
    members = log.members
    if len(members) < 6:
        return None
    text = doc.text
    cut, resume = members[2].lead_start, members[-1].lead_start
    if resume - cut < SMALLEST or text[cut - 1] != "\n" or text[resume - 1] != "\n":
        return None
    stub_data = _replaced(doc.data, chain, [node[0], node[1], node[-1]])
    if stub_data is None:
        return None
    stub = _copied(doc)
    stub.text = text[:cut] + text[resume:]
    stub.data = stub_data
    stub.made_by = dict(doc.made_by)
    _copy_classes(doc.data, stub_data, chain, stub.made_by)
    stub.memo = {}
    g = Grown(stub, chain, cut)
    first, end = bisect_left(spans.starts, cut), bisect_left(spans.starts, resume)
    g.tokens = spans.tokens[first:end]
    g.counts = instance_counts(g.tokens)
    g.middle = node[2:-1]
    g.body = text[cut:resume]
    g.rows = _rows(text, members[2:-1])
    g.classed = _classed(spans.tokens, members[2:-1])
    g.made_by = made_by_in(g.middle, doc.made_by)
    stub_spans = Spans(stub.text, len(stub.header))
    stub_log = _log(stub, stub_spans, chain)
    if stub_log is None:
        return None
    _seed(g, doc, stub_spans, stub_log[0], len(doc.header))
    return g


def _next(
    g: Grown,
    whole: TronDocument,
    again: TronDocument,
    spans: Spans,
    log: Container,
    parsed: list[Any],
    cut: int,
) -> None:
    """The next write's stub: what the editor wrote (``again``, whose log ``log`` holds
    ``parsed``), its older elements joining the middle once there are many."""
    # lazy: as TronDocument.render's own imports
    from bisect import bisect_left

    from .edit import instance_counts
    from .spans import Spans

    nxt = Grown(again, g.chain, cut)
    nxt.middle, nxt.body, nxt.tokens, nxt.counts = g.middle, g.body, g.tokens, g.counts
    nxt.rows, nxt.classed, nxt.made_by = g.rows, g.classed, g.made_by
    members = log.members
    text = again.text
    resume = members[-1].lead_start
    if len(members) > REBASE and text[resume - 1] == "\n":
        stub_data = _replaced(again.data, g.chain, [parsed[0], parsed[1], parsed[-1]])
        if stub_data is not None:
            moved = members[2:-1]
            first, end = bisect_left(spans.starts, cut), bisect_left(spans.starts, resume)
            tokens = spans.tokens[first:end]
            nxt.middle = [*g.middle, *parsed[2:-1]]
            nxt.body = g.body + text[cut:resume]
            nxt.tokens = g.tokens + tokens
            nxt.counts = dict(g.counts)
            for name, n in instance_counts(tokens).items():
                nxt.counts[name] = nxt.counts.get(name, 0) + n
            nxt.rows = g.rows and _rows(text, moved)
            nxt.classed = g.classed and _classed(spans.tokens, moved)
            nxt.made_by = {**g.made_by, **made_by_in(parsed[2:-1], again.made_by)}
            stub = _copied(again)
            stub.text = text[:cut] + text[resume:]
            stub.data = stub_data
            stub.made_by = dict(again.made_by)
            _copy_classes(again.data, stub_data, g.chain, stub.made_by)
            stub.memo = {}
            spans = Spans(stub.text, len(stub.header))
            found = _log(stub, spans, g.chain)
            if found is None:
                whole.memo["grown"] = None
                return
            log = found[0]
            nxt.stub = stub
    _seed(nxt, whole, spans, log, len(whole.header))
    whole.memo["grown"] = nxt


def _seed(g: Grown, whole: TronDocument, spans: Spans, log: Container, start: int) -> None:
    """Give the stub's memo what the editor would work out on the whole document."""
    # lazy: as TronDocument.render's own imports
    from bisect import bisect_left

    from .edit import instance_counts, style_of
    from .plan import preferences

    stub = g.stub
    at = bisect_left(spans.starts, g.cut)
    tokens = spans.tokens
    counts = instance_counts(tokens)
    for name, n in g.counts.items():
        counts[name] = counts.get(name, 0) + n
    stub.memo["spans"] = spans
    stub.memo["style"] = style_of(whole.text, [*tokens[:at], *g.tokens, *tokens[at:]], start)
    stub.memo["instances"] = counts
    stub.memo["preferences"] = preferences(whole)
    stub.memo["log"] = log
    stub.newline = newline_of(whole.text)


def _log(doc: TronDocument, spans: Spans, chain: list[Any]) -> tuple[Container, list[Any]] | None:
    """The log at ``chain`` in ``doc`` (its container, its data), with three elements or more."""
    # lazy: as TronDocument.render's own imports
    from .edit import log_in

    found = log_in(doc, spans)
    if found is None or found[0] != chain or len(found[1].members) < 3:
        return None
    return found[1], found[2]


def _derived(
    again: TronDocument,
    text: str,
    data: Any,
    chain: list[Any],
    log: list[Any],
    made_by: dict[int, str],
) -> TronDocument | None:
    """The whole document: ``again`` (the stub's edit, parsed) with the middle put back."""
    whole_data = _replaced(data, chain, log)
    if whole_data is None:
        return None
    whole = _copied(again)
    whole.text = text
    whole.data = whole_data
    whole.made_by = {**made_by, **again.made_by}
    _copy_classes(data, whole_data, chain, whole.made_by)
    whole.newline, whole.final_newline = newline_of(text), text.endswith("\n")
    whole.memo = {}
    return whole


def _same_objects(old: list[Any], new: list[Any]) -> bool:
    """Whether ``new`` starts with the very objects of ``old``, in order."""
    # a merge's changes are new objects: told in a few steps, without importing operator
    for before, after in zip(old[:8], new[:8], strict=False):
        if before is not after:
            return False
    # lazy, as copy and bisect here: only a write that keeps a log's old elements gets
    # this far; every other TRON render would pay their imports (operator; copy with
    # weakref, types and copyreg: issue 32)
    from operator import is_

    return all(map(is_, old, new))


def _copied(doc: TronDocument) -> TronDocument:
    """A shallow copy of ``doc`` (its fields then replaced by the caller)."""
    # lazy: see _same_objects
    from copy import copy

    return copy(doc)


def _replaced(data: Any, chain: list[Any], value: Any) -> Any:
    """``data`` with the value at ``chain`` replaced (the containers on the way copied,
    shallowly; the rest the very same objects); None when the chain leads nowhere."""
    if not chain:
        return value
    step = chain[0]
    if isinstance(data, dict) and isinstance(step, str) and step in data:
        inner = _replaced(data[step], chain[1:], value)
        if inner is None:
            return None
        out = dict(data)
        out[step] = inner
        return out
    if isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
        inner = _replaced(data[step], chain[1:], value)
        if inner is None:
            return None
        copied = list(data)
        copied[step] = inner
        return copied
    return None


def _copy_classes(old: Any, new: Any, chain: list[Any], made_by: dict[int, str]) -> None:
    """The class that wrote each object on ``old``'s way to the log also wrote its copy."""
    for step in [None, *chain[:-1]]:
        if step is not None:
            old, new = old[step], new[step]
        if isinstance(old, dict) and id(old) in made_by:
            made_by[id(new)] = made_by[id(old)]


def _rows(text: str, members: list[Member]) -> bool:
    """Whether each member starts a line and is on one line (as the editor's ``_rows``)."""
    return all(
        (m.lead_start == 0 or text[m.lead_start - 1] == "\n")
        and "\n" not in text[m.value_start : m.value_end]
        for m in members
    )


def _classed(tokens: list[str], members: list[Member]) -> bool:
    """Whether each member is a class instance (as the editor's ``_classed``)."""
    return all(
        tokens[m.value_index][0] in _NAME_START
        and m.value_index + 1 < len(tokens)
        and tokens[m.value_index + 1] == "("
        for m in members
    )
