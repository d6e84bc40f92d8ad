"""TRON written as a minimal edit of ours' text: what did not change stays byte for byte.

Like json_text's render, the writer walks the new data and ours' text together. A value
equal to ours' is copied; an object or array that changed is written member by member,
each kept member with its own comments and separators (``spans`` cuts the text so),
a removed member with its comments; a new element is written as an edit of its
neighbour (so it takes the neighbour's class, layout and separators), without the
neighbour's comments; whatever has no counterpart is written afresh by ``writer``,
with ours' classes or new ones added to the header.
"""

from __future__ import annotations

from itertools import compress, islice

from ...errors import ParseError
from ...patterns import lazy
from ...values import JsonValue, same
from ..kept import SMALLEST, KeptLog, put_back, random_hex
from ..matching import appended_only, match_elements
from ..text import newline_of
from .lexer import name_end
from .names import is_property_name
from .plan import ELEMENT, PAIRS, ROOT, Place, Plan, element_place, member_place, plan_places
from .spans import Container, Member, Spans
from .writer import TronStyle, check_value, flat_text, header_with, quoted, value_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from . import TronDocument

_ABSENT: Any = object()  # no old value: the new one is written afresh
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_COMMENT = lazy(r'"(?:[^"\\\n]|\\.)*"|(?<=\n)[ \t]*#[^\r\n]*(?:\r?\n|$)|[ \t]*#[^\r\n]*')


def without_comments(text: str, line_start: bool = False) -> str:
    """``text`` with its comments removed; a line that held only a comment goes too (also
    the first one when ``line_start``: the text starts a line)."""
    if "#" not in text:
        return text
    if line_start:
        return without_comments("\n" + text)[1:]
    return _COMMENT().sub(lambda m: m.group() if m.group().startswith('"') else "", text)


def render(doc: TronDocument, new: JsonValue) -> str | None:
    """``new`` as an edit of ``doc``'s text, or None when ours' data cannot take it (no data,
    or the vContext dialect's pairs given something other than an object)."""
    return render_kept(doc, new)[0]


def render_kept(doc: TronDocument, new: JsonValue) -> tuple[str | None, Kept | None]:
    """``render``'s text, and the runs of array elements it copied from ours' text
    (``Kept``, for ``read_kept``; None when there are none worth it, or the header changed)."""
    if len(doc.header) >= len(doc.text):
        return None, None
    pairs = doc.dialect == "vcontext"
    if pairs and not (isinstance(new, dict) and new and isinstance(doc.data, dict)):
        return None, None
    editor = _Editor(doc)
    spans = editor.spans
    if pairs:
        editor.assemble(*editor.object(new, doc.data, spans.pairs(), PAIRS, "", ""))
    else:
        editor.value(new, doc.data, 0, ROOT)
        editor.copy(spans.ends[spans.value_end(0)], len(doc.text))
    for fresh in editor.fresh:  # the rest is ours' text, which parsed
        check_value(fresh.value)
    roots = [(f.value, f.place) for f in editor.fresh if isinstance(f.value, (dict, list))]
    plan = (
        plan_places(
            doc,
            roots,
            vcontext=pairs,
            extended=editor.extended,
            keyed={id(f.value) for f in editor.fresh if f.keyed},
            classed={id(f.value) for f in editor.fresh if f.classed},
            rows=editor.style.rows,
        )
        if roots
        else Plan()
    )
    body = editor.resolve(plan)
    text = header_with(doc, plan.new, editor.extended) + body
    runs = editor.runs
    if not runs or plan.new or editor.extended or doc.keeps_duplicates:
        return text, None  # a new header reads ours' elements otherwise: parse it all
    return text, Kept(text, editor.out, runs)


class Kept:
    """What ``render_kept`` wrote: its text, the pieces it joined (after the header), and
    the runs it copied: (index of the piece, where it was in ours' text, its end there,
    the elements ours' text held there: ours' very objects)."""

    __slots__ = ("out", "runs", "text")

    def __init__(self, text: str, out: list[str], runs: list[tuple[int, int, int, list[Any]]]):
        self.text = text
        self.out = out
        self.runs = runs


KEPT_RUN = 256
"""A run of elements copied whose text is shorter than this is parsed again (no gain)."""
_BEFORE_RUN = frozenset("[, \t\r\n")  # what may stand right before a run: no token runs on
_AFTER_RUN = frozenset(",] \t\r\n#")


