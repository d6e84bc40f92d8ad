"""A document renamed, moved or converted (JSON ⇄ TRON) on one side of a merge is one document.

git pairs a renamed file by similar bytes, which a conversion does not keep: a
``todo.vcontext.json`` one side converted into ``todo.vcontext.tron`` is, to git, one file
deleted and another added, so a merge with the other side's edits would stop on a
delete/modify conflict, or bring the old file back beside the new one. Here a document
a side removed and one it added are the same document when their containers share a
``uid``, else when they are the same kind of container with the same ``id`` (or no id,
as the seeds' playbooks have none) and most of their data equal (PRODUCT.md,
"Branch-per-agent workflow").

Before a tree merge, ``align`` moves the base's and the other side's versions of such a
document to its new name, written in the new file's format and style, so the three-way
merge sees one file: the other side's edits land in the new file, and the old name is
not revived. Both sides renaming one document to different names is a conflict.
"""

from __future__ import annotations

from ..codecs import format_from_name, parse
from ..document import describe
from ..errors import ParseError
from ..gitio.diffs import tree_changes
from ..gitio.objects import edited_tree, is_blob
from ..record import record
from ..spelling import canonical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

    from pygit2 import Repository, Tree

    from ..merging.result import Side

    Wanted = Callable[[str, bytes], bool]
    """Whether a file (path, content) is a document the merge engine merges."""

SIMILAR = 0.5
"""The share of an ``id``-matched document's data that must be equal (git's rename
detection pairs files at 50% similarity)."""

MAX_CANDIDATES = 50
"""Removed and added documents read at most, per side (a commit that moves a thousand)."""

IDENTITY = ("id", "uid", "eventId", "event_id")


@record
class Rename:
    """One document one side of a merge renamed (``old`` in the base, ``new`` on that side)."""

    side: Side
    old: str
    new: str


@record
class Aligned:
    """The trees of a merge with every renamed document at its new name on all sides."""

    base: Tree | None
    ours: Tree
    theirs: Tree
    renames: tuple[Rename, ...] = ()
    clashes: tuple[tuple[str, str, str], ...] = ()  # (base path, ours' new name, theirs')


def align(repo: Repository, base: Tree | None, ours: Tree, theirs: Tree, wanted: Wanted) -> Aligned:
    """The merge's trees with each document a side renamed moved to its new name in the
    base and on the other side (in the new file's format and style); see the module."""
    if base is None:
        return Aligned(base, ours, theirs)
    found = {
        "ours": document_renames(repo, base, ours, wanted),
        "theirs": document_renames(repo, base, theirs, wanted),
    }
    if not found["ours"] and not found["theirs"]:
        return Aligned(base, ours, theirs)
    trees: dict[str, Tree] = {"base": base, "ours": ours, "theirs": theirs}
    edits, renames, clashes = _planned(trees, found)
    if not renames:
        return Aligned(base, ours, theirs, (), tuple(clashes))
    new_trees = {s: edited_tree(repo, trees[s], edits[s]) for s in trees}
    return Aligned(
        new_trees["base"], new_trees["ours"], new_trees["theirs"], tuple(renames), tuple(clashes)
    )


Edits = dict[str, dict[str, "tuple[bytes, int] | None"]]
"""Per tree (base, ours, theirs): the files to remove (None) or write."""


def _planned(
    trees: Mapping[str, Tree], found: Mapping[str, dict[str, str]]
) -> tuple[Edits, list[Rename], list[tuple[str, str, str]]]:
    """What to move in which tree for the renames each side made; the renames done, and
    the documents both sides renamed differently."""
    edits: Edits = {s: {} for s in trees}
    renames: list[Rename] = []
    clashes: list[tuple[str, str, str]] = []
    pairs: tuple[tuple[Side, Side], ...] = (("ours", "theirs"), ("theirs", "ours"))
    for side, other in pairs:
        for old, new in found[side].items():
            elsewhere = found[other].get(old)
            if elsewhere is not None and elsewhere != new:
                if side == "ours":
                    clashes.append((old, new, elsewhere))
                continue
            if elsewhere is not None and side == "theirs":
                continue  # both renamed it alike: moved once, with ours' as the style
            moves = _moves(trees, side, old, new, both=elsewhere is not None)
            if moves is None:
                continue  # a version that does not parse, or the new name taken: as git does
            for where, content in moves.items():
                edits[where][old] = None
                edits[where][new] = content
            renames.append(Rename(side, old, new))
    return edits, renames, clashes


def _moves(
    trees: Mapping[str, Tree], side: str, old: str, new: str, *, both: bool
) -> dict[str, tuple[bytes, int]] | None:
    """The base's (and unless ``both`` renamed it, the other side's) version of ``old``
    written as ``new``, styled after the renaming side's new file; None when one cannot be."""
    template = _blob(trees[side], new)
    assert template is not None  # the side added it
    others = ["base"] if both else ["base", "theirs" if side == "ours" else "ours"]
    out: dict[str, tuple[bytes, int]] = {}
    for where in others:
        tree = trees[where]
        if _blob(tree, new) is not None:
            return None  # the new name is taken there already
        found = _blob(tree, old)
        if found is None:
            continue  # the other side deleted it: a delete on one side, as any
        raw, mode = found
        converted = restyle(raw, old, template[0], new)
        if converted is None:
            return None
        out[where] = (converted, mode)
    return out


