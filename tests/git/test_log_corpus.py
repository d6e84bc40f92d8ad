"""``log`` and ``blame`` over real documents' histories: one repository per corpus lineage,
its versions committed in order under their own names (renames and rebrands included).

Skips cleanly when ../shared/corpus is absent (the corpus is not part of the project).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.cli import main
from git_vcontext.diffing.files import load
from git_vcontext.document import looks_like_vcontext, matches_file_patterns
from git_vcontext.errors import ParseError
from git_vcontext.lineage.items import Index

pytestmark = pytest.mark.corpus


def lineages(shared: Path) -> list[Path]:
    corpus = shared / "corpus"
    folders = [*corpus.glob("history/*"), *corpus.glob("external/*/history/*")]
    folders += corpus.glob("spec-embedded/history/*")
    return sorted(f for f in folders if (f / "INDEX.tsv").is_file())


def versions(folder: Path) -> list[dict[str, str]]:
    """The rows of INDEX.tsv, oldest first; a path for those that have none."""
    lines = (folder / "INDEX.tsv").read_text("utf-8").splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"), strict=False)) for line in lines[1:] if line]
    for row in rows:
        row.setdefault("path", "doc.vcontext" + Path(row["file"]).suffix)
        row["path"] = row["path"] or "doc.vcontext" + Path(row["file"]).suffix
    return rows


def build(folder: Path, top: Path) -> tuple[Any, list[str]]:
    """A repository with one commit per version (pygit2: no process per commit)."""
    import datetime as dt

    import pygit2

    repo = pygit2.init_repository(str(top), initial_head="main")
    parents: list[Any] = []
    ids = []
    for row in versions(folder):
        index = pygit2.Index()
        blob = repo.create_blob((folder / row["file"]).read_bytes())
        index.add(pygit2.IndexEntry(row["path"], blob, pygit2.enums.FileMode.BLOB))
        when = dt.datetime.fromisoformat(row["date"])
        delta = when.utcoffset()
        offset = int(delta.total_seconds() // 60) if delta else 0
        sig = pygit2.Signature("Corpus", "corpus@example.com", int(when.timestamp()), offset)
        subject = row.get("subject") or f"version {row['nn']}"
        commit = repo.create_commit(
            "refs/heads/main", sig, sig, subject, index.write_tree(repo), parents
        )
        parents = [commit]
        ids.append(str(commit))
    return repo, ids


def _run(capfdbinary: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, Any, str]:
    code = main(list(args))
    out, err = capfdbinary.readouterr()
    assert b"Traceback" not in err, err
    assert b"internal error" not in err, err
    return code, json.loads(out) if out.strip() else None, err.decode()


def _ids(raw: bytes, path: str) -> list[str]:
    try:
        doc = load(raw, path)
    except ParseError:
        return []
    return [] if doc is None else Index(doc.data).keys()


LINEAGES = 40  # test slots below; the corpus has this many lineages today


def test_every_corpus_lineage_has_a_slot(shared_dir: Path) -> None:
    """A lineage added to the corpus beyond the slots would be left out silently."""
    assert len(lineages(shared_dir)) <= LINEAGES, "raise LINEAGES to cover every lineage"


@pytest.mark.parametrize("index", range(LINEAGES))
def test_every_corpus_lineage_is_logged_and_blamed_without_error(
    shared_dir: Path,
    index: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    folders = lineages(shared_dir)
    if index >= len(folders):
        pytest.skip(f"the corpus has {len(folders)} lineages")
    folder = folders[index]
    rows = versions(folder)
    _, commits = build(folder, tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    path = rows[-1]["path"]
    newest = (folder / rows[-1]["file"]).read_bytes()
    if not looks_like_vcontext(newest) and not matches_file_patterns(path):  # e.g. xBRIEF
        code, _, err = _run(capfdbinary, "log", "--", path)
        assert code == 3
        assert "not a vContext document" in err
        (tmp_path / "repo" / ".gitattributes").write_text("* diff=vcontext\n")  # declared now

    code, report, err = _run(capfdbinary, "log", "--follow", "--format", "json", "--", path)
    assert code == 0, err
    shown = [c["commit"] for c in report["commits"]]
    assert shown
    assert set(shown) <= set(commits)
    assert shown == sorted(shown, key=commits.index)[::-1]
    assert shown[-1] == commits[0], f"{folder.name}: --follow did not reach the first version"

    ids = _ids(newest, path)
    if ids:
        spec = path + "".join("#" + json.dumps(i) for i in ids[:60])
        code, report, err = _run(capfdbinary, "log", "--follow", "--format", "json", "--", spec)
        assert code == 0, err
        assert {c["commit"] for c in report["commits"]} <= set(shown)

    code, report, err = _run(capfdbinary, "blame", path, "--rev", "HEAD", "--format", "json")
    if not ids and code == 1:
        assert "parse" in err or "markers" in err or ":" in err  # the newest version is broken
        return
    assert code == 0, err
    assert {i["commit"] for i in report["items"]} <= set(commits)