def read_kept(
    doc: TronDocument, kept: Kept, text: str, loads: Callable[[str], TronDocument]
) -> TronDocument | None:
    """``text`` (what ``render_kept`` wrote as ``kept``) parsed without parsing the runs of
    ours' elements it copied again; None when that cannot be shown (parse it in full).

    The proof, as ``codecs.kept``'s for a log: each run is ours' text of whole elements
    of an array, byte for byte, with the commas between them, under ours' very header and
    dialect, and neither the character before nor the one after it can continue one of
    its tokens. Such a run reads as the same elements wherever it stands in an array, so
    the text reads as the text with each run replaced by one string no text holds (a
    random nonce, parsed in full), each nonce, found as an element of an array, replaced
    by the run's elements (ours' data, which ours' parse made from that very text)."""
    if kept.text is not text or not text.startswith(doc.header):
        return None
    out, source = kept.out, doc.text
    nonce = "vcontext-kept-" + random_hex() + "-"
    if nonce in text:  # never: 128 random bits
        return None
    where = {}
    pos = len(doc.header)
    for i, piece in enumerate(out):
        where[i] = pos
        pos += len(piece)
    skeleton = list(out)
    elements: dict[str, list[Any]] = {}
    for k, (i, start, end, run) in enumerate(kept.runs):
        at, piece = where[i], out[i]
        if piece != source[start:end] or not piece:
            return None  # not ours' text: a run is what ours' text holds
        after = at + len(piece)
        if text[at - 1] not in _BEFORE_RUN or (after < len(text) and text[after] not in _AFTER_RUN):
            return None
        name = f"{nonce}{k}"
        skeleton[i] = f'"{name}"'
        elements[name] = run
    try:
        again = loads(doc.header + "".join(skeleton))
    except ParseError:
        return None
    if again.header != doc.header or again.dialect != doc.dialect:
        return None
    if put_back(again.data, nonce, elements) is None:
        return None
    again.text = text
    again.newline, again.final_newline = newline_of(text), text.endswith("\n")
    again.memo.pop("words", None)  # the skeleton's tokens
    # the classes of the runs' objects: looked up when asked (a merge's reading never asks)
    made_by = doc.made_by
    again.made_by_later.extend((run, made_by) for run in elements.values())
    return again


class _Fresh:
    """A value with no counterpart in ours' text, written once the classes are planned
    (``flat``: on one line, where ours wrote the enclosing value on one line, or as a row
    among rows; ``keyed``: an instance of ours that no longer fits its class, written as
    an object, never with another class)."""

    __slots__ = ("classed", "flat", "keyed", "place", "value")

    def __init__(self, value: JsonValue, place: Place, flat: bool, keyed: bool = False) -> None:
        self.value = value
        self.place = place
        self.flat = flat
        self.keyed = keyed
        self.classed = False  # an element among ours' class instances: it takes a class


class _Item:
    """A member of a container being written: ours' ``member`` it continues (None: new),
    its key text (None: ours'), its value and ours' (``_ABSENT``: written afresh)."""

    __slots__ = (
        "classed",
        "literal",
        "loose",
        "member",
        "old",
        "place",
        "prefix",
        "row",
        "sibling",
        "value",
    )

    def __init__(
        self,
        member: Member | None,
        prefix: str | None,
        value: JsonValue,
        old: JsonValue,
        place: Place,
    ) -> None:
        self.member = member
        self.prefix = prefix
        self.value = value
        self.old = old
        self.place = place
        self.literal: str | None = None  # text to write instead of the value
        self.sibling: tuple[Member, JsonValue] | None = None  # the neighbour a new one is like
        self.row = False  # a new element among ours' rows (one element a line)
        self.loose = False  # a new argument: not held on ours' line when it is long
        self.classed = False  # a new element among ours' class instances: one itself


_Job = tuple[Container, list[_Item], str, str]  # a container, its members, brackets


class _Layout:
    """How a container lays out members that have no text of their own yet."""

    __slots__ = ("first", "last_trail", "line_lead", "prefix", "rest", "trail")

    def __init__(self, text: str, c: Container, pairs: bool, newline: str) -> None:
        members = c.members
        m0, last = members[0], members[-1]
        self.first = _bare_lead(text, m0)
        # the indentation of the last member that starts a line: where a new member goes
        # once a line is ended for it (a layout by hand: several members a line, then one)
        starting = [m for m in members if _starts_line(text, m.lead_start)]
        self.line_lead = _bare_lead(text, starting[-1]).split("\n")[-1] if starting else None
        if len(members) > 1:
            self.rest = _bare_lead(text, members[1])
            self.trail = _bare_trail(text, m0)
        elif c.multiline:
            self.rest = (newline if pairs else "") + self.first
            self.trail = newline
        else:
            self.rest, self.trail = " ", ""
        self.last_trail = _bare_trail(text, last)
        # what a member's lead has more than the first one's (a blank line, a space)
        keep = len(self.rest) - len(self.first)
        self.prefix = self.rest[:keep] if keep > 0 and self.rest.endswith(self.first) else ""


