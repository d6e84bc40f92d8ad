"""``git vcontext demo``: the README's first command runs the whole product end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import run_cli

TODO = ".vcontext/todo.vcontext.json"


def _show(repo: Path, rev: str, path: str) -> dict:
    out = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=True
    ).stdout
    return json.loads(out)


def test_demo_merges_diffs_validates_and_syncs_two_agents(tmp_path: Path) -> None:
    proc = run_cli("demo", "--dir", str(tmp_path))
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Traceback" not in out + proc.stderr.decode()
    (repo,) = list(tmp_path.iterdir())

    # M3: the merge of alice and bob (HEAD of main before erin) holds every item of both.
    merged = _show(repo, "main~2", TODO)["todoList"]  # before "main: t2 completed" and sync
    assert [i["id"] for i in merged["items"]] == ["t1", "t2", "t3", "t4", "t5"]
    # Structural diff, validation (clean then located findings), the one-field conflict.
    assert "todoList.items[t2].status: pending → inProgress" in out
    assert "[dependency-missing]" in out and "(exit 1)" in out
    assert '"status": "blocked"' in out and '"status": "completed"' in out

    # M11 and the workflow: main has erin's item and no fork block; erin's fork is merged.
    main = _show(repo, "main", TODO)["todoList"]
    erin = _show(repo, "agents/erin", TODO)["todoList"]
    assert [i["id"] for i in main["items"]][-1] == "t6" and "fork" not in main
    assert erin["fork"]["mergeStatus"] == "merged"
    assert {k: v for k, v in erin.items() if k != "fork"} == main


def test_demo_dir_must_exist_nothing_is_created_for_a_typo(tmp_path: Path) -> None:
    """`demo --dir` created missing parents silently (a typo left a tree of folders)."""
    missing = tmp_path / "typo" / "deeper"
    proc = run_cli("demo", "--dir", str(missing))
    assert proc.returncode == 3
    assert proc.stderr.decode() == (
        f"git-vcontext: error: --dir {missing}: no such directory (create it first)\n"
    )
    assert not (tmp_path / "typo").exists()
    a_file = tmp_path / "file"
    a_file.write_text("")
    proc = run_cli("demo", "--dir", str(a_file))
    assert proc.returncode == 3 and b"is not a directory" in proc.stderr
