"""A growing playbook merged by real git through the installed driver (issue 32; M6, M16).

Both branches append events to the log that ends the document: the driver reads the sides
by splicing (codecs.json_splice). The merged file must be the bytes the full path writes
for the same three versions, and valid.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from git_vcontext.codecs import json_splice
from git_vcontext.merging import files
from helpers.merging import merge_files
from helpers.run import run_cli, run_git

PLAYBOOK = "memory/playbook.vcontext.json"


def _event(n: int, side: str, month: int) -> dict[str, Any]:
    return {
        "eventId": f"evt-{side}-{n:03d}",
        "targetId": f"entry-{side}-{n}",
        "operation": "append",
        "kind": "learning",
        "narrative": {"Overview": f"Lesson {n} from {side}."},
        "createdAt": f"2025-{month:02d}-0{1 + n % 9}T10:00:00Z",
    }


def _write(repo: Path, events: list[dict[str, Any]]) -> None:
    doc = {
        "vContextInfo": {"version": "0.4"},
        "playbook": {"version": 1, "created": "2025-01-01T00:00:00Z", "items": events},
    }
    path = repo / PLAYBOOK
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def _blob(repo: Path, rev: str) -> bytes:
    out = run_git(repo, "show", f"{rev}:{PLAYBOOK}").stdout
    return out.encode()


def test_m6_both_branches_append_events_merge_as_the_full_path_writes(git_repo: Path) -> None:
    repo = git_repo
    assert run_cli("install", cwd=repo).returncode == 0
    base = [_event(n, "base", 1 + n % 12) for n in range(30)]
    _write(repo, base)
    _commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "agent-a")
    _write(repo, base + [_event(n, "a", 1 + (n * 5) % 12) for n in range(3)])
    _commit(repo, "agent a learns")
    run_git(repo, "checkout", "-q", "main")
    _write(repo, base + [_event(n, "b", 1 + (n * 7) % 12) for n in range(4)])
    _commit(repo, "agent b learns")
    sides = [_blob(repo, rev) for rev in ("main~1", "main", "agent-a")]
    _, logs = json_splice.splices(sides[0])  # what the driver will find: both sides spliced
    assert logs
    assert all(logs[0].side(side) is not None for side in sides[1:])

    merged = run_git(repo, "merge", "-q", "--no-edit", "agent-a", check=False)

    assert merged.returncode == 0, merged.stderr
    real = files._spliced
    files._spliced = lambda inputs, fmt: (None, None, None)  # type: ignore[assignment]
    try:
        full = merge_files(*sides, path="playbook.vcontext.json")
    finally:
        files._spliced = real
    assert full.clean
    assert (repo / PLAYBOOK).read_bytes() == full.output
    events = json.loads(full.output)["playbook"]["items"]
    assert len(events) == 30 + 3 + 4
    assert run_cli("validate", PLAYBOOK, cwd=repo).returncode == 0