def _bare_lead(text: str, m: Member) -> str:
    return without_comments(text[m.lead_start : m.start], _starts_line(text, m.lead_start))


def _starts_line(text: str, offset: int) -> bool:
    return offset == 0 or text[offset - 1] == "\n"


def _bare_trail(text: str, m: Member) -> str:
    trail = text[m.value_end : m.trail_end]
    if m.comma >= 0:
        cut = m.comma - m.value_end
        trail = trail[:cut] + trail[cut + 1 :]
    return without_comments(trail)


class _Editor:
    """One rendering: the parts of the new text, in order, and the values still to write."""

    def __init__(self, doc: TronDocument) -> None:
        self.doc = doc
        self.text = doc.text
        memo = doc.memo
        if "spans" not in memo:
            memo["spans"] = Spans(doc.text, len(doc.header), memo.pop("words", None))
            memo["style"] = _style_of(doc.text, memo["spans"], len(doc.header))
        self.spans: Spans = memo["spans"]
        self.style: TronStyle = memo["style"]
        self.parts: list[str | _Fresh] = []
        self.fresh: list[_Fresh] = []
        self.plain = 0  # > 0 while a new element is written like its neighbour: no comments
        self.one_line = 0  # > 0 inside a container ours wrote on one line
        self.row = False  # the next value written afresh is a row among ours' rows
        self.keyed = False  # the next value written afresh is an instance that left its class
        self.classed = False  # the next value written afresh is a new element among instances
        self.layouts: dict[int, _Layout] = {}
        self.extended: dict[str, list[str]] = {}  # ours' classes that gain properties
        self.written_like: set[str] = set()  # classes of new elements written like a neighbour
        # runs of array elements copied from ours' text: (index in parts, start, end, data)
        self.runs: list[tuple[int, int, int, list[Any]]] = []
        self.out: list[str] = []  # the parts as written (resolve)
        if "instances" not in memo:
            memo["instances"] = instance_counts(self.spans.tokens)
        self.instances: dict[str, int] = memo["instances"]

    # -- values --------------------------------------------------------------------------
    def value(self, new: JsonValue, old: JsonValue, index: int, place: Place) -> None:
        """``new`` in place of ours' ``old``, whose text starts at token ``index``."""
        spans = self.spans
        if same(new, old):
            self.copy(spans.starts[index], spans.ends[spans.value_end(index)])
            return
        job = self._job(new, old, index, place)
        if job is None:
            self.add_fresh(new, place)
        else:  # assembled here, not deeper: three frames a level keep MAX_DEPTH in reach
            self.assemble(*job)

    def _job(self, new: JsonValue, old: JsonValue, index: int, place: Place) -> _Job | None:
        """How to write a changed container as an edit of ours' (None: afresh)."""
        spans = self.spans
        token = spans.tokens[index]
        if token in ("{", "[") and not spans.container(index).members:
            return None  # nothing of ours' layout to follow
        if isinstance(new, dict) and isinstance(old, dict):
            if token == "{":
                return self.object(new, old, spans.container(index), place, "{", "}")
            if token[0] in _NAME_START:
                return self.instance(new, old, index, place)
        elif isinstance(new, list) and isinstance(old, list) and token == "[":
            return self.array(new, old, spans.container(index), place)
        return None

    def object(
        self,
        new: dict[str, Any],
        old: dict[str, Any],
        c: Container,
        place: Place,
        opening: str,
        closing: str,
    ) -> _Job:
        by_key = _members_by_name(c.members)
        separator, bare = self._key_style(c)
        items = []
        for key, value in new.items():
            m = by_key.get(key)
            child = member_place(place, key, value)
            if m is None:
                items.append(_Item(None, self._key(key, bare) + separator, value, _ABSENT, child))
            else:
                items.append(_Item(m, None, value, old.get(key, _ABSENT), child))
        return c, items, opening, closing

    def instance(
        self, new: dict[str, Any], old: dict[str, Any], index: int, place: Place
    ) -> _Job | None:
        """An object ours wrote as ``Name(...)``: kept as such while it fits the class; the
        only instance of its class gains the fields it lacks at the end of the class; any
        other that no longer fits is written as an object (``{}`` around ours' argument
        texts, or on one line where ours wrote it on one line): its neighbours and ours'
        classes stay as they are."""
        spans = self.spans
        name = spans.tokens[index]
        c = spans.container(index + 1)
        props = [*self.doc.classes[name], *self.extended.get(name, ())]
        keys = [(m.key or "") if m.named else props[j] for j, m in enumerate(c.members)]
        opening = self.text[spans.starts[index] : c.open_end]
        if self.plain and len(c.members) < len(props):
            return None  # the class gained fields: a neighbour's arguments are too few now
        if self._fits(new, c.members, keys):
            if self.plain:
                self.written_like.add(name)
            return c, self._arguments(c, keys, new, old, place), opening, ")"
        extra = self._extensible(name, new, c.members, keys)
        if extra is not None:
            self.extended[name] = [*self.extended.get(name, ()), *extra]
            items = self._arguments(c, keys, new, old, place)
            for k in extra:
                item = _Item(None, "", new[k], _ABSENT, member_place(place, k, new[k]))
                item.loose = True  # laid out on lines of its own when it is long
                items.append(item)
            return c, items, opening, ")"
        if self.plain:
            return None  # a new element like its neighbour: another class, or {}
        if self._on_one_line(c):
            # a row among rows: this one instance on its line, as an object; elsewhere
            # written afresh (with {}), laid out as long as it has become
            self.keyed = place[2] == ELEMENT
            return None
        return self._as_braces(new, old, c, keys, place)

    def _extensible(
        self, name: str, new: dict[str, Any], members: list[Member], keys: list[str]
    ) -> list[str] | None:
        """The keys ``new`` adds to ``name``'s properties, when that class can take them at
        its end: the dialect's positional arguments, the class used by this instance only
        (so no other row changes), no class derived from it, and ``new`` otherwise fitting
        (its other keys the class's, in its order, the new ones last; no real null). None
        when it cannot."""
        if self.doc.dialect != "vcontext" or self.plain or self.instances.get(name, 0) != 1:
            return None
        if name in self.written_like:
            return None  # a new element already took the class as it is
        if any(m.named for m in members) or len(keys) < len(self.doc.classes[name]):
            return None
        if _derived_from(self.doc.header, name):
            return None
        known = set(keys)
        extra = [k for k in new if k not in known]
        if not extra or not all(is_property_name(k) for k in extra):
            return None
        if list(new) != [k for k in keys if k in new] + extra:
            return None  # the keys' order would not read back
        if any(new[k] is None for k in new):
            return None  # a real null: the dialect's positional null means "absent"
        return extra

    def _as_braces(
        self, new: dict[str, Any], old: dict[str, Any], c: Container, keys: list[str], place: Place
    ) -> _Job:
        """An object that no longer fits its class: ``{}`` around ours' argument texts."""
        by_key = dict(zip(keys, c.members, strict=True))
        items = []
        for key, value in new.items():
            prefix = self._key(key, self.style.bare) + ": "
            child = member_place(place, key, value)
            items.append(_Item(by_key.get(key), prefix, value, old.get(key, _ABSENT), child))
        return c, items, "{", "}"

    def array(self, new: list[Any], old: list[Any], c: Container, place: Place) -> _Job:
        matches = _appended(old, new)
        if matches is None:
            matches = match_elements(old, new)
        child = element_place(place)
        template = next((j for j in matches if j is not None), 0)
        rows = self._rows(c)
        classed = self._classed(c)
        items = []
        for value, j in zip(new, matches, strict=True):
            if j is not None:
                template = j
                items.append(_Item(c.members[j], None, value, old[j], child))
                continue
            item = _Item(None, "", value, _ABSENT, child)
            item.row = rows
            item.classed = classed and isinstance(value, dict)
            like = old[template] if c.members else None
            if isinstance(value, (dict, list)) and type(like) is type(value):
                item.sibling = (c.members[template], like)
            items.append(item)
        return c, items, "[", "]"

    def add_fresh(self, value: JsonValue, place: Place) -> None:
        fresh = _Fresh(value, place, self.one_line > 0 or self.row or self.keyed, self.keyed)
        fresh.classed = self.classed
        self.row = self.keyed = self.classed = False
        self.parts.append(fresh)
        self.fresh.append(fresh)

    def copy(self, start: int, end: int) -> None:
        piece = self.text[start:end]
        if self.plain and "#" in piece:
            piece = without_comments(piece, _starts_line(self.text, start))
        self.parts.append(piece)

    # -- class instances ---------------------------------------------------------------------
    def _fits(self, new: dict[str, Any], members: list[Member], keys: list[str]) -> bool:
        """Whether ``new`` can be written with ours' arguments: the dialect takes a missing
        key as a positional ``null``; standard TRON needs every property. A new element
        (written like its neighbour) must also have its keys in the class's order."""
        if self.plain:
            order = {k: i for i, k in enumerate(keys)}
            positions = [order.get(k, -1) for k in new]
            if positions != sorted(positions):
                return False
        if self.doc.dialect != "vcontext":
            return len(new) == len(keys) and all(k in new for k in keys)
        known = set(keys)
        if not all(k in known for k in new):
            return False
        for m, k in zip(members, keys, strict=True):
            if (k not in new) if m.named else (k in new and new[k] is None):
                return False  # a named argument cannot be absent, a positional null is
        return True

    def _arguments(
        self, c: Container, keys: list[str], new: dict[str, Any], old: dict[str, Any], place: Place
    ) -> list[_Item]:
        """Ours' arguments with the new values (a key now absent: a positional ``null``)."""
        items = []
        for m, key in zip(c.members, keys, strict=True):
            value = new.get(key)
            item = _Item(m, None, value, old.get(key, _ABSENT), member_place(place, key, value))
            if key not in new:
                if key in old:
                    item.literal = "null"  # the dialect's "absent"
                else:
                    item.old = None  # ours' null stays
            items.append(item)
        return items

    # -- assembling a container ----------------------------------------------------------
    def assemble(self, c: Container, items: list[_Item], opening: str, closing: str) -> None:
        """Ours' pieces of ``c`` around ``items``: kept members with their own leads and
        trails (and comments), new ones laid out like the others, commas where needed."""
        self.parts.append(opening)
        if not items:
            self.parts.append(closing)
            return
        one_line = self._on_one_line(c)
        self.one_line += one_line
        array = opening == "["
        self.copy(c.open_end, c.opening_end)
        last = len(items) - 1
        k = 0
        while k <= last:
            self._lead(c, items[k], k)
            end = self._content(c, items, k, last, array)
            self._trail(c, items[end], end == last, items[end + 1] if end < last else None)
            k = end + 1
        self.copy(c.closing_start, c.close_start)
        self.parts.append(closing)
        self.one_line -= one_line

    def _classed(self, c: Container) -> bool:
        """Whether ours writes every element of ``c`` as a class instance."""
        tokens = self.spans.tokens
        return bool(c.members) and all(
            tokens[m.value_index][0] in _NAME_START
            and m.value_index + 1 < len(tokens)
            and tokens[m.value_index + 1] == "("
            for m in c.members
        )

    def _rows(self, c: Container) -> bool:
        """Whether ours writes the elements of ``c`` one a line, each on one line."""
        text = self.text
        return bool(c.members) and all(
            _starts_line(text, m.lead_start) and "\n" not in text[m.value_start : m.value_end]
            for m in c.members
        )

    def _on_one_line(self, c: Container) -> bool:
        """Whether ours wrote ``c`` on one line (what is added to it stays on that line)."""
        return not c.multiline and "\n" not in self.text[c.open_end : c.close_start]

    def _lead(self, c: Container, item: _Item, k: int) -> None:
        m = item.member
        if m is None:
            layout = self._layout(c)
            lead = layout.first if k == 0 else layout.rest
            if k and layout.line_lead is not None and "\n" not in lead and self._line_ended():
                lead = layout.line_lead  # a line was ended for it: indented as those lines
            self.parts.append(lead)
            return
        if (k == 0) == (m is c.members[0]):
            self.copy(m.lead_start, m.start)
            return
        prefix = self._layout(c).prefix
        lead = self.text[m.lead_start : m.start]
        if k == 0:
            lead = lead[len(prefix) :] if lead.startswith(prefix) else lead
        else:
            lead = prefix + lead
        if self.plain:
            lead = without_comments(lead, _starts_line(self.text, m.lead_start))
        self.parts.append(lead)

    def _line_ended(self) -> bool:
        last = self.parts[-1] if self.parts else ""
        return isinstance(last, str) and last.endswith("\n")

    def _content(self, c: Container, items: list[_Item], k: int, last: int, array: bool) -> int:
        """Write item ``k`` (and the unchanged members of ours that follow it in ours' order,
        in one piece); returns the index of the last item written."""
        item = items[k]
        m = item.member
        if m is not None and _verbatim(item):
            end, members, j = k, c.members, m.index + 1
            while end < last and j < len(members):
                following = items[end + 1]
                if following.member is not members[j] or not _verbatim(following):
                    break
                end, j = end + 1, j + 1
            self.copy(m.start, members[j - 1].value_end)
            if array and not self.plain and members[j - 1].value_end - m.start >= KEPT_RUN:
                run = [items[i].old for i in range(k, end + 1)]
                self.runs.append((len(self.parts) - 1, m.start, members[j - 1].value_end, run))
            return end
        if item.prefix is not None:
            self.parts.append(item.prefix)
        elif m is not None:
            self.copy(m.start, m.value_start)
        if item.literal is not None:
            self.parts.append(item.literal)
        elif item.old is not _ABSENT:
            assert m is not None
            self.value(item.value, item.old, m.value_index, item.place)
        elif item.sibling is not None:
            self.plain += 1
            self.row, self.classed = item.row, item.classed
            self.value(item.value, item.sibling[1], item.sibling[0].value_index, item.place)
            self.row = self.classed = False
            self.plain -= 1
        else:
            self.row, self.classed = item.row, item.classed
            held, self.one_line = self.one_line, 0 if item.loose else self.one_line
            self.add_fresh(item.value, item.place)
            self.one_line = held
        return k

    def _trail(self, c: Container, item: _Item, is_last: bool, following: _Item | None) -> None:
        comma = c.commas and (not is_last or c.trailing_comma)
        m = item.member
        if m is None:
            layout = self._layout(c)
            trail = layout.last_trail if is_last else layout.trail
            trail = ("," if comma else "") + trail
        else:
            trail = self.text[m.value_end : m.trail_end]
            if comma and m.comma < 0:
                trail = "," + trail
            elif m.comma >= 0 and not comma:
                cut = m.comma - m.value_end
                trail = trail[:cut] + trail[cut + 1 :]
            if self.plain:
                trail = without_comments(trail)
        if not is_last and c.multiline and "\n" not in trail and not _in_order(c, m, following):
            trail += self.doc.newline  # what follows is not what followed it in ours
        self.parts.append(trail)

    def _layout(self, c: Container) -> _Layout:
        layout = self.layouts.get(id(c))
        if layout is None:
            pairs = c is self.spans.pairs() if self.doc.dialect == "vcontext" else False
            layout = self.layouts[id(c)] = _Layout(self.text, c, pairs, self.doc.newline)
        return layout

    # -- keys ----------------------------------------------------------------------------
    def _key_style(self, c: Container) -> tuple[str, bool]:
        """The separator after a key and whether keys go bare, as ours' first member has it."""
        if not c.members:
            return ": ", self.style.bare
        spans = self.spans
        key = c.members[0].value_index - 2
        separator = self.text[spans.ends[key] : c.members[0].value_start]
        return (separator if "\n" not in separator else ": "), spans.tokens[key][0] != '"'

    def _key(self, key: str, bare: bool) -> str:
        if getattr(self.doc, "keeps_duplicates", False):
            # lazy: only a reading that kept repeated keys (M18)
            from ..duplicate_keys import written_key

            key = written_key(key)
        return key if bare and is_property_name(key) else quoted(key)

    # -- the values written afresh -------------------------------------------------------
    def resolve(self, plan: Any) -> str:
        """The text: the parts in order, each fresh value written where it stands (its
        column and its line's indentation decide its layout)."""
        out = self.out
        line: list[str] = []  # the current line so far
        newline = self.doc.newline
        for part in self.parts:
            if not isinstance(part, str):
                current = "".join(line)
                line = [current]
                indent = current[: len(current) - len(current.lstrip(" \t"))]
                if part.flat:
                    part = flat_text(part.value, plan, self.style)
                else:
                    part = value_text(part.value, plan, indent, len(current), self.style)
                if "\n" in part and newline != "\n":
                    part = part.replace("\n", newline)
            out.append(part)
            cut = part.rfind("\n")
            if cut >= 0:
                line = [part[cut + 1 :]]
            else:
                line.append(part)
        return "".join(out)


