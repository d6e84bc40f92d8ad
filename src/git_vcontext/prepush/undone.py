"""A commit that undoes what a sync merge just brought: made on files a sync left behind.

``sync`` moves a checked-out branch, then updates its work tree. Killed between the two
(older versions, or a journal lost: see ``sync/interrupted``), the work tree still
holds the files from before the merge; committing them makes a commit whose parent is
the sync's merge and whose documents lack what that merge brought in: other agents'
items, changeLog entries, playbook and JSONL events. Merged into the base, such a commit
deletes acknowledged work of others.

``undone(repo, commit)`` finds what a commit removes of what its parent's sync merge
brought in (records with an identity: ``id``, ``eventId``, ``event_id``, changeLog
entries); ``refusal`` turns the first such commit of a branch into the message sync
stops with. A commit that says it means it (a ``Vcontext-Drop:`` line in its message)
is let through.
"""

from __future__ import annotations

from ..branches.commits import SAID, is_sync_commit, says_drop
from ..codecs import parse
from ..document import CHANGELOG_FIELD, EVENT_ID, JSONL_EVENT_ID
from ..errors import VContextError
from ..record import record
from ..values import canonical, strict_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from pygit2 import Commit, Oid, Repository, Tree

    Key = tuple[str, str | bytes]  # (what, identity): ("item", "t1"), ("changeLog", …)

LOOK_BACK = 50  # commits of a branch checked at most (the newest ones since the base)


@record
class Undone:
    """What one commit removes, in one document, of what its parent's sync merge brought."""

    commit: str
    path: str
    records: tuple[str, ...]  # "item t1", "event evt-3", "changeLog entry 7", …
    before_merge: str  # the parent's first parent: the branch before the sync's merge
    merge: str  # the parent: the sync's merge
    own_change: bool  # the commit's files differ from those before the merge


def undone(repo: Repository, commit: Commit) -> list[Undone]:
    """What ``commit`` removes of what the sync merge it was made on brought in (empty: it
    was not made on a sync merge, removes nothing of it, or says it means it)."""
    if not may_undo(commit):
        return []
    merge = commit.parents[0]
    try:
        before = merge.parents[0]
    except (IndexError, KeyError):  # a merge at a shallow boundary: what it brought is unseen
        return []
    return undone_since(repo, commit, before, merge)


def may_undo(commit: Commit) -> bool:
    """Whether ``undone`` looks into ``commit`` at all: one parent, a sync merge, and no
    line saying the removal is meant."""
    if len(commit.parent_ids) != 1 or says_drop(commit.message):
        return False
    try:
        return is_sync_commit(commit.parents[0])
    except KeyError:  # a parent past a shallow boundary libgit2 does not see: none here
        return False


def undone_since(repo: Repository, commit: Commit, before: Commit, merge: Commit) -> list[Undone]:
    """What ``commit`` removes of what the move from ``before`` to ``merge`` brought in.

    Only a whole undo counts: every record the merge brought into a document is gone from
    it and from every document the commit adds (a JSON ⇄ TRON conversion or a move keeps
    them under another name). Files an interrupted sync left behind lack all of it; a
    person or an agent who deletes one of the items that arrived deletes just that one."""
    found = []
    elsewhere: dict[Key, str] | None = None  # the records of documents the commit adds
    for path in _changed_documents(repo, before.tree, merge.tree):
        merged, had, kept = (_keys(t, path) for t in (merge.tree, before.tree, commit.tree))
        brought = [key for key in merged if key not in had]
        gone = [merged[key] for key in brought if key not in kept]
        if gone and len(gone) == len(brought) and elsewhere is None:
            elsewhere = {}
            for added in _changed_documents(repo, merge.tree, commit.tree):
                if _data(merge.tree, added) is None:
                    elsewhere.update(_keys(commit.tree, added))
        if elsewhere:
            gone = [merged[key] for key in brought if key not in kept and key not in elsewhere]
        if gone and len(gone) == len(brought) and not _unreadable(commit.tree, path):
            shown = tuple(sorted(gone))
            own = commit.tree_id != before.tree_id
            found.append(Undone(str(commit.id), path, shown, str(before.id), str(merge.id), own))
    return found


def first_undoing(repo: Repository, tip: Oid, base: Oid | None) -> list[Undone]:
    """The oldest of the newest ``LOOK_BACK`` commits of ``tip`` not in ``base`` that undoes
    a sync merge (see ``undone``), as its findings; empty when there is none."""
    from ..gitio.objects import newest_commits  # lazy: the guard's light path reads no repo

    commits = newest_commits(repo, tip, base, LOOK_BACK)
    for commit in reversed(commits):
        if found := undone(repo, commit):
            return found
    return []


