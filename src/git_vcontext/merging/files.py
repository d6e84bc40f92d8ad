"""Merging files: bytes in, bytes out; parse, merge, render, re-check, or fall back (M1, M16)."""

from __future__ import annotations

from ..codecs import format_from_content, format_from_name, parse
from ..errors import ParseError
from ..jsoncodec import string
from ..patterns import lazy
from ..record import record, replace
from ..values import same
from . import merge3
from .result import MISSING, MergeOptions, MergeResult, Note
from .textmerge import Markers, base_sections, merge_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from ..codecs import Document
    from ..codecs.json_splice import Splice
    from .result import Side

    MergeStatus = Literal["clean", "conflict", "fallback"]


INTERNAL_ERROR = "internal error"  # how the reason of a fallback that covered a bug starts


@record
class FileMerge:
    """Outcome of merging one file."""

    output: bytes
    status: MergeStatus
    clean: bool  # exit 0: no conflict left and the output parses
    result: MergeResult | None = None
    reasons: tuple[str, ...] = ()  # why a fallback happened
    # the fallback covered a bug in the engine, not bad input (the tests fail on it)
    internal_error: bool = False

    def report(self) -> dict[str, Any]:
        """The JSON report of PRODUCT.md's command-line contract."""
        r = self.result
        status = self.status
        return {
            "status": status,
            "conflicts": [c.to_json() for c in r.conflicts] if r and status != "fallback" else [],
            "notes": [n.to_json() for n in r.notes] if r else [],
            "fallbackReasons": list(self.reasons),
        }


@record
class Writing:
    """How conflicts are written and settled (git config, labels): asked for only when a
    merge has conflicts or falls back, so a clean merge never reads them."""

    markers: Markers = Markers()
    structured: bool = False  # a ConflictResolution instead of markers (M15)
    favor: Side | None = None  # settle every conflict on that side


class _Writing:
    """The Writing given, or the one ``ask()`` returns, asked for at most once."""

    def __init__(self, given: Writing, ask: Callable[[], Writing] | None) -> None:
        self._given, self._ask = given, ask

    def get(self) -> Writing:
        if self._ask is not None:
            self._given, self._ask = self._ask(), None
        return self._given


class _Inputs:
    """One merge's three files, its path and its writing: what a line-merge fallback needs."""

    __slots__ = ("base", "how", "ours", "path", "splice", "theirs")

    def __init__(
        self, base: bytes | None, ours: bytes, theirs: bytes, path: str | None, how: _Writing
    ) -> None:
        self.base, self.ours, self.theirs, self.path, self.how = base, ours, theirs, path, how
        self.splice: Splice | None = None  # the base's log end, when a side appended to it

    def fallback(self, reasons: list[str], markers: Markers | None = None) -> FileMerge:
        """The line merge of the three files (markers: the writing's unless given)."""
        if markers is None:
            markers = self.how.get().markers
        return fallback(self.base, self.ours, self.theirs, markers, self.path, reasons)


def merge_files(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    *,
    path: str | None = None,
    options: MergeOptions | None = None,
    markers: Markers | None = None,
    structured: bool = False,
    favor: Side | None = None,
    writing: Callable[[], Writing] | None = None,
    render_conflicts: bool = True,
    virtual_base: bool = False,
) -> FileMerge:
    """Three-way merge of file contents (``base`` None or empty: both sides added the file).

    ``favor`` ("ours"/"theirs") settles every structural conflict on that side, each
    one noted (``merge.vcontext.favor``); a line fallback keeps its markers.
    ``writing()``, when given, replaces markers/structured/favor, and is called only if
    the merge has conflicts. ``render_conflicts=False``: conflicts stay data (no text).
    Never raises for bad input: a bug inside the structural merge degrades to the
    line merge (M16) with the reason recorded, so a merge is never lost to a crash.
    ``virtual_base``: git's inner merge of a criss-cross history (M16): every
    conflict takes the base's value, so the result is a valid document (always clean).
    """
    given = Writing(markers or Markers(), structured, favor)
    if virtual_base:
        given, writing = Writing(Markers(given.markers.size, take_base=True)), None
    files = _Inputs(base, ours, theirs, path, _Writing(given, writing))
    try:
        return _merge_files(files, options, render_conflicts)
    except RecursionError:
        return files.fallback(["nesting too deep to merge as data"])
    except Exception as exc:  # the driver must never lose a merge to a bug
        crashed = files.fallback([f"{INTERNAL_ERROR} {type(exc).__name__}: {exc}"])
        return replace(crashed, internal_error=True)