def _in_order(c: Container, m: Member | None, following: _Item | None) -> bool:
    """Whether ``following`` is ours' member right after ``m`` (its separation stays)."""
    if m is None or following is None or following.member is None:
        return False
    return m.index + 1 < len(c.members) and following.member is c.members[m.index + 1]


def instance_counts(tokens: list[str]) -> dict[str, int]:
    """How many instances of each class ours' text writes (``Name(`` tokens)."""
    before = list(compress(tokens, map("(".__eq__, islice(tokens, 1, None))))  # no Python loop
    # list.count per class, in first-seen order (collections.Counter: 1 ms of imports)
    return {k: before.count(k) for k in dict.fromkeys(before) if k[0] in _NAME_START}


def _derived_from(header: str, name: str) -> bool:
    """Whether a class of the header inherits ``name``'s properties (``class B(name): …``)."""
    # lazy: only a class that grows new properties asks
    import re

    return re.search(rf"class[ \t]+\w+[ \t]*\([ \t]*{re.escape(name)}[ \t]*\)", header) is not None


def _appended(old: list[Any], new: list[Any]) -> list[int | None] | None:
    """What ``match_elements`` answers when ``new`` is ``old``'s very same containers, each
    once, followed by new ones (a log grown): each old element in place, the new ones
    unpaired, worked out without fingerprinting anything; None for any other pair."""
    if not appended_only(old, new):
        return None
    if not all(type(v) is dict or type(v) is list for v in old):
        return None  # equal scalars pair by content: leave them to match_elements
    ids = set(map(id, old))
    if len(ids) != len(old) or any(id(v) in ids for v in new[len(old) :]):
        return None  # an object twice: match_elements decides which pairs with which
    return [*range(len(old)), *[None] * (len(new) - len(old))]


