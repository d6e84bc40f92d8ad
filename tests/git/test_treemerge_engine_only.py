"""libgit2 merges no line of a document both sides changed: our engine alone merges it.

PRODUCT.md "Branch-per-agent workflow" (sync merges documents with the engine and every
other file as git does: a conflict in one stops the pair) and M17 (same inputs, same
bytes: the ``Documents:`` list of a sync merge commit is sorted, not in the order of
libgit2's conflicts). ``merge_trees`` hands libgit2 theirs' tree with ours' blob in place
of each document both sides changed, so libgit2 takes it as it is; these merges run on
real trees in a temporary repository.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2

from git_vcontext.branches.treemerge import merge_trees
from git_vcontext.gitio.objects import replaced_blobs

NOW = "2026-01-01T00:00:00Z"
EXEC = 0o100755


def _todo(statuses: list[str]) -> bytes:
    """A todo list with an item a line (neighbouring items' edits touch, for git's merge)."""
    items = ",\n".join(
        json.dumps({"id": f"t{i}", "title": f"Task {i}", "status": s})
        for i, s in enumerate(statuses)
    )
    head = '{"vContextInfo": {"version": "0.4"},\n"todoList": {"id": "todo", "items": [\n'
    return (head + items + "\n]}}\n").encode()


def _tree(repo: pygit2.Repository, files: dict[str, bytes | tuple[bytes, int]]) -> pygit2.Tree:
    index = pygit2.Index()
    for path, content in files.items():
        raw, mode = content if isinstance(content, tuple) else (content, 0o100644)
        index.add(pygit2.IndexEntry(path, repo.create_blob(raw), pygit2.enums.FileMode(mode)))
    tree = repo[index.write_tree(repo)]
    assert isinstance(tree, pygit2.Tree)
    return tree


def _files(repo: pygit2.Repository, oid: Any) -> dict[str, tuple[bytes, int]]:
    tree = repo[oid]
    assert isinstance(tree, pygit2.Tree)
    index = pygit2.Index()
    index.read_tree(tree)
    return {e.path: (repo[e.id].read_raw(), int(e.mode)) for e in index}


BASE = ["pending"] * 12
# adjacent lines: libgit2 conflicts on them, the engine merges them (two items)
OURS_NEAR, THEIRS_NEAR = ["done", *BASE[1:]], [*BASE[:1], "done", *BASE[2:]]
# far apart: libgit2 merges them cleanly too
OURS_FAR, THEIRS_FAR = ["done", *BASE[1:]], [*BASE[:11], "done"]


def test_documents_both_sides_changed_are_the_engines_and_listed_sorted(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path), bare=True)
    a, b = "memory/a.vcontext.json", "memory/deep/b.vcontext.json"
    base = _tree(repo, {a: _todo(BASE), b: (_todo(BASE), EXEC), "notes.txt": b"1\n2\n3\n"})
    ours = _tree(repo, {a: _todo(OURS_FAR), b: (_todo(OURS_NEAR), EXEC), "notes.txt": b"0\n2\n3\n"})
    theirs = _tree(
        repo, {a: _todo(THEIRS_FAR), b: (_todo(THEIRS_NEAR), EXEC), "notes.txt": b"1\n2\n4\n"}
    )
    merged = merge_trees(repo, base, ours, theirs, now=NOW)
    assert merged.clean
    assert merged.tree is not None
    # b's lines conflict for libgit2, a's do not: the list is by path all the same (M17)
    assert merged.documents == (a, b)
    files = _files(repo, merged.tree)
    both = ["done", "done", *BASE[2:]]
    assert (
        json.loads(files[b][0])["todoList"]["items"] == json.loads(_todo(both))["todoList"]["items"]
    )
    assert files[b][1] == EXEC  # the mode both sides have
    assert json.loads(files[a][0]) == json.loads(_todo(["done", *BASE[1:11], "done"]))
    assert files["notes.txt"] == (b"0\n2\n4\n", 0o100644)  # libgit2's line merge, as before


def test_a_plain_file_conflict_still_stops_the_merge_beside_a_merged_document(
    tmp_path: Path,
) -> None:
    repo = pygit2.init_repository(str(tmp_path), bare=True)
    doc = "memory/todo.vcontext.json"
    base = _tree(repo, {doc: _todo(BASE), "notes.txt": b"one\n"})
    ours = _tree(repo, {doc: _todo(OURS_NEAR), "notes.txt": b"ours\n"})
    theirs = _tree(repo, {doc: _todo(THEIRS_NEAR), "notes.txt": b"theirs\n"})
    merged = merge_trees(repo, base, ours, theirs, now=NOW)
    assert merged.tree is None
    assert [(c.path, c.kind) for c in merged.conflicts] == [("notes.txt", "content")]


def test_an_engine_conflict_in_a_document_is_still_reported(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path), bare=True)
    doc = "memory/todo.vcontext.json"
    base = _tree(repo, {doc: _todo(BASE)})
    ours = _tree(repo, {doc: _todo(["done", *BASE[1:]])})
    theirs = _tree(repo, {doc: _todo(["blocked", *BASE[1:]])})
    merged = merge_trees(repo, base, ours, theirs, now=NOW)
    assert merged.tree is None
    assert [(c.path, c.kind) for c in merged.conflicts] == [(doc, "content")]
    assert [c["path"] for c in merged.conflicts[0].conflicts] == ["/todoList/items/0/status"]


def test_replaced_blobs_changes_only_the_named_files(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path), bare=True)
    tree = _tree(repo, {"a/b/c.txt": b"c", "a/d.txt": b"d", "e.txt": b"e", "f/g.txt": b"g"})
    new = repo.create_blob(b"new")
    out = replaced_blobs(repo, tree, {"a/b/c.txt": (new, EXEC), "e.txt": (new, 0o100644)})
    assert _files(repo, out.id) == {
        "a/b/c.txt": (b"new", EXEC),
        "a/d.txt": (b"d", 0o100644),
        "e.txt": (b"new", 0o100644),
        "f/g.txt": (b"g", 0o100644),
    }
    assert out["f"].id == tree["f"].id  # a folder off the paths is the same object
    assert replaced_blobs(repo, tree, {}) is tree
