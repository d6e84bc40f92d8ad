"""``git vcontext view --format dot|mermaid`` as a process (PRODUCT.md, command-line contract).

Pictures piped into the real ``dot``; options (--target, --all, --status) and bad input:
exit codes and one-line messages, never a traceback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers.pictures import (
    HOSTILE_IDS,
    check_mermaid_rules,
    dot_path,
    drawn_nodes,
    hostile_document,
    render_json,
)
from helpers.playbook import doc, ev
from helpers.run import REPO_ROOT, run_cli, run_git

EXAMPLES = REPO_ROOT / "tests" / "examples" / "playbook"
CONCURRENT = EXAMPLES / "concurrent-agents" / "document.vcontext.json"


def _view(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> tuple[int, str, str]:
    proc = run_cli("view", *args, cwd=cwd, input=stdin)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _events(dot_text: str) -> list[str]:
    return [n.lines[0] for n in drawn_nodes(render_json(dot_text)) if "event" in n.classes]


def test_view_dot_pipes_into_graphviz_and_draws_every_status() -> None:
    code, out, err = _view(str(CONCURRENT), "--format", "dot")
    assert (code, err) == (0, "")
    assert out.startswith('digraph "playbook" {')
    assert len(_events(out)) == 7  # evt-010..012 of a deprecated entry included
    png = subprocess.run([dot_path(), "-Tpng"], input=out.encode(), capture_output=True)
    assert png.returncode == 0
    assert png.stdout.startswith(b"\x89PNG")


def test_view_mermaid_is_a_flowchart_following_the_rules() -> None:
    code, out, err = _view(str(CONCURRENT), "--format", "mermaid")
    assert (code, err) == (0, "")
    check_mermaid_rules(out)
    assert out.count("subgraph ") == 3


def test_view_target_draws_only_the_named_targets_and_status_still_filters() -> None:
    code, out, _ = _view(
        str(CONCURRENT), "--format", "dot", "--target", "retry-flaky-tests", "--target", "x"
    )
    assert code == 1  # x is no target
    code, out, _ = _view(str(CONCURRENT), "--format", "dot", "--target", "retry-flaky-tests")
    assert code == 0
    assert sorted(_events(out)) == ["evt-010", "evt-012 (head)", "★ evt-011 (wins)"]
    code, out, _ = _view(str(CONCURRENT), "--format", "dot", "--status", "active")
    assert code == 0
    assert len(_events(out)) == 4  # the deprecated entry's events are left out


def test_view_target_works_for_text_and_json_and_names_close_ids() -> None:
    code, out, _ = _view(str(CONCURRENT), "--format", "json", "--target", "retry-flaky-tests")
    assert code == 0  # deprecated, shown: named explicitly
    assert [e["targetId"] for e in json.loads(out)["entries"]] == ["retry-flaky-tests"]
    code, out, err = _view(str(CONCURRENT), "--target", "retry-flaky-test")
    assert code == 1
    assert out == ""
    assert err.strip() == (
        "git-vcontext: error: no target 'retry-flaky-test' in this playbook "
        "(closest: retry-flaky-tests, quarantine-flaky-tests)"
    )


def test_view_all_is_for_pictures_only() -> None:
    code, out, err = _view(str(CONCURRENT), "--all")
    assert code == 2
    assert out == ""
    assert "--format dot|mermaid" in err
    assert "Traceback" not in err


def test_view_all_draws_every_target_of_a_large_playbook(tmp_path: Path) -> None:
    events = [ev(f"e{i}", f"t{i:02d}", "append", at=i) for i in range(20)]
    events.append(ev("e99", "t05", "update", "e5", at=30))
    events.append(ev("e98", "t05", "update", "e5", at=31))
    path = tmp_path / "big.vcontext.json"
    path.write_text(json.dumps(doc(events)))
    _, out, _ = _view(str(path), "--format", "dot")
    assert sorted(_events(out)) == ["e5", "e99 (head)", "★ e98 (wins)"]  # later wins
    assert "1 of 20 targets drawn" in out
    _, out, _ = _view(str(path), "--format", "dot", "--all")
    assert len(_events(out)) == 22
    named = [a for i in range(13) for a in ("--target", f"t{i:02d}")]
    _, out, _ = _view(str(path), "--format", "dot", *named)
    assert len(_events(out)) == 15  # targets named are drawn, however many


def test_view_pictures_of_a_tron_file_from_stdin_and_at_a_revision(git_repo: Path) -> None:
    tron = run_cli("convert", str(CONCURRENT), "--to", "tron").stdout
    code, out, _ = _view("-", "--format", "dot", stdin=tron)
    assert code == 0
    assert len(_events(out)) == 7
    (git_repo / "p b.vcontext.tron").write_bytes(tron)
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-qm", "playbook")
    (git_repo / "p b.vcontext.tron").write_text("broken")
    code, out, _ = _view("p b.vcontext.tron", "--format", "mermaid", "--at", "HEAD", cwd=git_repo)
    assert code == 0
    check_mermaid_rules(out)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}', "no playbook"),
        (b'{"playbook": {"items": [', "x.vcontext.json:1:"),
        (b"<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n", "x.vcontext.json:1:"),
        (b"", "x.vcontext.json"),
    ],
)
def test_view_pictures_of_bad_input_exit_1_with_one_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "x.vcontext.json"
    path.write_bytes(content)
    for fmt in ("dot", "mermaid"):
        code, out, err = _view(str(path), "--format", fmt)
        assert code == 1, err
        assert out == "", err
        assert message in err, err
        assert len(err.strip().splitlines()) == 1
        assert "Traceback" not in err


def test_view_picture_of_an_ace_playbook_says_there_is_no_event_log() -> None:
    code, out, err = _view(
        str(EXAMPLES / "ace-in-a-plan" / "document.vcontext.json"), "--format", "dot"
    )
    assert code == 1
    assert out == ""
    assert "holds ACE entries (seed 002): no event graph to draw" in err


def test_view_pictures_of_hostile_ids_render(tmp_path: Path) -> None:
    path = tmp_path / 'hostile [1] "x".vcontext.json'
    path.write_text(json.dumps(hostile_document()))
    code, out, err = _view(str(path), "--format", "dot", "--all")
    assert (code, err) == (0, "")
    assert len(_events(out)) == 3 * len(HOSTILE_IDS) + 2  # the dangling one, the copy
    code, out, err = _view(str(path), "--format", "mermaid", "--all")
    assert (code, err) == (0, "")
    check_mermaid_rules(out)


def test_view_mermaid_too_big_for_renderers_says_so_on_stderr(tmp_path: Path) -> None:
    events = [ev("e0", "t", "append")]
    events += [ev(f"e{i}", "t", "update", f"e{i - 1}", at=i) for i in range(1, 600)]
    path = tmp_path / "long.vcontext.json"
    path.write_text(json.dumps(doc(events)))
    code, out, err = _view(str(path), "--format", "mermaid")
    assert code == 0
    assert out.startswith("flowchart LR")
    assert err.startswith("git-vcontext: warning: this diagram has ")
    assert "draw fewer targets or use dot" in err
    code, _, err = _view(str(path), "--format", "dot")
    assert code == 0
    assert err == ""