def _verbatim(item: _Item) -> bool:
    return (
        item.prefix is None
        and item.literal is None
        and item.old is not _ABSENT
        and same(item.value, item.old)
    )


ROW = lazy(r"(?m)^[ \t]+[A-Za-z_][A-Za-z0-9_]*\(.*\)[ \t]*,?[ \t]*(?:#[^\n]*)?\r?$")
"""A class instance on a line of its own: a row (``  TodoItem("Write it", "pending"),``);
``has_row`` reads it by hand (tests/unit/test_tron_lexer.py holds the two equal)."""
INDENTED = lazy(r"\n([ \t]+)\S")
"""The first indented line; ``indentation`` reads it by hand."""


def indentation(text: str, start: int) -> str | None:
    """The indentation of the first line after ``start`` that starts with spaces or tabs
    and something else than whitespace: ``INDENTED.search(text, start)``'s group."""
    newline = text.find("\n", start)
    end = len(text)
    while newline >= 0:
        pos = newline + 1
        while pos < end and text[pos] in " \t":
            pos += 1
        if pos > newline + 1 and pos < end and not text[pos].isspace():
            return text[newline + 1 : pos]
        newline = text.find("\n", pos)
    return None


def has_row(text: str, start: int, end: int) -> bool:
    """Whether a line of ``text`` between ``start`` and ``end`` is a ``ROW``:
    ``ROW.search(text, start, end) is not None``."""
    end = min(end, len(text))
    line = start
    if start and text[start - 1] != "\n":
        newline = text.find("\n", start, end)
        if newline < 0:
            return False
        line = newline + 1
    while True:
        stop = text.find("\n", line, end)
        if stop < 0:
            return _is_row(text[line:end])
        if _is_row(text[line:stop]):
            return True
        line = stop + 1


