"""Playbooks written in TRON (the seeds' own examples): view, playbook update, ace apply."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.run import run_cli

pytest.importorskip("git_vcontext.codecs.tron", reason="the TRON codec is not on this branch yet")

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _tron_block(shared: Path, seed: str, needle: str) -> str:
    path = next((shared / "seeds").glob(f"{seed}_*.txt"))
    blocks = re.findall(r"```tron\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return next(b for b in blocks if needle in b)


def test_update_of_the_seed_000_a3_playbook_reuses_its_class(
    shared_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "reliability.vcontext.tron"
    path.write_text(_tron_block(shared_dir, "000", "pb-rollback-drill"))
    proc = run_cli(
        "playbook",
        "update",
        str(path),
        "--target",
        "pb-rollback-drill",
        "--delta",
        "helpfulCount=+1",
        "--reason",
        "drill found a gap",
        env=EPOCH,
    )
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    assert "class PlaybookItem2" not in text
    assert text.count("PlaybookItem(") == 5
    assert 'Metrics(3, 0.9, "2026-01-01T00:00:00Z")' in text
    view = json.loads(run_cli("view", str(path), "--format", "json").stdout)
    drill = next(e for e in view["entries"] if e["targetId"] == "pb-rollback-drill")
    assert drill["helpfulCount"] == 1
    assert view["metrics"]["agree"] is True


def test_ace_apply_to_the_seed_002_tron_plan(shared_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "patterns.vcontext.tron"
    doc.write_text(_tron_block(shared_dir, "002", "PlaybookEntry"))
    patch = {
        "operations": [
            {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}}
        ]
    }
    (tmp_path / "patch.json").write_text(json.dumps(patch))
    proc = run_cli("ace", "apply", str(tmp_path / "patch.json"), str(doc), env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    assert doc.read_text().startswith("class vAgendaInfo: version")
    view = json.loads(run_cli("view", str(doc), "--format", "json").stdout)
    assert view["entries"][0]["helpfulCount"] == 13
