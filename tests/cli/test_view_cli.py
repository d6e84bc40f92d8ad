"""``git vcontext view`` as a process: text and JSON, filters, --at REV, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.playbook import doc, ev
from helpers.run import REPO_ROOT, run_cli, run_git

EXAMPLES = REPO_ROOT / "tests" / "examples" / "playbook"
CONCURRENT = EXAMPLES / "concurrent-agents" / "document.vcontext.json"


def _view(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    proc = run_cli("view", *args, cwd=cwd)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_text_groups_by_kind_and_marks_concurrent_entries() -> None:
    code, out, err = _view(str(CONCURRENT), "--status", "all")
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[0].startswith("playbook /playbook (items, 7 events): 3 entries")
    assert lines.index("rule (1)") < lines.index("strategy (1)") < lines.index("warning (1)")
    assert "! lock-before-migrate  active  helpful 3  harmful 1" in out
    assert "! 2 heads: evt-003, evt-002 (winner evt-002)" in out
    assert "! concurrent edits of text: evt-003, evt-002" in out
    assert "  quarantine-flaky-tests  active" in out  # no marker
    assert "superseded by quarantine-flaky-tests" in out


def test_text_reports_stored_metrics_that_disagree() -> None:
    _, out, _ = _view(str(CONCURRENT))
    assert "stored metrics disagree with the log" in out
    assert "totalEntries: 2 -> 3" in out


def test_json_has_product_md_shape() -> None:
    code, out, _ = _view(str(CONCURRENT), "--format", "json", "--status", "all")
    assert code == 0
    view = json.loads(out)
    assert {"entries", "anomalies", "path", "kind", "entryCount", "metrics"} <= set(view)
    first = view["entries"][0]
    assert first["targetId"] == "lock-before-migrate"
    assert first["winner"] == "evt-002"
    assert first["conflicts"][0]["field"] == "text"
    assert view["metrics"]["agree"] is False
    assert view["metrics"]["differences"] == [{"key": "totalEntries", "stored": 2, "recomputed": 3}]


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ((), {"lock-before-migrate", "quarantine-flaky-tests"}),
        (
            ("--status", "all"),
            {"lock-before-migrate", "quarantine-flaky-tests", "retry-flaky-tests"},
        ),
        (("--status", "all", "--kind", "warning"), {"retry-flaky-tests"}),
        (
            ("--kind", "rule", "--kind", "strategy"),
            {"lock-before-migrate", "quarantine-flaky-tests"},
        ),
        (("--tag", "database"), {"lock-before-migrate"}),
        (("--status", "all", "--search", "RACES"), {"retry-flaky-tests"}),
        (("--search", "nothing like this"), set()),
    ],
)
def test_filters(args: tuple[str, ...], shown: set[str]) -> None:
    _, out, _ = _view(str(CONCURRENT), "--format", "json", *args)
    view = json.loads(out)
    assert {e["targetId"] for e in view["entries"]} == shown
    assert view["entryCount"] == 3


def test_anomalies_are_listed_and_do_not_fail_the_command() -> None:
    code, out, _ = _view(str(EXAMPLES / "every-anomaly" / "document.vcontext.json"))
    assert code == 0
    assert "anomalies (8)" in out  # was 9: two creations of one target are a note (issue 26)
    assert "dangling-prev: a2: prevEventId 'gone'" in out
    assert "notes (1)\n  append-prev: 2 creation events for one target (d1, d2)" in out


def test_a_file_without_a_playbook_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "todo.vcontext.json"
    path.write_text('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}')
    code, out, err = _view(str(path))
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert "no playbook" in err


@pytest.mark.parametrize(
    ("content", "code", "words"),
    [
        (b'{"playbook": {"items": [}', 1, "invalid JSON"),
        (b"", 1, "empty"),
        (b'{"playbook":\n<<<<<<< ours\n{}\n=======\n[]\n>>>>>>> theirs\n}', 1, "conflict markers"),
        (b"\x00\x01binary", 1, "binary"),
        (b"[" * 5000 + b"]" * 5000, 1, "nesting"),
        (b'{"a": 1, "a": 2}', 1, "duplicate key"),
        (b'{"event_id": "e1"}\n{"event_id": "e2"}\n', 1, "no playbook"),
    ],
)
def test_bad_input_is_one_line_never_a_traceback(
    tmp_path: Path, content: bytes, code: int, words: str
) -> None:
    path = tmp_path / ("log.jsonl" if b"event_id" in content else "bad.vcontext.json")
    path.write_bytes(content)
    proc = run_cli("view", str(path))
    err = proc.stderr.decode()
    assert proc.returncode == code, err
    assert err.count("\n") == 1
    assert words in err
    assert "Traceback" not in err


def test_missing_file_and_directory_exit_3(tmp_path: Path) -> None:
    assert run_cli("view", str(tmp_path / "nope.json")).returncode == 3
    assert run_cli("view", str(tmp_path)).returncode == 3


def test_paths_with_spaces(tmp_path: Path) -> None:
    folder = tmp_path / "my playbooks"
    folder.mkdir()
    shutil.copy(CONCURRENT, folder / "team rules.vcontext.json")
    code, out, _ = _view("team rules.vcontext.json", cwd=folder)
    assert code == 0
    assert "lock-before-migrate" in out


def test_at_rev_reads_the_committed_version(git_repo: Path) -> None:
    path = git_repo / "pb.vcontext.json"
    path.write_text(json.dumps(doc([ev("e1", "t", "append", text="old text")]), indent=2))
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-qm", "v1")
    log = [ev("e1", "t", "append", text="old text"), ev("e2", "t", prev="e1", at=1, text="new")]
    path.write_text(json.dumps(doc(log), indent=2))
    run_git(git_repo, "commit", "-qam", "v2")
    path.write_text("not even json")  # the working tree does not matter with --at
    assert "old text" in _view("pb.vcontext.json", "--at", "HEAD~1", cwd=git_repo)[1]
    assert "      new" in _view(str(path), "--at", "HEAD", cwd=git_repo)[1]
    code, _, err = _view("pb.vcontext.json", "--at", "no-such-rev", cwd=git_repo)
    assert code == 3
    assert "unknown revision" in err


def test_at_rev_outside_a_repository_exits_3(tmp_path: Path) -> None:
    path = tmp_path / "pb.vcontext.json"
    path.write_text(json.dumps(doc([ev("e1", "t", "append")])))
    code, _, err = _view(str(path), "--at", "HEAD")
    assert code == 3
    assert "not a git repository" in err


@pytest.mark.parametrize(
    ("log", "says"),
    [
        (
            {"items": [{"title": "A", "narrative": "x"}, {"title": "B"}]},
            "(items, 2 items in the pre-0.4 form, no event log)",
        ),
        ({"entries": [{"id": "a", "content": "x"}]}, "(entries, 1 ACE entries (seed 002))"),
    ],
)
def test_the_header_names_older_playbook_forms(
    tmp_path: Path, log: dict[str, Any], says: str
) -> None:
    """It printed "(items, 2 items entries)" for the pre-0.4 form."""
    path = tmp_path / "old.vcontext.json"
    path.write_text(json.dumps({"vContextInfo": {"version": "0.3"}, "playbook": log}))
    code, out, _ = _view(str(path))
    assert code == 0
    assert says in out.splitlines()[0]


def test_search_finds_what_a_concurrent_head_says_that_the_winner_does_not(
    tmp_path: Path,
) -> None:
    """Playbook view: an entry whose heads disagree is found by the words of any open head,
    as the MCP server's vbrief_query_playbook finds it (one judgement, playbook/render)."""
    events = [
        ev("e1", "retries", "append", at=0, text="Retry failed calls."),
        ev("e2", "retries", "update", prev="e1", at=2, text="Retry with exponential backoff."),
        ev("e3", "retries", "update", prev="e1", at=1, text="Retry behind a circuit breaker."),
    ]
    path = tmp_path / "playbook.vcontext.json"
    path.write_text(json.dumps(doc(events)))
    for words in ("circuit", "exponential"):
        code, out, _ = _view(str(path), "--search", words, "--format", "json")
        assert code == 0
        assert [e["targetId"] for e in json.loads(out)["entries"]] == ["retries"], words
    code, out, _ = _view(str(path), "--search", "nothing like this", "--format", "json")
    assert json.loads(out)["entries"] == []
