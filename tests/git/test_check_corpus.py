"""The whole reference corpus through ``check``, the server guard and ``validate`` (issue 28;
PRODUCT.md "The remote guards itself", "Validation"; DEVELOPERS.md "one truth").

Real documents are messier than ours. Every JSON and TRON file of ../shared/corpus, routed to
the driver by the repository's own ``.gitattributes``, is pushed with ``--no-verify`` to a
bare remote with the guard, and checked by ``check`` in its three formats: the guard, ``check``
and ``validate`` find the same findings, each with its line and column; nothing crashes. Then
each of the corpus's lineages (a document's versions, committed in order) goes through
``check``: per commit, what it finds in a file is what ``validate`` finds in that version,
plus history findings only where the history rules apply.

Skips cleanly when ../shared/corpus is absent (it is not part of the project).
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from git_vcontext.validation.files import check_bytes
from git_vcontext.validation.model import SKIPPED
from helpers.guard import guarded_remote, refs, remote_lines, sneak
from helpers.run import run_cli, run_git

pytestmark = pytest.mark.corpus

ROUTING = "*.json merge=vcontext diff=vcontext\n*.tron merge=vcontext diff=vcontext\n"
FINDING = re.compile(r"^\s*(\S+):(\d+):(\d+): .* \[([a-z0-9-]+)\]$")
GITHUB = re.compile(r"^::error file=([^,]+),line=(\d+),col=(\d+),title=([a-z0-9-]+)::(.+)$")


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def _documents(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.suffix in (".json", ".tron") and p.is_file())


def _clone(remote: Path, where: Path) -> Path:
    """A clone of ``remote`` whose main (only ``.gitattributes`` routing every JSON and
    TRON file to the driver) is on the remote and is its upstream."""
    run_git(where.parent, "init", "-q", "-b", "main", str(where))
    for key, value in (("user.name", "Corpus"), ("user.email", "corpus@example.com")):
        run_git(where, "config", key, value)
    run_git(where, "config", "commit.gpgsign", "false")
    run_git(where, "remote", "add", "origin", str(remote))
    (where / ".gitattributes").write_text(ROUTING)
    run_git(where, "add", ".gitattributes")
    run_git(where, "commit", "-q", "-m", "route every JSON and TRON file")
    run_git(where, "push", "-q", "-u", "origin", "main")
    return where


def _check(repo: Path, *args: str) -> tuple[int, str]:
    done = run_cli("check", *args, cwd=repo)
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    return done.returncode, done.stdout.decode()


def _key(path: str, rule: str, line: Any, column: Any) -> tuple[str, str, int, int]:
    return path, rule, int(line), int(column)


def test_one_truth_the_whole_corpus_through_the_guard_check_and_validate(
    shared_dir: Path, tmp_path: Path
) -> None:
    corpus = shared_dir / "corpus"
    remote = guarded_remote(tmp_path, "--guard")
    repo = _clone(remote, tmp_path / "clone")
    files = _documents(corpus)
    for source in files:
        target = repo / source.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "the corpus")

    code, out = _check(repo, "--format", "json")  # @{upstream}..HEAD
    report = json.loads(out)
    findings = report["findings"]
    assert report["commits"] == 1
    assert code == (1 if findings else 0)
    assert all(f["line"] is not None and f["column"] is not None for f in findings), [
        f for f in findings if f["line"] is None or f["column"] is None
    ][:3]
    assert not [f for f in findings if f["rule"].startswith("history-")]  # files only added
    found = Counter(_key(f["path"], f["rule"], f["line"], f["column"]) for f in findings)
    skipped = [n for n in report["notes"] if "not a vContext document" in n]
    assert len(skipped) < len(files) // 10, skipped[:5]  # a config here and there, no more

    validated = json.loads(run_cli("validate", "--format", "json", cwd=repo).stdout)
    assert len(validated["files"]) == len(files)  # routing: every JSON and TRON file
    judged = Counter(
        _key(f["path"], e["rule"], e["line"], e["column"])
        for f in validated["files"]
        for e in f["errors"]
        if e["rule"] != SKIPPED
    )
    assert found == judged

    code, text = _check(repo, "--format", "text")
    lines = Counter(line.strip() for line in text.splitlines() if FINDING.match(line))
    assert code == (1 if findings else 0)
    assert sum(lines.values()) == len(findings)

    code, github = _check(repo, "--format", "github")
    errors = [GITHUB.match(line) for line in github.splitlines() if line.startswith("::error")]
    assert all(errors), [line for line in github.splitlines() if line.startswith("::error")][:3]
    assert (
        Counter(
            _key(m[1].replace("%2C", ",").replace("%3A", ":").replace("%25", "%"), m[4], m[2], m[3])
            for m in errors
            if m is not None
        )
        == found
    )

    before = refs(remote)
    pushed = sneak(repo, "origin", "main")
    said = Counter(line for line in remote_lines(pushed.stderr) if FINDING.match(line))
    if findings:
        assert pushed.returncode != 0, pushed.stderr[-2000:]
        assert "pre-receive hook declined" in pushed.stderr
        assert refs(remote) == before
        assert said == lines  # the same `file:line:col: … [rule]` lines as check's
    else:
        assert pushed.returncode == 0, pushed.stderr[-2000:]


# -- the corpus's lineages: a document's versions committed in order ------------------------


def _lineages(corpus: Path) -> list[Path]:
    folders = [*corpus.glob("history/*"), *corpus.glob("external/*/history/*")]
    folders += corpus.glob("spec-embedded/history/*")
    return sorted(f for f in folders if (f / "INDEX.tsv").is_file())


def _versions(folder: Path) -> list[dict[str, str]]:
    lines = (folder / "INDEX.tsv").read_text("utf-8").splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"), strict=False)) for line in lines[1:] if line]
    for row in rows:
        row["path"] = row.get("path") or "doc.vcontext" + Path(row["file"]).suffix
    return rows


def _build(repo: Any, branch: str, folder: Path) -> list[tuple[str, str, bytes]]:
    """The lineage's versions as commits on ``branch`` (each tree: the routing and the
    version under its own name); (commit, path, content) per version, oldest first."""
    import pygit2

    routing = repo.create_blob(ROUTING.encode())
    sig = pygit2.Signature("Corpus", "corpus@example.com", 1767225600, 0)
    parents: list[Any] = []
    out = []
    for row in _versions(folder):
        raw = (folder / row["file"]).read_bytes()
        index = pygit2.Index()
        index.add(pygit2.IndexEntry(".gitattributes", routing, pygit2.enums.FileMode.BLOB))
        index.add(pygit2.IndexEntry(row["path"], repo.create_blob(raw), pygit2.enums.FileMode.BLOB))
        subject = row.get("subject") or f"version {row['nn']}"
        tree = index.write_tree(repo)
        commit = repo.create_commit(f"refs/heads/{branch}", sig, sig, subject, tree, parents)
        parents = [commit]
        out.append((str(commit), row["path"], raw))
    return out


def test_one_truth_every_corpus_lineage_through_check(
    shared_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Per commit of each lineage (its whole history): ``check`` finds in the version it
    adds what ``validate`` finds in that file; beyond that only history findings. (In
    process: one command per lineage.)"""
    import pygit2

    from git_vcontext.cli import main

    folders = _lineages(shared_dir / "corpus")
    assert folders
    repo = pygit2.init_repository(str(tmp_path / "lineages"), initial_head="main")
    histories = {
        f"lineage/{i:02d}": _build(repo, f"lineage/{i:02d}", f) for i, f in enumerate(folders)
    }
    history_rules = Counter[str]()
    for branch, versions in histories.items():
        monkeypatch.chdir(tmp_path / "lineages")
        code = main(["check", "--format", "json", branch])
        out, err = capfdbinary.readouterr()
        assert b"Traceback" not in err, err
        report = json.loads(out)
        assert report["commits"] == len(versions), branch
        assert code == (1 if report["findings"] else 0), branch
        previous: bytes | None = None
        for commit, path, raw in versions:
            mine = [f for f in report["findings"] if f["commit"] == commit]
            assert all(f["line"] is not None for f in mine), (branch, mine[:3])
            history_rules.update(f["rule"] for f in mine if f["rule"].startswith("history-"))
            files = Counter(
                _key(f["path"], f["rule"], f["line"], f["column"])
                for f in mine
                if not f["rule"].startswith("history-")
            )
            if raw == previous:  # the same content as the version before: nothing new to judge
                assert not files, (branch, commit)
                continue
            judged = check_bytes(raw, path, covered=True)
            expected = Counter(_key(path, f.rule, f.line, f.column) for f in judged.findings)
            assert files == expected, (branch, commit, path)
            previous = raw
    assert set(history_rules) <= {
        "history-changelog-modified",
        "history-changelog-removed",
        "history-duplicate-creation",
        "history-event-modified",
        "history-event-removed",
        "history-sequence-decreased",
        "history-target-changed",
    }, history_rules
