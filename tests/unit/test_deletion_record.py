"""The guard's record of deleted refs (issue 28 point 5): two pushes writing it at once lose
neither's deletions, and the guard's record evicts nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from git_vcontext.gitio.outgoing import RefUpdate
from git_vcontext.prepush.remotepast import KEEP, remember_deletions_in

WRITER = """
import sys
from git_vcontext.gitio.outgoing import RefUpdate
from git_vcontext.prepush.remotepast import remember_deletions_in
common, name = sys.argv[1], sys.argv[2]
for n in range(40):
    sha = f"{n + 1:040x}"
    deletion = RefUpdate("(delete)", "0" * 40, f"refs/heads/{name}/{n}", sha)
    remember_deletions_in(common, "(server)", [deletion], limit=None)
"""


def _deletion(ref: str, n: int) -> RefUpdate:
    return RefUpdate("(delete)", "0" * 40, ref, f"{n + 1:040x}")


def test_two_guards_writing_the_record_at_once_lose_no_deletion(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name]) for name in ("a", "b")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    record = json.loads((tmp_path / "vcontext" / "deleted-refs.json").read_text())["(server)"]
    assert len(record) == 80


def test_the_guards_record_keeps_every_deletion_a_clones_keeps_the_latest(tmp_path: Path) -> None:
    many = [_deletion(f"refs/heads/f/{n}", n) for n in range(KEEP + 50)]
    remember_deletions_in(str(tmp_path), "(server)", many, limit=None)
    remember_deletions_in(str(tmp_path), "origin", many)
    record = json.loads((tmp_path / "vcontext" / "deleted-refs.json").read_text())
    assert len(record["(server)"]) == KEEP + 50
    assert len(record["origin"]) == KEEP