def _is_row(line: str) -> bool:
    indent = len(line) - len(line.lstrip(" \t"))
    if not indent:
        return False
    name = name_end(line, indent)
    if name == indent or not line.startswith("(", name):
        return False
    close = line.rfind(")", name + 1)
    while close > name:
        rest = line[close + 1 :].lstrip(" \t")
        if rest.startswith(","):
            rest = rest[1:].lstrip(" \t")
        if rest in ("", "\r") or rest.startswith("#"):
            return True
        close = line.rfind(")", name + 1, close)
    return False


def _style_of(text: str, spans: Spans, start: int) -> TronStyle:
    return style_of(text, spans.tokens, start)


def style_of(text: str, tokens: list[str], start: int) -> TronStyle:
    """Ours' indentation step, whether ours writes the keys of ``{}`` objects bare, and
    whether it writes records as rows (one class instance a line); ``tokens``: those of
    the data section (from ``start``)."""
    step = indentation(text, start) or "  "
    rows = has_row(text, start, start + (1 << 16))
    i = -1
    while True:
        try:
            i = tokens.index("{", i + 1)
        except ValueError:
            return TronStyle(step, False, rows)
        if i + 2 < len(tokens) and tokens[i + 2] == ":":
            return TronStyle(step, tokens[i + 1][0] != '"', rows)


