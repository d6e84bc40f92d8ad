"""``diff --format markdown`` embeds a mermaid picture per playbook target whose heads changed.

A pull-request comment then shows the new branch of a chain (GitHub and GitLab draw
fenced ``mermaid`` blocks). A head that only moves along its chain gets no picture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import run_cli, run_git
from git_vcontext.pictures.labels import ident
from pictures_helpers import check_mermaid_rules, mermaid_labels, mermaid_parser
from playbook_helpers import doc, ev

BASE = [
    ev("e1", "retry", "append", at=0, text="Retry once"),
    ev("e2", "retry", "update", "e1", at=1, delta={"helpfulCount": 1}),
    ev("k1", "keep", "append", at=2, text="Unrelated"),
]
BRANCHED = [*BASE, ev("e3", "retry", "update", "e1", at=3, text="Retry twice")]
MOVED_ALONG = [*BASE, ev("e3", "retry", "update", "e2", at=3, text="Retry twice")]


def _diff(tmp_path: Path, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> str:
    a, b = tmp_path / "old.vcontext.json", tmp_path / "new.vcontext.json"
    a.write_text(json.dumps(doc(old), indent=2))
    b.write_text(json.dumps(doc(new), indent=2))
    proc = run_cli("diff", "--format", "markdown", str(a), str(b))
    assert proc.returncode == 0 and proc.stderr == b""
    return proc.stdout.decode()


def _blocks(markdown: str) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)```", markdown, re.S)


def test_markdown_diff_draws_the_target_whose_chain_branched(tmp_path: Path) -> None:
    out = _diff(tmp_path, BASE, BRANCHED)
    [block] = _blocks(out)
    assert "**`playbook[retry]`**: 2 heads, e3 shown" in out
    check_mermaid_rules(block)
    firsts = [lines[0] for lines in mermaid_labels(block)]
    assert firsts == [
        "retry — rule · active · 2 heads, e3 wins",
        "e1",
        "e2 (head)",
        "+ ★ e3 (wins)",
    ]
    assert "class e2 event_new_winner_head" in block  # the new event, marked as such
    assert out.index("concurrent updates") < out.index("```mermaid")  # after the changes


def test_markdown_diff_draws_nothing_when_a_head_moves_along(tmp_path: Path) -> None:
    out = _diff(tmp_path, BASE, MOVED_ALONG)
    assert "playbook.items[e3]" in out and _blocks(out) == []


def test_markdown_diff_draws_an_added_playbook_with_a_branch(tmp_path: Path) -> None:
    b = tmp_path / "new.vcontext.json"
    b.write_text(json.dumps(doc(BRANCHED)))
    proc = run_cli("diff", "--format", "markdown", "/dev/null", str(b))
    assert proc.returncode == 0
    [block] = _blocks(proc.stdout.decode())
    assert "+ e1" in block.replace("#43;", "+")  # every event of a new file is new


def test_markdown_diff_of_revisions_draws_branches_and_mermaid_parses_them(
    git_repo: Path,
) -> None:
    path = git_repo / "play book.vcontext.json"
    path.write_text(json.dumps(doc(BASE), indent=2))
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-qm", "base")
    hostile = 'x"]; click e0 call alert(1) %%{init:{}}%% #1'
    events = [*BRANCHED, ev(hostile, "retry", "update", "e2", at=4, text="<img src=x>")]
    path.write_text(json.dumps(doc(events), indent=2))
    run_git(git_repo, "commit", "-qam", "two agents")

    proc = run_cli("diff", "HEAD~1", "HEAD", "--format", "markdown", cwd=git_repo)

    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    [block] = _blocks(out)
    check_mermaid_rules(block)
    firsts = [lines[0] for lines in mermaid_labels(block)]
    assert firsts[1:] == ["e1", "e2", "+ e3 (head)", f"+ ★ {ident(hostile)} (wins)"]
    [result] = mermaid_parser()([block])
    assert result["ok"], result


def test_markdown_diff_limits_pictures_per_file(tmp_path: Path) -> None:
    old, new = [], []
    for i in range(13):
        base = [ev(f"a{i}", f"t{i:02d}", "append", at=i)]
        old += base
        new += [
            *base,
            ev(f"b{i}", f"t{i:02d}", "update", f"a{i}", 20),
            ev(f"c{i}", f"t{i:02d}", "update", f"a{i}", 21),
        ]
    out = _diff(tmp_path, old, new)
    assert len(_blocks(out)) == 10
    assert out.rstrip().endswith("_3 more target(s) with changed heads are not drawn._")


def test_text_and_json_diffs_draw_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "old.vcontext.json", tmp_path / "new.vcontext.json"
    a.write_text(json.dumps(doc(BASE)))
    b.write_text(json.dumps(doc(BRANCHED)))
    for fmt in ("text", "json"):
        out = run_cli("diff", "--format", fmt, str(a), str(b)).stdout.decode()
        assert "mermaid" not in out and "flowchart" not in out