def _merge_files(
    files: _Inputs, options: MergeOptions | None, render_conflicts: bool = True
) -> FileMerge:
    """Shortcuts (equal sides, plain text, one side unchanged), else a merge as data."""
    base, ours, theirs, path = files.base, files.ours, files.theirs, files.path
    if ours == theirs:
        return _checked(ours, path)
    fmt = format_from_name(path) or format_from_content(_text_sample(ours, theirs))
    if fmt == "text":
        return merge_plain_text(base, ours, theirs, files.how.get().markers, path)
    try:
        b_doc, o_doc, t_doc = _spliced(files, fmt)
        if o_doc is None and ours.strip():
            o_doc = _parse(ours, fmt)
        if t_doc is None and theirs.strip():
            t_doc = _parse(theirs, fmt)
        from_markers = False
        if b_doc is None:
            b_doc, from_markers = _parse_base(base, fmt)
    except ParseError as exc:
        return files.fallback([exc.one_line()])
    if o_doc is None or t_doc is None:
        return files.fallback(["one side is empty"])
    # a revert is written as new changes even onto an unchanged side (merging.revert)
    taken = None if options and options.revert else _one_side_changed(files, o_doc, t_doc)
    if taken is not None:
        return taken
    repeated = _repeated_keys(b_doc, o_doc, t_doc)
    if repeated:
        return files.fallback([repeated])
    opts = options or MergeOptions()
    booleans = any(b"true" in raw or b"false" in raw for raw in (base or b"", ours, theirs))
    opts = replace(opts, path=path or opts.path, format=fmt, booleans=opts.booleans and booleans)
    result = _merged(b_doc, o_doc, t_doc, from_markers, opts)
    return _written(files, fmt, o_doc, result, render_conflicts)


def _spliced(files: _Inputs, fmt: str) -> tuple[Document | None, Document | None, Document | None]:
    """The base, and each side whose text is the base's with elements appended to the log
    that ends it, read without parsing the base's text again (codecs.json_splice: a
    playbook that grows for years); None for what must be parsed in full."""
    base = files.base
    if fmt != "json" or not base or not files.ours.strip() or not files.theirs.strip():
        return None, None, None
    # lazy: JSON merges only
    from ..codecs.json_splice import splices

    b_doc, found = splices(base)
    for log in found:
        o_doc, t_doc = log.side(files.ours), log.side(files.theirs)
        if o_doc is not None or t_doc is not None:
            files.splice = log
            return b_doc, o_doc, t_doc
    return b_doc, None, None


def _one_side_changed(files: _Inputs, o_doc: Document, t_doc: Document) -> FileMerge | None:
    """The changed side byte for byte when the other is the base (M1), unless forks differ."""
    base, ours, theirs = files.base, files.ours, files.theirs
    if base is None or _fork_sensitive(o_doc.data, t_doc.data):
        return None
    if ours == base:
        return _checked(theirs, files.path, ours=ours)
    if theirs == base:
        return _checked(ours, files.path)
    return None


def _merged(
    b_doc: Document | None,
    o_doc: Document,
    t_doc: Document,
    from_markers: bool,
    opts: MergeOptions,
) -> MergeResult:
    """The merge as data, with notes on a base read from markers and on repeated keys."""

    result = merge3(MISSING if b_doc is None else b_doc.data, o_doc.data, t_doc.data, opts)
    if from_markers:
        result = _noted(result, "virtual-base", MARKER_BASE_NOTE)
    if any(getattr(d, "keeps_duplicates", False) for d in (b_doc, o_doc, t_doc)):
        result = _noted(result, "duplicate-key", DUPLICATE_NOTE)
    return result