def _members_by_name(members: list[Any]) -> dict[Any, Any]:
    """Members by key; the n-th pair of a repeated key by its ``duplicate_name`` (M18)."""
    out = {m.key: m for m in members}
    if len(out) == len(members):
        return out
    # lazy: only an object that repeats a key (M18)
    from ..duplicate_keys import duplicate_name

    out = {}
    count: dict[Any, int] = {}
    for m in members:
        n = count.get(m.key, 0) + 1
        count[m.key] = n
        out[m.key if n == 1 or m.key is None else duplicate_name(m.key, n)] = m
    return out


def kept_log(doc: TronDocument) -> KeptLog | None:
    """The log written last in the document (the first array of two elements or more on
    the chain of last members from the root) with the text of its elements, for reading
    an edit back without parsing them again (``codecs.kept``); None: there is none, it is
    too small to matter, or ours' text and data do not line up as expected."""
    if len(doc.header) >= len(doc.text) or not isinstance(doc.data, (dict, list)):
        return None
    memo = doc.memo
    if "spans" not in memo:
        memo["spans"] = Spans(doc.text, len(doc.header), memo.pop("words", None))
    found = log_in(doc, memo["spans"])
    if found is None:
        return None
    chain, log, node = found
    first = log.members[0].start
    body = doc.text[first : log.members[-1].value_end]
    return KeptLog(chain, body, node, first) if len(body) >= SMALLEST else None