def refusal(repo: Repository, branch: str, tip: Oid, base: Oid | None) -> str | None:
    """Why ``branch`` (at ``tip``) must not be published to a base at ``base``: the message,
    with what to do; None when no commit of it undoes a sync merge."""
    found = first_undoing(repo, tip, base)
    if not found:
        return None
    return describe(branch, found)


def describe(branch: str, found: list[Undone]) -> str:
    first = found[0]
    commit, before = first.commit[:12], first.before_merge[:12]
    what = "; ".join(f"{u.path}: {_few(u.records)}" for u in found)
    if first.own_change:
        redo = (
            f"To redo your change on those files: git reset --soft {before} && "
            f"git commit -C {commit}, then sync again"
        )
    else:  # the files from before the merge, nothing else: drop the commit
        redo = (
            f"It holds nothing else: drop it with git reset --keep {first.merge[:12]}, "
            "then sync again"
        )
    return (
        f"{branch}: commit {commit} removes what the sync merge before it brought in "
        f"({what}); it looks made on files an interrupted sync left behind, so nothing was "
        f"published. {redo}. If you meant to remove them, say so: "
        f"git commit --amend --trailer '{SAID} <why>', then sync again"
    )


def _few(records: tuple[str, ...]) -> str:
    shown = ", ".join(records[:3])
    return shown + (f" and {len(records) - 3} more" if len(records) > 3 else "")


def _changed_documents(repo: Repository, old: Tree, new: Tree) -> list[str]:
    """vContext documents (by name, content or attributes) that ``new`` changed or added."""
    # lazy: the guard's light path (``record_keys``, ``SAID``) reads no repository
    from ..branches.treemerge import is_document
    from ..gitio.diffs import tree_changes

    out = []
    for change in tree_changes(old, new, files_only=True):
        path = change.new_path
        if path is None:
            continue

        def blobs(at: str = path) -> list[bytes | None]:
            return [_data(new, at)]

        if is_document(path, blobs, repo):
            out.append(path)
    return out


def _data(tree: Tree, path: str) -> bytes | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    data = getattr(entry, "data", None)
    return data if isinstance(data, bytes) else None


def _keys(tree: Tree, path: str) -> dict[Key, str]:
    """The records with an identity a document holds, each with how it is named in a
    message (none: absent or unreadable)."""
    raw = _data(tree, path)
    return {} if raw is None else record_keys(raw, path)


def _unreadable(tree: Tree, path: str) -> bool:
    """Whether the document is there but does not parse: it holds nothing to compare, and
    the per-file check already refuses it (rule ``parse``, with a line and column)."""
    raw = _data(tree, path)
    if raw is None:
        return False
    try:
        parse(raw, path=path)
    except (VContextError, ValueError, RecursionError):
        return True
    return False


def record_keys(raw: bytes, path: str, *, strict: bool = False) -> dict[Key, str]:
    """The records with an identity the document ``raw`` holds (none: unreadable).
    ``strict``: a changeLog entry is keyed by ``strict_key`` (equal keys: equal canonical
    texts, never the other way round), for the guard's light path, whose "all it holds
    kept" then says what the canonical keys would say (issue 28)."""
    try:
        data = parse(raw, path=path).data
    except (VContextError, ValueError, RecursionError):
        return {}
    found: dict[Key, str] = {}
    _walk(data, found, strict_key if strict else canonical)
    return found


def _walk(value: object, found: dict[Key, str], key_of: Callable[[Any], str | bytes]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, list):
                _walk_list(str(key), inner, found, key_of)
            else:
                _walk(inner, found, key_of)
    elif isinstance(value, list):
        _walk_list("", value, found, key_of)


def _walk_list(
    key: str, values: list[object], found: dict[Key, str], key_of: Callable[[Any], str | bytes]
) -> None:
    for element in values:
        if not isinstance(element, dict):
            continue
        if key == CHANGELOG_FIELD:
            sequence = element.get("sequence")
            found[("changeLog", key_of(element))] = f"changeLog entry {sequence}"
            continue
        for name, what in ((EVENT_ID, "event"), (JSONL_EVENT_ID, "event"), ("id", "item")):
            ident = element.get(name)
            if isinstance(ident, str):
                found[(what, ident)] = f"{what} {ident}"
                break
        _walk(element, found, key_of)
