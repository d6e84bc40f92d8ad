"""The MCP server's walked tree keeps, between looks, what an idle look needs of every folder
(the folders holding documents, the others in turn, the rule files: ``files.Tree._kept``).
Those kept lists must go whenever a folder comes or goes or its documents or rule files do
(PRODUCT.md, "MCP server": what anyone wrote is what the next call sees), and must be reused
while nothing changed (an idle server costs its few folders a look, not a pass over every
folder known). Real folders; the passes over the folders are counted, never timed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from git_vcontext.mcp_server.catalog import Catalog
from git_vcontext.mcp_server.files import RACY_NS
from git_vcontext.mcp_server.store import Store


def _todo(title: str) -> str:
    doc = {"vBRIEFInfo": {"version": "0.5"},
           "todoList": {"items": [{"id": "t1", "title": title, "status": "pending"}]}}  # fmt: skip
    return json.dumps(doc)


def _settled(*paths: Path) -> None:
    """Each path's mtime well before now: its folder is no longer racy (never listed again
    on a look for that reason alone)."""
    past = time.time_ns() - 10 * RACY_NS
    for path in paths:
        os.utime(path, ns=(past, past))


def _served(catalog: Catalog) -> list[str]:
    """What the watcher's look (``refresh``: the folders without documents too, in turn)
    finds served, as a listing after it gives."""
    catalog.refresh()
    return [e.rel for e in catalog.entries()]


def _sub_made_a_repository(tmp_path: Path) -> Catalog:
    """A catalog serving ``a.vcontext.json`` and ``sub/b.vcontext.json`` (settled), after
    ``git init sub`` made that served folder a repository of its own: the next look serves
    ``a.vcontext.json`` alone (asserted)."""
    (tmp_path / "a.vcontext.json").write_text(_todo("a"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.vcontext.json").write_text(_todo("b"))
    _settled(tmp_path / "a.vcontext.json", tmp_path / "sub" / "b.vcontext.json")
    _settled(tmp_path / "sub", tmp_path)
    catalog = Catalog(str(tmp_path), Store())
    assert _served(catalog) == ["a.vcontext.json", "sub/b.vcontext.json"]
    subprocess.run(["git", "init", "-q", str(tmp_path / "sub")], check=True)
    assert _served(catalog) == ["a.vcontext.json"]
    return catalog


def test_a_document_in_a_folder_made_after_the_first_look_is_served(tmp_path: Path) -> None:
    """mkdir, then a document in it (as an agent or a person makes one): the new folder's
    document is in the next listing; the same after the folder is renamed, and a folder
    removed and made again. Fails when the kept lists are never dropped: the new folder is
    walked but never looked at again."""
    (tmp_path / "a.vcontext.json").write_text(_todo("a"))
    _settled(tmp_path / "a.vcontext.json", tmp_path)
    catalog = Catalog(str(tmp_path), Store())
    assert _served(catalog) == ["a.vcontext.json"]

    (tmp_path / "notes").mkdir()
    assert _served(catalog) == ["a.vcontext.json"]  # the folder seen, empty
    _settled(tmp_path / "notes", tmp_path)
    (tmp_path / "notes" / "b.vcontext.json").write_text(_todo("b"))
    assert _served(catalog) == ["a.vcontext.json", "notes/b.vcontext.json"]

    (tmp_path / "notes").rename(tmp_path / "docs")
    assert _served(catalog) == ["a.vcontext.json", "docs/b.vcontext.json"]
    (tmp_path / "docs" / "deeper").mkdir()
    assert _served(catalog) == ["a.vcontext.json", "docs/b.vcontext.json"]
    _settled(tmp_path / "docs" / "deeper", tmp_path / "docs", tmp_path)
    (tmp_path / "docs" / "deeper" / "c.vcontext.json").write_text(_todo("c"))
    assert _served(catalog) == [
        "a.vcontext.json",
        "docs/b.vcontext.json",
        "docs/deeper/c.vcontext.json",
    ]

    shutil.rmtree(tmp_path / "docs")
    assert _served(catalog) == ["a.vcontext.json"]
    (tmp_path / "docs").mkdir()
    assert _served(catalog) == ["a.vcontext.json"]
    _settled(tmp_path / "docs", tmp_path)
    (tmp_path / "docs" / "d.vcontext.json").write_text(_todo("d"))
    assert _served(catalog) == ["a.vcontext.json", "docs/d.vcontext.json"]


def test_a_rule_file_made_in_a_known_folder_is_among_the_rule_files_looked_at(
    tmp_path: Path,
) -> None:
    """A ``.gitattributes`` made in a folder made after the first look reaches the routing
    check (which files are served) on the next look."""
    (tmp_path / "a.vcontext.json").write_text(_todo("a"))
    _settled(tmp_path / "a.vcontext.json", tmp_path)
    asked: list[list[str]] = []

    def routed(paths: list[str]) -> bool:
        asked.append(sorted(paths))
        return False

    catalog = Catalog(str(tmp_path), Store(), routed=routed)
    catalog.refresh()
    (tmp_path / "sub").mkdir()
    catalog.refresh()
    _settled(tmp_path / "sub", tmp_path)
    (tmp_path / "sub" / ".gitattributes").write_text("*.json merge=vcontext\n")
    catalog.refresh()
    assert asked[0] == []
    assert asked[-1] == [str(tmp_path.resolve() / "sub" / ".gitattributes")]


class _Counted(dict[str, Any]):
    """The tree's folders, counting the passes over all of them (``items``)."""

    passes = 0

    def items(self) -> Any:
        type(self).passes += 1
        return super().items()