def restyle(raw: bytes, path: str, template: bytes, template_path: str) -> bytes | None:
    """``raw`` (a version of the document at ``path``) as a file named ``template_path``:
    the bytes as they are when both names have one format, else its data written in the
    format and style of ``template`` (what the renaming side wrote). None: it does not
    parse."""
    if format_from_name(path) == format_from_name(template_path):
        return raw
    try:
        data = parse(raw, path=path).data
        styled = parse(template, path=template_path)
    except ParseError:
        return None
    return styled.render(data).encode("utf-8")


def document_renames(repo: Repository, base: Tree, side: Tree, wanted: Wanted) -> dict[str, str]:
    """Documents ``side`` renamed since ``base``: old path -> new path."""
    removed: dict[str, Any] = {}
    added: dict[str, Any] = {}
    gone, new = [], []
    for change in tree_changes(base, side, files_only=True):
        if change.new_id is None and change.old_path is not None:
            gone.append(change.old_path)
        elif change.old_id is None and change.new_path is not None:
            new.append(change.new_path)
    if not gone or not new:
        return {}
    for paths, tree, into in ((gone, base, removed), (new, side, added)):
        for path in paths[:MAX_CANDIDATES]:
            data = _document(tree, path, wanted)
            if data is not None:
                into[path] = data
    return pair_documents(removed, added)


def pair_documents(removed: Mapping[str, Any], added: Mapping[str, Any]) -> dict[str, str]:
    """Which added document (path -> parsed data) continues which removed one: the same
    container ``uid``; else the same kind of container with the same ``id`` (or neither
    with one, as the seeds' playbooks) and at least half of its data equal. Each document
    pairs at most once, the best pairs first."""
    scored: list[tuple[float, str, str]] = []
    for old_path, old in removed.items():
        for new_path, new in added.items():
            score = _pair_score(old, new)
            if score is not None:
                scored.append((score, old_path, new_path))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for _, old_path, new_path in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if old_path not in pairs and new_path not in taken:
            pairs[old_path] = new_path
            taken.add(new_path)
    return pairs


def continues(old: bytes, new: bytes, old_path: str, new_path: str) -> bool | None:
    """Whether document ``new`` continues ``old`` by the rule ``pair_documents`` applies
    (git pairs files by similar bytes: two plans of one layout are a rename to it); None
    when the rule says nothing (a side that does not parse, or holds no single container:
    an event log, a template), so git's pairing stands."""
    try:
        was, now = parse(old, path=old_path).data, parse(new, path=new_path).data
    except ParseError:
        return None
    if _identity(was) is None or _identity(now) is None:
        return None
    return _pair_score(was, now) is not None


def _pair_score(old: Any, new: Any) -> float | None:
    """How surely ``new`` continues ``old`` (the higher the surer), or None: it does not."""
    was, now = _identity(old), _identity(new)
    if was is None or now is None or was[0] != now[0]:
        return None
    if was[1] is not None and was[1] == now[1]:
        return 2.0 + similarity(old, new)
    if was[1] is not None and now[1] is not None:
        return None  # two uids: two documents
    if was[2] is not None and now[2] is not None and was[2] != now[2]:
        return None  # two ids: two documents
    share = similarity(old, new)
    if share < SIMILAR:
        return None
    return (1.0 if was[2] is not None and was[2] == now[2] else 0.0) + share


def similarity(old: Any, new: Any) -> float:
    """The share of the two documents' facts (leaf values by id-anchored path) they hold
    alike: 1.0 for equal data."""
    a, b = set(_leaves(old)), set(_leaves(new))
    if not a and not b:
        return 1.0
    return len(a & b) / max(len(a), len(b))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    stack: list[tuple[tuple[Any, ...], Any]] = [(path, value)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(((*here, k), v) for k, v in node.items())
        elif isinstance(node, list):
            for index, element in enumerate(node):
                stack.append(((*here, _element_key(element, index)), element))
        else:
            yield (*here, canonical(node))


def _element_key(element: Any, index: int) -> Any:
    if isinstance(element, dict):
        for key in IDENTITY:
            ident = element.get(key)
            if isinstance(ident, (str, int)) and not isinstance(ident, bool):
                return (key, ident)
    return index


def _identity(data: Any) -> tuple[str, Any, Any] | None:
    """(container kind, its uid, its id) of a document with exactly one container."""
    kind = describe(data).container
    if kind is None:
        return None
    container = data[kind]
    uid, ident = container.get("uid"), container.get("id")
    return kind, uid if _usable(uid) else None, ident if _usable(ident) else None


def _usable(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and value != ""


def _document(tree: Tree, path: str, wanted: Wanted) -> Any:
    found = _blob(tree, path)
    if found is None or not wanted(path, found[0]):
        return None
    try:
        return parse(found[0], path=path).data
    except ParseError:
        return None


def _blob(tree: Tree, path: str) -> tuple[bytes, int] | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    return (entry.data, entry.filemode) if is_blob(entry) else None