def _written(
    files: _Inputs, fmt: str, o_doc: Document, result: MergeResult, render_conflicts: bool
) -> FileMerge:
    """The merged data settled as the writing says, rendered in ours' style and verified."""
    # lazy: the driver's byte-for-byte shortcuts (M1) return before anything is rendered
    from .render import render

    w = files.how.get() if not result.clean else Writing()
    if w.markers.take_base and not result.clean:
        # lazy: only git's inner merge of a criss-cross history (M16) settles on the base
        from .settle import settled_on

        result = settled_on(result, "base", "virtual-base", "the base's value kept")
        if result.data is MISSING:  # nothing in common (two different documents added)
            return FileMerge(b"", "clean", True, result)
    elif w.favor and not result.clean:
        # lazy: only merge.vcontext.favor settles conflicts
        from .settle import favored

        result = favored(result, w.favor)
    if not result.clean and not render_conflicts:
        return FileMerge(b"", "conflict", False, result)
    try:
        text = render(o_doc, result, structured=w.structured, markers=w.markers)
    except ParseError as exc:  # a writer that cannot express the result (TOML has no null)
        return files.fallback([exc.one_line()], w.markers)
    if result.clean or (w.structured and _is_structured(result, text)):
        return _verified(text, result, fmt, files, o_doc)
    return FileMerge(text.encode("utf-8"), "conflict", False, result)


MARKER_BASE_NOTE = (
    "the merge base held conflict markers (git's virtual base of a criss-cross history): "
    "read from their base sections"
)


_MARK_WRITTEN = lazy(r"\\u0000\d")  # a repeated key's name (M18) written as a key

DUPLICATE_NOTE = (
    "an object repeats a key (the spec forbids it): merged as data, no side changed "
    "a repeated key, its pairs kept as written (M18)"
)


def _parse(raw: bytes, fmt: str) -> Document:
    """A side or the base; an object may repeat a key (M18: merged while no side changes it)."""
    try:
        return parse(raw, format=fmt)  # type: ignore[arg-type]
    except ParseError as exc:
        # lazy: only an object that repeats a key (M18) is read again
        from .duplicates import parse_keeping

        return parse_keeping(raw, fmt, exc)


def _repeated_keys(*docs: Document | None) -> str | None:
    """Why the line merge must take over: a side changed a repeated key (M18, M16)."""
    if not any(getattr(d, "keeps_duplicates", False) for d in docs):
        return None

    # lazy: only documents that repeat a key (M18) are compared for it
    from .duplicates import changed_keys

    b, o, t = (d.data if d is not None else None for d in docs)
    keys = changed_keys(b, o, t)
    if not keys:
        return None
    names = ", ".join(string(k, ensure_ascii=False) for k in keys)
    return f"a side changed a repeated key ({names}): merged by lines"


def _parse_base(base: bytes | None, fmt: str) -> tuple[Document | None, bool]:
    """The base document, and whether it was read from the base sections of conflict
    markers (a virtual merge base that still holds them, M16)."""
    if not base or not base.strip():
        return None, False
    try:
        return _parse(base, fmt), False
    except ParseError:
        text = base_sections(base.decode("utf-8", "surrogateescape"))
        if text is None:
            raise
    try:
        raw = text.encode("utf-8", "surrogateescape")
        return parse(raw, format=fmt), True  # type: ignore[arg-type]
    except ParseError as exc:
        why = f"the base read from its marker blocks' base sections: {exc.one_line()}"
        raise ParseError(why) from None


def _noted(result: MergeResult, kind: str, message: str) -> MergeResult:
    notes = (*result.notes, Note(kind, "", message))
    return MergeResult(result.data, result.conflicts, notes, result.tree)


def _text_sample(*raws: bytes) -> str:
    for raw in raws:
        if raw.strip():
            return raw[:65536].decode("utf-8", "replace")
    return ""