def test_idle_looks_reuse_the_kept_lists_and_a_change_builds_them_once(tmp_path: Path) -> None:
    """Forty settled folders without documents, one with: idle looks pass over the folders
    no time (counted); a folder made builds the lists again once, and the racy folders it
    leaves (listed again on each look, as they were) keep them."""
    (tmp_path / "a.vcontext.json").write_text(_todo("a"))
    made = [tmp_path / f"f{n:02d}" for n in range(40)]
    for folder in made:
        folder.mkdir()
    _settled(tmp_path / "a.vcontext.json", *made, tmp_path)
    catalog = Catalog(str(tmp_path), Store())
    assert _served(catalog) == ["a.vcontext.json"]
    tree = catalog._tree
    _Counted.passes = 0
    tree.folders = _Counted(tree.folders)

    for _ in range(5):
        assert not catalog.refresh()
        assert _served(catalog) == ["a.vcontext.json"]
    assert _Counted.passes == 0

    (tmp_path / "new").mkdir()  # root and new/ racy for two seconds: listed on each look
    assert _served(catalog) == ["a.vcontext.json"]
    built = _Counted.passes
    assert built > 0  # the lists built again, once, for the folder made
    for _ in range(5):
        assert _served(catalog) == ["a.vcontext.json"]
    assert _Counted.passes == built
    assert str(tmp_path.resolve() / "new") in catalog.folders()


def test_a_folder_that_becomes_a_repository_of_its_own_is_no_longer_served(
    tmp_path: Path,
) -> None:
    """PRODUCT.md "Where agents' platforms run it": nested repositories are boundaries. A
    served folder made a repository (``git init`` there: its ``.git`` moves the folder's
    mtime, not its parent's) stops being served on the next look, as a fresh start would
    have it; it was listed again on its own and kept serving its documents."""
    _sub_made_a_repository(tmp_path)
    assert _served(Catalog(str(tmp_path), Store())) == ["a.vcontext.json"]


def test_a_nested_repository_that_becomes_a_plain_folder_is_served_at_the_next_look(
    tmp_path: Path,
) -> None:
    """PRODUCT.md "Where agents' platforms run it": nested repositories are boundaries, and a
    document changed on disk by anyone is seen within a second ("MCP server"). Once the
    boundary is gone (``rm -rf sub/.git``: the folder's mtime moves, not its parent's) its
    documents are served at the next look, as a fresh start would have them; they stayed
    unserved until a full rescan. Idle looks still pass over the folders no time."""
    (tmp_path / "a.vcontext.json").write_text(_todo("a"))
    (tmp_path / "vendor" / "sub").mkdir(parents=True)
    (tmp_path / "vendor" / "sub" / "b.vcontext.json").write_text(_todo("b"))
    subprocess.run(["git", "init", "-q", str(tmp_path / "vendor" / "sub")], check=True)
    sub = tmp_path / "vendor" / "sub"
    _settled(tmp_path / "a.vcontext.json", sub / "b.vcontext.json", sub, tmp_path / "vendor")
    _settled(tmp_path)
    catalog = Catalog(str(tmp_path), Store())
    assert _served(catalog) == ["a.vcontext.json"]
    tree = catalog._tree
    _Counted.passes = 0
    tree.folders = _Counted(tree.folders)
    for _ in range(3):
        assert not catalog.refresh()
    assert _Counted.passes == 0  # the boundary's .git looked at from the kept lists

    shutil.rmtree(sub / ".git")
    assert _served(catalog) == ["a.vcontext.json", "vendor/sub/b.vcontext.json"]
    assert _served(Catalog(str(tmp_path), Store())) == [
        "a.vcontext.json",
        "vendor/sub/b.vcontext.json",
    ]


def test_a_folder_made_a_repository_and_then_a_plain_folder_again_is_served_again(
    tmp_path: Path,
) -> None:
    """PRODUCT.md "Where agents' platforms run it": nested repositories are boundaries, and a
    change on disk is seen within a second ("MCP server"). A served folder made a
    repository (``git init sub``) is forgotten at the next look; once its ``.git`` goes
    again (``rm -rf sub/.git``, the folder's mtime moving, never its parent's) its
    documents are served at the next look, as a fresh start serves them. The folder was
    forgotten without its parent's listing learning it was a boundary now, so nothing
    looked at its ``.git`` going: unserved until a full rescan."""
    catalog = _sub_made_a_repository(tmp_path)

    shutil.rmtree(tmp_path / "sub" / ".git")
    assert _served(catalog) == ["a.vcontext.json", "sub/b.vcontext.json"]
    assert _served(Catalog(str(tmp_path), Store())) == ["a.vcontext.json", "sub/b.vcontext.json"]
