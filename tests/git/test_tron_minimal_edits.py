"""Every command that writes TRON writes a minimal edit of ours' text (PRODUCT.md, Formats):
the merge driver under a real ``git merge``, ``fork`` and ``sync``. Comments, bare keys,
classes and layouts of the parts nobody changed come out byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.run import run_cli, run_git

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}
TODO = "memory/todo.vcontext.tron"
OURS = """\
# Sprint list; classes by hand
class vContextInfo: version
class TodoList: id, uid, sequence, items
class TodoItem: id, title, status

vContextInfo: vContextInfo("0.4")

todoList: TodoList(
  "todo-1",
  "4b1e9b1c-0000-4000-8000-000000000001",
  3,
  [
    TodoItem("t1", "Auth", "pending"),  # the big one
    # small things
    TodoItem("t2", "Docs", "pending")
  ]
)
"""
T1_DONE = ('TodoItem("t1", "Auth", "pending")', 'TodoItem("t1", "Auth", "completed")')
T2_TITLE = ('"Docs"', '"Write the docs"')


def commit(repo: Path, message: str, text: str, rel: str = TODO) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def show(repo: Path, rev: str, rel: str = TODO) -> str:
    return run_git(repo, "show", f"{rev}:{rel}").stdout


@pytest.fixture
def repo(git_repo: Path) -> Path:
    assert run_cli("install", cwd=git_repo).returncode == 0
    commit(git_repo, "base", OURS)
    return git_repo


def test_m2_driver_merges_two_edits_into_ours_text_byte_for_byte(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    commit(repo, "t1 done", OURS.replace(*T1_DONE))
    run_git(repo, "checkout", "-q", "main")
    commit(repo, "t2 title", OURS.replace(*T2_TITLE))
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert (repo / TODO).read_text() == OURS.replace(*T1_DONE).replace(*T2_TITLE)


def test_m2_driver_keeps_a_corpus_document_s_bare_keys_and_classes(
    repo: Path, shared_dir: Path
) -> None:
    """The issue's example: one status change turned these 220 lines into 756."""
    rel = "plans/gantt.vbrief.tron"
    text = (shared_dir / "corpus/docs/examples__construction-project-gantt.vbrief.tron").read_text()
    commit(repo, "gantt", text, rel)
    deck = '"parking.p1-deck", "P1 Level Deck Pour", '
    status = (deck + '"pending"', deck + '"running"')
    milestone = ("topping out by Month 10", "topping out by Month 11")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    commit(repo, "p1 deck started", text.replace(*status), rel)
    run_git(repo, "checkout", "-q", "main")
    commit(repo, "milestone moved", text.replace(*milestone), rel)
    assert run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False).returncode == 0
    assert (repo / rel).read_text() == text.replace(*status).replace(*milestone)


def test_fork_writes_the_fork_block_around_ours_items_and_comments(repo: Path) -> None:
    proc = run_cli("fork", "alice", "--reason", "try OAuth", cwd=repo, env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    forked = show(repo, "agents/alice")
    # TodoList has no fork property: the object gets {} around ours' argument texts
    items = OURS[OURS.index("  [\n") : OURS.index("  ]\n") + 4]
    assert forked == OURS[: OURS.index("todoList:")] + (
        "todoList: {\n"
        '  "id": "todo-1",\n'
        '  "uid": "4b1e9b1c-0000-4000-8000-000000000001",\n'
        '  "sequence": 3,\n'
        '  "fork": {\n'
        '    "parentUid": "4b1e9b1c-0000-4000-8000-000000000001",\n'
        '    "parentSequence": 3,\n'
        '    "forkedAt": "2026-01-01T00:00:00Z",\n'
        '    "forkReason": "try OAuth",\n'
        '    "mergeStatus": "unmerged"\n'
        "  },\n"
        f'  "items": {items[2:-1]}\n'
        "}\n"
    )


def test_fork_fills_the_fork_property_of_ours_class_in_place(git_repo: Path) -> None:
    assert run_cli("install", cwd=git_repo).returncode == 0
    text = OURS.replace("sequence, items", "sequence, fork, items")
    text = text.replace("  3,\n", "  3,\n  null,  # no fork yet\n")
    commit(git_repo, "base", text)
    assert run_cli("fork", "bob", cwd=git_repo, env=EPOCH).returncode == 0
    forked = show(git_repo, "agents/bob")
    fork = (
        "{\n"
        '    "parentUid": "4b1e9b1c-0000-4000-8000-000000000001",\n'
        '    "parentSequence": 3,\n'
        '    "forkedAt": "2026-01-01T00:00:00Z",\n'
        '    "mergeStatus": "unmerged"\n'
        "  }"
    )
    assert forked == text.replace("  null,  # no fork yet", f"  {fork},  # no fork yet")


def test_sync_merges_both_ways_as_minimal_edits(repo: Path) -> None:
    assert run_cli("fork", "alice", cwd=repo, env=EPOCH).returncode == 0
    forked = show(repo, "agents/alice")
    run_git(repo, "checkout", "-q", "agents/alice")
    commit(repo, "alice: t1 done", forked.replace(*T1_DONE))
    run_git(repo, "checkout", "-q", "main")
    commit(repo, "main: docs", OURS.replace(*T2_TITLE))
    proc = run_cli("sync", "alice", cwd=repo, env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    assert show(repo, "main") == OURS.replace(*T2_TITLE).replace(*T1_DONE)
    agent = show(repo, "agents/alice")
    assert '"Write the docs"' in agent
    assert "# the big one\n    # small things\n" in agent
    assert agent.startswith(OURS[: OURS.index("todoList:")])
