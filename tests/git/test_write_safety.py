"""The command line writes through a link the user names, never through one in the repository
leading outside it for a file it picks itself; it never rewrites a read-only document.

PRODUCT.md, "MCP server": the CLI writes through a symlink the user names, but never
through one in the repository that leads outside it for a file it picks itself
(``install``'s ``.gitattributes``, ``vermas project``'s projections). Issue 31, point 4:
``vermas project`` wrote through a dangling ``.work/work_orders.jsonl`` link leading
outside the repository; ``install`` appended to the file a symlinked ``.gitattributes``
points to (git itself does not read a symlinked ``.gitattributes``). Point 10:
``playbook add`` and ``convert -o`` rewrote read-only (0444) documents without a word;
refused now (one line, exit 3, the file untouched), as git refuses without ``-f``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.mcp_support import PLAYBOOK, TODO
from helpers.run import run_cli, run_git

EVENTS = (
    '{"event_id": "e1", "event_type": "work_order.created", "timestamp": '
    '"2026-01-06T09:00:00.000Z", "actor": "ceo", "data": {"work_order_id": "wo-1", '
    '"title": "Build", "issue_type": "task", "priority": 1, "created_by": "ceo"}}\n'
)


def _one_line_refusal(done: object, *words: str) -> str:
    assert done.returncode == 3, done.stderr  # type: ignore[attr-defined]
    err: str = done.stderr.decode()  # type: ignore[attr-defined]
    assert err.count("\n") == 1, err
    assert "internal error" not in err
    for word in words:
        assert word in err, err
    return err


@pytest.fixture
def work(git_repo: Path) -> Path:
    folder = git_repo / ".work"
    folder.mkdir()
    (folder / "events.jsonl").write_text(EVENTS)
    return folder


def test_vermas_project_never_writes_through_a_dangling_link_out_of_the_repository(
    git_repo: Path, work: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere" / "orders.jsonl"
    elsewhere.parent.mkdir()
    (work / "work_orders.jsonl").symlink_to(elsewhere)
    done = run_cli("vermas", "project", cwd=git_repo)
    _one_line_refusal(done, "work_orders.jsonl", "outside")
    assert not elsewhere.exists()
    assert (work / "work_orders.jsonl").is_symlink()


def test_vermas_project_writes_through_a_link_inside_the_repository(
    git_repo: Path, work: Path
) -> None:
    (git_repo / "kept").mkdir()
    (work / "work_orders.jsonl").symlink_to("../kept/orders.jsonl")
    done = run_cli("vermas", "project", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert "wo-1" in (git_repo / "kept/orders.jsonl").read_text()
    assert (work / "work_orders.jsonl").is_symlink()


def test_install_refuses_a_symlinked_gitattributes_and_changes_nothing(
    git_repo: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere-attributes"
    elsewhere.write_text("*.txt text\n")
    (git_repo / ".gitattributes").symlink_to(elsewhere)
    config = (git_repo / ".git" / "config").read_bytes()
    done = run_cli("install", cwd=git_repo)
    _one_line_refusal(done, ".gitattributes", "symbolic link", "git does not read")
    assert elsewhere.read_text() == "*.txt text\n"
    assert (git_repo / ".git" / "config").read_bytes() == config
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()


def test_git_itself_does_not_read_a_symlinked_gitattributes(git_repo: Path, tmp_path: Path) -> None:
    """Why install refuses rather than writes through: git would not see the patterns."""
    (tmp_path / "attrs").write_text("*.vcontext.json merge=vcontext\n")
    (git_repo / ".gitattributes").symlink_to(tmp_path / "attrs")
    out = run_git(git_repo, "check-attr", "merge", "--", "a.vcontext.json").stdout
    assert out == "a.vcontext.json: merge: unspecified\n"


def test_playbook_add_writes_through_a_link_the_user_names(git_repo: Path, tmp_path: Path) -> None:
    real = tmp_path / "shared-playbook.json"
    real.write_text(json.dumps(PLAYBOOK, indent=2) + "\n")
    (git_repo / "pb.json").symlink_to(real)
    done = run_cli(
        "playbook", "add", "pb.json", "--target", "new-rule", "--kind", "rule",
        "--text", "named by the user", cwd=git_repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "named by the user" in real.read_text()
    assert (git_repo / "pb.json").is_symlink()


def _read_only(path: Path, text: str) -> bytes:
    path.write_text(text)
    path.chmod(0o444)
    return path.read_bytes()


def test_playbook_add_refuses_a_read_only_playbook(tmp_path: Path) -> None:
    book = tmp_path / "playbook.vcontext.json"
    before = _read_only(book, json.dumps(PLAYBOOK, indent=2) + "\n")
    done = run_cli("playbook", "add", str(book), "--target", "t", "--kind", "rule", "--text", "x")
    _one_line_refusal(done, "read-only (mode 0444)", "not written")
    assert book.read_bytes() == before
    assert book.stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "{in}", "--to", "tron", "-o", "{out}"],
        ["merge", "{in}", "{in}", "{in}", "-o", "{out}"],
        ["merge", "{in}", "{in}", "{in}", "--report", "{out}"],
    ],
    ids=["convert", "merge", "merge-report"],
)
def test_an_output_file_that_is_read_only_is_refused(tmp_path: Path, args: list[str]) -> None:
    source = tmp_path / "todo.vcontext.json"
    source.write_text(json.dumps(TODO, indent=2) + "\n")
    out = tmp_path / "out.txt"
    before = _read_only(out, "keep me\n")
    done = run_cli(*(a.replace("{in}", str(source)).replace("{out}", str(out)) for a in args))
    _one_line_refusal(done, "read-only", "not written")
    assert out.read_bytes() == before


def test_the_merge_driver_still_replaces_a_read_only_percent_a(tmp_path: Path) -> None:
    """%A is git's file, which git asks the driver to replace: not a document of the user's."""
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    todo = json.dumps(TODO, indent=2) + "\n"
    base.write_text(todo)
    theirs.write_text(todo.replace("Document it", "Document it well"))
    _read_only(ours, todo)
    done = run_cli("merge-driver", str(base), str(ours), str(theirs), "-p", "todo.vcontext.json")
    assert done.returncode == 0, done.stderr
    assert "Document it well" in ours.read_text()