def log_in(doc: TronDocument, spans: Spans) -> tuple[list[Any], Container, list[Any]] | None:
    """The log written last in ``doc`` (see ``kept_log``) as the chain of keys and indexes
    to it, its container in ``spans`` (``doc``'s) and its data; None when there is none or
    ours' text and data do not line up as expected."""
    if not spans.tokens or not isinstance(doc.data, (dict, list)):
        return None
    node: Any = doc.data
    c, props = (spans.pairs(), None) if doc.dialect == "vcontext" else _opened(doc, spans, 0)
    chain: list[Any] = []
    while c is not None and isinstance(node, (dict, list)) and node:
        m = c.members[-1] if len(c.members) == len(node) else None
        step = _last_step(node, m, props)
        if m is None or step is None:
            return None
        chain.append(step)
        node = node[step]
        if isinstance(node, list) and len(node) >= 2 and spans.tokens[m.value_index] == "[":
            log = spans.container(m.value_index)
            return (chain, log, node) if len(log.members) == len(node) else None
        c, props = _opened(doc, spans, m.value_index)
    return None


def kept_spans(doc: TronDocument, again: TronDocument, log: KeptLog, at: int) -> None:
    """Give ``again`` (an edit of ``doc``'s text that kept ``log``'s text at ``at``) the
    spans and instance counts its next edit needs, taken from ``doc``'s for the kept
    stretch: only the text around it is cut into tokens again."""
    memo = doc.memo
    old: Spans | None = memo.get("spans")
    if old is None or "instances" not in memo:
        return
    spans = Spans.spliced(again.text, len(again.header), old, at, log.start, len(log.body))
    if spans is None:
        return
    # lazy: only a log kept from one edit to the next (the MCP server's writes)
    from bisect import bisect_left

    first = bisect_left(old.starts, log.start)
    last = bisect_left(old.ends, log.start + len(log.body))
    head = bisect_left(spans.starts, at)
    tail = head + last - first + 1
    counts = dict(memo["instances"])
    for tokens, sign in (
        (old.tokens[:first], -1),
        (old.tokens[last + 1 :], -1),
        (spans.tokens[:head], 1),
        (spans.tokens[tail:], 1),
    ):
        for name, n in instance_counts(tokens).items():
            counts[name] = counts.get(name, 0) + sign * n
    again.memo["spans"] = spans
    again.memo["style"] = _style_of(again.text, spans, len(again.header))
    again.memo["instances"] = counts


def _last_step(node: dict[str, Any] | list[Any], m: Member | None, props: list[str] | None) -> Any:
    """The last key (or index) of ``node``, when ours' last member ``m`` is written for it
    (an object's key, a named argument, or the class's property at a positional one)."""
    if m is None or isinstance(node, list):
        return None if m is None else len(node) - 1
    step = next(reversed(node))
    at = m.index  # a positional argument: the class's property there
    key = m.key if m.key is not None else (props[at] if props and at < len(props) else None)
    return step if key == step else None


def _opened(
    doc: TronDocument, spans: Spans, index: int
) -> tuple[Container | None, list[str] | None]:
    """The container whose value starts at token ``index`` (an object, an array or a class
    instance's arguments, with the class's properties), or None."""
    token = spans.tokens[index]
    if token in ("{", "["):
        return spans.container(index), None
    if token[0] in _NAME_START and token in doc.classes and spans.tokens[index + 1] == "(":
        return spans.container(index + 1), list(doc.classes[token])
    return None, None