def _fork_sensitive(ours: Any, theirs: Any) -> bool:
    """M11 applies even when one side is unchanged: skip byte shortcuts when forks differ."""
    # lazy: the driver's shortcut for equal sides returns without it
    from .. import document as doc

    if not isinstance(ours, dict) or not isinstance(theirs, dict):
        return False
    for key in doc.CONTAINER_KEYS:
        o, t = ours.get(key), theirs.get(key)
        of = o.get(doc.FORK_FIELD, MISSING) if isinstance(o, dict) else MISSING
        tf = t.get(doc.FORK_FIELD, MISSING) if isinstance(t, dict) else MISSING
        if (of is not MISSING or tf is not MISSING) and not same(of, tf):
            return True
    return False


def _is_structured(result: MergeResult, text: str) -> bool:
    from ..codecs.text import find_conflict_marker

    return not result.clean and find_conflict_marker(text) is None


def _verified(
    text: str, result: MergeResult, fmt: str, files: _Inputs, o_doc: Document
) -> FileMerge:
    """Trust a rendered merge only if it parses back to the merged data (M16)."""

    raw = text.encode("utf-8")
    ours = files.ours
    # (a backslash looked for first, by memchr: the longer search costs ~2 ns a character)
    written = "\\" in text and "\\u0000" in text and _MARK_WRITTEN().search(text)
    if written and not _MARK_WRITTEN().search(ours.decode("utf-8", "replace")):
        return files.fallback(["a repeated key's pair could not be written back as it was"])
    # the base's text with elements appended to its log: each added byte parsed (M16)
    data = files.splice.read_back(text) if files.splice is not None else None
    if data is None:
        try:
            data = (o_doc.read_back(text) or _parse(raw, fmt)).data
        except ParseError as exc:
            return files.fallback([f"merged output did not parse: {exc}"])
    expected = result.data if result.clean else None
    # plain ==: a rendering slip changes data; bool-for-number is not one it can make
    if expected is not None and data != expected:
        return files.fallback(["merged output did not read back"])
    return FileMerge(raw, "clean" if result.clean else "conflict", result.clean, result)


def _checked(
    raw: bytes,
    path: str | None,
    status: MergeStatus = "clean",
    reasons: tuple[str, ...] = (),
    ours: bytes | None = None,
) -> FileMerge:
    """A side taken byte for byte (M1) or a clean line merge: clean only if it parses (M16)."""
    if not raw.strip():
        if ours is not None and ours.strip():
            kept = (*reasons, "the result would be empty: kept ours")
            return FileMerge(ours, "fallback", False, None, kept)
        return FileMerge(raw, status, True, None, reasons)
    fmt = format_from_name(path) or format_from_content(_text_sample(raw))
    try:
        _parse(raw, fmt)
    except ParseError as exc:
        what = "the line-merged result" if status == "fallback" else "the side taken"
        why = f"{what} does not parse: {exc.one_line()}"
        return FileMerge(raw, "fallback", False, None, (*reasons, why))
    return FileMerge(raw, status, True, None, reasons)


def merge_plain_text(
    base: bytes | None, ours: bytes, theirs: bytes, markers: Markers, path: str | None
) -> FileMerge:
    """Plain-text files (``.assignment-*``) merge by lines by design: clean or conflict."""
    out = fallback(base, ours, theirs, markers, path, [])
    if out.clean:
        return FileMerge(out.output, "clean", True)
    return FileMerge(out.output, "conflict", False, None, out.reasons)


def fallback(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    markers: Markers,
    path: str | None,
    reasons: list[str],
) -> FileMerge:
    """Line-based three-way merge like ``git merge-file``; clean only if it parses too."""
    texts = []
    for raw in (base or b"", ours, theirs):
        if b"\x00" in raw:
            return FileMerge(ours, "fallback", False, None, (*reasons, "binary content: kept ours"))
        texts.append(raw.decode("utf-8", "surrogateescape"))
    newline = "\r\n" if "\r\n" in texts[1] else "\n"
    m = replace(markers, newline=newline)
    merged, blocks = merge_lines(texts[0], texts[1], texts[2], m)
    raw = merged.encode("utf-8", "surrogateescape")
    if blocks:
        why = (*reasons, f"{blocks} conflicting line region(s)")
        return FileMerge(raw, "fallback", False, None, why)
    return _checked(raw, path, "fallback", tuple(reasons), ours=ours)
